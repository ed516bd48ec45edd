/**
 * Structural checks of BBS+ proof values before MATTR's WebAssembly sees them. The library
 * panics (a WebAssembly trap inside a promise callback: an uncaught exception that ends the
 * process) on several malformed inputs, e.g. a derived proof shorter than its header or with a
 * wrong inner length, and it accepts trailing bytes after a valid proof. So vc parses every proof
 * value itself and hands the library only values of exactly the shape the library produces:
 * canonical base64, exact lengths, canonical field elements, and valid BLS12-381 points (on the
 * curve, in the prime-order subgroup, not the identity).
 *
 * Layouts (bbs 0.4 as wrapped by @mattrglobal/bbs-signatures):
 * - signature (BbsBlsSignature2020): A (G1, 48) || e (32) || s (32) = 112 bytes;
 * - derived proof (BbsBlsSignatureProof2020): message count n (u16 BE) || revealed bit vector
 *   (floor(n/8)+1 bytes, big-endian) || A' || Abar || d (G1 each) || length of proof 1 (u32 BE,
 *   always 116) || proof 1 = commitment (G1) || 2 (u32 BE) || 2 scalars || proof 2 = commitment
 *   (G1) || 2+h (u32 BE) || 2+h scalars, where h is the number of hidden messages.
 */

/** Largest number of signed statements vc accepts in a derived proof (bounds the verifier's work). */
export const MAX_SIGNED_STATEMENTS = 1024;

const G1_LENGTH = 48;
const G2_LENGTH = 96;
const SCALAR_LENGTH = 32;
const SIGNATURE_LENGTH = G1_LENGTH + 2 * SCALAR_LENGTH;
const PROOF1_LENGTH = G1_LENGTH + 4 + 2 * SCALAR_LENGTH;

/** The order r of the BLS12-381 scalar field. */
const FIELD_ORDER = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

/** Why a proof value was refused, in vc's words (never a library message). */
export class MalformedProofValueError extends Error {
  override readonly name = 'MalformedProofValueError';
}

function fail(reason: string): never {
  throw new MalformedProofValueError(reason);
}

/** Decodes canonical base64 (standard alphabet, padded): anything else is refused, not repaired. */
export function decodeCanonicalBase64(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string' || value === '') fail(`${what} is missing or not a string`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) fail(`${what} is not base64`);
  const bytes = Buffer.from(value, 'base64');
  if (bytes.toString('base64') !== value) fail(`${what} is not canonical base64`);
  return new Uint8Array(bytes);
}

function readUint(bytes: Uint8Array, offset: number, length: number): number {
  let value = 0;
  for (let i = 0; i < length; i++) value = value * 256 + bytes[offset + i]!;
  return value;
}

function checkScalar(bytes: Uint8Array, offset: number, what: string): void {
  const value = BigInt(`0x${Buffer.from(bytes.subarray(offset, offset + SCALAR_LENGTH)).toString('hex')}`);
  if (value >= FIELD_ORDER) fail(`${what} is not a field element (it is not below the group order)`);
}

type Curve = (typeof import('@noble/curves/bls12-381'))['bls12_381'];
let curve: Curve | undefined;

async function loadCurve(): Promise<Curve> {
  curve ??= (await import('@noble/curves/bls12-381')).bls12_381;
  return curve;
}

function checkPoint(c: Curve, group: 'G1' | 'G2', bytes: Uint8Array, what: string): void {
  // Compressed encodings only, as the library writes them; the identity is never a valid value.
  if ((bytes[0]! & 0x80) === 0) fail(`${what} is not a compressed ${group} point`);
  if ((bytes[0]! & 0x40) !== 0) fail(`${what} is the identity point`);
  try {
    const point = c[group].ProjectivePoint.fromHex(bytes);
    point.assertValidity();
  } catch {
    fail(`${what} is not a valid BLS12-381 ${group} point`);
  }
}

/** Checks a BbsBlsSignature2020 proofValue; returns its bytes or throws MalformedProofValueError. */
export async function checkSignatureValue(proofValue: unknown): Promise<Uint8Array> {
  const bytes = decodeCanonicalBase64(proofValue, 'proofValue');
  if (bytes.length !== SIGNATURE_LENGTH) fail(`proofValue is ${bytes.length} bytes; a BbsBlsSignature2020 signature is ${SIGNATURE_LENGTH}`);
  checkScalar(bytes, G1_LENGTH, 'the signature value e');
  checkScalar(bytes, G1_LENGTH + SCALAR_LENGTH, 'the signature value s');
  checkPoint(await loadCurve(), 'G1', bytes.subarray(0, G1_LENGTH), 'the signature value A');
  return bytes;
}

