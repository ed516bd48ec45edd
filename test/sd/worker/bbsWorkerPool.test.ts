/**
 * The BBS+ engine in worker threads (src/sd/worker/bbsWorkerPool.ts) gives what the in-process engine
 * gives (src/sd/engine.ts): outputs made in one thread verify in another, either way round, and
 * every refusal has the same outcome (the same result and reason, the same error class, code,
 * status, exit code, field and message, the same describeProofError sentence), both at the engine
 * and through the selective-disclosure operations of a context whose engine is the pool. Real
 * crypto, no mocks.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { createStaticDocumentLoader } from '../../../src/sd/documentLoader.js';
import { inProcessBbsEngine, type BbsEngine } from '../../../src/sd/engine.js';
import { blsKeyMaterial, deriveBlsKeyPair, type BlsIssuerKey } from '../../../src/sd/suites/bbs2020/bbs2020Keys.js';
import { MalformedProofValueError } from '../../../src/sd/suites/bbs2020/proofValue.js';
import { describeProofError } from '../../../src/sd/suites/bbs2020/bbs2020Suite.js';
import { type JsonLdDocument } from '../../../src/sd/proofOutcome.js';
import { installBbsEngine } from '../../../src/core/sd/sdEngine.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, storeSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { isVcError } from '../../../src/errors.js';
import { BbsWorkerPool } from '../../../src/sd/worker/bbsWorkerPool.js';
import { tempDir } from '../../helpers.js';
import { FIXED_PHRASE, OTHER_PHRASE, passportCredential, revealFrame, type Json } from './support.js';
import { holdDirectly } from '../../core/holder/support.js';

const CREATED = new Date('2030-01-01T00:00:00.000Z');
const NOW = new Date('2030-06-01T00:00:00.000Z');
const NONCE = new Uint8Array(Buffer.alloc(32, 9));
const tmp = tempDir('vc-workers-engine-');

let pool: BbsWorkerPool;
let local: BbsEngine;
let key: BlsIssuerKey;
let otherDid: string;
let signed: JsonLdDocument;

beforeAll(async () => {
  pool = await BbsWorkerPool.start({ size: 2 });
  local = inProcessBbsEngine(createStaticDocumentLoader());
  key = await deriveBlsKeyPair(FIXED_PHRASE);
  otherDid = (await deriveBlsKeyPair(OTHER_PHRASE)).did;
  signed = await local.signCredential(passportCredential(key.did), key, CREATED);
});
afterAll(async () => {
  await pool?.close();
  tmp.cleanup();
});

/** A document without its proofValue (the one random part), to compare outputs of two engines. */
function withoutProofValue(document: Json): Json {
  const copy = structuredClone(document);
  delete (copy.proof as Json).proofValue;
  return copy;
}

