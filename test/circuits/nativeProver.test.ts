/**
 * vc's native Groth16 prover (native/groth16, run by src/circuits/nativeProver.ts) against snarkjs,
 * called directly from the test:
 * - proofs of real witnesses (stateTransition and credentialAtomicQueryMTPV2OnChain, from the
 *   recorded inputs in bench/inputs, witnesses computed by snarkjs) verify with snarkjs against the
 *   circuits' verification keys; their public signals are snarkjs's; a changed public signal or a
 *   proof element of another proof fails; two proofs of one witness differ (fresh r and s);
 * - the multi-scalar multiplication equals plain double-and-add sums (fixtures/msmCheck.cpp: zero
 *   and extreme scalars, equal, opposite and infinite points, 1 to 4 threads, G1 and G2), also
 *   with the scalars grouped by value; the field arithmetic equals a plain 512-bit reference, its
 *   x86-64 assembly is chosen exactly when /proc/cpuinfo lists BMI2 and ADX, and the portable
 *   forms are checked too;
 * - encodings are positional: on a circuit of our own (c = a * b, every signal public), witnesses
 *   written by the test with values of every byte length, 0, 1 and values next to r give proofs
 *   that verify and public signals equal to those values; a witness that does not satisfy the
 *   circuit gives a proof that does not verify;
 * - bad input (truncated or garbage proving keys and witnesses, a non-Groth16 key, a witness of
 *   the wrong size or field) is one line on stderr and the exit code of its kind, never a crash;
 * - the choice of the prover: VC_PROVER=snarkjs and a PATH without g++ prove with snarkjs (the
 *   fallback said once), VC_PROVER=native without a compiler is an error, a failed compilation is
 *   recorded and not repeated but by a build, concurrent builds leave one working program.
 * VC_NATIVE_SANITIZE=1 runs the native-binary tests on a build with -fsanitize=address,undefined.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCircuits, ensureCircuits, type CircuitFiles } from '../../src/circuits/build.js';
import { releaseBn128 } from '../../src/circuits/curve.js';
import { chooseProver, proverSetting, selectProver, type ProverChoice } from '../../src/circuits/nativeProver.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context, type ProgressReporter } from '../../src/context.js';
import { loadIden3Modules } from '../../src/iden3/modules.js';
import { TimedProver } from '../../src/iden3/prover.js';
import { ROOT, runVcInProcess } from '../helpers.js';

type Proof = { pi_a: string[]; pi_b: string[][]; pi_c: string[]; protocol: string; curve: string };
interface Snarkjs {
  groth16: {
    verify(vkey: unknown, publicSignals: string[], proof: unknown): Promise<boolean>;
  };
  wtns: { calculate(input: unknown, wasm: string, out: string): Promise<void>; exportJson(file: string): Promise<bigint[]> };
}

/** BN254's group order (the witness field) and base field. */
const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;

const tmp = mkdtempSync(path.join(tmpdir(), 'vc-native-prover-'));
let snarkjs: Snarkjs;
let binary: string;
let st: CircuitFiles;
let mtp: CircuitFiles;
let ctx: Context;

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the native prover's executable itself. */
function prove(args: string[], input?: Uint8Array, env: NodeJS.ProcessEnv = {}): Run {
  const result = spawnSync(binary, args, { env: { ...env, ASAN_OPTIONS: 'detect_leaks=0' }, ...(input === undefined ? {} : { input }), maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, signal: result.signal, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
}

function proofOf(run: Run): { proof: Proof; publicSignals: string[] } {
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as { proof: Proof; publicSignals: string[] };
}

function le(value: bigint, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) out[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return out;
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value);
  return out;
}

/** A .wtns file as snarkjs lays it out ("wtns", version 2, two sections), written here, not by vc. */
function wtnsFile(values: bigint[], options: { n8?: number; prime?: bigint } = {}): Buffer {
  const n8 = options.n8 ?? 32;
  const header = Buffer.concat([u32(n8), le(options.prime ?? R, n8), u32(values.length)]);
  const body = Buffer.concat(values.map((v) => le(v, n8)));
  const section = (type: number, data: Buffer) => Buffer.concat([u32(type), le(BigInt(data.length), 8), data]);
  return Buffer.concat([Buffer.from('wtns'), u32(2), u32(2), section(1, header), section(2, body)]);
}

/** The section table of a binfile: [type, offset of its data, size]. */
function sections(bytes: Buffer): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  let pos = 12;
  for (let i = 0; i < bytes.readUInt32LE(8); i++) {
    const type = bytes.readUInt32LE(pos);
    const size = Number(bytes.readBigUInt64LE(pos + 4));
    out.push([type, pos + 12, size]);
    pos += 12 + size;
  }
  return out;
}

