/**
 * Fixed-base scalar multiplication (scalar * generator) for many scalars, two ways.
 *
 * Native (NativeFixedBase): vc's native prover run as `vc-groth16 --fixed-base`
 * (native/groth16/fixedbase.cpp), a comb whose additions share field inversions across a batch:
 * about 5x less CPU than the WebAssembly one. Used when the native prover is built.
 *
 * WebAssembly (FixedBaseMultiplier), the fallback: a comb with
 * 8-bit windows (32 precomputed tables of 255 multiples of 256^j * G), so each product costs at
 * most 32 mixed additions instead of ~380 doublings and additions of a generic multiplication.
 * It runs in worker threads, each with its own instance of the same bn128 WebAssembly that
 * ffjavascript and snarkjs use (built by ffjavascript's own dependencies wasmcurves and
 * wasmbuilder), calling its point functions directly: ffjavascript's task queue costs several
 * microseconds per call, which would eat the comb's gain.
 *
 * Output matches snarkjs: affine points in Montgomery form, little-endian, identity as zeros.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

const require = createRequire(import.meta.url);

/** Scalars per worker job. */
const JOB_SIZE = 1 << 12;
/** Field element bytes of the base field (G1 coordinates) and of its quadratic extension (G2). */
const FIELD_BYTES = { G1: 32, G2: 64 } as const;

export type GroupName = 'G1' | 'G2';

interface WasmBuild {
  code: Uint8Array;
  pG1gen: number;
  pG2gen: number;
}

/** Builds the bn128 WebAssembly module exactly as ffjavascript's buildBn128 does. */
function buildBn128Wasm(): WasmBuild {
  const ffjavascriptRequire = createRequire(require.resolve('ffjavascript'));
  const { ModuleBuilder } = ffjavascriptRequire('wasmbuilder') as { ModuleBuilder: new () => ModuleBuilderLike };
  const { buildBn128 } = ffjavascriptRequire('wasmcurves') as { buildBn128: (builder: ModuleBuilderLike) => void };
  const builder = new ModuleBuilder();
  builder.setMemory(25);
  buildBn128(builder);
  return { code: builder.build(), pG1gen: builder.modules.bn128.pG1gen, pG2gen: builder.modules.bn128.pG2gen };
}

interface ModuleBuilderLike {
  setMemory(pages: number): void;
  build(): Uint8Array;
  modules: { bn128: { pG1gen: number; pG2gen: number } };
}

