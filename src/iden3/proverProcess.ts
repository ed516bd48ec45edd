/**
 * The prover process of `vc serve` (started by proverPool.ts with an IPC channel): witness
 * calculation and Groth16 proving (groth16Prove.ts: vc's native prover as a child of this process,
 * or snarkjs) away from the server's event loop. A process,
 * not a worker thread: snarkjs's curve starts its own threads through the `web-worker` package,
 * which takes over any thread that is not a process's main thread. It loads the js-sdk's witness
 * calculator and snarkjs before it says it is ready, runs at a lower priority than the server
 * (PROVER_NICE), keeps the circuit files it read (by path,
 * size and modification time) and the curve's threads between proofs, and exits when its parent
 * goes away.
 */
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import { proveGroth16, type TimedGroth16Proof, type WitnessBuilder } from './groth16Prove.js';

/** The native prover to use (its executable and threads), when vc serve chose it; else snarkjs. */
export interface NativeProverRequest {
  binary: string;
  threads?: number;
}

/** A proof asked of the prover process. */
export interface ProveRequest {
  id: number;
  wasm: string;
  zkey: string;
  inputs: Uint8Array;
  native?: NativeProverRequest;
}

/** What the prover process answers. */
export type ProverMessage =
  | { type: 'ready'; pid: number }
  | { type: 'result'; id: number; value: TimedGroth16Proof }
  | { type: 'error'; id: number; error: { name: string; message: string } };

const files = new Map<string, { key: string; bytes: Promise<Buffer> }>();

/** The bytes of `file`, read again only when its size or modification time changed. */
async function cachedFile(file: string): Promise<Uint8Array> {
  const info = await stat(file);
  const key = `${info.size} ${info.mtimeMs}`;
  const cached = files.get(file);
  if (cached !== undefined && cached.key === key) return cached.bytes;
  const bytes = readFile(file);
  files.set(file, { key, bytes });
  bytes.catch(() => files.delete(file));
  return bytes;
}

function send(message: ProverMessage): void {
  process.send?.(message);
}

/**
 * The prover's scheduling priority (a nice value): below the server's, so that on a busy machine
 * the server's event loop is scheduled first and proofs take the cores it leaves. Set before the
 * curve's threads start, which inherit it.
 */
export const PROVER_NICE = 10;

async function main(): Promise<void> {
  if (process.send === undefined) throw new Error('the prover process runs with an IPC channel to vc serve');
  try {
    os.setPriority(Math.min(19, os.getPriority() + PROVER_NICE));
  } catch {
    // Not permitted here: the prover runs at the server's priority.
  }
  const moduleName: string = 'snarkjs';
  const [sdk] = await Promise.all([import('@0xpolygonid/js-sdk'), import(moduleName)]);
  const witnessBuilder = sdk.witnessBuilder as unknown as WitnessBuilder;
  // One proof at a time: snarkjs spreads each over every core already.
  let running: Promise<unknown> = Promise.resolve();
  process.on('message', (request: ProveRequest) => {
    running = running.then(async () => {
      try {
        const { native } = request;
        // The native prover reads the proving key itself: only snarkjs needs its bytes here.
        const [wasm, zkey] = await Promise.all([cachedFile(request.wasm), native === undefined ? cachedFile(request.zkey) : undefined]);
        const backend =
          native === undefined
            ? { kind: 'snarkjs' as const, zkey: zkey! }
            : { kind: 'native' as const, binary: native.binary, zkeyPath: request.zkey, ...(native.threads === undefined ? {} : { threads: native.threads }) };
        send({ type: 'result', id: request.id, value: await proveGroth16(witnessBuilder, wasm, request.inputs, backend) });
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        send({ type: 'error', id: request.id, error: { name: failure.name, message: failure.message.split('\n')[0] ?? failure.name } });
      }
    });
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', pid: process.pid });
}

main().catch((error: unknown) => {
  process.stderr.write(`vc prover process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