function verificationKey(files: CircuitFiles): unknown {
  return JSON.parse(readFileSync(files.verificationKey!, 'utf8')) as unknown;
}

/** The witness of a recorded input, computed by snarkjs with the circuit's WebAssembly. */
async function witnessOf(files: CircuitFiles, name: string): Promise<string> {
  const out = path.join(tmp, `${name}.wtns`);
  const input = JSON.parse(readFileSync(path.join(ROOT, 'bench', 'inputs', `${files.id}.json`), 'utf8')) as unknown;
  await snarkjs.wtns.calculate(input, files.wasm!, out);
  return out;
}

beforeAll(async () => {
  const moduleName: string = 'snarkjs';
  snarkjs = (await import(moduleName)) as Snarkjs;
  ctx = new Context({ config: parseConfig({}, path.join(tmp, 'home')) });
  const info = await ensureCircuits(ctx);
  st = info.circuits.find((c) => c.id === 'stateTransition')!;
  mtp = info.circuits.find((c) => c.id === 'credentialAtomicQueryMTPV2OnChain')!;
  if (process.env.VC_NATIVE_SANITIZE === '1') {
    binary = path.join(tmp, 'vc-groth16-sanitized');
    const sources = readdirSync(path.join(ROOT, 'native', 'groth16')).filter((f) => f.endsWith('.cpp')).map((f) => path.join(ROOT, 'native', 'groth16', f));
    execFileSync('g++', ['-std=c++17', '-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-pthread', '-o', binary, ...sources]);
  } else {
    const choice = await chooseProver({ ...process.env, VC_PROVER: 'native' });
    binary = choice.binary!;
  }
}, 600_000);

afterAll(async () => {
  await ctx?.close();
  await releaseBn128();
  rmSync(tmp, { recursive: true, force: true });
});

describe('native proofs of the project circuits, checked by snarkjs', () => {
  it('stateTransition: verifies, public signals are the witness\'s, a changed signal or element fails, two proofs differ', async () => {
    const wtns = await witnessOf(st, 'st');
    const first = proofOf(prove([st.zkey!, wtns]));
    // The witness on standard input, as vc gives it, in another process.
    const second = proofOf(prove([st.zkey!, '-'], readFileSync(wtns)));
    const vkey = verificationKey(st);
    expect(await snarkjs.groth16.verify(vkey, first.publicSignals, first.proof)).toBe(true);
    expect(await snarkjs.groth16.verify(vkey, second.publicSignals, second.proof)).toBe(true);
    expect(second.publicSignals).toEqual(first.publicSignals);
    expect(second.proof.pi_a).not.toEqual(first.proof.pi_a);
    expect(second.proof.pi_b).not.toEqual(first.proof.pi_b);
    expect(second.proof.pi_c).not.toEqual(first.proof.pi_c);

    const values = await snarkjs.wtns.exportJson(wtns);
    expect(first.publicSignals).toEqual(values.slice(1, (vkey as { nPublic: number }).nPublic + 1).map(String));
    expect(first.proof.protocol).toBe('groth16');
    expect(first.proof.curve).toBe('bn128');
    expect(first.proof.pi_a[2]).toBe('1');
    expect(first.proof.pi_b[2]).toEqual(['1', '0']);
    expect(first.proof.pi_c[2]).toBe('1');
    for (const coordinate of [...first.proof.pi_a, ...first.proof.pi_b.flat(), ...first.proof.pi_c]) expect(coordinate).toMatch(/^(0|[1-9]\d*)$/);

    const changed = [...first.publicSignals];
    changed[1] = ((BigInt(changed[1]!) + 1n) % R).toString();
    expect(await snarkjs.groth16.verify(vkey, changed, first.proof)).toBe(false);
    // Elements of the other (valid) proof: valid points, the wrong combination.
    for (const element of ['pi_a', 'pi_b', 'pi_c'] as const) {
      expect(await snarkjs.groth16.verify(vkey, first.publicSignals, { ...first.proof, [element]: second.proof[element] }), element).toBe(false);
    }
  }, 300_000);

  it('credentialAtomicQueryMTPV2OnChain: verifies, public signals are the witness\'s as snarkjs reads it, a changed signal fails', async () => {
    const wtns = await witnessOf(mtp, 'mtp');
    const { proof, publicSignals } = proofOf(prove([mtp.zkey!, '-'], readFileSync(wtns)));
    const vkey = verificationKey(mtp) as { nPublic: number };
    expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(true);
    const values = await snarkjs.wtns.exportJson(wtns);
    expect(publicSignals).toEqual(values.slice(1, vkey.nPublic + 1).map(String));
    const changed = [...publicSignals];
    changed[changed.length - 1] = ((BigInt(changed[changed.length - 1]!) + 1n) % R).toString();
    expect(await snarkjs.groth16.verify(vkey, changed, proof)).toBe(false);
  }, 300_000);
});

