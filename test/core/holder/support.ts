/**
 * For tests about disclosure rather than the holder's store: a credential put in the store as it
 * is, through the store's own write (no import's checks), as if the holder had received it. The
 * store's checks themselves are tested in ./holderStore.test.ts.
 */
import type { Context } from '../../../src/context.js';
import { heldKindOf, keepHeldCredential, type HeldCredentialRecord } from '../../../src/core/holder/holderStore.js';

/** Keeps `credential` in the holder's store of `ctx` (replacing one of the same id), returns its record. */
export function holdDirectly(ctx: Context, credential: object): HeldCredentialRecord {
  const document = credential as Record<string, unknown>;
  const found = heldKindOf(document);
  if (!('kind' in found)) throw new Error(`not a credential a holder keeps: ${found.problem}`);
  return keepHeldCredential(ctx, document, { kind: found.kind, source: 'issued' }).record;
}
