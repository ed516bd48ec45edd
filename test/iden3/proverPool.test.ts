/**
 * The prover process of `vc serve` (src/iden3/proverPool.ts): a state-transition proof made in it,
 * for the fixed input bench/inputs/stateTransition.json and the project's built circuit, verifies
 * with snarkjs against the circuit's verification key (a changed public signal does not) and gives
 * the public signals the in-process prover gives (the same circuit's witness); so does one made by
 * the native prover, which the request names as vc serve does. A bad input is
 * refused with the witness calculator's reason and leaves the process serving; a killed process
 * fails the proof it was running with the reason, and the next proof starts another; the process
 * stops with its context, and goes when its parent does. A context whose proofs are offloaded (as
 * `vc serve` makes it) proves there, any other on its own thread. How long the server's event loop
 * waits meanwhile is the bench's business, not a test's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCircuits, type CircuitFiles } from '../../src/circuits/build.js';
import { releaseBn128, withSharedBn128 } from '../../src/circuits/curve.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { proveGroth16, type WitnessBuilder } from '../../src/iden3/groth16Prove.js';
import { enableProverProcess, proverOffload, startProverProcess, type ProverOffload } from '../../src/iden3/proverPool.js';
import { ROOT } from '../helpers.js';

interface Snarkjs {
  groth16: { verify(vkey: unknown, publicSignals: string[], proof: unknown): Promise<boolean> };
}

const INPUT = readFileSync(path.join(ROOT, 'bench', 'inputs', 'stateTransition.json'));
const tmp = mkdtempSync(path.join(tmpdir(), 'vc-prover-process-'));
let ctx: Context;
let circuit: CircuitFiles;
let files: { wasm: string; zkey: string };
let prover: ProverOffload;
let snarkjs: Snarkjs;
const logged: string[] = [];

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({}, path.join(tmp, 'home')) });
  const info = await ensureCircuits(ctx);
  circuit = info.circuits.find((candidate) => candidate.id === 'stateTransition')!;
  files = { wasm: circuit.wasm!, zkey: circuit.zkey! };
  prover = startProverProcess({ log: (line) => logged.push(line) });
  const moduleName: string = 'snarkjs';
  snarkjs = (await import(moduleName)) as Snarkjs;
}, 300_000);

afterAll(async () => {
  await prover?.close();
  await ctx?.close();
  await releaseBn128();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the prover process', () => {
  it("refuses a bad input with the witness calculator's reason, and goes on serving", async () => {
    const input = JSON.parse(INPUT.toString('utf8')) as Record<string, unknown>;
    const bad = new TextEncoder().encode(JSON.stringify({ ...input, newUserState: '1' }));
    await expect(prover.prove(files, bad)).rejects.toThrow(/Assert Failed/);
    const pid = prover.pid!;
    expect(pid).not.toBe(process.pid);
    const missing = { ...files, zkey: path.join(tmp, 'nothing.zkey') };
    await expect(prover.prove(missing, INPUT)).rejects.toThrow(/ENOENT/);
    expect(prover.pid).toBe(pid);
  }, 120_000);

  it("proves in another process: the proof verifies, a changed public signal does not, and its public signals are the in-process prover's", async () => {
    const offloaded = await prover.prove(files, INPUT);
    expect(offloaded.pid).not.toBe(process.pid);
    const vkey = JSON.parse(readFileSync(circuit.verificationKey!, 'utf8')) as unknown;
    expect(await snarkjs.groth16.verify(vkey, offloaded.publicSignals, offloaded.proof)).toBe(true);
    const tampered = [...offloaded.publicSignals];
    tampered[0] = (BigInt(tampered[0]!) + 1n).toString();
    expect(await snarkjs.groth16.verify(vkey, tampered, offloaded.proof)).toBe(false);

    const { witnessBuilder } = await import('@0xpolygonid/js-sdk');
    const here = await proveGroth16(witnessBuilder as unknown as WitnessBuilder, readFileSync(files.wasm), INPUT, { kind: 'snarkjs', zkey: readFileSync(files.zkey), useCurve: withSharedBn128 });
    expect(here.publicSignals).toEqual(offloaded.publicSignals);
    // Fresh randomness per proof: the same statement, another proof.
    expect(here.proof).not.toEqual(offloaded.proof);
  }, 300_000);

  it('proves with the native prover when the request names it (as vc serve does by default): it verifies; a missing key is named', async () => {
    const { chooseProver } = await import('../../src/circuits/nativeProver.js');
    const { binary } = await chooseProver({ ...process.env, VC_PROVER: 'native' });
    const native = { binary: binary! };
    const proved = await prover.prove({ ...files, native }, INPUT);
    expect(proved.pid).not.toBe(process.pid);
    const vkey = JSON.parse(readFileSync(circuit.verificationKey!, 'utf8')) as unknown;
    expect(await snarkjs.groth16.verify(vkey, proved.publicSignals, proved.proof)).toBe(true);
    await expect(prover.prove({ ...files, zkey: path.join(tmp, 'nothing.zkey'), native }, INPUT)).rejects.toThrow(/the native prover failed \(a file could not be read\): proving key .*nothing\.zkey: cannot open/);
  }, 300_000);

  it('killed during a proof: that proof fails with the reason, the next one starts another process', async () => {
    const pid = prover.pid!;
    const running = prover.prove(files, INPUT);
    process.kill(pid, 'SIGKILL');
    await expect(running).rejects.toThrow(new RegExp(`the prover process \\(pid ${pid}\\) exited \\(SIGKILL\\)`));
    expect(logged.some((line) => line.includes(`pid ${pid}`) && line.includes('the next proof starts another'))).toBe(true);
    const input = JSON.parse(INPUT.toString('utf8')) as Record<string, unknown>;
    // A quick refusal is enough to show a new process serves.
    await expect(prover.prove(files, new TextEncoder().encode(JSON.stringify({ ...input, newUserState: '1' })))).rejects.toThrow(/Assert Failed/);
    expect(prover.pid).toBeDefined();
    expect(prover.pid).not.toBe(pid);
  }, 300_000);

  it('stops with close(), and goes when its parent dies', async () => {
    const input = JSON.parse(INPUT.toString('utf8')) as Record<string, unknown>;
    await expect(prover.prove(files, new TextEncoder().encode(JSON.stringify({ ...input, newUserState: '1' })))).rejects.toThrow(/Assert Failed/);
    const pid = prover.pid!;
    expect(alive(pid)).toBe(true);
    await prover.close();
    expect(alive(pid)).toBe(false);
    await expect(prover.prove(files, INPUT)).rejects.toThrow(/stopped/);

    // A parent killed without a word: its prover process does not stay behind.
    const script = `
      import { startProverProcess } from ${JSON.stringify(path.join(ROOT, 'dist', 'src', 'iden3', 'proverPool.js'))};
      const prover = startProverProcess();
      prover.prove({ wasm: 'x', zkey: 'y' }, new Uint8Array()).catch(() => { console.log(String(prover.pid)); setInterval(() => {}, 1000); });
    `;
    const file = path.join(tmp, 'parent.mjs');
    writeFileSync(file, script);
    const parent = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const child = Number(line.toString().trim());
    expect(Number.isSafeInteger(child) && child > 0, line.toString()).toBe(true);
    expect(alive(child)).toBe(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    for (let i = 0; i < 100 && alive(child); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(child)).toBe(false);
  }, 120_000);
});

describe('what the prover process writes on stderr', () => {
  it("goes to the server's log, a line at a time with its pid, not onto the server's own stderr", async () => {
    // A process that dies at start with its reason on stderr, in the prover's place.
    const entry = path.join(tmp, 'dies-at-start.mjs');
    writeFileSync(entry, "process.stderr.write('cannot load the circuit libraries\\nsecond line\\n'); process.exit(1);\n");
    const lines: string[] = [];
    const dying = startProverProcess({ log: (line) => lines.push(line), entry: pathToFileURL(entry) });
    await expect(dying.prove(files, INPUT)).rejects.toThrow(/the prover process \(pid \d+\) exited \(code 1\) before it was ready/);
    for (let i = 0; i < 50 && lines.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.filter((line) => /^prover process \(pid \d+\): (cannot load the circuit libraries|second line)$/.test(line))).toHaveLength(2);
    await dying.close();
  }, 60_000);
});

describe('a context', () => {
  it('proves in the prover process once offloading is enabled (as vc serve does), and on its own thread otherwise', async () => {
    const plain = new Context({ config: parseConfig({}, path.join(tmp, 'plain')) });
    const served = new Context({ config: parseConfig({}, path.join(tmp, 'served')) });
    try {
      expect(await proverOffload(plain)).toBeUndefined();
      enableProverProcess(served);
      const offload = await proverOffload(served);
      expect(offload).toBeDefined();
      // One prover per context.
      expect(await proverOffload(served)).toBe(offload);
    } finally {
      await plain.close();
      await served.close();
    }
  }, 120_000);
});
