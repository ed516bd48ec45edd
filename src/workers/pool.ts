/**
 * A pool of worker threads for CPU-bound calls of `vc serve`, so that they run on every core and
 * the event loop stays free to answer requests (GET /healthz among them) while they run.
 *
 * - Workers are started together and each must report `ready` (its libraries loaded and
 *   self-tested, see protocol.ts) before the pool serves anything; one that fails makes `start`
 *   fail with its error (a BBS+ randomness self-test failure stops `vc serve` at start).
 * - Workers stay alive across calls (libraries, contexts and keys stay resident); each runs one
 *   call at a time, and calls wait in one FIFO queue for the next free worker.
 * - Back-pressure: the queue holds at most `queueLimit` waiting calls (default QUEUE_PER_WORKER
 *   per worker); a call arriving when it is full is refused at once with OverloadedError (HTTP
 *   503 with Retry-After), instead of making every later request wait longer.
 * - A worker that exits or crashes (an uncaught exception, a WebAssembly trap) fails the call it
 *   was running with an InternalError (HTTP 500) and is replaced by a fresh, self-tested worker; a
 *   call running longer than `callTimeoutMs` fails the same way and its worker is stopped and
 *   replaced. So no caller waits forever: a running call ends within the deadline, and a waiting
 *   one waits for at most the calls ahead of it.
 * - With `maxCallsPerWorker`, a worker that answered that many calls (of `recycledBy`'s methods,
 *   when given) is replaced by a fresh one
 *   (started and self-tested while the old one still serves, which then stops once idle): the
 *   memory a leaking library holds in the thread goes with it.
 * - `close` refuses new calls, fails those waiting, and stops every worker; it resolves once all
 *   threads have exited.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InternalError, OverloadedError, describeError } from '../errors.js';
import { packageRoot } from '../paths.js';
import { reviveError, type CallMessage, type ErrorClass, type WorkerMessage } from './protocol.js';

/** Calls that may wait per worker before new ones are refused (8 x workers waiting calls). */
export const QUEUE_PER_WORKER = 8;
/** Default deadline of one call once a worker runs it; BBS+ calls take well under a second. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Deadline for a worker to load its libraries and pass its self-tests. */
const START_TIMEOUT_MS = 120_000;

