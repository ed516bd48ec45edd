/**
 * The generic worker pool (src/workers/pool.ts) and its protocol (src/workers/protocol.ts), with
 * a trivial worker this file writes into a temporary directory: it serves calls through
 * serveCalls (echo, wait at a gate, exit, throw uncaught, hang, refuse with a VcError), so every
 * behaviour is driven by events rather than by how long real work takes.
 *
 * A worker that dies in the middle of a call (process.exit, an uncaught exception) or overruns
 * its deadline fails that call with an InternalError, never a hang, and is replaced by a fresh
 * worker that serves the next call; a full queue refuses calls at once with OverloadedError while
 * the calls it holds all succeed; a worker is recycled after its share of calls without failing
 * any; closing fails what waits and ends every thread, and a process that closed its pool exits.
 *
 * "At once" is shown by ordering, not by a clock: the calls that must not finish yet wait at a
 * gate (a shared Int32Array the worker blocks on with Atomics.wait) that the test opens only
 * after it has seen the refusals and failures.
 *
 * The last block is the BBS+ pool's binding (src/sd/worker/bbsWorkerPool.ts), with the real BBS+ worker:
 * which of its methods count toward recycling, and a worker dying during a disclosure fails it as
 * an InternalError (HTTP 500), not as a refused credential. That the BBS+ pool gives what the
 * in-process engine gives, and its randomness, are tested in test/sd/worker/bbsWorkerPool.test.ts
 * and randomness.test.ts.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { installBbsEngine } from '../../src/core/sd/sdEngine.js';
import { deriveSelectiveDisclosure } from '../../src/core/sd/index.js';
import { ExitCode, InternalError, OverloadedError, UnprocessableError } from '../../src/errors.js';
import { createStaticDocumentLoader } from '../../src/sd/documentLoader.js';
import { inProcessBbsEngine } from '../../src/sd/engine.js';
import type { JsonLdDocument } from '../../src/sd/proofOutcome.js';
import { deriveBlsKeyPair } from '../../src/sd/suites/bbs2020/bbs2020Keys.js';
import { BbsWorkerPool } from '../../src/sd/worker/bbsWorkerPool.js';
import { QUEUE_PER_WORKER, WorkerPool, type WorkerPoolOptions } from '../../src/workers/pool.js';
import { childEnv, ROOT, tempDir } from '../helpers.js';
import { cleanupScripts, faultyWorker, FIXED_PHRASE, passportCredential, revealFrame } from '../sd/worker/support.js';
import { holdDirectly } from '../core/holder/support.js';

const tmp = tempDir('vc-workers-pool-');
afterAll(() => {
  tmp.cleanup();
  cleanupScripts();
});

const dist = (...parts: string[]): string => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'src', ...parts)).href);

function script(name: string, source: string): URL {
  const file = path.join(tmp.dir, name);
  writeFileSync(file, source);
  return pathToFileURL(file);
}

/**
 * The test worker. `wait` blocks the thread until its gate (an Int32Array on a SharedArrayBuffer)
 * is set to non-zero; `hang` blocks it for good (no CPU used; terminate() ends it); `throw`
 * raises an uncaught exception outside the call (as a WebAssembly trap would), so the call gets no
 * answer; `exit` ends the thread; `refuse` rejects with a VcError, which is the call's own answer.
 */
const TEST_WORKER = script(
  'test-worker.mjs',
  `import { threadId } from 'node:worker_threads';
import { serveCalls } from ${dist('workers', 'protocol.js')};
import { UnprocessableError } from ${dist('errors.js')};
let answered = 0;
serveCalls({
  prepare: async () => ({ threadId, prepared: true }),
  methods: {
    echo: async (value) => ({ value, threadId, answered: ++answered }),
    wait: async (gate) => {
      Atomics.wait(gate, 0, 0);
      return { threadId, answered: ++answered };
    },
    exit: async (code) => process.exit(code),
    throw: (message) => {
      setImmediate(() => {
        throw new Error(message);
      });
      return new Promise(() => undefined);
    },
    hang: async () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0),
    refuse: async (message) => {
      throw new UnprocessableError(message, { field: '--test' });
    },
    unclonable: async () => () => undefined,
  },
});
`,
);