/** What a well-formed derived proof says about its statements. */
export interface DerivedProofShape {
  /** Number of statements the issuer signed. */
  messageCount: number;
  /** Indexes of the revealed statements. */
  revealed: number[];
}

/** Checks a BbsBlsSignatureProof2020 proofValue; returns its shape or throws MalformedProofValueError. */
export async function checkDerivedProofValue(proofValue: unknown): Promise<DerivedProofShape> {
  const bytes = decodeCanonicalBase64(proofValue, 'proofValue');
  if (bytes.length < 2) fail('proofValue is too short to be a BbsBlsSignatureProof2020 proof');
  const messageCount = readUint(bytes, 0, 2);
  if (messageCount < 1) fail('proofValue signs no statements');
  if (messageCount > MAX_SIGNED_STATEMENTS) fail(`proofValue claims ${messageCount} signed statements; vc accepts at most ${MAX_SIGNED_STATEMENTS}`);
  const vectorLength = Math.floor(messageCount / 8) + 1;
  const headerLength = 2 + vectorLength;
  if (bytes.length < headerLength + 3 * G1_LENGTH + 4 + PROOF1_LENGTH + G1_LENGTH + 4) fail('proofValue is truncated');

  // The bit vector is big-endian: its last byte holds statements 0-7.
  const revealed: number[] = [];
  for (let index = 0; index < vectorLength * 8; index++) {
    const byte = bytes[2 + vectorLength - 1 - Math.floor(index / 8)]!;
    if ((byte >> index % 8) & 1) {
      if (index >= messageCount) fail('proofValue reveals a statement beyond its statement count');
      revealed.push(index);
    }
  }
  const hidden = messageCount - revealed.length;

  let offset = headerLength + 3 * G1_LENGTH;
  if (readUint(bytes, offset, 4) !== PROOF1_LENGTH) fail('proofValue has an inner proof of the wrong length');
  offset += 4;
  if (readUint(bytes, offset + G1_LENGTH, 4) !== 2) fail('proofValue has the wrong number of responses in its first inner proof');
  const proof2 = offset + PROOF1_LENGTH;
  if (bytes.length < proof2 + G1_LENGTH + 4) fail('proofValue is truncated');
  const responses = readUint(bytes, proof2 + G1_LENGTH, 4);
  if (responses !== 2 + hidden) fail(`proofValue has ${responses} responses where ${2 + hidden} hidden values need them`);
  const expectedLength = proof2 + G1_LENGTH + 4 + responses * SCALAR_LENGTH;
  if (bytes.length !== expectedLength) fail(`proofValue is ${bytes.length} bytes where its header announces ${expectedLength}`);

  for (const at of [offset + G1_LENGTH + 4, offset + G1_LENGTH + 4 + SCALAR_LENGTH]) checkScalar(bytes, at, 'a proof response');
  for (let i = 0; i < responses; i++) checkScalar(bytes, proof2 + G1_LENGTH + 4 + i * SCALAR_LENGTH, 'a proof response');
  const c = await loadCurve();
  const points = [headerLength, headerLength + G1_LENGTH, headerLength + 2 * G1_LENGTH, offset, proof2];
  for (const at of points) checkPoint(c, 'G1', bytes.subarray(at, at + G1_LENGTH), 'a proof commitment');
  return { messageCount, revealed };
}

const validKeys = new Map<string, boolean>();

/** Checks a BLS12-381 G2 public key (96 bytes, compressed); results are remembered per key. */
export async function checkG2PublicKey(publicKey: Uint8Array): Promise<void> {
  const id = Buffer.from(publicKey).toString('hex');
  const known = validKeys.get(id);
  if (known === true) return;
  if (known === false) fail('the issuer key is not a valid BLS12-381 G2 public key');
  let valid = publicKey.length === G2_LENGTH;
  if (valid) {
    try {
      checkPoint(await loadCurve(), 'G2', publicKey, 'the issuer key');
    } catch {
      valid = false;
    }
  }
  if (validKeys.size >= 1000) validKeys.clear();
  validKeys.set(id, valid);
  if (!valid) fail('the issuer key is not a valid BLS12-381 G2 public key');
}