/** What a caller can observe of an outcome: the value, or every property of the error callers use. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await run() };
  } catch (error) {
    const e = error as Error & { code?: unknown; httpStatus?: unknown; exitCode?: unknown; field?: unknown };
    return {
      error: {
        vc: isVcError(error) ? { class: e.constructor, code: e.code, httpStatus: e.httpStatus, exitCode: e.exitCode, field: e.field, message: e.message } : undefined,
        malformed: error instanceof MalformedProofValueError ? error.message : undefined,
        described: describeProofError(error),
      },
    };
  }
}

describe('outputs cross threads', () => {
  it('signed in a worker, derived in two other calls on both workers: each verifies in process', async () => {
    const credential = passportCredential(key.did);
    const fromWorker = await pool.callTraced('signCredential', credential, blsKeyMaterial(key), CREATED);
    expect(await local.verifySignature(fromWorker.value)).toEqual({ verified: true });
    // The same document as the in-process engine signs, but for the random signature value.
    expect(withoutProofValue(fromWorker.value)).toEqual(withoutProofValue(signed));

    // Two at once on a pool of two: one in each worker.
    const derived = await Promise.all([0, 1].map(() => pool.callTraced('deriveProof', fromWorker.value, revealFrame(credential), NONCE)));
    expect(new Set(derived.map((d) => d.threadId)).size).toBe(2);
    const locallyDerived = await local.deriveProof(fromWorker.value, revealFrame(credential), NONCE);
    for (const { value } of derived) {
      expect(await local.verifyDerivedProof(value)).toEqual({ verified: true });
      expect(withoutProofValue(value)).toEqual(withoutProofValue(locallyDerived));
    }
  });

  it('signed and derived in process: verified in each worker', async () => {
    const derived = await local.deriveProof(signed, revealFrame(signed), NONCE);
    const signatures = await Promise.all([0, 1].map(() => pool.callTraced('verifySignature', signed)));
    const proofs = await Promise.all([0, 1].map(() => pool.callTraced('verifyDerivedProof', derived)));
    for (const checks of [signatures, proofs]) {
      expect(new Set(checks.map((check) => check.threadId)).size).toBe(2);
      for (const check of checks) expect(check.value).toEqual({ verified: true });
    }
    expect(await pool.findUndefinedTerms(passportCredential(key.did))).toBeUndefined();
  });
});

describe('refusals at the engine have the same outcome in a worker as in process', () => {
  const proofOf = (document: Json): Json => document.proof as Json;
  /** [name, engine call on a copy of the signed credential] */
  const CASES: Array<[string, (engine: BbsEngine, document: Json) => Promise<unknown>]> = [
    ['derive: a malformed signature value', (engine, d) => ((proofOf(d).proofValue = 'not base64!'), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['derive: a signature value of the wrong length', (engine, d) => ((proofOf(d).proofValue = Buffer.alloc(40, 1).toString('base64')), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['derive: an unknown context', (engine, d) => ((d['@context'] as string[]).push('https://evil.example/ctx'), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['derive: an unknown context in the frame', (engine, d) => engine.deriveProof(d, { ...revealFrame(d), '@context': ['https://evil.example/ctx'] }, NONCE)],
    ['derive: the key of another issuer', (engine, d) => ((proofOf(d).verificationMethod = `${otherDid}#${otherDid.slice(8)}`), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['derive: a did:key that does not decode', (engine, d) => ((proofOf(d).verificationMethod = `did:key:zUC7${'1'.repeat(131)}`), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['derive: a verificationMethod that is not bundled', (engine, d) => ((proofOf(d).verificationMethod = 'https://evil.example/key'), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['derive: a changed value', (engine, d) => (((d.credentialSubject as Json).name = 'Mallory'), engine.deriveProof(d, revealFrame(d), NONCE))],
    ['sign: an unknown context', (engine, d) => (delete d.proof, (d['@context'] as string[]).push('https://evil.example/ctx'), engine.signCredential(d, key, CREATED))],
    ['verify signature: a changed value', (engine, d) => (((d.credentialSubject as Json).name = 'Mallory'), engine.verifySignature(d))],
    ['verify signature: a removed statement', (engine, d) => (delete (d.credentialSubject as Json).nationality, engine.verifySignature(d))],
    ['verify signature: an unknown context', (engine, d) => ((d['@context'] as string[]).push('https://evil.example/ctx'), engine.verifySignature(d))],
    ['verify signature: a did:key that does not decode', (engine, d) => ((proofOf(d).verificationMethod = 'did:key:zUC7abc#zUC7abc'), engine.verifySignature(d))],
    ['terms: an undefined field', (engine, d) => (((d.credentialSubject as Json).verifiedAdult = true), engine.findUndefinedTerms(d))],
    ['terms: a relative id', (engine, d) => (((d.credentialSubject as Json).id = 'alice'), engine.findUndefinedTerms(d))],
    ['terms: an unknown context', (engine, d) => ((d['@context'] as string[]).push('https://evil.example/ctx'), engine.findUndefinedTerms(d))],
  ];

  it.each(CASES)('%s', async (_name, call) => {
    const inProcess = await outcome(() => call(local, structuredClone(signed)));
    const inWorker = await outcome(() => call(pool, structuredClone(signed)));
    expect(inWorker).toEqual(inProcess);
    // Each case is a refusal (a rejected call or a negative result), not a success compared with itself.
    const value = (inProcess as { value?: unknown }).value;
    expect(value === undefined || (typeof value === 'object' && value !== null && (value as { verified?: boolean }).verified === false) || typeof value === 'string').toBe(true);
  });

  it('a malformed proof value arrives as MalformedProofValueError, which describeProofError still recognises', async () => {
    const document = structuredClone(signed);
    (document.proof as Json).proofValue = 'AAAA';
    const error = await pool.deriveProof(document, revealFrame(document), NONCE).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MalformedProofValueError);
    expect(describeProofError(error)).toBe('proofValue is 3 bytes; a BbsBlsSignature2020 signature is 112');
    expect(describeProofError(new Error('wrapped', { cause: error }))).toBe(describeProofError(error));
  });
});

describe('the selective-disclosure operations give the same results with the pool as their engine', () => {
  let inProcess: Context;
  let withPool: Context;
  let derived: Json;

  beforeAll(async () => {
    const config = (name: string) => parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(tmp.dir, name));
    inProcess = new Context({ config: config('local'), now: () => NOW });
    withPool = new Context({ config: config('pool'), now: () => NOW });
    installBbsEngine(withPool, pool);
    holdDirectly(inProcess, await issueSelectiveDisclosureCredential(inProcess, { holder: 'did:example:alice' }));
    derived = (await deriveSelectiveDisclosure(inProcess, { type: 'PassportCredential', keys: ['id', 'name', 'nationality'], nonce: Buffer.from(NONCE).toString('base64') })).vc;
  });
  afterAll(async () => {
    await inProcess?.close();
    await withPool?.close();
  });

  const proofOf = (vc: Json): Json => vc.proof as Json;
  /** [name, tampering, the first check expected to fail ('' for none)] */
  const TAMPERED: Array<[string, (vc: Json) => void, string]> = [
    ['nothing (it verifies)', () => undefined, ''],
    ['a disclosed value changed', (vc) => ((vc.credentialSubject as Json).name = 'Mallory'), 'proof'],
    ['a disclosed statement removed', (vc) => delete (vc.credentialSubject as Json).nationality, 'proof'],
    ['a hidden statement added', (vc) => ((vc.credentialSubject as Json).passportNumber = 'P1234567'), 'proof'],
    ['the nonce of another verifier', (vc) => (proofOf(vc).nonce = Buffer.alloc(32, 8).toString('base64')), 'proof'],
    ['a nonce that is not base64', (vc) => (proofOf(vc).nonce = '%%%'), 'proof'],
    ['a proof value that is not base64', (vc) => (proofOf(vc).proofValue = 'not base64 at all!!'), 'proof'],
    ['a proof value cut short', (vc) => (proofOf(vc).proofValue = Buffer.from(proofOf(vc).proofValue as string, 'base64').subarray(0, 153).toString('base64')), 'proof'],
    ['a proof value of 0xff bytes', (vc) => (proofOf(vc).proofValue = Buffer.alloc(Buffer.from(proofOf(vc).proofValue as string, 'base64').length, 0xff).toString('base64')), 'proof'],
    ['an unknown context', (vc) => (vc['@context'] as string[]).push('https://evil.example/ctx'), 'context'],
    ['the did:key of another issuer', (vc) => (proofOf(vc).verificationMethod = `${otherDid}#${otherDid.slice(8)}`), 'proof'],
    ['a did:key that does not decode', (vc) => (proofOf(vc).verificationMethod = 'did:key:zUC7abc#zUC7abc'), 'proof'],
    ['a verificationMethod that is not bundled', (vc) => (proofOf(vc).verificationMethod = 'https://evil.example/key'), 'proof'],
    ['an undefined field', (vc) => ((vc.credentialSubject as Json).verifiedAdult = true), 'terms'],
  ];

  it.each(TAMPERED)('verification, %s', async (_name, tamper, firstFailure) => {
    const vc = structuredClone(derived);
    tamper(vc);
    const expected = await verifySelectiveDisclosure(inProcess, { vc: structuredClone(vc) });
    expect(expected.checks.find((check) => !check.valid)?.id ?? '').toBe(firstFailure);
    expect(await verifySelectiveDisclosure(withPool, { vc: structuredClone(vc) })).toEqual(expected);
  });

  it('refusals of issuance, disclosure and import are the same errors', async () => {
    // No subject id: a credential the holder of the wallet may import (one for another DID is refused for that alone).
    const signedHere = (await issueSelectiveDisclosureCredential(withPool, { store: false })) as unknown as Json;
    const badValue = structuredClone(signedHere);
    (badValue.proof as Json).proofValue = Buffer.alloc(112, 0xff).toString('base64');
    const changed = structuredClone(signedHere);
    (changed.credentialSubject as Json).name = 'Mallory';
    const attempts: Array<(ctx: Context) => Promise<unknown>> = [
      (ctx) => issueSelectiveDisclosureCredential(ctx, { type: 'LibraryCard', subject: { cardNumber: 'L1' } }),
      (ctx) => deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'], credential: structuredClone(badValue) }),
      (ctx) => deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'], credential: structuredClone(changed) }),
      (ctx) => storeSelectiveDisclosureCredential(ctx, { credential: structuredClone(changed) }),
      (ctx) => storeSelectiveDisclosureCredential(ctx, { credential: structuredClone(badValue) }),
    ];
    for (const attempt of attempts) {
      const expected = await outcome(() => attempt(inProcess));
      expect((expected as { error?: { vc?: unknown } }).error?.vc, JSON.stringify(expected)).toBeDefined();
      expect(await outcome(() => attempt(withPool))).toEqual(expected);
    }
    // And what the pool signed discloses and verifies in process.
    await storeSelectiveDisclosureCredential(inProcess, { credential: signedHere });
    const { vc } = await deriveSelectiveDisclosure(withPool, { type: 'PassportCredential', keys: ['name'], credential: signedHere });
    expect((await verifySelectiveDisclosure(inProcess, { vc })).verified).toBe(true);
  });
});

describe('eddsa-rdfc-2022 and ecdsa-rdfc-2019 in a worker', () => {
  it('a credential and a presentation signed in a worker verify in process and the other way round; a refusal has the same reason', async () => {
    const { rdfcKeyFromSecret } = await import('../../../src/sd/suites/rdfc/rdfcKeys.js');
    for (const keyType of ['Ed25519', 'P-256'] as const) {
      const issuer = rdfcKeyFromSecret(keyType, new Uint8Array(32).fill(5));
      const credential = {
        '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
        type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
        issuer: issuer.did,
        validFrom: '2030-01-01T00:00:00Z',
        credentialSubject: { id: issuer.did, type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '1' } },
      };
      const inWorker = await pool.signRdfcCredential(credential, issuer.material, CREATED);
      expect(await local.verifyRdfcCredential(inWorker, NOW)).toEqual({ verified: true });
      const inProcess = await local.signRdfcCredential(credential, issuer.material, CREATED);
      expect(await pool.verifyRdfcCredential(inProcess, NOW)).toEqual({ verified: true });
      const tampered = structuredClone(inProcess);
      (tampered.credentialSubject as Json).id = 'did:example:mallory';
      const refusal = await local.verifyRdfcCredential(tampered, NOW);
      expect(refusal.verified).toBe(false);
      expect(await pool.verifyRdfcCredential(tampered, NOW)).toEqual(refusal);

      const presentation = { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], holder: issuer.did, verifiableCredential: [inProcess] };
      const binding = { challenge: 'c-worker', domain: 'verifier.example' };
      const vp = await pool.signRdfcPresentation(presentation, issuer.material, binding, CREATED);
      expect(await local.verifyRdfcPresentation(vp, binding, NOW)).toEqual({ verified: true });
      const wrong = await local.verifyRdfcPresentation(vp, { ...binding, challenge: 'other' }, NOW);
      expect(wrong.verified).toBe(false);
      expect(await pool.verifyRdfcPresentation(vp, { ...binding, challenge: 'other' }, NOW)).toEqual(wrong);
      // A library failure while signing crosses as the same outcome (a document JSON-LD cannot expand).
      const broken = { ...credential, '@context': ['https://www.w3.org/ns/credentials/v2', 'https://unknown.example/ctx'] };
      expect(await outcome(() => pool.signRdfcCredential(broken, issuer.material, CREATED))).toEqual(await outcome(() => local.signRdfcCredential(broken, issuer.material, CREATED)));
    }
  });
});