/** A worker whose preparation (its self-test) fails: the pool must not start. */
const FAILING_WORKER = script(
  'failing-worker.mjs',
  `import { serveCalls } from ${dist('workers', 'protocol.js')};
import { InternalError } from ${dist('errors.js')};
serveCalls({
  prepare: async () => {
    throw new InternalError('the self-test of the test worker failed');
  },
  methods: {},
});
`,
);

interface Echo {
  value: unknown;
  threadId: number;
  answered: number;
}

function startPool(options: Partial<WorkerPoolOptions> & { size: number }): Promise<WorkerPool> {
  return WorkerPool.start({ name: 'test', entry: TEST_WORKER, ...options });
}

/** A gate the `wait` calls block at until `open()`; opening it again does nothing. */
function gate(): { array: Int32Array; open: () => void } {
  const array = new Int32Array(new SharedArrayBuffer(4));
  return {
    array,
    open: () => {
      Atomics.store(array, 0, 1);
      Atomics.notify(array, 0);
    },
  };
}

/** A promise with a flag telling whether it settled yet. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  const settle = (): void => {
    settled = true;
  };
  promise.then(settle, settle);
  return { promise, settled: () => settled };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as Error,
  );
}

/**
 * Waits until `condition()` holds, checking every few milliseconds: for a state the pool reaches
 * on a thread's exit event, which it does not expose. Never used to order events; bounded by the
 * test's timeout.
 */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('starting', () => {
  it('starts `size` threads, each prepared before it serves', async () => {
    const pool = await startPool({ size: 2 });
    try {
      expect(pool.size).toBe(2);
      expect(new Set(pool.threadIds).size).toBe(2);
      const info = pool.workerInfo();
      expect(info.map((worker) => worker.threadId).sort()).toEqual([...pool.threadIds].sort());
      for (const worker of info) expect(worker.info).toEqual({ threadId: worker.threadId, prepared: true });
      expect(await pool.call('echo', [{ a: [1, 'b'] }])).toMatchObject({ value: { a: [1, 'b'] } });
    } finally {
      await pool.close();
    }
  });

  it('refuses to start when a worker fails to prepare, with that error, and leaves no thread', async () => {
    const error = await rejection(WorkerPool.start({ name: 'test', entry: FAILING_WORKER, size: 2 }));
    expect(error).toBeInstanceOf(InternalError);
    expect(error.message).toBe('the self-test of the test worker failed');
    expect(error.stack).toMatch(/\(in worker thread \d+\)$/);
    await expect(WorkerPool.start({ name: 'test', entry: TEST_WORKER, size: 0 })).rejects.toThrow(/a test worker pool needs at least one worker, not 0/);
  });
});

