/**
 * Embedded nodes that keep no secret and clean up after themselves: the detached node (and its
 * idle watchdog) inherit no secret of the command that started them and write 0600 files; a node
 * unused for VC_CHAIN_IDLE_MINUTES stops itself with its state saved, unless `vc chain up` keeps it;
 * `vc chain ps` lists the nodes of every home.
 */
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonRpcCall } from '../../src/chain/jsonRpc.js';
import { isProcessAlive } from '../../src/chain/node/process.js';
import { runVc, runVcInProcess, tempDir, templateHome } from '../helpers.js';

const tmp = tempDir('vc-node-hygiene-');
const homes: string[] = [];
function home(name: string): string {
  const dir = templateHome(path.join(tmp.dir, name));
  homes.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of homes) await runVcInProcess(['--json', 'chain', 'down'], { home: dir });
  tmp.cleanup();
});

interface Status {
  blockNumber: number;
  rpcUrl: string;
  node: { pid: number; port: number; started: boolean; recovered: boolean; stateDir: string };
}

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The watchdog processes watching `pid`. */
function watchdogsOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => {
      try {
        const args = readFileSync(`/proc/${candidate}/cmdline`, 'utf8').split('\0');
        const i = args.findIndex((arg) => arg.endsWith('watchdog.js'));
        return i >= 0 && (JSON.parse(args[i + 1]!) as { pid: number }).pid === pid;
      } catch {
        return false;
      }
    });
}

const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8);

describe('the detached node keeps no secret', () => {
  const secrets = {
    WALLET_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    IDP_BLS_SIGN_SEED_PHRASE: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    VC_API_TOKEN: 'api-token-Yq3-never-in-the-node',
  };

  it('starts the node and its watchdog with a scrubbed environment, and every state file is 0600', async () => {
    const dir = home('secrets');
    const stateDir = path.join(dir, 'chain', '152');
    // Files of an older vc, readable by others: made private at the next start.
    for (const file of readdirSync(stateDir)) chmodSync(path.join(stateDir, file), 0o644);
    const run = runVc(['--json', 'chain', 'status'], { home: dir, env: secrets });
    expect(run.status, run.stderr).toBe(0);
    const { node } = run.json<Status>();
    expect(node.started).toBe(true);
    const watchdogs = watchdogsOf(node.pid);
    expect(watchdogs).toHaveLength(1);
    for (const pid of [node.pid, ...watchdogs]) {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      for (const [name, value] of Object.entries(secrets)) {
        expect(environ).not.toContain(value);
        expect(environ).not.toContain(`${name}=`);
      }
    }
    // anvil's own dump (every 5 s) is created by anvil itself: under the umask vc gives it.
    const anvilDump = path.join(stateDir, 'autosave.anvil.json');
    await until(() => existsSync(anvilDump), "anvil's own state dump");
    expect(mode(anvilDump)).toBe('600');
    for (const file of ['state.json', 'autosave.json', 'anvil.log', 'last-used', 'watchdog.log']) expect(mode(path.join(stateDir, file)), file).toBe('600');
    const down = runVc(['--json', 'chain', 'down'], { home: dir });
    expect(down.status, down.stderr).toBe(0);
    // The dump anvil wrote on exit, promoted to autosave.json, and the checkpoint.
    for (const file of readdirSync(stateDir)) expect(mode(path.join(stateDir, file)), file).toBe('600');
    expect(existsSync(path.join(stateDir, 'autosave.json'))).toBe(true);
  }, 180_000);
});

