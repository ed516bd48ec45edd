/**
 * The prover of `vc serve`: witness calculation and Groth16 proving in a process of their own
 * (proverProcess.ts), so that a proof (seconds of CPU, a third of it witness calculation on one
 * thread) never blocks the server's event loop: /healthz and every other request keep being
 * answered while proofs run. One process, one proof at a time: snarkjs already spreads a proof's
 * multi-exponentiations over every core, so the others wait in its queue (PROVER_QUEUE_LIMIT,
 * then 503). It starts with the first proof (a server that never proves never loads it), is
 * started again after a crash (the proofs it was running fail with the reason), and stops with
 * the context. The commands prove on their own thread (a process that proves once gains nothing).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ServiceKey, type Context } from '../context.js';
import { InternalError, OverloadedError } from '../errors.js';
import type { TimedGroth16Proof } from './groth16Prove.js';
import type { NativeProverRequest, ProveRequest, ProverMessage } from './proverProcess.js';
import { workerEntry } from '../workers/pool.js';

/** How many proofs may wait for the prover before requests that need one are refused (503). */
export const PROVER_QUEUE_LIMIT = 32;
/** Deadline of one proof, waiting included (a loaded machine proves an MTP circuit in tens of seconds). */
export const PROOF_TIMEOUT_MS = 600_000;
/** Deadline for the prover process to load its libraries. */
const START_TIMEOUT_MS = 120_000;

/** Proofs made by the prover process. */
export interface ProverOffload {
  /** Proves `inputs` with the circuit files at these paths (with the native prover when `native` names it). */
  prove(files: { wasm: string; zkey: string; native?: NativeProverRequest }, inputs: Uint8Array): Promise<TimedGroth16Proof & { pid: number }>;
  /** The prover process's pid, while one runs. */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

interface Pending {
  resolve: (value: TimedGroth16Proof & { pid: number }) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  pid: number;
}

/** The prover process and the proofs it owes. */
class ProverProcess implements ProverOffload {
  private child: ChildProcess | undefined;
  private starting: Promise<ChildProcess> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: { log?: ((message: string) => void) | undefined; entry?: URL | undefined }) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): Promise<ChildProcess> {
    this.starting ??= new Promise<ChildProcess>((resolve, reject) => {
      const entry = this.options.entry ?? workerEntry('proverProcess.js', import.meta.url);
      const child = fork(fileURLToPath(entry), [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      // What the prover writes on stderr (a warning, its reason for dying) goes to the server's log,
      // one line at a time and bounded: never raw onto the server's stderr, which is JSON Lines.
      let partial = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        partial = (partial + chunk).slice(-8192);
        const lines = partial.split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') this.options.log?.(`prover process (pid ${child.pid}): ${line.trim().slice(0, 500)}`);
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new InternalError(`the prover process did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      child.on('message', (message: ProverMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          this.child = child;
          resolve(child);
          return;
        }
        const job = this.pending.get(message.id);
        if (job === undefined) return;
        this.pending.delete(message.id);
        clearTimeout(job.timer);
        if (message.type === 'result') job.resolve({ ...message.value, pid: job.pid });
        else job.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const why = `the prover process (pid ${child.pid}) exited (${signal ?? `code ${code}`})`;
        if (this.child === child || this.child === undefined) {
          this.child = undefined;
          this.starting = undefined;
        }
        reject(new InternalError(`${why} before it was ready`));
        for (const [id, job] of this.pending) {
          if (job.pid !== child.pid) continue;
          this.pending.delete(id);
          clearTimeout(job.timer);
          job.reject(new InternalError(`${why} during the proof`));
        }
        if (!this.closed) this.options.log?.(`${why}; the next proof starts another`);
      });
    });
    return this.starting;
  }

  async prove(files: { wasm: string; zkey: string; native?: NativeProverRequest }, inputs: Uint8Array): Promise<TimedGroth16Proof & { pid: number }> {
    if (this.closed) throw new InternalError('the prover process is stopped');
    if (this.pending.size >= PROVER_QUEUE_LIMIT) throw new OverloadedError(`${PROVER_QUEUE_LIMIT} proofs are waiting already: try again later`, { retryAfterSeconds: 30 });
    const child = await this.start();
    const pid = child.pid ?? 0;
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new InternalError(`the proof took longer than ${PROOF_TIMEOUT_MS / 1000} s: the prover process is restarted`));
        child.kill('SIGKILL');
      }, PROOF_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer, pid });
      child.send({ id, wasm: files.wasm, zkey: files.zkey, inputs, ...(files.native === undefined ? {} : { native: files.native }) } satisfies ProveRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const child = this.child ?? (this.starting === undefined ? undefined : await this.starting.catch(() => undefined));
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/** A prover process (started with the first proof; the entry can be replaced by tests). */
export function startProverProcess(options: { log?: ((message: string) => void) | undefined; entry?: URL } = {}): ProverOffload {
  return new ProverProcess(options);
}

const ENABLED_KEY = new ServiceKey<{ log?: ((message: string) => void) | undefined }>('iden3.proverProcess.enabled');
const PROCESS_KEY = new ServiceKey<ProverOffload>('iden3.proverProcess');

/** Makes the proofs of `ctx` run in the prover process (`vc serve`). */
export function enableProverProcess(ctx: Context, options: { log?: ((message: string) => void) | undefined } = {}): void {
  void ctx.lazy(ENABLED_KEY, () => Promise.resolve(options));
}

/** The prover process of `ctx` when its proofs are offloaded, else undefined. */
export async function proverOffload(ctx: Context): Promise<ProverOffload | undefined> {
  const enabled = ctx.peek(ENABLED_KEY);
  if (enabled === undefined) return undefined;
  const { log } = await enabled;
  return ctx.lazy(PROCESS_KEY, async () => {
    const offload = startProverProcess({ log });
    ctx.onClose(() => offload.close());
    return offload;
  });
}
