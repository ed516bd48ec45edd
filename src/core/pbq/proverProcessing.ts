/**
 * Where `vc serve` proves: in a process of its own (src/iden3/proverPool.ts), so that witness
 * calculation and proving never block its event loop. The commands keep proving on their own
 * thread.
 */
import type { Context } from '../../context.js';
import { enableProverProcess } from '../../iden3/proverPool.js';

/** Makes the proofs of `ctx` run in the prover process, started with the first proof. */
export function proveInProverProcess(ctx: Context, options: { log?: ((message: string) => void) | undefined } = {}): void {
  enableProverProcess(ctx, options);
}
