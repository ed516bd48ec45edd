/**
 * The build pipeline end to end on a small fixture circuit: build into a throwaway cache, prove
 * and verify with snarkjs, verify on chain with the compiled Solidity verifier deployed on a
 * real anvil node, reject tampered public signals, and reuse the cache.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilBinaryPath } from '../../src/chain/node/process.js';
import { buildCircuits, circuitsStatus, ensureCircuits, loadVerifierArtifact, type CircuitsInfo } from '../../src/circuits/build.js';
import { releaseBn128 } from '../../src/circuits/curve.js';
import type { CircuitSource } from '../../src/circuits/sources.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';

type Any = any;

const FIXTURE_ID = 'pipelineFixture';
const fixtureDir = path.join(import.meta.dirname, 'fixtures');
const fixture: CircuitSource = { id: FIXTURE_ID, main: path.join(fixtureDir, 'pipelineFixture.circom') };
const input = { secret: '123456789', nonce: '42', limit: '1000000000' };

let tmp: string;
let cacheDir: string;
let info: CircuitsInfo;

function newContext(): Context {
  return new Context({ config: parseConfig({}, path.join(tmp, 'home')) });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Every file of the cache directory with its size and modification time. */
async function cacheFiles(): Promise<Record<string, { size: number; mtimeMs: number }>> {
  const { readdir } = await import('node:fs/promises');
  const files: Record<string, { size: number; mtimeMs: number }> = {};
  for (const entry of await readdir(cacheDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { size, mtimeMs } = statSync(file);
    files[path.relative(cacheDir, file)] = { size, mtimeMs };
  }
  return files;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'vc-pipeline-'));
  cacheDir = path.join(tmp, 'cache');
  const ctx = newContext();
  info = await buildCircuits(ctx, { cacheDir, circuits: [fixture] });
  await ctx.close();
}, 300_000);

afterAll(async () => {
  await releaseBn128();
  await rm(tmp, { recursive: true, force: true });
});

