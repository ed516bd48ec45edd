/**
 * Readiness of a service: is the chain reachable (or, for the embedded node, startable on demand)
 * and are the circuit files present. Cheap and side-effect free: it never starts the node.
 */
import { existsSync } from 'node:fs';
import type { Context } from '../context.js';
import { VERSION } from '../version.js';
import { describeError } from '../errors.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  role: string;
  version: string;
  /** `problem`: why the last attempt of this process to (re)start the embedded node failed. */
  chain: { embedded: boolean; chainId: number; reachable: boolean; state: string; problem?: string };
  circuits: { present: boolean; path: string | undefined; problem?: string };
}

/** Checks chain and circuits without changing anything. */
export async function checkHealth(ctx: Context, role: string): Promise<HealthReport> {
  const { probeChainId } = await import('../chain/jsonRpc.js');
  const embedded = ctx.config.chain.rpcUrl === undefined;
  let chain: HealthReport['chain'];
  if (embedded) {
    const { localNodeStatus } = await import('../chain/node/lifecycle.js');
    const { anvilBinaryPath } = await import('../chain/node/process.js');
    const { lastConnectionFailure } = await import('../chain/connection.js');
    const status = await localNodeStatus(ctx);
    // A stopped or dead embedded node is (re)started by the next request that needs it: still
    // ready, unless this process already tried and failed to start it.
    const failure = status.state === 'running' ? undefined : await lastConnectionFailure(ctx);
    const startable = (() => {
      try {
        return existsSync(anvilBinaryPath());
      } catch {
        return false;
      }
    })();
    const reachable = status.state === 'running' || (status.state !== 'unresponsive' && startable && failure === undefined);
    chain = { embedded, chainId: ctx.config.chain.chainId, reachable, state: status.state };
    if (failure !== undefined) chain.problem = failure;
  } else {
    const chainId = await probeChainId(ctx.config.chain.rpcUrl!, 1_500);
    chain = { embedded, chainId: ctx.config.chain.chainId, reachable: chainId === ctx.config.chain.chainId, state: chainId === undefined ? 'unreachable' : chainId === ctx.config.chain.chainId ? 'running' : `wrong chain id ${chainId}` };
  }
  const circuits = await circuitsPresence(ctx);
  return { status: chain.reachable && circuits.present ? 'ok' : 'degraded', role, version: VERSION, chain, circuits };
}

async function circuitsPresence(ctx: Context): Promise<HealthReport['circuits']> {
  const { circuitsStatus } = await import('../circuits/build.js');
  try {
    const status = await circuitsStatus(ctx);
    return { present: status.upToDate, path: status.dir };
  } catch (error) {
    // A missing CIRCUITS_PATH directory or source is a readiness problem to report, not a crash.
    return { present: false, path: ctx.config.circuitsPath, problem: describeError(error) };
  }
}
