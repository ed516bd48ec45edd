/**
 * The one door to MATTR's BBS+ libraries: every module of vc that signs, derives or verifies
 * BBS+ gets them from `bbsLibraries()`, which first gives their WebAssembly a working random
 * source and proves it works, in every process and worker thread that loads them.
 *
 * Why: @mattrglobal/bbs-signatures runs Rust compiled to WebAssembly. Its `getrandom` glue looks
 * for a browser (`self.crypto.getRandomValues`) and otherwise takes the Node path, whose import
 * `randomFillSync` was compiled to an empty function: in Node every buffer it asks for stays zero,
 * so every process seeds its RNG with zeros and all signatures and proofs share their "random" e,
 * s and blinding factors (forgeable signatures, recoverable hidden messages, linkable proofs).
 * The glue decides once, at its first random draw, and keeps the source it found. So before that
 * first draw we put a `self` in place whose `crypto.getRandomValues` fills from node:crypto
 * (the operating system's CSPRNG), make the first draw happen in a self-test, then remove `self`
 * again: the library keeps using node:crypto for the life of its instance, and no other module
 * sees a browser global outside that moment.
 *
 * The self-test refuses (InternalError, nothing is signed) unless: the source gives two different,
 * non-constant blocks; the library drew its seed from that source, and what it was handed is
 * neither constant nor a repeat of anything the source gave before; two signatures of one fixed
 * message differ in e and in s; and two derived proofs of one signature with one nonce share no
 * 16-byte window. A source that is random-looking but the same in every process (a fixed-seed
 * generator) cannot be told apart inside one process; the tests compare processes for that.
 */
import { createRequire } from 'node:module';
import { randomFillSync } from 'node:crypto';
import { InternalError } from '../errors.js';

const importSuites = async () => (await import('@mattrglobal/jsonld-signatures-bbs')).default;
const importJsonLdSignatures = async () => (await import('jsonld-signatures')).default;
type JsonLdSignaturesBbs = Awaited<ReturnType<typeof importSuites>>;
type JsonLdSignatures = Awaited<ReturnType<typeof importJsonLdSignatures>>;
type BbsSignatures = typeof import('@mattrglobal/bbs-signatures');

/** The libraries, loaded and with their randomness proven. */
export interface BbsLibraries {
  /** jsonld-signatures 7 (sign, verify, purposes). */
  jsigs: JsonLdSignatures;
  /** @mattrglobal/jsonld-signatures-bbs (the suites, deriveProof, key pairs). */
  bbs: JsonLdSignaturesBbs;
  /** The @mattrglobal/bbs-signatures instance the suites use (raw sign/prove/verify). */
  raw: BbsSignatures;
}

/** Fills a buffer with random bytes; node:crypto's randomFillSync unless a test injects another. */
export type RandomFill = (buffer: Uint8Array) => void;

/** How many times the library asked the random source for bytes, and how many bytes in all. */
export interface BbsRandomnessStats {
  draws: number;
  bytes: number;
}

/** Byte length of a BbsBlsSignature2020 signature: A (G1, 48) || e (32) || s (32). */
export const BBS_SIGNATURE_LENGTH = 112;
/** The offsets of the random components e and s in a signature. */
const E_RANGE = [48, 80] as const;
const S_RANGE = [80, 112] as const;
/** Windows this long shared between two outputs count as a shared random component. */
const WINDOW = 16;

let injectedFill: RandomFill | undefined;
let loading: Promise<BbsLibraries> | undefined;
const stats: BbsRandomnessStats = { draws: 0, bytes: 0 };

/**
 * Replaces the random source before the libraries load (tests inject a broken one to show the
 * self-test refuses). Throws once the libraries are loaded: their source is fixed by then.
 */
export function injectBbsRandomSourceForTesting(fill: RandomFill): void {
  if (loading !== undefined) throw new Error('the BBS+ libraries are already loaded; inject the random source before first use');
  injectedFill = fill;
}

/** The library's draws from the random source so far (a reseed shows up as a new draw). */
export function bbsRandomnessStats(): BbsRandomnessStats {
  return { ...stats };
}

/** The BBS+ libraries of this process, loaded once, with their randomness self-tested. */
export function bbsLibraries(): Promise<BbsLibraries> {
  loading ??= load();
  return loading;
}

/** While the self-test runs: copies of what the source handed out, to check what the WebAssembly got. */
let recording: Uint8Array[] | undefined;

function fillFromSource(buffer: Uint8Array): Uint8Array {
  (injectedFill ?? randomFillSync)(buffer);
  stats.draws += 1;
  stats.bytes += buffer.length;
  recording?.push(Uint8Array.from(buffer.subarray(0, 64)));
  return buffer;
}

