/**
 * Readiness of selective disclosure in this process: loads the BBS+ libraries and runs their
 * randomness self-test (src/sd/library.ts). `vc serve` calls it before it accepts requests, so a
 * broken random source stops the server at start instead of failing requests later; then it
 * starts the worker threads that run the BBS+ calls of its requests (VC_WORKERS, one per core by
 * default; each runs the same self-test before it serves a call).
 */
import type { Context } from '../../context.js';
import { bbsLibraries } from '../../sd/library.js';
import { installBbsEngine } from './sdEngine.js';

/** Loads the BBS+ libraries and proves their randomness; rejects with InternalError otherwise. */
export async function prepareSelectiveDisclosure(): Promise<void> {
  await bbsLibraries();
}

/** The BBS+ worker threads serving a context. */
export interface SelectiveDisclosureWorkers {
  /** Worker threads running now (0: the calls run on the main thread). */
  readonly size: number;
  /** Stops the workers and puts the in-process engine back; resolves once every thread exited. */
  close(): Promise<void>;
}

/**
 * Starts `size` BBS+ worker threads (default VC_WORKERS, else one per core) and makes them the
 * BBS+ engine of `ctx`; with 0, the calls stay on the main thread. Rejects, with nothing left
 * running, when a worker fails its randomness self-test.
 */
export async function startSelectiveDisclosureWorkers(ctx: Context, options: { size?: number | undefined; log?: ((message: string) => void) | undefined } = {}): Promise<SelectiveDisclosureWorkers> {
  const size = options.size ?? ctx.config.server.workers;
  if (size === 0) return { size: 0, close: async () => undefined };
  const { BbsWorkerPool } = await import('../../sd/worker/bbsWorkerPool.js');
  const pool = await BbsWorkerPool.start({ size, log: options.log, home: ctx.config.home });
  const uninstall = installBbsEngine(ctx, pool);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      uninstall();
      await pool.close();
    })();
    return closing;
  };
  // A context closed without its server (a test, an error at start) still stops its threads.
  ctx.onClose(close);
  return {
    get size() {
      return pool.size;
    },
    close,
  };
}
