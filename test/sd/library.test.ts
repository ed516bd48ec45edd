/**
 * BBS+ randomness as properties, not round trips.
 *
 * MATTR's BBS+ WebAssembly took its randomness from an empty function in Node, so every process
 * signed with the same e and s and derived proofs with the same blinding factors. Within one
 * process the seeded generator still advances, so two outputs of ONE process differ even when the
 * seed is zero: the properties below are therefore checked across separate `node` processes (the
 * built dist/ modules and the real CLI), where a repeated seed shows up as repeated bytes.
 *
 * The comparisons are written here (not imported from src/sd/library.ts), and a control proves
 * each detector fires: the same wasm, loaded without library.ts and given a zero random source,
 * yields identical e and s and derived proofs sharing windows across two processes.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bbsLibraries, bbsRandomnessStats } from '../../src/sd/library.js';
import { childEnv, ROOT, runVcAsync, tempDir, type VcRun } from '../helpers.js';

type Json = Record<string, unknown>;

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const CREATED = '2030-01-01T00:00:00.000Z';
/** Two verifier nonces (32 bytes, base64, as `vc verifier nonce` issues them). */
const NONCE = Buffer.alloc(32, 0x11).toString('base64');
const OTHER_NONCE = Buffer.alloc(32, 0x22).toString('base64');
/** Messages and key seed of the raw-signature variant: byte-identical inputs in every process. */
const RAW_MESSAGES = ['vc randomness test message 1', 'vc randomness test message 2'];
const RAW_KEY_SEED_BYTE = 9;

const SUBJECT = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'subjects', 'passport.json'), 'utf8')) as Json;
/** What a derivation reveals of the subject (besides its id); everything else must stay hidden. */
const REVEALED = ['name', 'nationality'];
const HIDDEN = Object.keys(SUBJECT).filter((key) => !REVEALED.includes(key));
/** The fixed credential every signing child signs (the issuer is filled in with the key's DID). */
const CREDENTIAL: Json = {
  '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/security/bbs/v1', 'https://vc.example/contexts/sd-passport/v1'],
  id: 'urn:uuid:6f1c1d2e-0000-4000-8000-000000000001',
  type: ['VerifiableCredential', 'PassportCredential'],
  issuanceDate: CREATED,
  credentialSchema: { id: 'https://vc.example/schemas/sd-passport/v1.json', type: 'JsonSchema2023' },
  credentialSubject: { id: 'did:example:alice', ...SUBJECT },
};
/** The frame `vc holder disclose --keys id,name,nationality` uses. */
const FRAME: Json = {
  '@context': CREDENTIAL['@context'],
  type: CREDENTIAL.type,
  '@explicit': true,
  issuer: {},
  issuanceDate: {},
  credentialSchema: {},
  credentialSubject: { '@explicit': true, ...Object.fromEntries(REVEALED.map((key) => [key, {}])) },
};

const dist = (...parts: string[]): string => pathToFileURL(path.join(ROOT, 'dist', 'src', ...parts)).href;
const LIBRARY = dist('sd', 'library.js');
const SUITE = dist('sd', 'suites', 'bbs2020', 'bbs2020Suite.js');
const KEYS = dist('sd', 'suites', 'bbs2020', 'bbs2020Keys.js');
const LOADER = dist('sd', 'documentLoader.js');
const ERRORS = dist('errors.js');

// ---------------------------------------------------------------------------------------------
// The property checks.

/** A BbsBlsSignature2020 proofValue: A (G1, 48 bytes) || e (32) || s (32). */
function signatureParts(proofValue: string): { a: Buffer; e: Buffer; s: Buffer } {
  const bytes = Buffer.from(proofValue, 'base64');
  expect(bytes.length).toBe(112);
  return { a: bytes.subarray(0, 48), e: bytes.subarray(48, 80), s: bytes.subarray(80, 112) };
}

function expectDistinctRandomComponents(one: string, two: string): void {
  const first = signatureParts(one);
  const second = signatureParts(two);
  expect(first.e.toString('hex'), 'e repeats across processes').not.toBe(second.e.toString('hex'));
  expect(first.s.toString('hex'), 's repeats across processes').not.toBe(second.s.toString('hex'));
}

