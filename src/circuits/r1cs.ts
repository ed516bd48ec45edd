/**
 * Reader for circom's .r1cs files (the iden3 binary container: magic, version, then typed
 * sections). Only the header and the constraints section are needed by the dev setup.
 */
import { readFile } from 'node:fs/promises';

export interface R1csHeader {
  /** Bytes per field element (32 for bn128). */
  n8: number;
  prime: bigint;
  nWires: number;
  nOutputs: number;
  nPublicInputs: number;
  nPrivateInputs: number;
  nLabels: number;
  nConstraints: number;
}

export interface R1csFile {
  header: R1csHeader;
  /** The raw constraints section: per constraint, the A, B and C linear combinations. */
  constraints: Buffer;
  /** The whole file, for hashing. */
  bytes: Buffer;
}

/** One binary container section: its type id and byte range in the file. */
interface Section {
  type: number;
  start: number;
  size: number;
}

/** Parses the section table of an iden3 binary file ("r1cs", "zkey", "wtns", "ptau"). */
export function readBinarySections(bytes: Buffer, magic: string, file: string): Section[] {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== magic) {
    throw new Error(`${file} is not a ${magic} file`);
  }
  const count = bytes.readUInt32LE(8);
  const sections: Section[] = [];
  let position = 12;
  for (let i = 0; i < count; i++) {
    const type = bytes.readUInt32LE(position);
    const size = Number(bytes.readBigUInt64LE(position + 4));
    sections.push({ type, start: position + 12, size });
    position += 12 + size;
  }
  if (position > bytes.length) throw new Error(`${file} is truncated`);
  return sections;
}

/** Reads a little-endian unsigned integer of `length` bytes. */
export function readLittleEndian(bytes: Buffer, offset: number, length: number): bigint {
  let value = 0n;
  for (let i = length - 8; i >= 0; i -= 8) value = (value << 64n) | bytes.readBigUInt64LE(offset + i);
  return value;
}

/** Reads and parses an .r1cs file. */
export async function readR1cs(file: string): Promise<R1csFile> {
  const bytes = await readFile(file);
  const sections = readBinarySections(bytes, 'r1cs', file);
  const headerSection = sections.find((s) => s.type === 1);
  const constraintSection = sections.find((s) => s.type === 2);
  if (!headerSection || !constraintSection) throw new Error(`${file}: missing header or constraints section`);
  let p = headerSection.start;
  const n8 = bytes.readUInt32LE(p);
  p += 4;
  const prime = readLittleEndian(bytes, p, n8);
  p += n8;
  const header: R1csHeader = {
    n8,
    prime,
    nWires: bytes.readUInt32LE(p),
    nOutputs: bytes.readUInt32LE(p + 4),
    nPublicInputs: bytes.readUInt32LE(p + 8),
    nPrivateInputs: bytes.readUInt32LE(p + 12),
    nLabels: Number(bytes.readBigUInt64LE(p + 16)),
    nConstraints: bytes.readUInt32LE(p + 24),
  };
  return {
    header,
    constraints: bytes.subarray(constraintSection.start, constraintSection.start + constraintSection.size),
    bytes,
  };
}
