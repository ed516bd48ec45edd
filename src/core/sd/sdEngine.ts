/**
 * Where selective disclosure runs its CPU-heavy BBS+ calls (signing, deriving, verifying, the
 * JSON-LD safe-mode expansion): the BbsEngine of the context. By default it runs them on the
 * calling thread with the context's static document loader (the commands); `vc serve` installs
 * its worker pool in its context instead (ready.ts). Store access, nonces, trust and the checks
 * around these calls stay with the operations in this directory, on the main thread.
 */
import { ServiceKey, type Context } from '../../context.js';
import { inProcessBbsEngine, type BbsEngine } from '../../sd/engine.js';
import { sdDocumentLoader, sdDocumentLoader2023 } from './sdDocumentLoader.js';

const ENGINE_KEY = new ServiceKey<BbsEngine>('bbs.engine');

/** The BBS+ engine of `ctx`: the installed one, else an in-process engine created on first use. */
export function sdEngine(ctx: Context): Promise<BbsEngine> {
  return ctx.lazy(ENGINE_KEY, async () => inProcessBbsEngine(await sdDocumentLoader(ctx), await sdDocumentLoader2023(ctx)));
}

/**
 * Makes `engine` the BBS+ engine of `ctx` (replacing any other); the returned function puts the
 * in-process engine back (unless another was installed since).
 */
export function installBbsEngine(ctx: Context, engine: BbsEngine): () => void {
  ctx.forget(ENGINE_KEY);
  const installed = ctx.lazy(ENGINE_KEY, async () => engine);
  return () => {
    ctx.forget(ENGINE_KEY, installed);
  };
}

/**
 * Throws the OverloadedError `engine` gives when it has no room for `calls` calls made together
 * (see BbsEngine.overloaded): calls that run side by side are admitted together or refused
 * together, so a refused request leaves no call of its own running.
 */
export function admitTogether(engine: BbsEngine, calls: number): void {
  const refusal = engine.overloaded?.(calls);
  if (refusal !== undefined) throw refusal;
}
