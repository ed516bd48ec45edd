/**
 * Readiness of a service: is the chain reachable (or, for the embedded node, startable on demand)
 * and are the circuit files present. Cheap and side-effect free: it never starts the node.
 * Anyone may ask (load balancers probe /healthz without a token), so the report names no file or
 * directory of the server and URLs by their origin only; `vc circuits status` and the server's
 * log have the details.
 */
import { existsSync } from 'node:fs';
import type { Context } from '../context.js';
import { VERSION } from '../version.js';
import { describeError, redactUrls } from '../errors.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  role: string;
  version: string;
  /** `problem`: why the last attempt of this process to (re)start the embedded node failed. */
  chain: { embedded: boolean; chainId: number; reachable: boolean; state: string; problem?: string };
  circuits: { present: boolean; problem?: string };
}

/** `text` without the paths of the server's files (`/home/…/anvil.log` -> `(path)`) and with URLs by their origin. */
export function withoutPaths(text: string, known: ReadonlyArray<string | undefined> = []): string {
  // Configured paths first, whole: a path with spaces would otherwise be cut at the first one.
  let hidden = text;
  for (const path of [...known].filter((p): p is string => p !== undefined && p.length > 1).sort((a, b) => b.length - a.length)) {
    hidden = hidden.split(path).join('(path)');
  }
  return redactUrls(hidden).replace(/(^|[\s'"(=[,])(?:~|\.{1,2})?\/[^\s'")\],;]*/g, '$1(path)');
}

/** The paths of this configuration that a health answer must never show. */
function configuredPaths(ctx: Context): Array<string | undefined> {
  return [ctx.config.circuitsPath, ctx.config.home, ctx.env.VC_CIRCUITS_CACHE, ctx.env.XDG_CACHE_HOME, ctx.env.HOME];
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
    if (failure !== undefined) chain.problem = withoutPaths(failure, configuredPaths(ctx));
  } else {
    const chainId = await probeChainId(ctx.config.chain.rpcUrl!, 1_500);
    chain = { embedded, chainId: ctx.config.chain.chainId, reachable: chainId === ctx.config.chain.chainId, state: chainId === undefined ? 'unreachable' : chainId === ctx.config.chain.chainId ? 'running' : `wrong chain id ${chainId}` };
  }
  const circuits = await circuitsPresence(ctx);
  return { status: chain.reachable && circuits.present ? 'ok' : 'degraded', role, version: VERSION, chain, circuits };
}

async function circuitsPresence(ctx: Context): Promise<HealthReport['circuits']> {
  const { circuitsInUseComplete } = await import('../circuits/build.js');
  try {
    return (await circuitsInUseComplete(ctx)) ? { present: true } : { present: false, problem: 'circuit files missing or incomplete (vc circuits status tells which)' };
  } catch (error) {
    // A missing CIRCUITS_PATH directory or source is a readiness problem to report, not a crash.
    return { present: false, problem: withoutPaths(describeError(error), configuredPaths(ctx)) };
  }
}
