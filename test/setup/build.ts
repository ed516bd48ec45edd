/**
 * Global setup of every test run: compiles src/ to dist/ incrementally before any test starts, so
 * the tests that spawn the `vc` binary or a worker thread (which run JavaScript from dist/) always
 * run the sources as they are now, never the last build. A no-op build takes a second or two.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export default function buildDist(): void {
  // Both projects list this setup; one build per run is enough.
  if (process.env.VC_TEST_DIST_BUILT === String(process.pid)) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const started = performance.now();
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    // tsc emits even with type errors; the tests may still run, but the errors must be seen.
    process.stderr.write(`\n[test setup] tsc reported errors (dist/ was still written):\n${result.stdout}${result.stderr}\n`);
    if (result.status === null || result.error !== undefined) throw new Error(`tsc did not run: ${String(result.error ?? result.signal)}`);
  }
  process.env.VC_TEST_DIST_BUILT = String(process.pid);
  process.stderr.write(`[test setup] dist/ built incrementally in ${Math.round(performance.now() - started)} ms\n`);
}