// Plain CommonJS run with `eval: true`, so it works both from dist/ and from TypeScript sources
// under the test runner (which cannot load a .ts file as a worker).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { code, pG1gen, pG2gen, jobSize } = workerData;
const memory = new WebAssembly.Memory({ initial: 160 });
const wasm = new WebAssembly.Instance(new WebAssembly.Module(code), { env: { memory } }).exports;
const u8 = new Uint8Array(memory.buffer);
const u32 = new Uint32Array(memory.buffer);
let free = u32[0];
// The module's own functions (batchToAffine) take scratch memory from the pointer at address 0,
// so every allocation moves it past what we hold.
function alloc(bytes) {
  free = (free + 7) & ~7;
  const at = free;
  free += bytes;
  if (free + (4 << 20) > memory.buffer.byteLength) throw new Error('worker memory exhausted');
  u32[0] = free;
  return at;
}
const groups = {};
function group(name) {
  if (groups[name]) return groups[name];
  const p = name === 'G1' ? 'g1m' : 'g2m';
  const n8 = name === 'G1' ? 32 : 64;
  const jac = 3 * n8, aff = 2 * n8;
  const f = { add: wasm[p + '_add'], addMixed: wasm[p + '_addMixed'], double: wasm[p + '_double'], zero: wasm[p + '_zero'],
    copy: wasm[p + '_copy'], batchToAffine: wasm[p + '_batchToAffine'] };
  const base = alloc(jac);
  f.copy(name === 'G1' ? pG1gen : pG2gen, base);
  const scratch = alloc(255 * jac);
  const table = alloc(32 * 255 * aff);
  for (let j = 0; j < 32; j++) {
    // scratch[d-1] = d * 256^j * G for d = 1..255
    f.copy(base, scratch);
    for (let d = 2; d <= 255; d++) f.add(scratch + (d - 2) * jac, base, scratch + (d - 1) * jac);
    f.batchToAffine(scratch, 255, table + j * 255 * aff);
    for (let k = 0; k < 8; k++) f.double(base, base);
  }
  const acc = alloc(jobSize * jac);
  const out = alloc(jobSize * aff);
  return (groups[name] = { f, jac, aff, table, acc, out });
}
parentPort.on('message', ({ id, name, scalars }) => {
  try {
    const g = group(name);
    const count = scalars.length / 32;
    for (let i = 0; i < count; i++) {
      const acc = g.acc + i * g.jac;
      g.f.zero(acc);
      const s = i * 32;
      for (let j = 0; j < 32; j++) {
        const digit = scalars[s + j];
        if (digit !== 0) g.f.addMixed(acc, g.table + (j * 255 + digit - 1) * g.aff, acc);
      }
    }
    g.f.batchToAffine(g.acc, count, g.out);
    const points = u8.slice(g.out, g.out + count * g.aff);
    parentPort.postMessage({ id, points }, [points.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.stack || error) });
  }
});
`;

/** Scalar multiples of a generator; create once per setup, `close` when done. */
export interface FixedBase {
  /**
   * Returns scalar_i * G for every scalar (each below the group order), as consecutive affine
   * points; `onProgress` receives the number of points finished with each job.
   */
  multiply(name: GroupName, scalars: readonly bigint[], onProgress?: (points: number) => void): Promise<Buffer>;
  close(): Promise<void>;
}

/** Scalars as consecutive 32-byte little-endian integers. */
function scalarBytes(scalars: readonly bigint[], start: number, count: number, header = 0): Uint8Array {
  const bytes = new Uint8Array(header + count * 32);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < count; i++) {
    let v = scalars[start + i]!;
    for (let k = 0; k < 32; k += 8) {
      view.setBigUint64(header + i * 32 + k, v & 0xffffffffffffffffn, true);
      v >>= 64n;
    }
  }
  return bytes;
}

/** Scalars per request to the native process (a progress step). */
const NATIVE_REQUEST = 1 << 15;

/**
 * The native comb: one `vc-groth16 --fixed-base` process for the whole setup (its tables are built
 * once per group), fed requests one at a time; it uses VC_PROVER_THREADS threads (default: all).
 */
export class NativeFixedBase implements FixedBase {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<string>;
  private stderr = '';
  private chunks: Buffer[] = [];
  private buffered = 0;
  private wanted = 0;
  private onData: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Why the process is gone, set as it goes (a request made afterwards must not wait for output). */
  private closedWhy: string | undefined;

  constructor(binary: string, threads?: number) {
    this.child = spawn(binary, ['--fixed-base'], { stdio: ['pipe', 'pipe', 'pipe'], env: threads === undefined ? {} : { VC_PROVER_THREADS: String(threads) } });
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      if (this.stderr.length < 4096) this.stderr += chunk;
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered >= this.wanted) this.onData?.();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.closedWhy = `cannot run ${binary}: ${error.message}`;
        resolve(this.closedWhy);
        this.onData?.();
      });
      this.child.once('close', (code, signal) => {
        const line = this.stderr.split('\n').find((l) => l.trim() !== '')?.trim().replace(/^vc-groth16: /, '');
        this.closedWhy ??= `the native prover's fixed-base multiplication ${code === null ? `was killed (${signal ?? 'signal'})` : `exited with code ${code}`}${line === undefined ? '' : `: ${line}`}`;
        resolve(this.closedWhy);
        this.onData?.();
      });
    });
  }

  private async request(group: GroupName, bytes: Uint8Array, pointBytes: number): Promise<Buffer> {
    const count = (bytes.length - 5) / 32;
    bytes[0] = group === 'G1' ? 1 : 2;
    new DataView(bytes.buffer).setUint32(1, count, true);
    this.wanted = count * pointBytes;
    if (this.closedWhy !== undefined) throw new Error(this.closedWhy);
    this.child.stdin.write(bytes);
    while (this.buffered < this.wanted) {
      if (this.closedWhy !== undefined) throw new Error(this.closedWhy);
      await new Promise<void>((resolve) => (this.onData = resolve));
      this.onData = undefined;
    }
    const all = Buffer.concat(this.chunks);
    this.chunks = all.length > this.wanted ? [all.subarray(this.wanted)] : [];
    this.buffered = all.length - this.wanted;
    return all.subarray(0, this.wanted);
  }

  multiply(name: GroupName, scalars: readonly bigint[], onProgress: (points: number) => void = () => undefined): Promise<Buffer> {
    const run = async (): Promise<Buffer> => {
      const pointBytes = FIELD_BYTES[name] * 2;
      const output = Buffer.alloc(scalars.length * pointBytes);
      for (let start = 0; start < scalars.length; start += NATIVE_REQUEST) {
        const count = Math.min(NATIVE_REQUEST, scalars.length - start);
        const points = await this.request(name, scalarBytes(scalars, start, count, 5), pointBytes);
        points.copy(output, start * pointBytes);
        onProgress(count);
      }
      return output;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const why = await this.exited;
    if (this.child.exitCode !== 0) throw new Error(why);
  }
}