/** The first `size`-byte run of `a` that also occurs anywhere in `b`, with both offsets. */
function sharedWindow(a: Uint8Array, b: Uint8Array, size: number): { aOffset: number; bOffset: number; hex: string } | undefined {
  const seen = new Map<string, number>();
  for (let i = 0; i + size <= a.length; i++) {
    const key = Buffer.from(a.subarray(i, i + size)).toString('hex');
    if (!seen.has(key)) seen.set(key, i);
  }
  for (let j = 0; j + size <= b.length; j++) {
    const key = Buffer.from(b.subarray(j, j + size)).toString('hex');
    const i = seen.get(key);
    if (i !== undefined) return { aOffset: i, bOffset: j, hex: key };
  }
  return undefined;
}

const proofBytes = (document: Json): Buffer => Buffer.from((document.proof as Json).proofValue as string, 'base64');

/** Every encoding of a hidden subject value we look for in a derived proof. */
function encodings(value: unknown): { strings: string[]; bytes: Buffer[] } {
  const text = String(value);
  const utf8 = Buffer.from(text, 'utf8');
  const strings = [text, JSON.stringify(value), utf8.toString('hex'), utf8.toString('base64').replace(/=+$/, '')];
  const bytes = [utf8];
  if (typeof value === 'number' && Number.isInteger(value)) {
    const big = BigInt(value);
    for (const width of [4, 8, 32]) {
      const be = Buffer.from(big.toString(16).padStart(width * 2, '0'), 'hex');
      const le = Buffer.from(be).reverse();
      bytes.push(be, le);
      strings.push(be.toString('hex'), be.toString('base64').replace(/=+$/, ''), le.toString('hex'));
    }
  }
  if (typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value)) bytes.push(Buffer.from(value.slice(2), 'hex'));
  return { strings, bytes };
}

