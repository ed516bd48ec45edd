/**
 * A strict reading of a bbs-2023 proof value (W3C Data Integrity BBS, sections 3.3.x and 3.4.x):
 * "u" + base64url of a 3-byte header and the CBOR array of the proof's components, exactly five
 * for the baseline headers: d9 5d 02 (base: bbsSignature, bbsHeader, publicKey, hmacKey,
 * mandatoryPointers) and d9 5d 03 (derived: bbsProof, compressedLabelMap, mandatoryIndexes,
 * selectiveIndexes, presentationHeader).
 *
 * Digital Bazaar's parser destructures the first five items of whatever CBOR it decodes: a sixth
 * item, trailing bytes, a tag or an indefinite length are ignored, so one proof has many
 * encodings that all verify (malleability: a verifier that deduplicates or logs proofs by their
 * value is fooled). vc reads the value itself first and accepts only the one encoding an issuer or
 * a holder produces: definite lengths in their shortest form, no tags, no floats, no trailing
 * bytes, no duplicate map keys, each component of its type (and, for the base proof, its length).
 */

/** A CBOR item as this reader keeps it: only the types a bbs-2023 proof value holds. */
type CborItem = { kind: 'uint'; value: number } | { kind: 'bytes'; value: Uint8Array } | { kind: 'text'; value: string } | { kind: 'array'; items: CborItem[] } | { kind: 'map'; entries: Array<[CborItem, CborItem]> };

/** The most items a list or map of a proof value may hold (a statement index each; vc's cost limits are far below). */
const MAX_ITEMS = 4096;
/** The deepest nesting a proof value has (its array, a list of indexes or pointers inside it). */
const MAX_DEPTH = 3;

class CborReader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.offset === this.bytes.length;
  }

  private byte(): number {
    if (this.offset >= this.bytes.length) throw new Error('it ends inside a CBOR item');
    return this.bytes[this.offset++]!;
  }

  /** The argument of an item head in its shortest form (RFC 8949 section 4.2.1, preferred serialization). */
  private argument(info: number): number {
    if (info < 24) return info;
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (size === 0) throw new Error(info === 31 ? 'an indefinite-length CBOR item' : `a reserved CBOR length (${info})`);
    let value = 0;
    for (let index = 0; index < size; index++) value = value * 256 + this.byte();
    if (!Number.isSafeInteger(value)) throw new Error('a CBOR length or integer beyond 2^53');
    const minimum = size === 1 ? 24 : size === 2 ? 0x100 : size === 4 ? 0x10000 : 0x100000000;
    if (value < minimum) throw new Error('a CBOR length or integer not in its shortest form');
    return value;
  }

  read(depth = 0): CborItem {
    if (depth > MAX_DEPTH) throw new Error(`CBOR nested deeper than ${MAX_DEPTH} levels`);
    const head = this.byte();
    const major = head >> 5;
    const argument = this.argument(head & 0x1f);
    switch (major) {
      case 0:
        return { kind: 'uint', value: argument };
      case 2:
      case 3: {
        if (argument > this.bytes.length - this.offset) throw new Error('a CBOR string longer than what follows it');
        const value = this.bytes.subarray(this.offset, this.offset + argument);
        this.offset += argument;
        if (major === 2) return { kind: 'bytes', value };
        const text = new TextDecoder('utf-8', { fatal: true });
        try {
          return { kind: 'text', value: text.decode(value) };
        } catch {
          throw new Error('a CBOR text string that is not UTF-8');
        }
      }
      case 4: {
        if (argument > MAX_ITEMS) throw new Error(`a CBOR array of more than ${MAX_ITEMS} items`);
        const items: CborItem[] = [];
        for (let index = 0; index < argument; index++) items.push(this.read(depth + 1));
        return { kind: 'array', items };
      }
      case 5: {
        if (argument > MAX_ITEMS) throw new Error(`a CBOR map of more than ${MAX_ITEMS} entries`);
        const entries: Array<[CborItem, CborItem]> = [];
        for (let index = 0; index < argument; index++) entries.push([this.read(depth + 1), this.read(depth + 1)]);
        return { kind: 'map', entries };
      }
      case 1:
        throw new Error('a negative CBOR integer');
      case 6:
        throw new Error('a CBOR tag (bbs-2023 proof values carry none)');
      default:
        throw new Error('a CBOR float or simple value');
    }
  }
}

const BASE_COMPONENTS = ['bbsSignature', 'bbsHeader', 'publicKey', 'hmacKey', 'mandatoryPointers'] as const;
const DERIVED_COMPONENTS = ['bbsProof', 'compressedLabelMap', 'mandatoryIndexes', 'selectiveIndexes', 'presentationHeader'] as const;
/** The fixed lengths of the base proof's byte strings (bbs-2023 section 3.3.3; the library checks the same). */
const BASE_LENGTHS: Readonly<Record<string, number>> = { bbsSignature: 80, bbsHeader: 64, publicKey: 96, hmacKey: 32 };

function expectBytes(item: CborItem, name: string): void {
  if (item.kind !== 'bytes') throw new Error(`${name} is not a CBOR byte string`);
  const length = BASE_LENGTHS[name];
  if (length !== undefined && item.value.length !== length) throw new Error(`${name} is ${item.value.length} bytes, not ${length}`);
}

function expectList(item: CborItem, name: string, kind: 'uint' | 'text'): void {
  if (item.kind !== 'array' || item.items.some((entry) => entry.kind !== kind)) {
    throw new Error(`${name} is not a CBOR array of ${kind === 'uint' ? 'unsigned integers' : 'text strings'}`);
  }
}

/**
 * Why the CBOR after a bbs-2023 header is not the one encoding of a proof of that kind, or
 * undefined when it is. `payload` is the proof value's bytes after the 3-byte header.
 */
export function checkBbs2023ProofPayload(payload: Uint8Array, kind: 'base' | 'derived'): string | undefined {
  const names = kind === 'base' ? BASE_COMPONENTS : DERIVED_COMPONENTS;
  try {
    const reader = new CborReader(payload);
    const top = reader.read();
    if (!reader.done) throw new Error('bytes follow the CBOR array');
    if (top.kind !== 'array') throw new Error('it is not a CBOR array');
    if (top.items.length !== names.length) {
      throw new Error(`its CBOR array has ${top.items.length} item${top.items.length === 1 ? '' : 's'}, a ${kind} proof has exactly ${names.length} (${names.join(', ')})`);
    }
    const item = (index: number): CborItem => top.items[index]!;
    if (kind === 'base') {
      for (let index = 0; index < 4; index++) expectBytes(item(index), names[index]!);
      expectList(item(4), 'mandatoryPointers', 'text');
    } else {
      expectBytes(item(0), 'bbsProof');
      const labels = item(1);
      if (labels.kind !== 'map' || labels.entries.some(([key, value]) => key.kind !== 'uint' || value.kind !== 'uint')) {
        throw new Error('compressedLabelMap is not a CBOR map of unsigned integers');
      }
      const keys = new Set(labels.entries.map(([key]) => (key as { value: number }).value));
      if (keys.size !== labels.entries.length) throw new Error('compressedLabelMap repeats a key');
      expectList(item(2), 'mandatoryIndexes', 'uint');
      expectList(item(3), 'selectiveIndexes', 'uint');
      expectBytes(item(4), 'presentationHeader');
    }
    return undefined;
  } catch (error) {
    return `the ${kind} proof value is malformed: ${(error as Error).message}`;
  }
}
