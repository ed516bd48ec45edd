/**
 * `vc circuits fetch` against a local HTTP server standing in for the official host (the real one
 * is unreachable offline): an interrupted download resumes with a Range request, the archive is
 * checked against the published .sha256 (or --sha256), and only the project's circuit files are
 * extracted from the zip.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchOfficialCircuits } from '../../src/circuits/fetch.js';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { NetworkError, VerificationError } from '../../src/errors.js';

/** A minimal zip writer (deflate or stored entries), enough to build test archives. */
function makeZip(entries: Array<{ name: string; data: Buffer; store?: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const body = entry.store ? entry.data : deflateRawSync(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.store ? 0 : 8, 8);
    local.writeUInt32LE(crc32(entry.data), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.store ? 0 : 8, 10);
    central.writeUInt32LE(crc32(entry.data), 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

// Random, so the archive does not compress below the cut-off point.
const zkeyBytes = randomBytes(300_000);
const archive = makeZip([
  { name: 'circuits/credentialAtomicQueryMTPV2OnChain/circuit_final.zkey', data: zkeyBytes },
  { name: 'circuits/credentialAtomicQueryMTPV2OnChain/circuit.wasm', data: Buffer.from('wasm bytes'), store: true },
  { name: 'circuits/stateTransition/verification_key.json', data: Buffer.from('{"nPublic":4}') },
  { name: 'circuits/credentialAtomicQueryV3OnChain-16-16-64-16-32/verification_key.json', data: Buffer.from('{"nPublic":14}') },
  { name: 'circuits/credentialAtomicQuerySigV2/circuit_final.zkey', data: Buffer.from('not ours') },
  { name: 'circuits/../../escape/stateTransition/x', data: Buffer.from('x') },
]);
const archiveSha = createHash('sha256').update(archive).digest('hex');

let server: Server;
let baseUrl: string;
let tmp: string;
/** When set, the next archive response stops after this many bytes. */
let cutAfter: number | undefined;
const rangeRequests: string[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'vc-fetch-'));
  server = createServer((req, res) => {
    if (req.url === '/latest.zip.sha256') {
      res.end(`${archiveSha}  latest.zip\n`);
      return;
    }
    if (req.url !== '/latest.zip' && req.url !== '/nosum.zip') {
      res.statusCode = 404;
      res.end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (range) rangeRequests.push(req.headers.range!);
    res.statusCode = range ? 206 : 200;
    res.setHeader('content-length', String(archive.length - start));
    if (cutAfter !== undefined) {
      const cut = cutAfter;
      cutAfter = undefined;
      res.write(archive.subarray(start, start + cut), () => res.destroy());
      return;
    }
    res.end(archive.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(tmp, { recursive: true, force: true });
});

function newContext(): Context {
  return new Context({ config: parseConfig({}, path.join(tmp, 'home')) });
}

describe('vc circuits fetch', () => {
  it('resumes an interrupted download, verifies the published checksum and extracts our circuits', async () => {
    const dir = path.join(tmp, 'official');
    const ctx = newContext();
    cutAfter = 100_000;
    await expect(fetchOfficialCircuits(ctx, { dir, url: `${baseUrl}/latest.zip` })).rejects.toBeInstanceOf(NetworkError);
    const partial = statSync(path.join(dir, 'latest.zip.part')).size;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(archive.length);

    const result = await fetchOfficialCircuits(ctx, { dir, url: `${baseUrl}/latest.zip` });
    expect(rangeRequests).toEqual([`bytes=${partial}-`]);
    expect(result.sha256).toBe(archiveSha);
    expect(result.checksum).toEqual({ verified: true, against: 'published' });
    expect(result.extracted.sort()).toEqual([
      path.join('credentialAtomicQueryMTPV2OnChain', 'circuit.wasm'),
      path.join('credentialAtomicQueryMTPV2OnChain', 'circuit_final.zkey'),
      path.join('credentialAtomicQueryV3OnChain-16-16-64-16-32', 'verification_key.json'),
      path.join('stateTransition', 'verification_key.json'),
    ]);
    expect(readFileSync(path.join(dir, 'credentialAtomicQueryMTPV2OnChain', 'circuit_final.zkey')).equals(zkeyBytes)).toBe(true);
    expect(readFileSync(path.join(dir, 'credentialAtomicQueryMTPV2OnChain', 'circuit.wasm'), 'utf8')).toBe('wasm bytes');
    expect(existsSync(path.join(dir, 'credentialAtomicQuerySigV2'))).toBe(false);
    expect(existsSync(path.join(tmp, 'escape'))).toBe(false);
    await ctx.close();
  });

  it('rejects an archive whose sha256 differs from --sha256', async () => {
    const ctx = newContext();
    await expect(fetchOfficialCircuits(ctx, { dir: path.join(tmp, 'wrong'), url: `${baseUrl}/latest.zip`, sha256: 'ab'.repeat(32) })).rejects.toBeInstanceOf(
      VerificationError,
    );
    await ctx.close();
  });

  it('says the archive is unverified when no checksum is published', async () => {
    const ctx = newContext();
    const result = await fetchOfficialCircuits(ctx, { dir: path.join(tmp, 'nosum'), url: `${baseUrl}/nosum.zip` });
    expect(result.checksum).toEqual({ verified: false, against: 'none' });
    expect(result.extracted).toHaveLength(4);
    await ctx.close();
  });
});