// The commands run in this process (runVcInProcess): the node and its watchdog are detached
// processes either way; the environment they inherit is the test above's, through the binary.
describe('idle shutdown and vc chain ps', () => {
  it('lists the nodes of two homes; stops the idle one with its state saved, keeps the one `chain up` keeps', async () => {
    const idle = home('idle');
    const kept = home('kept');
    // Half a minute (polled every 3 s): the test ages the marks instead of waiting that long.
    const env = { VC_CHAIN_IDLE_MINUTES: '0.5' };
    const first = await runVcInProcess(['--json', 'chain', 'status'], { home: idle, env });
    expect(first.status, first.stderr).toBe(0);
    const up = await runVcInProcess(['--json', 'chain', 'up'], { home: kept, env });
    expect(up.status, up.stderr).toBe(0);
    const idleNode = first.json<Status>().node;
    const keptNode = up.json<Status>().node;

    const ps = await runVcInProcess(['--json', 'chain', 'ps']);
    expect(ps.status, ps.stderr).toBe(0);
    const listed = ps.json<{ nodes: Array<{ home: string; pid: number; port: number; chainId: number; keptUp: boolean; idleLimitMinutes: number | null; idleSeconds: number; startedAt: string }> }>().nodes;
    const idleEntry = listed.find((node) => node.home === idle);
    const keptEntry = listed.find((node) => node.home === kept);
    expect(idleEntry).toMatchObject({ pid: idleNode.pid, port: idleNode.port, chainId: 152, keptUp: false, idleLimitMinutes: 0.5 });
    expect(keptEntry).toMatchObject({ pid: keptNode.pid, port: keptNode.port, chainId: 152, keptUp: true, idleLimitMinutes: null });
    expect(Number.isNaN(Date.parse(idleEntry!.startedAt))).toBe(false);
    expect(idleEntry!.idleSeconds).toBeGreaterThanOrEqual(0);
    const table = await runVcInProcess(['chain', 'ps']);
    expect(table.stdout).toMatch(/^HOME\s+CHAIN\s+PORT\s+PID\s+STARTED\s+IDLE\s+STOPS WHEN IDLE$/m);
    expect(table.stdout).toContain(`${idle} `);
    expect(table.stdout).toMatch(new RegExp(`${kept}\\s+152\\s+${keptNode.port}\\s+${keptNode.pid}\\s.*never$`, 'm'));

    // A block made behind vc's back (no checkpoint by vc): the idle stop must save it.
    await jsonRpcCall(first.json<Status>().rpcUrl, 'evm_mine', []);
    const mined = first.json<Status>().blockNumber + 1;
    // Both unused for an hour, as far as their marks tell.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const node of [idleNode, keptNode]) utimesSync(path.join(node.stateDir, 'last-used'), anHourAgo, anHourAgo);
    const aged = Date.now();
    await until(() => !isProcessAlive(idleNode.pid), 'the idle node to stop');
    // The watchdog writes its line once the stop is complete (state saved), after the node is gone.
    const watchdogLog = path.join(idleNode.stateDir, 'watchdog.log');
    await until(() => readFileSync(watchdogLog, 'utf8') !== '', 'the watchdog to report the stop');
    expect(readFileSync(watchdogLog, 'utf8')).toMatch(/stopped the node \(pid \d+\) after 30 s without use, state saved/);
    // The watchdog of the kept node looked at least twice since its mark was aged (it polls every
    // 3 s): 6.5 s after the aging, of which the idle node's stop took some.
    await sleep(Math.max(0, aged + 6_500 - Date.now()));
    expect(isProcessAlive(keptNode.pid)).toBe(true);
    expect((await runVcInProcess(['--json', 'chain', 'ps'])).json<{ nodes: Array<{ home: string }> }>().nodes.map((node) => node.home)).not.toContain(idle);

    // The next command restarts it from the saved state, as after `vc chain down` (no crash reported).
    const again = await runVcInProcess(['--json', 'chain', 'status'], { home: idle, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.json<Status>().node).toMatchObject({ started: true, recovered: false });
    expect(again.json<Status>().blockNumber).toBe(mined);
    expect(again.stderr).not.toMatch(/gone|killed|crashed/);

    // `vc chain down` ends the keep-up: the flag is gone, and the next node stops when idle again.
    expect((await runVcInProcess(['--json', 'chain', 'down'], { home: kept })).status).toBe(0);
    expect(existsSync(path.join(keptNode.stateDir, 'keep-up'))).toBe(false);
    const restarted = await runVcInProcess(['--json', 'chain', 'status'], { home: kept, env });
    expect(restarted.status, restarted.stderr).toBe(0);
    const restartedNode = restarted.json<Status>().node;
    utimesSync(path.join(restartedNode.stateDir, 'last-used'), anHourAgo, anHourAgo);
    await until(() => !isProcessAlive(restartedNode.pid), 'the node no longer kept up to stop');
  }, 300_000);

  it('VC_CHAIN_IDLE_MINUTES=0: no watchdog, the node stays until chain down', async () => {
    const dir = home('never');
    const run = await runVcInProcess(['--json', 'chain', 'status'], { home: dir, env: { VC_CHAIN_IDLE_MINUTES: '0' } });
    expect(run.status, run.stderr).toBe(0);
    expect(watchdogsOf(run.json<Status>().node.pid)).toEqual([]);
    const bad = await runVcInProcess(['--json', 'chain', 'ps'], { env: { VC_CHAIN_IDLE_MINUTES: 'soon' } });
    expect(bad.status).toBe(3);
    expect(bad.stderr).toContain('VC_CHAIN_IDLE_MINUTES=\\"soon\\": expected a number of minutes');
  }, 120_000);
});
