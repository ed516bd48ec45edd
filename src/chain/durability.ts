/**
 * Durability before success on the embedded chain: a command that changed the chain reports
 * success only once the node's state holding that change is saved to disk (a kill -9 of the node
 * then loses nothing the command reported). If the node is gone or cannot be saved, the command
 * fails with exit 4 and the change is reconciled by the next one.
 */
import type { Context } from '../context.js';
import { NetworkError, isVcError, describeError } from '../errors.js';
import { checkpointLocalChain } from './node/snapshots.js';

/** Saves the embedded node's state now; NetworkError when it cannot be (node gone, dump failed). */
export async function ensureDurableLocalChain(ctx: Context, what: string): Promise<void> {
  let saved: Awaited<ReturnType<typeof checkpointLocalChain>>;
  try {
    saved = await checkpointLocalChain(ctx);
  } catch (error) {
    if (isVcError(error) && error.exitCode === 4) throw error;
    throw new NetworkError(`the local chain node's state with ${what} could not be saved (${describeError(error)}); run the command again to reconcile`, { cause: error });
  }
  if (saved === undefined) {
    throw new NetworkError(`the local chain node stopped before its state with ${what} was saved; run the command again to reconcile`);
  }
}