/** Where (if anywhere) a hidden value shows up in a derived document or its proofValue bytes. */
function leaks(document: Json, value: unknown): string[] {
  const found: string[] = [];
  const text = JSON.stringify(document);
  const proof = proofBytes(document);
  const { strings, bytes } = encodings(value);
  for (const s of strings) if (text.includes(s)) found.push(`document contains "${s}"`);
  for (const b of bytes) if (proof.includes(b)) found.push(`proofValue contains ${b.toString('hex')}`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// Child processes: small ESM scripts importing the built modules, printing one JSON line.

const tmp = tempDir('vc-bbs-randomness-');
afterAll(() => tmp.cleanup());
const file = (name: string): string => path.join(tmp.dir, name);

const PRELUDE = `
const PHRASE = ${JSON.stringify(FIXED_PHRASE)};
const CREATED = ${JSON.stringify(CREATED)};
const CREDENTIAL = ${JSON.stringify(CREDENTIAL)};
const FRAME = ${JSON.stringify(FRAME)};
const RAW_MESSAGES = ${JSON.stringify(RAW_MESSAGES)}.map((m) => new TextEncoder().encode(m));
const RAW_KEY_SEED = new Uint8Array(32).fill(${RAW_KEY_SEED_BYTE});
const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const print = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
`;

/** Signs the fixed credential (JSON-LD suite) and the fixed raw messages, with fixed keys. */
const SIGN_SCRIPT = `${PRELUDE}
import { bbsLibraries, bbsRandomnessStats } from ${JSON.stringify(LIBRARY)};
import { signBbsCredential, verifyBbsSignature } from ${JSON.stringify(SUITE)};
import { deriveBlsKeyPair } from ${JSON.stringify(KEYS)};
import { createStaticDocumentLoader } from ${JSON.stringify(LOADER)};
const loader = createStaticDocumentLoader();
const key = await deriveBlsKeyPair(PHRASE);
const signed = await signBbsCredential({ ...CREDENTIAL, issuer: key.did }, key, loader, new Date(CREATED));
const { raw } = await bbsLibraries();
const keyPair = await raw.generateBls12381G2KeyPair(RAW_KEY_SEED);
const rawSignature = await raw.blsSign({ keyPair, messages: RAW_MESSAGES });
print({
  signed,
  signedVerified: (await verifyBbsSignature(signed, loader)).verified,
  rawSignature: b64(rawSignature),
  rawVerified: (await raw.blsVerify({ publicKey: keyPair.publicKey, messages: RAW_MESSAGES, signature: rawSignature })).verified,
  stats: bbsRandomnessStats(),
  selfAfter: typeof globalThis.self,
});
`;

/** Derives proofs of one signed credential (argv[2]) for each nonce of argv[3] (comma-separated). */
const DERIVE_SCRIPT = `${PRELUDE}
import { readFileSync } from 'node:fs';
import { deriveBbsProof, verifyDerivedBbsProof } from ${JSON.stringify(SUITE)};
import { createStaticDocumentLoader } from ${JSON.stringify(LOADER)};
const loader = createStaticDocumentLoader();
const signed = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const derived = [];
for (const nonce of process.argv[3].split(',')) derived.push(await deriveBbsProof(signed, FRAME, Buffer.from(nonce, 'base64'), loader));
print({ derived, verified: await Promise.all(derived.map(async (d) => (await verifyDerivedBbsProof(d, loader)).verified)) });
`;

/**
 * Injects a broken random source (argv[2]: zero | noop | repeat | lateZero) before anything else, then tries
 * every way to sign or derive and reports how each attempt ended.
 */
const BROKEN_SCRIPT = `${PRELUDE}
import { bbsLibraries, bbsRandomnessStats, injectBbsRandomSourceForTesting } from ${JSON.stringify(LIBRARY)};
let calls = 0;
const REPEATED = Uint8Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) & 255);
const sources = {
  zero: (buffer) => { calls++; buffer.fill(0); },
  // The original bug: randomFillSync compiled to an empty function (the buffer stays as it was).
  noop: () => { calls++; },
  // Not constant within a block, but the same bytes on every call.
  repeat: (buffer) => { calls++; buffer.set(REPEATED.subarray(0, buffer.length)); },
  // Random when asked directly twice, then zeros: only what the WebAssembly was handed shows it.
  lateZero: (buffer) => { calls++; if (calls <= 2) crypto.getRandomValues(buffer); else buffer.fill(0); },
};
injectBbsRandomSourceForTesting(sources[process.argv[2]]);
const { InternalError } = await import(${JSON.stringify(ERRORS)});
const { signBbsCredential, deriveBbsProof } = await import(${JSON.stringify(SUITE)});
const { deriveBlsKeyPair } = await import(${JSON.stringify(KEYS)});
const { createStaticDocumentLoader } = await import(${JSON.stringify(LOADER)});
const loader = createStaticDocumentLoader();
const attempts = {
  // The issuer's path: derive the key, then sign the credential.
  issue: async () => {
    const key = await deriveBlsKeyPair(PHRASE);
    return signBbsCredential({ ...CREDENTIAL, issuer: key.did }, key, loader, new Date(CREATED));
  },
  // The suite entry itself, handed a key object (it must refuse before touching it).
  suiteSign: () => signBbsCredential(CREDENTIAL, { keyPair: {} }, loader, new Date(CREATED)),
  // The raw library through the one door.
  rawSign: async () => {
    const { raw } = await bbsLibraries();
    const keyPair = await raw.generateBls12381G2KeyPair(RAW_KEY_SEED);
    return b64(await raw.blsSign({ keyPair, messages: RAW_MESSAGES }));
  },
  derive: () => deriveBbsProof({ ...CREDENTIAL, proof: { type: 'BbsBlsSignature2020', proofValue: b64(new Uint8Array(112)) } }, FRAME, new Uint8Array(32), loader),
};
const results = {};
for (const [name, attempt] of Object.entries(attempts)) {
  try {
    results[name] = { resolved: true, output: await attempt() };
  } catch (error) {
    results[name] = { resolved: false, name: error?.name, message: String(error?.message), internal: error instanceof InternalError, exitCode: error?.exitCode };
  }
}
print({ results, calls, stats: bbsRandomnessStats(), selfAfter: typeof globalThis.self });
`;

/**
 * The control: the same wasm the suites use, loaded WITHOUT library.ts, given a zero random source
 * through the browser global its glue looks for. Signs and derives like the children above.
 */
const BYPASS_SCRIPT = `${PRELUDE}
import { createRequire } from 'node:module';
process.env.BBS_SIGNATURES_MODE = 'WASM';
const shim = { crypto: { getRandomValues: (buffer) => buffer.fill(0) } };
shim.self = shim;
globalThis.self = shim;
const suites = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))}).resolve('@mattrglobal/jsonld-signatures-bbs');
const raw = createRequire(suites)('@mattrglobal/bbs-signatures');
const keyPair = await raw.generateBls12381G2KeyPair(RAW_KEY_SEED);
const signature = await raw.blsSign({ keyPair, messages: RAW_MESSAGES });
const proof = await raw.blsCreateProof({ signature, publicKey: keyPair.publicKey, messages: RAW_MESSAGES, nonce: Buffer.from(process.argv[2], 'base64'), revealed: [0] });
print({ rawSignature: b64(signature), proof: b64(proof) });
`;

interface SignOutput {
  signed: Json;
  signedVerified: boolean;
  rawSignature: string;
  rawVerified: boolean;
  stats: { draws: number; bytes: number };
  selfAfter: string;
}
interface DeriveOutput {
  derived: Json[];
  verified: boolean[];
}
interface Attempt {
  resolved: boolean;
  output?: unknown;
  name?: string;
  message?: string;
  internal?: boolean;
  exitCode?: number;
}
interface BrokenOutput {
  results: Record<'issue' | 'suiteSign' | 'rawSign' | 'derive', Attempt>;
  calls: number;
  stats: { draws: number; bytes: number };
  selfAfter: string;
}
interface BypassOutput {
  rawSignature: string;
  proof: string;
}

/** Runs `node SCRIPT ARGS` and returns its exit status, stdout and stderr. */
function runNode(script: string, args: string[] = []): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: tmp.dir, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status: status ?? -1, stdout, stderr }));
  });
}

