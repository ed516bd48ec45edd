// `npm test`: build dist/, then the type check of the tests and the linter (one core each, one
// after the other) while `vc circuits build` builds the circuits and the native prover on the other
// core (cached per user: a no-op when nothing changed); then the unit projects of vitest, which need
// no circuits, on the core the checks leave (beside the rest of the build); and the integration
// project as soon as the circuits are built, whose global setup then finds them. Prints each phase's time.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const started = performance.now();
const seconds = (since) => `${Math.round((performance.now() - since) / 1000)} s`;

/**
 * Runs a command; resolves to its exit code. `capture` keeps its output to show only on failure;
 * `group` runs it in a process group of its own, whose pid `onStart` receives (to stop it whole).
 */
function run(command, args, { capture = false, group = false, onStart = () => undefined } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', detached: group });
    if (child.pid !== undefined) onStart(child.pid);
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.once('error', (error) => resolve({ code: 127, output: `${output}${error.message}\n` }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal === null ? 1 : 128), output }));
  });
}

// The circuits build, while it runs beside the checks: its process group (vc, circom, g++) and its
// home, stopped and removed when this run ends early (a failed check, Ctrl-C), not left running.
let circuitsGroup;
let circuitsHome;
function stopCircuits() {
  if (circuitsGroup !== undefined) {
    try {
      process.kill(-circuitsGroup, 'SIGTERM');
    } catch {
      // already gone
    }
    circuitsGroup = undefined;
  }
  if (circuitsHome !== undefined) rmSync(circuitsHome, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    stopCircuits();
    process.stderr.write(`[test] stopped (${signal})\n`);
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}

async function step(name, command, args) {
  const since = performance.now();
  // The output is the command's own (inherited), or why it could not start (a missing binary).
  const { code, output } = await run(command, args);
  process.stderr.write(`${output}[test] ${name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds(since)}\n`);
  if (code !== 0) {
    stopCircuits();
    process.exit(code);
  }
}

await step('tsc (src)', bin('tsc'), ['-p', 'tsconfig.json']);

// The circuits, beside the checks below. Its own throwaway home: it needs no wallet.
const home = mkdtempSync(path.join(tmpdir(), 'vc-test-circuits-'));
circuitsHome = home;
const buildStarted = performance.now();
// With the on-demand circuits the integration tests prove with (V3 on chain, iden3comm): built here,
// their compiles share the cores with the checks and the unit tests, instead of integration tests
// waiting for them with a core idle; and the template home's chain gets their verifiers at once.
const ON_DEMAND_IN_TESTS = ['credentialAtomicQueryV3OnChain-16-16-64-16-32', 'authV2', 'credentialAtomicQueryV3-16-16-64', 'authV3-8-32'];
const circuitsArgs = [path.join(root, 'dist', 'bin', 'vc.js'), '--home', home, 'circuits', 'build', '--circuit', ON_DEMAND_IN_TESTS.join(',')];
const circuits = run(process.execPath, circuitsArgs, { capture: true, group: true, onStart: (pid) => (circuitsGroup = pid) }).then((result) => {
  circuitsGroup = undefined;
  rmSync(home, { recursive: true, force: true });
  process.stderr.write(`[test] vc circuits build: ${result.code === 0 ? 'ok' : `failed (exit ${result.code})`} in ${seconds(buildStarted)}\n`);
  return result;
});

await step('tsc (tests)', bin('tsc'), ['-p', 'tsconfig.test.json']);
await step('eslint', bin('eslint'), ['--max-warnings', '0', '.']);
// The unit projects need no circuits: they start now, beside the rest of the build (their report is
// printed whole when they end); the integration project starts as soon as the circuits are built,
// beside the unit projects' last files, so neither core waits for the other run's tail.
const unitStarted = performance.now();
const unit = run(bin('vitest'), ['run', '--project', 'unit*'], { capture: true }).then((result) => {
  process.stderr.write(`${result.output}[test] vitest (unit): ${result.code === 0 ? 'ok' : `failed (exit ${result.code})`} in ${seconds(unitStarted)}\n`);
  return result;
});
const built = await circuits;
if (built.code !== 0) {
  process.stderr.write(built.output);
  process.exit(built.code);
}

const vitestStarted = performance.now();
const [unitResult, integration] = await Promise.all([unit, run(bin('vitest'), ['run', '--project', 'integration'])]);
process.stderr.write(`${integration.output}[test] vitest (integration): ${integration.code === 0 ? 'ok' : `failed (exit ${integration.code})`} in ${seconds(vitestStarted)}; npm test ${seconds(started)}\n`);
process.exit(unitResult.code !== 0 ? unitResult.code : integration.code);