describe('the multi-scalar multiplication', () => {
  // The field multiplication the processor's features choose: the x86-64 assembly exactly where
  // /proc/cpuinfo lists BMI2 and ADX, as the prover runs here. The field arithmetic is checked
  // first against a plain 512-bit reference, the portable forms included (called directly); the
  // build with the portable forms only (VCG_PORTABLE_FIELD, as on other processors) must compile.
  it('equals the plain sum of products, whatever the points, scalars and threads', () => {
    const cpuFlags = process.arch === 'x64' && existsSync('/proc/cpuinfo') ? ` ${/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? ''} ` : '';
    const multiplication =
      process.arch !== 'x64'
        ? 'portable (no assembly in this build)'
        : cpuFlags.includes(' bmi2 ') && cpuFlags.includes(' adx ')
          ? 'x86-64 assembly (BMI2, ADX)'
          : 'portable (this processor has no BMI2/ADX)';
    const check = path.join(tmp, 'msm-check');
    const source = path.join(import.meta.dirname, 'fixtures', 'msmCheck.cpp');
    const include = ['-I', path.join(ROOT, 'native', 'groth16')];
    const flags = process.env.VC_NATIVE_SANITIZE === '1' ? ['-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all'] : ['-O2'];
    execFileSync('g++', ['-std=c++17', ...flags, '-pthread', ...include, '-o', check, source]);
    expect(execFileSync(check, { encoding: 'utf8', env: { ASAN_OPTIONS: 'detect_leaks=0' } })).toBe(`multiplication: ${multiplication}\nok\n`);
    execFileSync('g++', ['-std=c++17', '-fsyntax-only', '-Wall', '-Werror', '-DVCG_PORTABLE_FIELD', '-pthread', ...include, source]);
  }, 300_000);
});

