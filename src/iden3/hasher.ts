/**
 * The Poseidon hasher for JSON-LD merklization. Merklizing a credential hashes every statement's
 * path and value; credentials of one type share their paths and many values (a country, a schema
 * URL). Field-element hashes are remembered by vc's Poseidon itself (./poseidon.ts, installed into
 * the library this hasher calls); this hasher remembers byte-string hashes (a sponge of several
 * Poseidon hashes each) in a bounded map, by their bytes. Poseidon is a pure function, so a
 * remembered result is the result.
 */
import type { Hasher } from '@iden3/js-jsonld-merklization';
import { shareEventLoop } from '../eventLoop.js';

/** How many results are kept (each a key of a few dozen bytes and a bigint): a few MiB at most. */
export const MEMO_ENTRIES = 50_000;

/** A bounded map that forgets its oldest entries first (insertion order; hits refresh). */
class BoundedMemo<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly limit: number) {}

  async get(key: string, compute: () => Promise<V>): Promise<V> {
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    const value = await compute();
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Wraps `inner` (the library's Poseidon hasher) with a memo of its byte-string results. */
export function memoizingHasher(inner: Hasher, limit = MEMO_ENTRIES): Hasher & { readonly remembered: number } {
  const byteHashes = new BoundedMemo<bigint>(limit);
  return {
    // Merklizing is a long chain of hashes that never waits for I/O (the library's Merkle tree is
    // in memory): each hash first lets the event loop run if it has waited a slice already, so a
    // server merklizing a credential still answers its other requests.
    hash: async (inputs) => {
      await shareEventLoop();
      return inner.hash(inputs);
    },
    // The bytes as latin1: one character per byte, so distinct inputs have distinct keys.
    hashBytes: async (bytes) => {
      await shareEventLoop();
      return byteHashes.get(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'), () => inner.hashBytes(bytes));
    },
    prime: () => inner.prime(),
    get remembered() {
      return byteHashes.size;
    },
  };
}