/** The native comb when vc's native prover is built (`nativeBinary`), the WebAssembly one otherwise. */
export function openFixedBase(nativeBinary?: string, threads?: number): FixedBase {
  return nativeBinary === undefined ? new FixedBaseMultiplier(threads) : new NativeFixedBase(nativeBinary, threads);
}

/** A pool of WebAssembly comb workers; create once per setup, `close` when done. */
export class FixedBaseMultiplier implements FixedBase {
  private readonly workers: Worker[];
  private readonly idle: Worker[];
  private readonly waiting: Array<(worker: Worker) => void> = [];
  private nextId = 0;

  constructor(threads = Math.max(1, Math.min(16, os.availableParallelism?.() ?? os.cpus().length))) {
    const build = buildBn128Wasm();
    this.workers = Array.from(
      { length: threads },
      () => new Worker(WORKER_SOURCE, { eval: true, workerData: { code: build.code, pG1gen: build.pG1gen, pG2gen: build.pG2gen, jobSize: JOB_SIZE } }),
    );
    this.idle = [...this.workers];
  }

  private acquire(): Promise<Worker> {
    const worker = this.idle.pop();
    return worker ? Promise.resolve(worker) : new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next(worker);
    else this.idle.push(worker);
  }

  private async job(worker: Worker, name: GroupName, scalars: Uint8Array): Promise<Uint8Array> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMessage = (message: { id: number; points?: Uint8Array; error?: string }): void => {
        if (message.id !== id) return;
        worker.off('message', onMessage);
        worker.off('error', onError);
        if (message.error !== undefined || !message.points) reject(new Error(`fixed-base worker failed: ${message.error}`));
        else resolve(message.points);
      };
      const onError = (error: Error): void => {
        worker.off('message', onMessage);
        reject(error);
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.postMessage({ id, name, scalars }, [scalars.buffer as ArrayBuffer]);
    });
  }

  async multiply(name: GroupName, scalars: readonly bigint[], onProgress: (points: number) => void = () => undefined): Promise<Buffer> {
    const pointSize = FIELD_BYTES[name] * 2;
    const output = Buffer.alloc(scalars.length * pointSize);
    const jobs: Array<Promise<void>> = [];
    for (let start = 0; start < scalars.length; start += JOB_SIZE) {
      const count = Math.min(JOB_SIZE, scalars.length - start);
      const bytes = scalarBytes(scalars, start, count);
      const worker = await this.acquire();
      const job = this.job(worker, name, bytes)
        .then((points) => {
          output.set(points, start * pointSize);
          onProgress(count);
        })
        .finally(() => this.release(worker));
      // Handled by Promise.all below; this keeps an early failure from counting as unhandled.
      job.catch(() => undefined);
      jobs.push(job);
    }
    await Promise.all(jobs);
    return output;
  }

  /** Stops the workers. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
