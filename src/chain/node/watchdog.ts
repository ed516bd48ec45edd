/**
 * The idle watchdog of an embedded node: a small detached Node process started beside each node
 * (when VC_CHAIN_IDLE_MINUTES is not 0), so nodes do not pile up, one per wallet home, for ever.
 * It watches the node's "last used" mark (touched by every vc command that uses the node) and,
 * once it is older than the idle time, stops the node as `vc chain down` does: under the 'chain'
 * lock, state saved first (checkpoint, then anvil's own dump on exit), record removed; the next
 * command restarts it from that state. While `vc chain up`'s keep-up flag exists it never stops
 * it. It ends with its node (stopped, killed or replaced by another).
 *
 * Run as `node watchdog.js '<json WatchdogArgs>'` with the scrubbed environment of ./process.ts:
 * it needs no secret (it never signs), only the home and chain.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../errors.js';
import { isKeptUp, lastNodeUse } from './nodeRecord.js';
import { isLocalNodeProcess } from './process.js';

export interface WatchdogArgs {
  home: string;
  chainId: number;
  /** `<blockchain>:<network>`: the configuration of a chain id vc does not know needs it. */
  networkName: string;
  /** The node watched. */
  pid: number;
  stateDir: string;
  idleMs: number;
}

/**
 * How often the node and its mark are looked at: a tenth of the idle time, between 1 s and 5 s
 * (a look is a few stat calls; a watchdog outlives a stopped node by at most that long).
 */
export function pollInterval(idleMs: number): number {
  return Math.min(5_000, Math.max(1_000, Math.round(idleMs / 10)));
}

async function watch(args: WatchdogArgs): Promise<void> {
  const started = new Date();
  const node = { pid: args.pid, stateDir: args.stateDir };
  for (;;) {
    await sleep(pollInterval(args.idleMs));
    if (!isLocalNodeProcess(node)) return;
    if (isKeptUp(args.stateDir)) continue;
    const last = lastNodeUse(args.stateDir) ?? started;
    if (Date.now() - last.getTime() < args.idleMs) continue;
    // Loaded only now: a watchdog waits for hours, light (no store, no SQLite).
    const [{ parseConfig }, { Context }, { stopIdleNode }] = await Promise.all([import('../../config/parse.js'), import('../../context.js'), import('./lifecycle.js')]);
    const ctx = new Context({ config: parseConfig({ CHAIN_ID: String(args.chainId), NETWORK_NAME: args.networkName }, args.home) });
    try {
      const { stopped } = await stopIdleNode(ctx, args);
      if (stopped) {
        process.stderr.write(`${new Date().toISOString()} stopped the node (pid ${args.pid}) after ${Math.round(args.idleMs / 1000)} s without use, state saved\n`);
        return;
      }
    } catch (error) {
      process.stderr.write(`${new Date().toISOString()} could not stop the idle node (pid ${args.pid}): ${describeError(error)}\n`);
    } finally {
      await ctx.close();
    }
  }
}

const raw = process.argv[2];
if (raw !== undefined) {
  watch(JSON.parse(raw) as WatchdogArgs).catch((error: unknown) => {
    process.stderr.write(`${new Date().toISOString()} watchdog failed: ${describeError(error)}\n`);
  });
}
