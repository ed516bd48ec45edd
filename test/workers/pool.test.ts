/**
 * The worker pool's promises (src/workers/pool.ts), with the real BBS+ worker: a worker that dies
 * in the middle of a call (process.exit, an uncaught exception) or overruns its deadline fails
 * that call with an InternalError at once, never a hang, and is replaced by a fresh worker that
 * serves the next call; a full queue refuses calls at once with OverloadedError while the calls
 * it holds all succeed; a worker is recycled after its share of calls without failing any;
 * closing fails what waits and ends every thread.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaticDocumentLoader } from '../../src/sd/documentLoader.js';
import { inProcessBbsEngine } from '../../src/sd/engine.js';
import { deriveBlsKeyPair } from '../../src/sd/suites/bbs2020/bbs2020Keys.js';
import type { JsonLdDocument } from '../../src/sd/proofOutcome.js';
import { ExitCode, InternalError, OverloadedError, UnprocessableError } from '../../src/errors.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { installBbsEngine } from '../../src/core/sd/sdEngine.js';
import { deriveSelectiveDisclosure } from '../../src/core/sd/index.js';
import type { BbsCredential } from '../../src/core/sd/sdSchemas.js';
import { storeHolderCredential } from '../../src/core/sd/sdRecords.js';
import { BbsWorkerPool } from '../../src/sd/worker/bbsWorkerPool.js';
import { QUEUE_PER_WORKER } from '../../src/workers/pool.js';
import { cleanupScripts, faultyWorker, FIXED_PHRASE, passportCredential, revealFrame } from '../sd/worker/support.js';
import { tempDir } from '../helpers.js';

const NONCE = new Uint8Array(Buffer.alloc(32, 3));
let signed: JsonLdDocument;
let derived: JsonLdDocument;

beforeAll(async () => {
  const local = inProcessBbsEngine(createStaticDocumentLoader());
  const key = await deriveBlsKeyPair(FIXED_PHRASE);
  signed = await local.signCredential(passportCredential(key.did), key, new Date('2030-01-01T00:00:00.000Z'));
  derived = await local.deriveProof(signed, revealFrame(signed), NONCE);
});
afterAll(() => cleanupScripts());

/** Resolves once `pool` has `size` ready workers again (a replacement runs its self-test first). */
async function waitForWorkers(pool: BbsWorkerPool, size: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (pool.workerInfo().length !== size || pool.size !== size) {
    if (Date.now() > deadline) throw new Error(`the pool did not get back to ${size} workers`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as Error,
  );
}

describe('a worker that dies mid-call', () => {
  let pool: BbsWorkerPool;
  const replaced: string[] = [];
  beforeAll(async () => {
    pool = await BbsWorkerPool.start({ size: 2, entry: faultyWorker(), callTimeoutMs: 5_000, log: (line) => replaced.push(line) });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it.each([
    ['exits (process.exit in the worker)', 'exit', /stopped \(exit code 7\); it is being replaced/],
    ['throws an uncaught exception', 'throw', /stopped \(uncaught in the worker\); it is being replaced/],
    ['runs past the call deadline', 'hang', /did not finish verifyDerivedProof within 5 s; it was stopped and is being replaced/],
  ])('%s: that call fails with an InternalError, the worker is replaced, the next call succeeds', async (_name, fault, message) => {
    const before = pool.threadIds;
    const started = Date.now();
    const error = await rejection(pool.verifyDerivedProof({ ...derived, testFault: fault }));
    expect(error).toBeInstanceOf(InternalError);
    expect((error as InternalError).exitCode).toBe(ExitCode.internal);
    expect((error as InternalError).httpStatus).toBe(500);
    expect(error.message).toMatch(message);
    expect(Date.now() - started).toBeLessThan(fault === 'hang' ? 15_000 : 5_000);

    await waitForWorkers(pool, 2);
    const after = pool.threadIds;
    expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
    expect(replaced.at(-1)).toMatch(/^BBS\+ worker thread \d+ (stopped|ran verifyDerivedProof for more than 5 s)/);
    // Both workers serve again, the replacement included.
    const results = await Promise.all([0, 1].map(() => pool.callTraced('verifyDerivedProof', derived)));
    expect(results.map((result) => result.value)).toEqual([{ verified: true }, { verified: true }]);
    expect(new Set(results.map((result) => result.threadId))).toEqual(new Set(after));
  });

  it('the calls of the other worker and the waiting ones are not affected', async () => {
    const calls = [
      pool.verifyDerivedProof(derived),
      pool.verifyDerivedProof({ ...derived, testFault: 'exit' }),
      ...Array.from({ length: 4 }, () => pool.verifyDerivedProof(derived)),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    await waitForWorkers(pool, 2);
  });
});

describe('through the selective-disclosure operations', () => {
  it('a worker dying during a disclosure fails it with the InternalError (HTTP 500), not as a refused credential (422)', async () => {
    const pool = await BbsWorkerPool.start({ size: 1, entry: faultyWorker() });
    const home = tempDir('vc-workers-pool-');
    const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(home.dir, 'home')) });
    try {
      installBbsEngine(ctx, pool);
      // Stored as it is (the checks of an import would meet the fault first): the derivation meets it.
      storeHolderCredential(ctx, 'PassportCredential', { ...signed, testFault: 'exit' } as unknown as BbsCredential);
      const error = await rejection(deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'] }));
      expect(error).toBeInstanceOf(InternalError);
      expect(error).not.toBeInstanceOf(UnprocessableError);
      expect(error.message).toMatch(/worker thread running deriveProof stopped \(exit code 7\)/);
      // The replacement derives the next one.
      storeHolderCredential(ctx, 'PassportCredential', signed as unknown as BbsCredential);
      await waitForWorkers(pool, 1);
      expect((await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'] })).vc.credentialSubject).toEqual({ id: 'did:example:alice', name: 'Alice' });
    } finally {
      await pool.close();
      await ctx.close();
      home.cleanup();
    }
  });
});

describe('back-pressure', () => {
  it(`with 1 worker and a queue of N, N + 1 + k calls at once: 1 runs, N wait and succeed, k are refused at once with OverloadedError`, async () => {
    const queueLimit = 3;
    const refusedCount = 4;
    const pool = await BbsWorkerPool.start({ size: 1, queueLimit });
    try {
      const settledAt: number[] = [];
      const started = performance.now();
      const calls = Array.from({ length: 1 + queueLimit + refusedCount }, (_, index) =>
        pool.verifyDerivedProof(derived).then(
          (value) => ({ index, value }),
          (error: unknown) => ({ index, error }),
        ).finally(() => settledAt.push(performance.now() - started)),
      );
      expect(pool.waiting).toBe(queueLimit);
      const results = await Promise.all(calls);
      const accepted = results.slice(0, 1 + queueLimit);
      const refused = results.slice(1 + queueLimit);
      for (const result of accepted) expect(result).toEqual({ index: result.index, value: { verified: true } });
      for (const result of refused) {
        const error = (result as { error: unknown }).error as OverloadedError;
        expect(error).toBeInstanceOf(OverloadedError);
        expect(error.httpStatus).toBe(503);
        expect(error.code).toBe('overloaded');
        expect(error.exitCode).toBe(ExitCode.network);
        expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(error.message).toMatch(/^the server is busy: 3 BBS\+ calls are already waiting for its 1 worker thread; retry in \d+ s$/);
      }
      // Refused at once: every refusal settled before the first accepted call finished.
      const sorted = [...settledAt].sort((a, b) => a - b);
      expect(sorted.slice(0, refusedCount).every((time) => time < sorted[refusedCount]!)).toBe(true);
      expect(sorted[refusedCount - 1]!).toBeLessThan(50);
      // Once the queue drained, calls are accepted again.
      expect(await pool.verifyDerivedProof(derived)).toEqual({ verified: true });
    } finally {
      await pool.close();
    }
  });

  it('overloaded(n) tells whether n calls made now all find room: an idle worker or a free place in the queue', async () => {
    const pool = await BbsWorkerPool.start({ size: 1, queueLimit: 2 });
    try {
      expect(pool.overloaded(3)).toBeUndefined();
      expect(pool.overloaded(4)).toBeInstanceOf(OverloadedError);
      const running = [pool.verifyDerivedProof(derived), pool.verifyDerivedProof(derived)];
      // One worker busy, one place taken: room for one call, not for two.
      expect(pool.waiting).toBe(1);
      expect(pool.overloaded(1)).toBeUndefined();
      expect(pool.overloaded(2)).toMatchObject({ code: 'overloaded', httpStatus: 503 });
      expect(pool.waiting).toBe(1);
      await Promise.all(running);
      expect(pool.overloaded(3)).toBeUndefined();
    } finally {
      await pool.close();
    }
  });

  it(`the default queue holds ${QUEUE_PER_WORKER} calls per worker`, async () => {
    const pool = await BbsWorkerPool.start({ size: 1 });
    try {
      const calls = Array.from({ length: 1 + QUEUE_PER_WORKER + 1 }, () => pool.findUndefinedTerms(signed).then(() => 'ok', (error: unknown) => (error instanceof OverloadedError ? 'overloaded' : String(error))));
      expect(await Promise.all(calls)).toEqual([...Array.from({ length: 1 + QUEUE_PER_WORKER }, () => 'ok'), 'overloaded']);
    } finally {
      await pool.close();
    }
  });
});

describe('recycling', () => {
  it('a worker that answered maxCallsPerWorker calls of the BBS+ WebAssembly is replaced by a fresh, self-tested one, and no call fails', async () => {
    const pool = await BbsWorkerPool.start({ size: 2, maxCallsPerWorker: 3 });
    try {
      const first = pool.threadIds;
      const served = new Set<number>();
      for (let round = 0; round < 8; round++) {
        const results = await Promise.all(Array.from({ length: 6 }, () => pool.callTraced('verifyDerivedProof', derived)));
        for (const result of results) {
          expect(result.value).toEqual({ verified: true });
          served.add(result.threadId);
        }
        // Give replacements time to start between rounds.
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      await waitForWorkers(pool, 2);
      const fresh = [...served].filter((id) => !first.includes(id));
      expect(fresh.length).toBeGreaterThan(0);
      expect(pool.threadIds.some((id) => !first.includes(id))).toBe(true);
      for (const worker of pool.workerInfo()) expect(worker).toMatchObject({ selfTested: true, randomness: { draws: expect.any(Number) as number } });
      expect(await pool.verifyDerivedProof(derived)).toEqual({ verified: true });
    } finally {
      await pool.close();
    }
    expect(pool.size).toBe(0);
  });

  it('calls that do not run the WebAssembly (JSON-LD expansion) do not count toward replacement', async () => {
    const pool = await BbsWorkerPool.start({ size: 2, maxCallsPerWorker: 3 });
    try {
      const first = [...pool.threadIds].sort();
      for (let round = 0; round < 4; round++) {
        const results = await Promise.all(Array.from({ length: 6 }, () => pool.callTraced('findUndefinedTerms', signed)));
        for (const result of results) expect(first).toContain(result.threadId);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect([...pool.threadIds].sort()).toEqual(first);
    } finally {
      await pool.close();
    }
  });
});

describe('closing', () => {
  it('fails the waiting calls, ends every thread, and refuses later calls', async () => {
    const pool = await BbsWorkerPool.start({ size: 2 });
    expect(pool.size).toBe(2);
    const calls = Array.from({ length: 6 }, () => pool.verifyDerivedProof(derived).then(() => 'ok', (error: unknown) => error));
    await pool.close();
    expect(pool.size).toBe(0);
    const outcomes = await Promise.all(calls);
    // The two running calls end with their threads, the four waiting ones with the pool.
    for (const outcome of outcomes) expect(outcome === 'ok' || outcome instanceof InternalError).toBe(true);
    expect(outcomes.filter((outcome) => outcome instanceof InternalError && /closed before this call ran/.test(outcome.message))).toHaveLength(4);
    await expect(pool.verifyDerivedProof(derived)).rejects.toThrow(/the BBS\+ worker pool is closed/);
  });
});