describe('encodings and bad input, on a circuit of our own', () => {
  let fixture: CircuitFiles;
  let vkey: unknown;

  beforeAll(async () => {
    const info = await buildCircuits(ctx, {
      cacheDir: path.join(tmp, 'fixture-cache'),
      circuits: [{ id: 'nativeProverFixture', main: path.join(import.meta.dirname, 'fixtures', 'nativeProverFixture.circom') }],
    });
    fixture = info.circuits[0]!;
    vkey = verificationKey(fixture);
  }, 300_000);

  it('values of every byte length, 0, 1 and next to r come back as the public signals of proofs that verify', async () => {
    // The test's writer lays a witness out as the circuit's own calculator does.
    const calculated = path.join(tmp, 'fixture.wtns');
    await snarkjs.wtns.calculate({ a: '3', b: (R - 1n).toString() }, fixture.wasm!, calculated);
    expect(readFileSync(calculated).equals(wtnsFile([1n, R - 3n, 3n, R - 1n]))).toBe(true);

    // a has k significant bytes (k = 0..32), its top bit set where r allows; b cycles through edge values.
    const lengths = Array.from({ length: 33 }, (_, k) => (k === 0 ? 0n : k === 32 ? R - 1n - BigInt(k) : (1n << BigInt(8 * k - 1)) + BigInt(k)));
    const edges = [0n, 1n, 2n, R - 1n, R - 2n, (1n << 64n) - 1n, 1n << 64n, 1n << 128n, (1n << 192n) + 1n, R - (1n << 64n), 255n, 256n];
    const cases: Array<[bigint, bigint]> = [...lengths.map((a, k): [bigint, bigint] => [a, edges[k % edges.length]!]), [1n, 1n], [0n, 0n], [R - 1n, R - 1n]];
    for (const [a, b] of cases) {
      const c = (a * b) % R;
      const { proof, publicSignals } = proofOf(prove([fixture.zkey!, '-'], wtnsFile([1n, c, a, b])));
      expect(publicSignals, `a=${a} b=${b}`).toEqual([c.toString(), a.toString(), b.toString()]);
      expect(await snarkjs.groth16.verify(vkey, publicSignals, proof), `a=${a} b=${b}`).toBe(true);
    }
  }, 300_000);

  it('a witness that does not satisfy the circuit gives a proof that does not verify', async () => {
    const { proof, publicSignals } = proofOf(prove([fixture.zkey!, '-'], wtnsFile([1n, 7n, 2n, 3n])));
    expect(publicSignals).toEqual(['7', '2', '3']);
    expect(await snarkjs.groth16.verify(vkey, publicSignals, proof)).toBe(false);
  });

  it('refuses bad input with one line on stderr and the exit code of its kind, never crashing', () => {
    const zkey = readFileSync(fixture.zkey!);
    const good = wtnsFile([1n, 6n, 2n, 3n]);
    const file = (name: string, bytes: Uint8Array): string => {
      const target = path.join(tmp, name);
      writeFileSync(target, bytes);
      return target;
    };
    const expectRefused = (run: Run, code: number, message: RegExp, what: string): void => {
      expect(run.signal, `${what}: ${run.stderr}`).toBeNull();
      expect(run.status, `${what}: ${run.stderr}`).toBe(code);
      expect(run.stdout, what).toBe('');
      expect(run.stderr, what).toMatch(/^vc-groth16: [^\n]+\n$/);
      expect(run.stderr, what).toMatch(message);
    };

    // Proving keys cut at every section boundary and inside every section: exit 4.
    const cuts = new Set<number>([0, 3, 4, 11, 12]);
    for (const [, offset, size] of sections(zkey)) for (const delta of [-12, -11, -1, 0, 1, 4, Math.floor(size / 2), size - 1]) cuts.add(offset + delta);
    for (const cut of [...cuts].filter((n) => n >= 0 && n < zkey.length)) {
      const run = prove([file('cut.zkey', zkey.subarray(0, cut)), '-'], good);
      expectRefused(run, 4, /proving key .*(too short|truncated|missing|has \d+ bytes|wrong magic)/, `zkey cut at ${cut} of ${zkey.length}`);
    }
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) & 0xff));
    expectRefused(prove([file('garbage.zkey', garbage), '-'], good), 4, /not a zkey file/, 'garbage zkey');
    expectRefused(prove([file('garbage-with-magic.zkey', Buffer.concat([Buffer.from('zkey'), u32(1), u32(0xffffffff), garbage])), '-'], good), 4, /truncated/, 'garbage sections');
    expectRefused(prove([path.join(tmp, 'missing.zkey'), '-'], good), 3, /cannot open/, 'missing zkey');

    // Not Groth16 (PLONK's protocol id 2 in the header section).
    const plonk = Buffer.from(zkey);
    const [, headerOffset] = sections(zkey).find(([type]) => type === 1)!;
    plonk.writeUInt32LE(2, headerOffset);
    expectRefused(prove([file('plonk.zkey', plonk), '-'], good), 4, /not a Groth16 proving key \(protocol id 2/, 'plonk zkey');
    // A point off the curve.
    const offCurve = Buffer.from(zkey);
    const [, aOffset] = sections(zkey).find(([type]) => type === 5)!;
    offCurve[aOffset + 64 + 40] = offCurve[aOffset + 64 + 40]! ^ 1;
    expectRefused(prove([file('off-curve.zkey', offCurve), '-'], good), 4, /section 5 \(A points\) point 1 .*(not on the curve|not below q)/, 'point off the curve');

    // Witnesses: wrong size, field, values, bytes.
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([1n, 6n, 2n])), 6, /the witness has 3 values, the proving key's circuit has 4 signals/, 'short witness');
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([1n, 6n, 2n, 3n, 0n])), 6, /the witness has 5 values/, 'long witness');
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([1n, 6n, 2n, 3n], { prime: Q })), 5, /not BN254's scalar field/, 'witness of another field');
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([1n, 6n, 2n, 3n], { n8: 48, prime: (1n << 380n) + 1n })), 5, /48 bytes, not a BN254 witness/, 'witness of 48-byte values');
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([1n, 6n, R, 3n])), 5, /value 2 is not below the field modulus r/, 'value r');
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([1n, 6n, 2n, (1n << 256n) - 1n])), 5, /value 3 is not below/, 'value 2^256 - 1');
    expectRefused(prove([fixture.zkey!, '-'], wtnsFile([0n, 0n, 0n, 0n])), 5, /value 0 \(the constant signal\) is not 1/, 'no constant one');
    for (const cut of [0, 5, 12, 30, good.length - 1]) expectRefused(prove([fixture.zkey!, '-'], good.subarray(0, cut)), 5, /witness/, `witness cut at ${cut}`);
    expectRefused(prove([fixture.zkey!, file('garbage.wtns', garbage)]), 5, /not a wtns file/, 'garbage witness');
    expectRefused(prove([fixture.zkey!, fixture.zkey!]), 5, /not a wtns file/, 'a zkey as the witness');
    expectRefused(prove([st.zkey!, '-'], good), 6, /the witness has 4 values, the proving key's circuit has \d+ signals/, 'witness of another circuit');

    // The command line and the environment.
    expectRefused(prove([]), 2, /usage: vc-groth16/, 'no arguments');
    expectRefused(prove([fixture.zkey!, '-'], good, { VC_PROVER_THREADS: '0' }), 2, /VC_PROVER_THREADS must be a whole number from 1 to 1024, got '0'/, 'zero threads');
    // Any number of threads gives a proof that verifies.
    expect(proofOf(prove([fixture.zkey!, '-'], good, { VC_PROVER_THREADS: '3' })).publicSignals).toEqual(['6', '2', '3']);
  }, 300_000);
});

