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
import { FixedBaseMultiplier } from '../../src/circuits/fixedBase.js';
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

    const mine = path.join(dir, 'mine.zkey');
    const result = await writeDevelopmentZkey({ r1csPath, zkeyPath: mine, secrets });
    expect(result.domainSize).toBe(32);

    const stock = sectionBytes(await readFile(zkey1));
    const ours = sectionBytes(await readFile(mine));
    for (let type = 1; type <= 9; type++) {
      expect(ours.get(type)?.length, `section ${type} size`).toBe(stock.get(type)?.length);
      expect(Buffer.compare(ours.get(type)!, stock.get(type)!), `section ${type} bytes`).toBe(0);
    }
  }, 300_000);
});

describe('fixed-base multiplication', () => {
  it('matches ffjavascript scalar multiplication across several worker jobs', async () => {
    const curve: Any = await loadBn128();
    const order = curve.r as bigint;
    const random = (): bigint => BigInt(`0x${randomBytes(40).toString('hex')}`) % order;
    // More than one job of 4096, edge scalars included.
    const g1Scalars = [0n, 1n, 2n, 255n, 256n, order - 1n, ...Array.from({ length: 4500 }, random)];
    const g2Scalars = [0n, 1n, order - 1n, ...Array.from({ length: 20 }, random)];
    const multiplier = new FixedBaseMultiplier(2);
    try {
      for (const [name, scalars] of [['G1', g1Scalars], ['G2', g2Scalars]] as const) {
        const group = curve[name];
        const size = group.F.n8 * 2;
        const points = await multiplier.multiply(name, scalars);
        // Check every 37th point and the edges against the library's own multiplication.
        for (let i = 0; i < scalars.length; i += i < 8 ? 1 : 37) {
          const bytes = new Uint8Array(32);
          let v = scalars[i]!;
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