describe('answers', () => {
  let pool: WorkerPool;
  beforeAll(async () => {
    pool = await startPool({ size: 1 });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it("a method's error is that call's error, rebuilt as its class; the worker keeps serving", async () => {
    const [threadId] = pool.threadIds;
    const error = await rejection(pool.call('refuse', ['no such credential']));
    expect(error).toBeInstanceOf(UnprocessableError);
    expect(error).toMatchObject({ message: 'no such credential', code: 'unprocessable', httpStatus: 422, exitCode: ExitCode.usage, field: '--test' });
    const unknown = await rejection(pool.call('nonexistent', []));
    expect(unknown).toBeInstanceOf(InternalError);
    expect(unknown.message).toMatch(/^worker thread \d+ has no method nonexistent$/);
    expect(await pool.callTraced('echo', [1])).toMatchObject({ threadId, value: { value: 1, threadId } });
    expect(pool.threadIds).toEqual([threadId]);
  });

  it('arguments or a result that cannot cross threads fail that call only', async () => {
    const [threadId] = pool.threadIds;
    await expect(pool.call('echo', [() => undefined])).rejects.toThrow(/could not be cloned/);
    const result = await rejection(pool.call('unclonable', []));
    expect(result).toBeInstanceOf(InternalError);
    expect(result.message).toMatch(/^the result of unclonable cannot cross threads: /);
    expect(await pool.callTraced('echo', [2])).toMatchObject({ threadId, value: { value: 2 } });
    expect(pool.threadIds).toEqual([threadId]);
  });
});

describe('a worker that dies mid-call', () => {
  let pool: WorkerPool;
  const logged: string[] = [];
  beforeAll(async () => {
    // The default deadline (60 s): a call failing here failed because its worker died.
    pool = await startPool({ size: 2, log: (line) => logged.push(line) });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it.each([
    ['exits (process.exit in the worker)', 'exit', [7], /^the test worker thread running exit stopped \(exit code 7\); it is being replaced$/, /^test worker thread \d+ stopped \(exit code 7\) while running exit: starting a replacement$/],
    ['throws an uncaught exception', 'throw', ['uncaught in the worker'], /^the test worker thread running throw stopped \(uncaught in the worker\); it is being replaced$/, /^test worker thread \d+ stopped \(uncaught in the worker\) while running throw: starting a replacement$/],
  ])('%s: that call fails with an InternalError at once, the worker is replaced, both serve the next calls', async (_name, method, args, message, logLine) => {
    const before = pool.threadIds;
    const error = await rejection(pool.call(method, args));
    expect(error).toBeInstanceOf(InternalError);
    expect((error as InternalError).exitCode).toBe(ExitCode.internal);
    expect((error as InternalError).httpStatus).toBe(500);
    // Its own message, not the deadline's: the failure came from the thread's end.
    expect(error.message).toMatch(message);
    expect(logged.at(-1)).toMatch(logLine);

    // The replacement is starting already: exactly one thread is new.
    const after = pool.threadIds;
    expect(after).toHaveLength(2);
    expect(after.filter((id) => !before.includes(id))).toHaveLength(1);
    // Both serve: the survivor is held at a gate, so the next call can only go to the
    // replacement (it waits in the queue until the replacement is ready).
    const held = gate();
    const survivor = pool.callTraced<{ threadId: number }>('wait', [held.array]);
    const next = await pool.callTraced<Echo>('echo', ['next']);
    expect(next.value.value).toBe('next');
    held.open();
    const threads = new Set([(await survivor).threadId, next.threadId]);
    expect(threads).toEqual(new Set(after));
    expect(pool.workerInfo().map((worker) => worker.threadId).sort()).toEqual([...after].sort());
  });

  it('the calls of the other worker and the waiting ones are not affected', async () => {
    const calls = [pool.call('echo', [0]), pool.call('exit', [7]), ...Array.from({ length: 4 }, (_, i) => pool.call('echo', [i + 1]))];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(settled.filter((result) => result.status === 'fulfilled').map((result) => (result.value as Echo).value)).toEqual([0, 1, 2, 3, 4]);
    expect(pool.size).toBe(2);
  });
});

describe('a call that overruns its deadline', () => {
  it('fails with an InternalError naming the deadline, its worker is stopped and replaced, the replacement serves the next call', async () => {
    const logged: string[] = [];
    const pool = await startPool({ size: 1, callTimeoutMs: 1000, log: (line) => logged.push(line) });
    try {
      const [hung] = pool.threadIds;
      const hanging = pool.call('hang', []);
      const waiting = pool.callTraced<Echo>('echo', ['queued behind the hung call']);
      expect(pool.waiting).toBe(1);
      const error = await rejection(hanging);
      expect(error).toBeInstanceOf(InternalError);
      expect((error as InternalError).httpStatus).toBe(500);
      expect(error.message).toBe('a test worker thread did not finish hang within 1 s; it was stopped and is being replaced');
      expect(logged).toEqual([`test worker thread ${hung} ran hang for more than 1 s: stopped, starting a replacement`]);
      // The call that waited behind it is served by the replacement (one worker: nothing else can).
      const served = await waiting;
      expect(served.value.value).toBe('queued behind the hung call');
      expect(served.threadId).not.toBe(hung);
      expect(pool.threadIds).toEqual([served.threadId]);
      // Its thread ended (terminated: exit code 1) after the call had already failed.
      expect(logged).toEqual([`test worker thread ${hung} ran hang for more than 1 s: stopped, starting a replacement`, `test worker thread ${hung} stopped (exit code 1): starting a replacement`]);
    } finally {
      await pool.close();
    }
  });
});

describe('back-pressure', () => {
  it('with 1 worker and a queue of N, N + 1 + k calls at once: 1 runs, N wait and succeed, k are refused at once with OverloadedError', async () => {
    const queueLimit = 3;
    const refusedCount = 4;
    const pool = await startPool({ size: 1, queueLimit });
    const held = gate();
    try {
      const calls = Array.from({ length: 1 + queueLimit + refusedCount }, () => tracked(pool.call('wait', [held.array])));
      expect(pool.waiting).toBe(queueLimit);
      const accepted = calls.slice(0, 1 + queueLimit);
      const refused = calls.slice(1 + queueLimit);
      // Refused at once: every refusal settles while the running call is still held at the gate.
      const errors = await Promise.all(refused.map((call) => rejection(call.promise)));
      expect(accepted.map((call) => call.settled())).toEqual([false, false, false, false]);
      for (const error of errors) {
        expect(error).toBeInstanceOf(OverloadedError);
        const overloaded = error as OverloadedError;
        expect(overloaded.httpStatus).toBe(503);
        expect(overloaded.code).toBe('overloaded');
        expect(overloaded.exitCode).toBe(ExitCode.network);
        expect(overloaded.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(overloaded.message).toMatch(/^the server is busy: 3 test calls are already waiting for its 1 worker thread; retry in \d+ s$/);
      }
      held.open();
      const results = await Promise.all(accepted.map((call) => call.promise));
      expect(results.map((result) => (result as { answered: number }).answered)).toEqual([1, 2, 3, 4]);
      // Once the queue drained, calls are accepted again.
      expect(pool.waiting).toBe(0);
      expect(await pool.call('echo', ['again'])).toMatchObject({ value: 'again' });
    } finally {
      held.open();
      await pool.close();
    }
  });

  it('refusal(n) tells whether n calls made now all find room: an idle worker or a free place in the queue', async () => {
    const pool = await startPool({ size: 1, queueLimit: 2 });
    const held = gate();
    try {
      expect(pool.refusal(3)).toBeUndefined();
      expect(pool.refusal(4)).toBeInstanceOf(OverloadedError);
      const running = [pool.call('wait', [held.array]), pool.call('wait', [held.array])];
      // One worker busy, one place taken: room for one call, not for two.
      expect(pool.waiting).toBe(1);
      expect(pool.refusal(1)).toBeUndefined();
      expect(pool.refusal(2)).toMatchObject({ code: 'overloaded', httpStatus: 503 });
      // Asking takes no place.
      expect(pool.waiting).toBe(1);
      held.open();
      await Promise.all(running);
      expect(pool.refusal(3)).toBeUndefined();
    } finally {
      held.open();
      await pool.close();
    }
  });

  it(`the default queue holds ${QUEUE_PER_WORKER} calls per worker`, async () => {
    const pool = await startPool({ size: 2 });
    const held = gate();
    try {
      const outcomes = Array.from({ length: 2 + 2 * QUEUE_PER_WORKER + 1 }, () =>
        pool.call('wait', [held.array]).then(
          () => 'ok',
          (error: unknown) => (error instanceof OverloadedError ? 'overloaded' : String(error)),
        ),
      );
      expect(pool.waiting).toBe(2 * QUEUE_PER_WORKER);
      expect(await outcomes.at(-1)).toBe('overloaded');
      held.open();
      expect(await Promise.all(outcomes)).toEqual([...Array.from({ length: 2 + 2 * QUEUE_PER_WORKER }, () => 'ok'), 'overloaded']);
    } finally {
      held.open();
      await pool.close();
    }
  });
});

describe('recycling', () => {
  it('a worker that answered maxCallsPerWorker calls is replaced by a fresh, prepared one; it serves until then and no call fails', async () => {
    const pool = await startPool({ size: 1, maxCallsPerWorker: 3 });
    const held = gate();
    try {
      const [old] = pool.threadIds;
      for (let i = 1; i <= 2; i++) expect(await pool.callTraced('echo', [i])).toMatchObject({ threadId: old });
      expect(pool.threadIds).toEqual([old]);
      // The third answer is its share: a fresh worker starts at once, beside it.
      expect(await pool.callTraced('echo', [3])).toMatchObject({ threadId: old });
      const [, fresh] = pool.threadIds;
      expect(pool.threadIds).toEqual([old, fresh]);
      expect(pool.workerInfo().map((worker) => worker.threadId)).toEqual([old]);
      // The old worker still takes a call while its replacement prepares (held at the gate)...
      const last = pool.callTraced<{ threadId: number }>('wait', [held.array]);
      // ...and the next one waits for the replacement, which serves it once prepared.
      expect(await pool.callTraced('echo', ['fresh'])).toMatchObject({ threadId: fresh, value: { value: 'fresh', answered: 1 } });
      expect(pool.workerInfo()).toEqual([{ threadId: fresh, info: { threadId: fresh, prepared: true } }]);
      // The old worker is not stopped in the middle of its call: it finishes it, then stops.
      expect(pool.threadIds).toContain(old);
      held.open();
      expect((await last).threadId).toBe(old);
      await until(() => pool.size === 1);
      expect(pool.threadIds).toEqual([fresh]);
      expect(await pool.callTraced('echo', ['after'])).toMatchObject({ threadId: fresh });
    } finally {
      held.open();
      await pool.close();
    }
    expect(pool.size).toBe(0);
  });

  it('replaces one worker at a time, and no call fails while workers come and go', async () => {
    const pool = await startPool({ size: 2, maxCallsPerWorker: 1 });
    try {
      const first = pool.threadIds;
      const both = await Promise.all([pool.callTraced('echo', [1]), pool.callTraced('echo', [2])]);
      expect(new Set(both.map((result) => result.threadId))).toEqual(new Set(first));
      // Both served their share, only one replacement starts.
      expect(pool.threadIds).toHaveLength(3);
      // Rounds of calls until two generations of replacements have served (each round waits for
      // its answers: no clock), every call answered, never more than one extra thread.
      const seen = new Set(first);
      for (let round = 0; seen.size < 6; round++) {
        const results = await Promise.all(Array.from({ length: 4 }, (_, i) => pool.callTraced<Echo>('echo', [round * 4 + i])));
        expect(results.map((result) => result.value.value)).toEqual([0, 1, 2, 3].map((i) => round * 4 + i));
        for (const result of results) seen.add(result.threadId);
        expect(pool.size).toBeLessThanOrEqual(3);
      }
    } finally {
      await pool.close();
    }
    expect(pool.size).toBe(0);
  });

  it('only the calls of `recycledBy` count toward replacement', async () => {
    const pool = await startPool({ size: 1, maxCallsPerWorker: 2, recycledBy: new Set(['echo']) });
    const held = gate();
    held.open();
    try {
      const [only] = pool.threadIds;
      for (let i = 0; i < 5; i++) expect(await pool.callTraced('wait', [held.array])).toMatchObject({ threadId: only });
      expect(pool.threadIds).toEqual([only]);
      await pool.call('echo', [1]);
      expect(pool.threadIds).toEqual([only]);
      await pool.call('echo', [2]);
      expect(pool.threadIds).toHaveLength(2);
    } finally {
      await pool.close();
    }
  });
});

describe('closing', () => {
  it('fails the running and waiting calls, ends every thread, and refuses later calls', async () => {
    const pool = await startPool({ size: 2 });
    const held = gate();
    expect(pool.size).toBe(2);
    const calls = Array.from({ length: 6 }, () => pool.call('wait', [held.array]).then(() => 'ok', (error: unknown) => error));
    expect(pool.waiting).toBe(4);
    await pool.close();
    expect(pool.size).toBe(0);
    expect(pool.waiting).toBe(0);
    const outcomes = await Promise.all(calls);
    // The two running calls end with their threads (held at the gate, they cannot have finished),
    // the four waiting ones with the pool.
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(InternalError);
    expect(outcomes.slice(0, 2).map((outcome) => (outcome as Error).message)).toEqual(['the test worker pool closed while wait ran', 'the test worker pool closed while wait ran']);
    expect(outcomes.slice(2).map((outcome) => (outcome as Error).message)).toEqual(Array.from({ length: 4 }, () => 'the test worker pool closed before this call ran'));
    await expect(pool.call('echo', [1])).rejects.toThrow(/^the test worker pool is closed$/);
    expect(pool.refusal(100)).toBeUndefined();
  });

  it('a process that used a pool and closed it exits by itself', async () => {
    const file = path.join(tmp.dir, 'use-and-close.mjs');
    writeFileSync(
      file,
      `import { WorkerPool } from ${dist('workers', 'pool.js')};
const pool = await WorkerPool.start({ name: 'test', entry: new URL(${JSON.stringify(TEST_WORKER.href)}), size: 2, maxCallsPerWorker: 2 });
const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.call('echo', [i])));
process.stdout.write('answered ' + results.length + ', workers ' + pool.size + '\\n');
await pool.close();
process.stdout.write('closed, workers ' + pool.size + '\\n');
`,
    );
    const child = spawn(process.execPath, [file], { cwd: tmp.dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A leaked thread keeps the process alive: the test then fails on its own timeout.
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(stdout).toMatch(/^answered 6, workers [23]\nclosed, workers 0\n$/);
  }, 30_000);
});

describe('the BBS+ pool on the generic pool (real BBS+ worker)', () => {
  const NONCE = new Uint8Array(Buffer.alloc(32, 3));
  let signed: JsonLdDocument;
  let derived: JsonLdDocument;
  beforeAll(async () => {
    const local = inProcessBbsEngine(createStaticDocumentLoader());
    const key = await deriveBlsKeyPair(FIXED_PHRASE);
    signed = await local.signCredential(passportCredential(key.did), key, new Date('2030-01-01T00:00:00.000Z'));
    derived = await local.deriveProof(signed, revealFrame(signed), NONCE);
  });

  it('JSON-LD calls do not count toward recycling, WebAssembly calls do; a worker dying during a disclosure fails it as an InternalError (500), not a refused credential (422); a fresh self-tested worker derives the next', async () => {
    const pool = await BbsWorkerPool.start({ size: 1, entry: faultyWorker(), maxCallsPerWorker: 2 });
    const home = tempDir('vc-workers-pool-bbs-');
    const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(home.dir, 'home')) });
    try {
      const first = pool.threadIds;
      for (let i = 0; i < 3; i++) expect(await pool.findUndefinedTerms(signed)).toBeUndefined();
      expect(pool.threadIds).toEqual(first);
      for (let i = 0; i < 2; i++) expect(await pool.verifyDerivedProof(derived)).toEqual({ verified: true });
      // The second verification was the worker's share: its replacement is starting.
      expect(pool.threadIds).toHaveLength(2);

      installBbsEngine(ctx, pool);
      // Stored as it is (the checks of an import would meet the fault first): the derivation meets it.
      holdDirectly(ctx, { ...signed, testFault: 'exit' });
      const error = await rejection(deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'] }));
      expect(error).toBeInstanceOf(InternalError);
      expect(error).not.toBeInstanceOf(UnprocessableError);
      expect((error as InternalError).httpStatus).toBe(500);
      expect(error.message).toMatch(/worker thread running deriveProof stopped \(exit code 7\)/);
      // A fresh worker derives the next one (the call waits for it to be ready).
      holdDirectly(ctx, signed);
      expect((await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'] })).vc.credentialSubject).toEqual({ id: 'did:example:alice', name: 'Alice' });
      expect(pool.threadIds.some((id) => !first.includes(id))).toBe(true);
      for (const worker of pool.workerInfo()) expect(worker).toMatchObject({ selfTested: true, randomness: { draws: expect.any(Number) as number } });
      expect(pool.workerInfo().length).toBeGreaterThan(0);
    } finally {
      await pool.close();
      await ctx.close();
      home.cleanup();
    }
    expect(pool.size).toBe(0);
  });
});