describe('choosing the prover', () => {
  const noCompiler = path.join(tmp, 'no-compiler-bin');
  mkdirSync(noCompiler, { recursive: true });

  it('VC_PROVER=snarkjs, or no g++ on PATH: snarkjs proves (the fallback said once); VC_PROVER=native without g++ is an error', async () => {
    expect(await chooseProver({ VC_PROVER: 'snarkjs' })).toEqual({ prover: 'snarkjs', reason: 'VC_PROVER=snarkjs' });
    expect(() => proverSetting({ VC_PROVER: 'fast' })).toThrow(/VC_PROVER: expected auto, native, snarkjs, got "fast"/);
    await expect(chooseProver({ VC_PROVER_THREADS: 'all' })).rejects.toThrow(/VC_PROVER_THREADS: expected a whole number from 1 to 1024, got "all"/);
    expect((await chooseProver({ ...process.env, VC_PROVER: 'native', VC_PROVER_THREADS: '3' })).threads).toBe(3);
    await expect(chooseProver({ PATH: noCompiler, VC_PROVER: 'native', VC_CIRCUITS_CACHE: path.join(tmp, 'c1') })).rejects.toThrow(/VC_PROVER=native but the native prover is not available: no C\+\+ compiler \(g\+\+ is not on PATH\)/);

    const warnings: string[] = [];
    const progress: ProgressReporter = { start: () => ({ update: () => undefined, succeed: () => undefined, fail: () => undefined }), info: () => undefined, warn: (text) => warnings.push(text) };
    const fallback = new Context({ config: parseConfig({}, path.join(tmp, 'home')), progress, env: { PATH: noCompiler, VC_CIRCUITS_CACHE: path.join(tmp, 'c1') } });
    try {
      const modules = await loadIden3Modules();
      const dir = path.dirname(st.dir);
      const prover = new TimedProver(new modules.sdk.FSCircuitStorage({ dirname: dir }), modules, undefined, dir, () => selectProver(fallback));
      const input = readFileSync(path.join(ROOT, 'bench', 'inputs', 'stateTransition.json'));
      const zkp = (await prover.generate(input, 'stateTransition')) as unknown as { proof: Proof; pub_signals: string[] };
      expect(prover.lastProver).toBe('snarkjs');
      expect(await snarkjs.groth16.verify(verificationKey(st), zkp.pub_signals, zkp.proof)).toBe(true);
      expect((await selectProver(fallback)).prover).toBe('snarkjs');
      expect(warnings).toEqual([expect.stringMatching(/^native prover unavailable: no C\+\+ compiler \(g\+\+ is not on PATH\); proving with snarkjs/)]);

      // The same prover with the native choice: the native prover, reading the key by path.
      const native = new TimedProver(new modules.sdk.FSCircuitStorage({ dirname: dir }), modules, undefined, dir, async (): Promise<ProverChoice> => ({ prover: 'native', reason: 'test', binary }));
      const nativeZkp = (await native.generate(input, 'stateTransition')) as unknown as { proof: Proof; pub_signals: string[] };
      expect(native.lastProver).toBe('native');
      // snarkjs's proof of the same input: the same public signals, the same shape.
      expect(nativeZkp.pub_signals).toEqual(zkp.pub_signals);
      expect(Object.keys(nativeZkp.proof)).toEqual(Object.keys(zkp.proof));
      expect([nativeZkp.proof.pi_a[2], nativeZkp.proof.pi_b[2], nativeZkp.proof.pi_c[2]]).toEqual([zkp.proof.pi_a[2], zkp.proof.pi_b[2], zkp.proof.pi_c[2]]);
      expect(await snarkjs.groth16.verify(verificationKey(st), nativeZkp.pub_signals, nativeZkp.proof)).toBe(true);
    } finally {
      await fallback.close();
    }

    // vc circuits status says which prover and why.
    const status = await runVcInProcess(['--json', 'circuits', 'status'], { home: path.join(tmp, 'home'), env: { PATH: noCompiler, VC_CIRCUITS_CACHE: path.join(tmp, 'c1') } });
    expect(status.status, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { prover: unknown }).prover).toMatchObject({ setting: 'auto', inUse: 'snarkjs', reason: expect.stringMatching(/no C\+\+ compiler/) });
    const forced = await runVcInProcess(['circuits', 'status'], { home: path.join(tmp, 'home'), env: { VC_PROVER: 'snarkjs', VC_CIRCUITS_CACHE: path.join(tmp, 'c1') } });
    expect(forced.stderr).toMatch(/prover: snarkjs \(VC_PROVER=snarkjs\)/);
    const bad = await runVcInProcess(['circuits', 'status'], { home: path.join(tmp, 'home'), env: { VC_PROVER: 'fast' } });
    expect(bad.status).toBe(3);
    expect(bad.stderr).toMatch(/VC_PROVER: expected auto, native, snarkjs/);
  }, 300_000);

  it('a failed compilation is recorded and not repeated but by a build; concurrent builds leave one working program', async () => {
    // A stand-in compiler (the real one takes half a minute): it logs its calls, then fails or
    // writes a program answering --version like vc-groth16, slowly, so two builds overlap.
    const fakeBin = path.join(tmp, 'fake-bin');
    mkdirSync(fakeBin, { recursive: true });
    const log = path.join(tmp, 'fake-compiler.log');
    const mode = path.join(tmp, 'fake-compiler.mode');
    writeFileSync(
      path.join(fakeBin, 'g++'),
      `#!/bin/sh
if [ "$1" = "--version" ]; then echo "g++ (stand-in) 1"; exit 0; fi
echo build >> '${log}'
if [ "$(cat '${mode}')" = fail ]; then echo "groth16.cpp:1:1: error: stand-in failure" >&2; exit 1; fi
out=""; prev=""
for arg in "$@"; do if [ "$prev" = "-o" ]; then out="$arg"; fi; prev="$arg"; done
sleep 0.3
printf '#!/bin/sh\\necho "vc-groth16 stand-in"\\n' > "$out"; chmod +x "$out"
`,
    );
    chmodSync(path.join(fakeBin, 'g++'), 0o755);
    const builds = (): number => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    const env = { PATH: `${fakeBin}:/usr/bin:/bin`, VC_CIRCUITS_CACHE: path.join(tmp, 'c2', 'circuits') };

    writeFileSync(mode, 'fail');
    const failed = await chooseProver(env);
    expect(failed).toMatchObject({ prover: 'snarkjs', reason: expect.stringMatching(/compiling the native prover with g\+\+ failed: groth16\.cpp:1:1: error: stand-in failure/) });
    expect(builds()).toBe(1);
    expect((await chooseProver(env)).reason).toBe(failed.reason);
    expect(builds()).toBe(1);

    writeFileSync(mode, 'ok');
    const [one, two] = await Promise.all([chooseProver(env, { build: true, retryFailed: true }), chooseProver(env, { build: true, retryFailed: true })]);
    expect(builds()).toBe(3);
    expect(one.prover).toBe('native');
    expect(two.binary).toBe(one.binary);
    expect(one.binary!.startsWith(path.join(tmp, 'c2', 'prover'))).toBe(true);
    expect(execFileSync(one.binary!, ['--version'], { encoding: 'utf8' })).toBe('vc-groth16 stand-in\n');
    expect(readdirSync(path.dirname(one.binary!))).toEqual(['vc-groth16']);
    // Built: later choices use it without compiling.
    expect((await chooseProver(env)).prover).toBe('native');
    expect(builds()).toBe(3);
  }, 120_000);
});
