/**
 * One merklization per credential. The js-sdk's `toCoreClaim` (every iden3 issuance) merklizes
 * the credential twice with the same options: once for its type and claim slots, once for its
 * root. That is a JSON-LD expansion, a compaction and a Merkle tree of a few dozen leaves each
 * time, 4 ms of a 30 ms signature issuance.
 *
 * `merklizeOnce` makes js-jsonld-merklization's `Merklizer.merklizeJSONLD` give the result of a
 * recent call (at most REMEMBER_MS ago) with the same document and the same options object to the
 * next one. The document is the whole credential (its id included), and the options carry the
 * document loader and the hasher, so equal arguments give an equal Merklizer, unless a document
 * the loader gives changed meanwhile (a context pinned again with other content): hence the short
 * time. Its users only read it (root, proofs, types). A failed merklization is not remembered.
 */
import type { Merklizer as MerklizerClass } from '@iden3/js-jsonld-merklization';

/** How many recent merklizations are kept (concurrent issuances in a server each need theirs). */
export const REMEMBERED_MERKLIZATIONS = 16;
/** How long one is: the js-sdk's two calls are milliseconds apart. */
export const REMEMBER_MS = 10_000;

type Merklize = typeof MerklizerClass.merklizeJSONLD;
type MerklizeOptions = Parameters<Merklize>[1];

const REMEMBERING = Symbol.for('vc.merklize.once');

/** A merklize function that answers a repeated call (same document, same options object) from memory. */
export function rememberingMerklize(
  merklize: (doc: string, options: MerklizeOptions) => Promise<MerklizerClass>,
  limit = REMEMBERED_MERKLIZATIONS,
  now: () => number = () => performance.now(),
) {
  const recent = new Map<string, { options: MerklizeOptions; result: Promise<MerklizerClass>; at: number }>();
  return (doc: string, options?: MerklizeOptions): Promise<MerklizerClass> => {
    const known = recent.get(doc);
    if (known !== undefined && known.options === options && now() - known.at < REMEMBER_MS) return known.result;
    const result = merklize(doc, options);
    recent.delete(doc);
    recent.set(doc, { options, result, at: now() });
    if (recent.size > limit) recent.delete(recent.keys().next().value!);
    result.catch(() => {
      if (recent.get(doc)?.result === result) recent.delete(doc);
    });
    return result;
  };
}

/** Makes `Merklizer.merklizeJSONLD` (the class the js-sdk loaded with it calls) remember its recent results. Idempotent. */
export function merklizeOnce(library: { Merklizer: typeof MerklizerClass }): void {
  const target = library.Merklizer as typeof MerklizerClass & { [REMEMBERING]?: true };
  if (target[REMEMBERING]) return;
  const original = target.merklizeJSONLD.bind(target);
  target.merklizeJSONLD = rememberingMerklize(original);
  target[REMEMBERING] = true;
}