describe('circuit build pipeline', () => {
  it('builds the official directory layout with development markers', async () => {
    expect(info.built).toEqual([FIXTURE_ID]);
    expect(info.source).toBe('built');
    expect(info.development).toBe(true);
    expect(info.dir).toBe(path.join(cacheDir, info.cacheKey!));
    const circuit = info.circuits[0]!;
    expect(circuit.dir).toBe(path.join(info.dir, FIXTURE_ID));
    for (const file of ['circuit.wasm', 'circuit_final.zkey', 'verification_key.json', 'verifier.sol', 'verifier.json', 'build.json', 'dev-setup.json']) {
      expect(existsSync(path.join(circuit.dir, file)), file).toBe(true);
    }
    expect(circuit.complete).toBe(true);
    expect(circuit.publicSignals).toBe(3); // commitment (output), nonce, limit
    expect(circuit.statistics?.constraints).toBeGreaterThan(250);
    const marker = JSON.parse(await readFile(path.join(circuit.dir, 'dev-setup.json'), 'utf8')) as { development: boolean };
    expect(marker.development).toBe(true);
    // No half-built directories are left behind.
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(cacheDir)).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('reuses the cache on the next call and across contexts, writing nothing', async () => {
    const zkey = path.join(info.dir, FIXTURE_ID, 'circuit_final.zkey');
    const before = statSync(zkey).mtimeMs;
    const files = await cacheFiles();
    const ctx = newContext();
    // How long this no-op takes: bench/serverEdges.ts.
    const again = await ensureCircuits(ctx, { cacheDir, circuits: [fixture] });
    expect(again.built).toEqual([]);
    expect(again.dir).toBe(info.dir);
    expect(statSync(zkey).mtimeMs).toBe(before);
    // A locked build pass also finds everything cached.
    const locked = await buildCircuits(ctx, { cacheDir, circuits: [fixture] });
    expect(locked.built).toEqual([]);
    await ctx.close();
    // Neither pass wrote, added or removed a file of the cache.
    expect(await cacheFiles()).toEqual(files);
  });

  it('changes the cache key when an included file changes', async () => {
    const copy = path.join(tmp, 'fixture-copy');
    await mkdir(copy, { recursive: true });
    await cp(fixtureDir, copy, { recursive: true });
    const ctx = newContext();
    const copied = { id: FIXTURE_ID, main: path.join(copy, 'pipelineFixture.circom') };
    const same = await circuitsStatus(ctx, { cacheDir, circuits: [copied] });
    // Location-independent: a copy of the same sources (a fresh clone) hits the same cache.
    expect(same.cacheKey).toBe(info.cacheKey);
    expect(same.upToDate).toBe(true);
    const included = path.join(copy, 'lib', 'range.circom');
    await writeFile(included, `${await readFile(included, 'utf8')}\n// edited\n`);
    const changed = await circuitsStatus(ctx, { cacheDir, circuits: [copied] });
    expect(changed.cacheKey).not.toBe(info.cacheKey);
    expect(changed.upToDate).toBe(false);
    await ctx.close();
  });

  it('serialises concurrent builds: one builds, the other waits and reuses it', async () => {
    const freshCache = path.join(tmp, 'cache-concurrent');
    const first = newContext();
    const second = newContext();
    const [a, b] = await Promise.all([
      ensureCircuits(first, { cacheDir: freshCache, circuits: [fixture] }),
      ensureCircuits(second, { cacheDir: freshCache, circuits: [fixture] }),
    ]);
    expect([...a.built, ...b.built]).toEqual([FIXTURE_ID]);
    expect(a.dir).toBe(b.dir);
    // Same sources, same key as the first cache, but keys are random per build: a new zkey.
    expect(a.cacheKey).toBe(info.cacheKey);
    await first.close();
    await second.close();
  }, 300_000);

  it('removes leftovers of a killed build when it next takes the lock', async () => {
    const leftover = path.join(cacheDir, '.tmp-pipelineFixture-deadbeef');
    await mkdir(leftover, { recursive: true });
    await writeFile(path.join(leftover, 'circuit_final.zkey'), 'half');
    const ctx = newContext();
    await buildCircuits(ctx, { cacheDir, circuits: [fixture] });
    expect(existsSync(leftover)).toBe(false);
    await ctx.close();
  });

  describe('proofs', () => {
    let proof: Any;
    let publicSignals: string[];
    let vk: Any;
    let snarkjs: Any;

    beforeAll(async () => {
      snarkjs = await import('snarkjs');
      const dir = path.join(info.dir, FIXTURE_ID);
      ({ proof, publicSignals } = await snarkjs.groth16.fullProve(input, path.join(dir, 'circuit.wasm'), path.join(dir, 'circuit_final.zkey')));
      vk = JSON.parse(await readFile(path.join(dir, 'verification_key.json'), 'utf8'));
    }, 120_000);

    it('verifies with snarkjs and rejects a tampered public signal', async () => {
      expect(publicSignals.slice(1)).toEqual([input.nonce, input.limit]);
      expect(await snarkjs.groth16.verify(vk, publicSignals, proof)).toBe(true);
      const tampered = [...publicSignals];
      tampered[1] = '43';
      expect(await snarkjs.groth16.verify(vk, tampered, proof)).toBe(false);
    });

    it('verifies on chain with the compiled Solidity verifier', async () => {
      const ethers = await import('ethers');
      const port = await freePort();
      const anvil: ChildProcess = spawn(anvilBinaryPath(), ['--port', String(port), '--silent'], { stdio: 'ignore' });
      try {
        const network = ethers.Network.from(31337);
        const provider = new ethers.JsonRpcProvider(`http://127.0.0.1:${port}`, network, { staticNetwork: network, polling: true, pollingInterval: 100 });
        for (let i = 0; ; i++) {
          try {
            await provider.getBlockNumber();
            break;
          } catch (error) {
            if (i > 100) throw error;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        // anvil's first default account.
        const wallet = new ethers.Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', provider);
        const ctx = newContext();
        const artifact = await loadVerifierArtifact(ctx, FIXTURE_ID, { cacheDir, circuits: [fixture] });
        await ctx.close();
        expect(artifact.development).toBe(true);
        const factory = new ethers.ContractFactory(artifact.abi as Any, artifact.bytecode, wallet);
        const contract: Any = await factory.deploy();
        await contract.waitForDeployment();

        const calldata = JSON.parse(`[${await snarkjs.groth16.exportSolidityCallData(proof, publicSignals)}]`) as [string[], string[][], string[], string[]];
        const [a, b, c, signals] = calldata;
        expect(await contract.verifyProof(a, b, c, signals)).toBe(true);
        expect(await contract.verify(a, b, c, signals)).toBe(true);
        const tampered = [...signals];
        tampered[2] = ethers.toBeHex(BigInt(input.limit) + 1n, 32);
        expect(await contract.verifyProof(a, b, c, tampered)).toBe(false);
        expect(await contract.verify(a, b, c, tampered)).toBe(false);
        await expect(contract.verify(a, b, c, signals.slice(1))).rejects.toThrow();
      } finally {
        anvil.kill('SIGTERM');
      }
    }, 120_000);
  });
});