/** One worker per core by default (`os.availableParallelism()`). */
export function defaultWorkerCount(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/**
 * The file a worker runs: the compiled module `file` next to the module `from`. Run from the
 * TypeScript sources (the tests), there is no compiled sibling and Node cannot run a .ts worker,
 * so the built copy in dist/ is used (the tests build dist/ first, as they do for the binary).
 */
export function workerEntry(file: string, from: string): URL {
  const sibling = new URL(file, from);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  const root = packageRoot();
  const built = path.join(root, 'dist', path.relative(root, path.dirname(fileURLToPath(from))), file);
  if (existsSync(built)) return pathToFileURL(built);
  throw new InternalError(`the worker module ${file} is missing (not next to ${fileURLToPath(from)}, nor in ${path.dirname(built)}): run npm run build`);
}

export interface WorkerPoolOptions {
  /** What the workers do, for messages ("BBS+"). */
  name: string;
  /** The worker module (it calls serveCalls from protocol.ts). */
  entry: URL;
  /** Number of worker threads (at least 1). */
  size: number;
  /** Waiting calls beyond which calls are refused (default QUEUE_PER_WORKER x size). */
  queueLimit?: number | undefined;
  /** Deadline of a running call in ms (default DEFAULT_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number | undefined;
  /** Error classes besides src/errors.ts that errors from the workers are rebuilt as. */
  errorClasses?: readonly ErrorClass[] | undefined;
  /** Receives one line per worker that failed and was replaced (the server's error log). */
  log?: ((message: string) => void) | undefined;
  /**
   * Calls after which a worker is replaced by a fresh one (default: never). For libraries that
   * leak: what a thread's isolate holds, its WebAssembly memory included, is freed when it exits.
   */
  maxCallsPerWorker?: number | undefined;
  /** The methods whose calls count toward maxCallsPerWorker (default: every call), e.g. those of the leaking library only. */
  recycledBy?: ReadonlySet<string> | undefined;
  /** Plain data every worker receives as its `workerData` (a wallet home it reads documents from). */
  workerData?: unknown;
}

interface Job {
  id: number;
  method: string;
  args: unknown[];
  resolve: (result: { value: unknown; threadId: number }) => void;
  reject: (error: Error) => void;
  startedAt?: number;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  threadId: number;
  ready: boolean;
  /** Being stopped (a call overran its deadline): takes no more calls; replaced once it exits. */
  retiring: boolean;
  /** Calls answered so far that count toward maxCallsPerWorker. */
  calls: number;
  /** Served its maxCallsPerWorker: a replacement is starting; it keeps serving until that is ready. */
  recycling: boolean;
  /** Its replacement is ready: stopped as soon as it is idle. */
  replaced: boolean;
  /** What the worker's `prepare` returned. */
  info?: unknown;
  current?: Job | undefined;
  /** An uncaught exception of the worker, for the message of the call it ends. */
  crash?: Error;
  exited: Promise<void>;
}

/** A pool of worker threads; see the module comment. */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly queueLimit: number;
  private readonly callTimeoutMs: number;
  private nextId = 1;
  private closed = false;
  /** Running average of call durations (ms), for Retry-After. */
  private averageMs = 200;

  private constructor(private readonly options: WorkerPoolOptions) {
    this.queueLimit = options.queueLimit ?? QUEUE_PER_WORKER * options.size;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  /** Starts `size` workers and resolves once every one is ready; rejects (all stopped) if one fails. */
  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    if (!Number.isSafeInteger(options.size) || options.size < 1) throw new InternalError(`a ${options.name} worker pool needs at least one worker, not ${options.size}`);
    const pool = new WorkerPool(options);
    try {
      await Promise.all(Array.from({ length: options.size }, () => pool.spawn()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** Live worker threads (starting or ready); 0 once closed. */
  get size(): number {
    return this.slots.length;
  }

  /** The thread ids of the live workers. */
  get threadIds(): number[] {
    return this.slots.map((slot) => slot.threadId);
  }

  /** What each worker that serves calls reported when it became ready (e.g. its self-test figures). */
  workerInfo(): Array<{ threadId: number; info: unknown }> {
    return this.slots.filter((slot) => slot.ready && !slot.retiring && !slot.replaced).map((slot) => ({ threadId: slot.threadId, info: slot.info }));
  }

  /** Calls waiting for a worker. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * The OverloadedError that `calls` calls made now would meet (idle workers and free places in
   * the queue fewer than `calls`), or undefined.
   */
  refusal(calls = 1): OverloadedError | undefined {
    if (this.closed) return undefined;
    const room = this.slots.filter((slot) => this.idle(slot)).length + Math.max(0, this.queueLimit - this.queue.length);
    return room >= calls ? undefined : this.overloaded();
  }

  /** Calls `method` in a worker; resolves or rejects as the method did there (see protocol.ts). */
  async call<T>(method: string, args: unknown[]): Promise<T> {
    return (await this.callTraced<T>(method, args)).value;
  }

  /** As `call`, also naming the worker thread that ran it. */
  callTraced<T>(method: string, args: unknown[]): Promise<{ value: T; threadId: number }> {
    if (this.closed) return Promise.reject(new InternalError(`the ${this.options.name} worker pool is closed`));
    if (this.slots.length === 0) return Promise.reject(new InternalError(`no ${this.options.name} worker is running (see the server log)`));
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, method, args, resolve: resolve as Job['resolve'], reject };
      const idle = this.slots.find((slot) => this.idle(slot));
      if (idle !== undefined) {
        this.dispatch(idle, job);
        return;
      }
      if (this.queue.length >= this.queueLimit) {
        reject(this.overloaded());
        return;
      }
      this.queue.push(job);
    });
  }

  /** Refuses new calls, fails the waiting ones and stops every worker; resolves once all have exited. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new InternalError(`the ${this.options.name} worker pool closed before this call ran`));
    const slots = [...this.slots];
    await Promise.all(slots.map(async (slot) => {
      await slot.worker.terminate();
      await slot.exited;
    }));
  }

  private overloaded(): OverloadedError {
    const ready = Math.max(1, this.slots.filter((slot) => slot.ready).length);
    const ahead = this.queue.length + this.slots.filter((slot) => slot.current !== undefined).length;
    const seconds = Math.ceil((ahead * this.averageMs) / ready / 1000);
    return new OverloadedError(`the server is busy: ${this.queue.length} ${this.options.name} calls are already waiting for its ${this.slots.length} worker thread${this.slots.length === 1 ? '' : 's'}; retry in ${Math.max(1, seconds)} s`, {
      retryAfterSeconds: seconds,
    });
  }

  private dispatch(slot: Slot, job: Job): void {
    slot.current = job;
    job.startedAt = performance.now();
    job.timer = setTimeout(() => {
      if (slot.current !== job) return;
      slot.current = undefined;
      job.reject(new InternalError(`a ${this.options.name} worker thread did not finish ${job.method} within ${this.callTimeoutMs / 1000} s; it was stopped and is being replaced`));
      this.options.log?.(`${this.options.name} worker thread ${slot.threadId} ran ${job.method} for more than ${this.callTimeoutMs / 1000} s: stopped, starting a replacement`);
      this.retire(slot);
    }, this.callTimeoutMs);
    const message: CallMessage = { type: 'call', id: job.id, method: job.method, args: job.args };
    try {
      slot.worker.postMessage(message);
    } catch (error) {
      // Arguments that cannot be cloned: the caller's bug, and the worker is still free.
      this.finish(slot, job);
      job.reject(error instanceof Error ? error : new InternalError(describeError(error)));
      this.next(slot);
    }
  }

  private finish(slot: Slot, job: Job): void {
    clearTimeout(job.timer);
    if (slot.current === job) slot.current = undefined;
    if (job.startedAt !== undefined) this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - job.startedAt);
  }

  private idle(slot: Slot): boolean {
    return slot.ready && !slot.retiring && !slot.replaced && slot.current === undefined;
  }

  /**
   * Replaces a worker that answered maxCallsPerWorker calls (its memory is freed with its
   * thread): a fresh worker starts and self-tests while this one keeps serving, then this one
   * stops once idle. One worker at a time, so the pool never loses more than that one's share.
   */
  private recycleIfDue(slot: Slot): void {
    const max = this.options.maxCallsPerWorker;
    if (max === undefined || slot.calls < max || slot.recycling || this.closed) return;
    if (this.slots.some((other) => other.recycling || !other.ready)) return;
    slot.recycling = true;
    this.spawn().then(
      () => {
        slot.replaced = true;
        if (slot.current === undefined) this.retire(slot);
      },
      (error: unknown) => {
        // Keep this one serving; try again after as many calls.
        slot.recycling = false;
        slot.calls = 0;
        this.options.log?.(`a fresh ${this.options.name} worker thread failed to start (to replace one after ${max} calls): ${describeError(error)}`);
      },
    );
  }

  /** Stops a worker that must take no more calls; its exit replaces it. */
  private retire(slot: Slot): void {
    slot.retiring = true;
    void slot.worker.terminate();
  }

  private next(slot: Slot): void {
    if (this.closed || !this.idle(slot)) return;
    const job = this.queue.shift();
    if (job !== undefined) this.dispatch(slot, job);
  }

  /** Starts one worker; resolves once it is ready, rejects if it fails to prepare or exits first. */
  private spawn(): Promise<void> {
    const worker = new Worker(this.options.entry, this.options.workerData === undefined ? {} : { workerData: this.options.workerData });
    let markExited: () => void = () => undefined;
    const slot: Slot = { worker, threadId: worker.threadId, ready: false, retiring: false, calls: 0, recycling: false, replaced: false, exited: new Promise<void>((resolve) => (markExited = resolve)) };
    this.slots.push(slot);
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(startTimer);
        if (error === undefined) resolve();
        else reject(error);
      };
      const startTimer = setTimeout(() => {
        settle(new InternalError(`a ${this.options.name} worker thread did not get ready within ${START_TIMEOUT_MS / 1000} s`));
        void worker.terminate();
      }, START_TIMEOUT_MS);

      worker.on('message', (message: WorkerMessage) => {
        switch (message.type) {
          case 'ready':
            slot.ready = true;
            slot.info = message.info;
            settle();
            this.next(slot);
            return;
          case 'failed':
            settle(reviveError(message.error, this.options.errorClasses ?? [], slot.threadId));
            void worker.terminate();
            return;
          case 'result':
          case 'error': {
            const job = slot.current;
            if (job === undefined || job.id !== message.id) return;
            this.finish(slot, job);
            if (message.type === 'result') job.resolve({ value: message.value, threadId: slot.threadId });
            else job.reject(reviveError(message.error, this.options.errorClasses ?? [], slot.threadId));
            if (this.options.recycledBy?.has(job.method) ?? true) slot.calls += 1;
            if (slot.replaced) this.retire(slot);
            else {
              this.recycleIfDue(slot);
              this.next(slot);
            }
            return;
          }
        }
      });
      // An answer that cannot be deserialised would leave its call waiting: fail it, replace the worker.
      worker.on('messageerror', (error) => {
        slot.crash = error;
        this.retire(slot);
      });
      worker.on('error', (error) => {
        slot.crash = error;
      });
      worker.once('exit', (code) => {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots.splice(index, 1);
        markExited();
        const cause = slot.crash === undefined ? `exit code ${code}` : describeError(slot.crash);
        settle(new InternalError(`a ${this.options.name} worker thread stopped before it was ready (${cause})`, { cause: slot.crash }));
        const job = slot.current;
        if (job !== undefined) {
          this.finish(slot, job);
          const message = this.closed
            ? `the ${this.options.name} worker pool closed while ${job.method} ran`
            : `the ${this.options.name} worker thread running ${job.method} stopped (${cause}); it is being replaced`;
          job.reject(new InternalError(message, { cause: slot.crash }));
        }
        if (this.closed || !slot.ready || slot.recycling) {
          // Not replaced: the pool is closing, the worker never got ready (replacing it would
          // fail the same way), or its replacement is already starting (a recycled worker). With
          // no worker left, nothing waiting can ever run.
          if (this.slots.length === 0) this.failWaiting(`no ${this.options.name} worker is running (see the server log)`);
          return;
        }
        this.options.log?.(`${this.options.name} worker thread ${slot.threadId} stopped (${cause})${job === undefined ? '' : ` while running ${job.method}`}: starting a replacement`);
        this.spawn().catch((error: unknown) => {
          this.options.log?.(`the replacement ${this.options.name} worker thread failed to start: ${describeError(error)}`);
        });
      });
    });
  }

  private failWaiting(message: string): void {
    for (const job of this.queue.splice(0)) job.reject(new InternalError(message));
  }
}
