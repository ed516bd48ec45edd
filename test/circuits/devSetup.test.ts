/**
 * The fast development setup must produce exactly the proving key stock snarkjs produces for the
 * same secrets. A stock ceremony with beacon contributions has secrets derivable from the beacon
 * hashes (with snarkjs's own derivation functions), so the two files can be compared section by
 * section.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCircuit } from '../../src/circuits/compile.js';
import { loadBn128 } from '../../src/circuits/curve.js';
import { writeDevelopmentZkey } from '../../src/circuits/devSetup.js';
import { FixedBaseMultiplier, NativeFixedBase, type FixedBase } from '../../src/circuits/fixedBase.js';
import { chooseProver } from '../../src/circuits/nativeProver.js';
import { readBinarySections } from '../../src/circuits/r1cs.js';

const require = createRequire(import.meta.url);
const fixture = path.join(import.meta.dirname, 'fixtures', 'setupEquivalence.circom');
const includeDir = path.dirname(path.dirname(require.resolve('circomlib/package.json')));
const snarkjsSrc = path.join(path.dirname(path.dirname(require.resolve('snarkjs'))), 'src');

type Any = any;
const importInternal = async (file: string): Promise<Any> => import(pathToFileURL(path.join(snarkjsSrc, file)).href);

const PTAU_BEACON = '0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20';
const ZKEY_BEACON = 'a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0';
const ITERATIONS = 10;
// One above the circuit's domain (2^5), so snarkjs's H basis comes from an unpadded section.
const PTAU_POWER = 6;

function sectionBytes(file: Buffer): Map<number, Buffer> {
  const map = new Map<number, Buffer>();
  for (const section of readBinarySections(file, 'zkey', 'zkey')) map.set(section.type, file.subarray(section.start, section.start + section.size));
  return map;
}

describe('development setup matches stock snarkjs', () => {
  let dir: string;
  let r1csPath: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vc-devsetup-'));
    ({ r1csPath } = await compileCircuit({ source: fixture, outDir: dir, includePaths: [includeDir], optimisation: 'O2', circuitId: 'setupEquivalence' }));
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes sections 1-9 byte for byte like powersoftau + prepare phase2 + zkey new + beacon', async () => {
    const snarkjs: Any = await import('snarkjs');
    const curve: Any = await loadBn128();
    const ptau0 = path.join(dir, 'pot0.ptau');
    const ptau1 = path.join(dir, 'pot1.ptau');
    const ptau2 = path.join(dir, 'pot2.ptau');
    const zkey0 = path.join(dir, 'stock0.zkey');
    const zkey1 = path.join(dir, 'stock1.zkey');
    await snarkjs.powersOfTau.newAccumulator(curve, PTAU_POWER, ptau0);
    await snarkjs.powersOfTau.beacon(ptau0, ptau1, 'beacon', PTAU_BEACON, ITERATIONS);
    await snarkjs.powersOfTau.preparePhase2(ptau1, ptau2);
    await snarkjs.zKey.newZKey(r1csPath, ptau2, zkey0);
    await snarkjs.zKey.beacon(zkey0, zkey1, 'beacon', ZKEY_BEACON, ITERATIONS);

    // Recover the secrets the way snarkjs derived them.
    const ptauUtils = await importInternal('powersoftau_utils.js');
    const misc = await importInternal('misc.js');
    const firstChallenge = ptauUtils.calculateFirstChallengeHash(curve, PTAU_POWER);
    const key = await ptauUtils.keyFromBeacon(curve, firstChallenge, misc.hex2ByteArray(PTAU_BEACON), ITERATIONS);
    const deltaRng = await misc.rngFromBeaconParams(misc.hex2ByteArray(ZKEY_BEACON), ITERATIONS);
    const delta = curve.Fr.toObject(curve.Fr.fromRng(deltaRng));
    const secrets = {
      tau: curve.Fr.toObject(key.tau.prvKey) as bigint,
      alpha: curve.Fr.toObject(key.alpha.prvKey) as bigint,
      beta: curve.Fr.toObject(key.beta.prvKey) as bigint,
      delta: delta as bigint,
    };

    const stock = sectionBytes(await readFile(zkey1));
    // Both ways of making the points: the WebAssembly combs and the native prover's --fixed-base.
    for (const nativeBinary of [undefined, await nativeProver()]) {
      const mine = path.join(dir, `mine-${nativeBinary === undefined ? 'wasm' : 'native'}.zkey`);
      const result = await writeDevelopmentZkey({ r1csPath, zkeyPath: mine, secrets, ...(nativeBinary === undefined ? {} : { nativeBinary }) });
      expect(result.domainSize).toBe(32);
      const ours = sectionBytes(await readFile(mine));
      for (let type = 1; type <= 9; type++) {
        expect(ours.get(type)?.length, `section ${type} size`).toBe(stock.get(type)?.length);
        expect(Buffer.compare(ours.get(type)!, stock.get(type)!), `${nativeBinary === undefined ? 'wasm' : 'native'}: section ${type} bytes`).toBe(0);
      }
    }
  }, 300_000);
});

/** The native prover the integration setup built (its --fixed-base mode). */
async function nativeProver(): Promise<string> {
  const choice = await chooseProver(process.env, { build: true });
  expect(choice.prover, choice.reason).toBe('native');
  return choice.binary!;
}