async function load(): Promise<BbsLibraries> {
  // The WebAssembly build, always: its random source is the one this module provides and checks
  // (the native module is never built here, and trying to load it costs start-up time).
  process.env.BBS_SIGNATURES_MODE = 'WASM';
  // Loaded first, without the shim: modules that look for a browser `self` when they load
  // (tweetnacl, @stablelib/random) keep their Node random source.
  const [jsigs, bbs] = await Promise.all([importJsonLdSignatures(), importSuites()]);
  // The bbs-signatures copy the suites were built against (npm nests its own version there).
  const suiteRequire = createRequire(resolveFromHere('@mattrglobal/jsonld-signatures-bbs'));
  const raw = suiteRequire('@mattrglobal/bbs-signatures') as BbsSignatures;
  const global = globalThis as { self?: unknown };
  const hadSelf = Object.hasOwn(globalThis, 'self');
  const previousSelf = global.self;
  const source = { getRandomValues: (buffer: Uint8Array) => fillFromSource(buffer) };
  const shim: Record<string, unknown> = { crypto: source };
  shim.self = shim;
  // Only around the self-test, which makes the WebAssembly's first random draw.
  global.self = shim;
  try {
    await selfTest(raw);
  } finally {
    if (hadSelf) global.self = previousSelf;
    else delete global.self;
  }
  return { jsigs, bbs, raw };
}

function resolveFromHere(specifier: string): string {
  return createRequire(import.meta.url).resolve(specifier);
}

function refuse(cause: string): never {
  throw new InternalError(`BBS+ randomness self-test failed: ${cause}; refusing to sign or derive (no BBS+ output is safe with a predictable random source)`, { field: 'randomness' });
}

/** True when `a` and `b` have some WINDOW-byte run in common, at any offsets. */
export function shareWindow(a: Uint8Array, b: Uint8Array, window = WINDOW): boolean {
  const seen = new Set<string>();
  for (let i = 0; i + window <= a.length; i++) seen.add(Buffer.from(a.subarray(i, i + window)).toString('hex'));
  for (let i = 0; i + window <= b.length; i++) if (seen.has(Buffer.from(b.subarray(i, i + window)).toString('hex'))) return true;
  return false;
}

function isConstant(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === bytes[0]);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

async function selfTest(raw: BbsSignatures): Promise<void> {
  const first = fillFromSource(new Uint8Array(32));
  const second = fillFromSource(new Uint8Array(32));
  if (shareWindow(first, second) || isConstant(first) || isConstant(second)) refuse('the random source repeats or returns constant bytes');

  // A fixed key and message: the outputs can differ only through randomness.
  const keyPair = await raw.generateBls12381G2KeyPair(new Uint8Array(32).fill(7));
  const messages = [new TextEncoder().encode('vc BBS+ randomness self-test')];
  recording = [];
  let handed: Uint8Array[];
  let one: Uint8Array;
  let two: Uint8Array;
  try {
    one = await raw.blsSign({ keyPair, messages });
    two = await raw.blsSign({ keyPair, messages });
  } finally {
    handed = recording;
    recording = undefined;
  }
  if (handed.length === 0) refuse('the BBS+ library did not draw its randomness from node:crypto');
  // What the WebAssembly received, not only what the source gives when asked directly.
  for (const [index, bytes] of handed.entries()) {
    if (isConstant(bytes)) refuse('the BBS+ library was handed constant bytes by the random source');
    if ([first, second, ...handed.slice(0, index)].some((other) => shareWindow(bytes, other))) refuse('the random source repeated itself in what it handed the BBS+ library');
  }
  if (one.length !== BBS_SIGNATURE_LENGTH || two.length !== BBS_SIGNATURE_LENGTH) refuse(`a signature is not ${BBS_SIGNATURE_LENGTH} bytes`);
  if (equalBytes(one.subarray(...E_RANGE), two.subarray(...E_RANGE))) refuse('two signatures of one message share their random e');
  if (equalBytes(one.subarray(...S_RANGE), two.subarray(...S_RANGE))) refuse('two signatures of one message share their random s');

  const nonce = new TextEncoder().encode('vc self-test nonce');
  const proof = () => raw.blsCreateProof({ signature: one, publicKey: keyPair.publicKey, messages, nonce, revealed: [] });
  const proofOne = await proof();
  const proofTwo = await proof();
  // The first bytes are the message count and the revealed-message bit vector (fixed); the rest is random.
  if (shareWindow(proofOne.subarray(3), proofTwo.subarray(3))) refuse('two derived proofs of one signature share a random component');
}