/** Runs a child script that must exit 0 and print one JSON line. */
async function runJson<T>(script: string, args: string[] = []): Promise<T> {
  const run = await runNode(script, args);
  if (run.status !== 0) throw new Error(`${path.basename(script)} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

function vcOk(run: VcRun, what: string): VcRun {
  if (run.status !== 0) throw new Error(`${what} exited ${run.status}: ${run.stderr}`);
  return run;
}

const script = (name: string, text: string): string => {
  writeFileSync(file(name), text);
  return file(name);
};

let signs: [SignOutput, SignOutput];
let derivations: [DeriveOutput, DeriveOutput];
let broken: Record<'zero' | 'noop' | 'repeat' | 'lateZero', BrokenOutput>;
let bypass: [BypassOutput, BypassOutput];
let cliIssued: [Json, Json];
let cliDisclosed: { same: [Json, Json]; other: Json };

beforeAll(async () => {
  const sign = script('sign.mjs', SIGN_SCRIPT);
  const derive = script('derive.mjs', DERIVE_SCRIPT);
  const brokenScript = script('broken.mjs', BROKEN_SCRIPT);
  const bypassScript = script('bypass.mjs', BYPASS_SCRIPT);
  const env = { IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE };
  const issue = (n: number) =>
    runVcAsync(['--json', 'issuer', 'issue', '--format', 'bbs', '--holder', 'did:example:alice', '-o', file(`cli-issued-${n}.json`)], { home: file(`home-${n}`), env }).then((run) => {
      vcOk(run, `vc issuer issue (${n})`);
      return JSON.parse(readFileSync(file(`cli-issued-${n}.json`), 'utf8')) as Json;
    });

  // Everything independent at once: separate processes, so each one seeds its own generator.
  const [s1, s2, zero, noop, repeat, lateZero, b1, b2, c1, c2] = await Promise.all([
    runJson<SignOutput>(sign),
    runJson<SignOutput>(sign),
    runJson<BrokenOutput>(brokenScript, ['zero']),
    runJson<BrokenOutput>(brokenScript, ['noop']),
    runJson<BrokenOutput>(brokenScript, ['repeat']),
    runJson<BrokenOutput>(brokenScript, ['lateZero']),
    runJson<BypassOutput>(bypassScript, [NONCE]),
    runJson<BypassOutput>(bypassScript, [NONCE]),
    issue(1),
    issue(2),
  ]);
  signs = [s1, s2];
  broken = { zero, noop, repeat, lateZero };
  bypass = [b1, b2];
  cliIssued = [c1, c2];

  writeFileSync(file('signed.json'), JSON.stringify(s1.signed));
  const disclose = (nonce: string, n: number) =>
    runVcAsync(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', ['id', ...REVEALED].join(','), '--nonce', nonce, '--credential', file('cli-issued-1.json')], {
      home: file(`holder-${n}`),
    }).then((run) => vcOk(run, `vc holder disclose (${n})`).json<{ vc: Json }>().vc);
  const [d1, d2, v1, v2, v3] = await Promise.all([
    // Process one derives twice with NONCE and once with OTHER_NONCE; process two once with NONCE.
    runJson<DeriveOutput>(derive, [file('signed.json'), [NONCE, NONCE, OTHER_NONCE].join(',')]),
    runJson<DeriveOutput>(derive, [file('signed.json'), NONCE]),
    disclose(NONCE, 1),
    disclose(NONCE, 2),
    disclose(OTHER_NONCE, 3),
  ]);
  derivations = [d1, d2];
  cliDisclosed = { same: [v1, v2], other: v3 };
});

// ---------------------------------------------------------------------------------------------

describe('the detectors fire on broken randomness (control: the wasm without library.ts, zero source)', () => {
  it('two processes repeat e and s, and their derived proofs share 48-byte windows', () => {
    const [one, two] = bypass;
    expect(() => expectDistinctRandomComponents(one.rawSignature, two.rawSignature)).toThrow(/e repeats/);
    expect(signatureParts(one.rawSignature).s.equals(signatureParts(two.rawSignature).s)).toBe(true);
    expect(sharedWindow(Buffer.from(one.proof, 'base64'), Buffer.from(two.proof, 'base64'), 48)).toBeDefined();
  });
});

describe('signatures: e and s differ across processes', () => {
  it('the fixed credential signed in two node processes with one key (suite.ts, keys.ts)', () => {
    const [one, two] = signs;
    expect(one.signedVerified && two.signedVerified).toBe(true);
    // Same key, same credential: only the randomness (and the proof's created second, which the
    // MATTR suite takes from the clock) can make the outputs differ. e and s do not depend on the message.
    expect(one.signed.issuer).toBe(two.signed.issuer);
    expect((one.signed.proof as Json).verificationMethod).toBe((two.signed.proof as Json).verificationMethod);
    expectDistinctRandomComponents((one.signed.proof as Json).proofValue as string, (two.signed.proof as Json).proofValue as string);
  });

  it('byte-identical inputs (raw blsSign, fixed key and messages) in two node processes', () => {
    const [one, two] = signs;
    expect(one.rawVerified && two.rawVerified).toBe(true);
    expectDistinctRandomComponents(one.rawSignature, two.rawSignature);
    // A = (g1 + h0*s + sum h_i*m_i) * 1/(x+e) depends on e and s, so it differs too.
    expect(signatureParts(one.rawSignature).a.equals(signatureParts(two.rawSignature).a)).toBe(false);
  });

  it('two `vc issuer issue --format bbs` runs with one IDP_BLS_SIGN_SEED_PHRASE', () => {
    const [one, two] = cliIssued;
    expect(one.issuer).toBe(two.issuer);
    expectDistinctRandomComponents((one.proof as Json).proofValue as string, (two.proof as Json).proofValue as string);
  });
});

describe('derived proofs: one credential, one nonce, no shared 48-byte window', () => {
  it('two derivations in one process (suite.ts deriveBbsProof)', () => {
    const [first, second] = derivations[0].derived;
    expect(derivations[0].verified).toEqual([true, true, true]);
    expect((first!.proof as Json).nonce).toBe(NONCE);
    expect((second!.proof as Json).nonce).toBe(NONCE);
    expect(sharedWindow(proofBytes(first!), proofBytes(second!), 48)).toBeUndefined();
  });

  it('derivations in two different processes', () => {
    const [first, second] = derivations[0].derived;
    const [elsewhere] = derivations[1].derived;
    expect(derivations[1].verified).toEqual([true]);
    expect((elsewhere!.proof as Json).nonce).toBe(NONCE);
    expect(sharedWindow(proofBytes(first!), proofBytes(elsewhere!), 48)).toBeUndefined();
    expect(sharedWindow(proofBytes(second!), proofBytes(elsewhere!), 48)).toBeUndefined();
  });

  it('two `vc holder disclose --nonce N` runs', () => {
    const [one, two] = cliDisclosed.same;
    expect((one.proof as Json).nonce).toBe(NONCE);
    expect((two.proof as Json).nonce).toBe(NONCE);
    expect(sharedWindow(proofBytes(one), proofBytes(two), 48)).toBeUndefined();
  });
});

describe('the self-test refuses a broken random source', () => {
  for (const mode of ['zero', 'noop', 'repeat', 'lateZero'] as const) {
    it(`${mode}: every sign and derive rejects with the InternalError, and nothing is produced`, () => {
      const outcome = broken[mode];
      for (const [name, attempt] of Object.entries(outcome.results)) {
        expect(attempt.resolved, `${name} produced ${JSON.stringify(attempt.output)}`).toBe(false);
        expect(attempt.output).toBeUndefined();
        expect(attempt.internal, `${name}: ${attempt.name}: ${attempt.message}`).toBe(true);
        expect(attempt.name).toBe('InternalError');
        expect(attempt.exitCode).toBe(70);
        expect(attempt.message!.startsWith('BBS+ randomness self-test failed')).toBe(true);
      }
      // The injected source really was the one asked (and found wanting), and `self` is gone again.
      expect(outcome.calls).toBeGreaterThanOrEqual(2);
      expect(outcome.stats.draws).toBe(outcome.calls);
      expect(outcome.selfAfter).toBe('undefined');
    });
  }

  it('passes with node:crypto: the library draws from it, and `self` is removed again (in this process)', async () => {
    const hadSelf = Object.hasOwn(globalThis, 'self');
    expect(bbsRandomnessStats()).toEqual({ draws: 0, bytes: 0 });
    const { raw } = await bbsLibraries();
    const afterLoad = bbsRandomnessStats();
    // Two draws by the self-test itself, at least one more by the wasm seeding its generator.
    expect(afterLoad.draws).toBeGreaterThanOrEqual(3);
    expect(afterLoad.bytes).toBeGreaterThan(64);
    expect(Object.hasOwn(globalThis, 'self')).toBe(hadSelf);
    if (!hadSelf) expect((globalThis as { self?: unknown }).self).toBeUndefined();
    // The library keeps its source after `self` is gone: signing still works, with fresh e and s.
    const keyPair = await raw.generateBls12381G2KeyPair(new Uint8Array(32).fill(RAW_KEY_SEED_BYTE));
    const messages = RAW_MESSAGES.map((m) => new TextEncoder().encode(m));
    const one = Buffer.from(await raw.blsSign({ keyPair, messages })).toString('base64');
    const two = Buffer.from(await raw.blsSign({ keyPair, messages })).toString('base64');
    expectDistinctRandomComponents(one, two);
    // And these differ from the other processes' signatures of the same inputs.
    for (const other of signs) expectDistinctRandomComponents(one, other.rawSignature);
    // The child processes drew from their own node:crypto the same way.
    for (const other of signs) {
      expect(other.stats.draws).toBeGreaterThanOrEqual(3);
      expect(other.selfAfter).toBe('undefined');
    }
  });
});

describe('unlinkability and hiding', () => {
  it('two derived proofs with different nonces share no 32-byte window (in-process and CLI)', () => {
    const [first, , other] = derivations[0].derived;
    expect((other!.proof as Json).nonce).toBe(OTHER_NONCE);
    expect(sharedWindow(proofBytes(first!), proofBytes(other!), 32)).toBeUndefined();
    expect(sharedWindow(proofBytes(derivations[1].derived[0]!), proofBytes(other!), 32)).toBeUndefined();
    expect(sharedWindow(proofBytes(cliDisclosed.same[0]), proofBytes(cliDisclosed.other), 32)).toBeUndefined();
  });

  it("no derived proof carries a 32-byte window of the issuer's signature (A, e, s stay hidden)", () => {
    const signature = proofBytes(signs[0].signed);
    for (const derived of [...derivations[0].derived, ...derivations[1].derived]) expect(sharedWindow(signature, proofBytes(derived), 32)).toBeUndefined();
    const cliSignature = proofBytes(cliIssued[0]);
    for (const derived of [...cliDisclosed.same, cliDisclosed.other]) expect(sharedWindow(cliSignature, proofBytes(derived), 32)).toBeUndefined();
  });

  it('hidden subject values appear in no encoding in the derived document or its proofValue', () => {
    // The search itself finds what is there: revealed values, and hidden ones in the signed credential.
    const sample = derivations[0].derived[0]!;
    expect(leaks(sample, SUBJECT.nationality)).not.toEqual([]);
    expect(leaks(signs[0].signed, SUBJECT.birthDate)).not.toEqual([]);
    const planted = structuredClone(sample);
    const bytes = proofBytes(sample);
    const birthDate8 = Buffer.alloc(8);
    birthDate8.writeBigUInt64BE(BigInt(SUBJECT.birthDate as number));
    (planted.proof as Json).proofValue = Buffer.concat([bytes.subarray(0, 100), birthDate8, bytes.subarray(100)]).toString('base64');
    expect(leaks(planted, SUBJECT.birthDate)).not.toEqual([]);

    expect(HIDDEN).toEqual(expect.arrayContaining(['birthDate', 'passportNumber']));
    for (const derived of [...derivations[0].derived, ...derivations[1].derived, ...cliDisclosed.same, cliDisclosed.other]) {
      const subject = derived.credentialSubject as Json;
      expect(Object.keys(subject).sort()).toEqual(['id', ...REVEALED].sort());
      for (const key of HIDDEN) {
        expect(JSON.stringify(derived)).not.toContain(key);
        expect(leaks(derived, SUBJECT[key]), `${key} leaks`).toEqual([]);
      }
    }
  });
});
