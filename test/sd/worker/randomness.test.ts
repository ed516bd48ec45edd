/**
 * Randomness across BBS+ worker threads. Each worker loads its own copy of the BBS+ WebAssembly,
 * so each must have its own working random source: signatures of one credential made in two
 * workers share no random value, two derivations of one disclosure made in two workers share no
 * random component and both verify, every worker reports that it ran the randomness self-test of
 * src/sd/library.ts before serving, and a worker whose random source is broken refuses to start
 * (and with it the pool, so `vc serve` stops at start). Real crypto, no mocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaticDocumentLoader } from '../../../src/sd/documentLoader.js';
import { inProcessBbsEngine } from '../../../src/sd/engine.js';
import { blsKeyMaterial, deriveBlsKeyPair, type BlsIssuerKey } from '../../../src/sd/suites/bbs2020/bbs2020Keys.js';
import { ExitCode, InternalError } from '../../../src/errors.js';
import { BbsWorkerPool } from '../../../src/sd/worker/bbsWorkerPool.js';
import { brokenRandomWorker, cleanupScripts, FIXED_PHRASE, passportCredential, proofBytes, revealFrame, sharedWindow } from './support.js';

const CREATED = new Date('2030-01-01T00:00:00.000Z');
const NONCE = new Uint8Array(Buffer.alloc(32, 5));
let pool: BbsWorkerPool;
let key: BlsIssuerKey;

beforeAll(async () => {
  pool = await BbsWorkerPool.start({ size: 2 });
  key = await deriveBlsKeyPair(FIXED_PHRASE);
});
afterAll(async () => {
  await pool?.close();
  cleanupScripts();
});

describe('BBS+ randomness in worker threads', () => {
  it('every worker ran the randomness self-test, drawing from node:crypto, before it served', () => {
    const info = pool.workerInfo();
    expect(info).toHaveLength(2);
    expect(new Set(info.map((worker) => worker.threadId)).size).toBe(2);
    for (const worker of info) {
      expect(worker.selfTested).toBe(true);
      expect(worker.randomness.draws).toBeGreaterThan(0);
    }
  });

  it('one credential signed in two workers: the signatures share no random value', async () => {
    const credential = passportCredential(key.did);
    // Two calls at once on a pool of two idle workers: one runs in each.
    const [one, two] = await Promise.all([0, 1].map(() => pool.callTraced('signCredential', credential, blsKeyMaterial(key), CREATED)));
    expect(one!.threadId).not.toBe(two!.threadId);
    const a = proofBytes(one!.value);
    const b = proofBytes(two!.value);
    expect(a).toHaveLength(112);
    // A (48), e (32), s (32): e and s are drawn at random, and A depends on e.
    expect(a.subarray(48, 80).equals(b.subarray(48, 80)), 'e repeats across workers').toBe(false);
    expect(a.subarray(80, 112).equals(b.subarray(80, 112)), 's repeats across workers').toBe(false);
    expect(sharedWindow(a, b), 'the two signatures share 16 bytes').toBeUndefined();
    const local = inProcessBbsEngine(createStaticDocumentLoader());
    for (const signed of [one!.value, two!.value]) expect(await local.verifySignature(signed)).toEqual({ verified: true });
  });

  it('one disclosure derived in two workers: distinct proofs sharing no random component, both verifying', async () => {
    const local = inProcessBbsEngine(createStaticDocumentLoader());
    const signed = await local.signCredential(passportCredential(key.did), key, CREATED);
    const [one, two] = await Promise.all([0, 1].map(() => pool.callTraced('deriveProof', signed, revealFrame(signed), NONCE)));
    expect(one!.threadId).not.toBe(two!.threadId);
    const a = proofBytes(one!.value);
    const b = proofBytes(two!.value);
    expect(a.equals(b)).toBe(false);
    // The first bytes are the statement count and the revealed-statement bit vector (fixed).
    expect(sharedWindow(a.subarray(5), b.subarray(5)), 'two derivations share 16 bytes').toBeUndefined();
    for (const derived of [one!.value, two!.value]) {
      expect(await local.verifyDerivedProof(derived)).toEqual({ verified: true });
      expect(await pool.verifyDerivedProof(derived)).toEqual({ verified: true });
    }
  });

  it.each(['zero', 'noop'] as const)('a worker whose random source is broken (%s) refuses to start, and so does the pool', async (kind) => {
    const started = BbsWorkerPool.start({ size: 2, entry: brokenRandomWorker(kind) });
    const error = await started.then(
      () => undefined,
      (e: unknown) => e,
    );
    // The worker's InternalError, as in process: class, exit code, field and message.
    expect(error).toBeInstanceOf(InternalError);
    expect((error as InternalError).exitCode).toBe(ExitCode.internal);
    expect((error as InternalError).field).toBe('randomness');
    expect((error as Error).message).toMatch(/^BBS\+ randomness self-test failed: .+; refusing to sign or derive/);
  });
});