describe.each(['wasm', 'native'] as const)('fixed-base multiplication (%s)', (kind) => {
  it('matches ffjavascript scalar multiplication across several jobs, edge scalars included', async () => {
    const curve: Any = await loadBn128();
    const order = curve.r as bigint;
    const random = (): bigint => BigInt(`0x${randomBytes(40).toString('hex')}`) % order;
    // Every window length of a digit: 2^k and 2^k - 1 for k up to 255 (leading zero bytes, full
    // windows), the order's neighbours, multiples of the order (the point at infinity), and
    // 2^255 - order, whose last window doubles the sum of the ones before (2^254 * G twice).
    const edges = [0n, 1n, 2n, 255n, 256n, order - 1n, order, order + 1n, 2n * order, (1n << 255n) - order, (1n << 256n) - 1n];
    for (let k = 1; k < 256; k += 1) edges.push(1n << BigInt(k), (1n << BigInt(k)) - 1n);
    // More than one job of 4096 (wasm) and one request of 32768 (native).
    const g1Scalars = [...edges, ...Array.from({ length: kind === 'native' ? 33_000 : 4500 }, random)];
    const g2Scalars = [...edges, ...Array.from({ length: 20 }, random)];
    const multiplier: FixedBase = kind === 'wasm' ? new FixedBaseMultiplier(2) : new NativeFixedBase(await nativeProver(), 2);
    try {
      for (const [name, scalars] of [['G1', g1Scalars], ['G2', g2Scalars]] as const) {
        const group = curve[name];
        const size = group.F.n8 * 2;
        const points = await multiplier.multiply(name, scalars);
        expect(points.length).toBe(scalars.length * size);
        // Check every 37th point and the edges against the library's own multiplication.
        for (let i = 0; i < scalars.length; i += i < edges.length ? 1 : 37) {
          const bytes = new Uint8Array(32);
          let v = scalars[i]! % order;
          for (let k = 0; k < 32; k++, v >>= 8n) bytes[k] = Number(v & 255n);
          const expected = new Uint8Array(size);
          group.toRprLEM(expected, 0, group.toAffine(group.timesScalar(group.g, bytes)));
          expect(Buffer.compare(Buffer.from(expected), points.subarray(i * size, (i + 1) * size)), `${name} point ${i}`).toBe(0);
        }
      }
    } finally {
      await multiplier.close();
    }
  }, 120_000);
});

describe('vc-groth16 --fixed-base refuses bad requests with one line and its exit code', () => {
  const request = (group: number, count: number, scalarBytes: number): Buffer => {
    const bytes = Buffer.alloc(5 + scalarBytes);
    bytes[0] = group;
    bytes.writeUInt32LE(count, 1);
    return bytes;
  };
  it.each([
    ['an unknown group', request(3, 1, 32), 2, /group must be 1 \(G1\) or 2 \(G2\), got 3/],
    ['a count past the limit', request(1, 0xffffffff, 0), 2, /past the limit/],
    ['scalars cut short', request(1, 2, 40), 3, /ends inside a request's scalars/],
    ['a count cut short', Buffer.from([1, 2]), 3, /ends inside a request's count/],
  ])('%s', async (_name, input, code, message) => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(await nativeProver(), ['--fixed-base'], { input, encoding: 'utf8' });
    expect(run.status).toBe(code);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it('answers an empty request with nothing, and several requests in order', async () => {
    const { spawnSync } = await import('node:child_process');
    const one = request(1, 1, 32);
    one[5] = 1;
    const run = spawnSync(await nativeProver(), ['--fixed-base'], { input: Buffer.concat([request(1, 0, 0), one, request(2, 0, 0), one]) });
    expect(run.status, run.stderr.toString()).toBe(0);
    expect(run.stdout.length).toBe(128);
    expect(Buffer.compare(run.stdout.subarray(0, 64), run.stdout.subarray(64))).toBe(0);
  });
});
