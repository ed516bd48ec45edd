/**
 * `vc circuits fetch`: downloads the official iden3 circuit files (the archive the js-sdk's README
 * points to) for use on real networks via CIRCUITS_PATH. Resumable (HTTP Range on a .part file),
 * with progress and a sha256 check. The project cannot know the official checksum offline, so
 * it checks against `--sha256` when given, else against a checksum file published next to the
 * archive (URL + ".sha256") when there is one, and otherwise says the archive is unverified.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import type { Context } from '../context.js';
import { InputError, NetworkError, StoreError, VerificationError, describeError } from '../errors.js';
import { describeWriteError } from '../store/atomicFile.js';
import { ON_DEMAND_CIRCUIT_IDS, PROJECT_CIRCUIT_IDS } from './sources.js';

/** The official circuits archive, as referenced by @0xpolygonid/js-sdk's README. */
export const OFFICIAL_CIRCUITS_URL = 'https://circuits.privado.id/latest.zip';

export interface FetchOptions {
  dir: string;
  url?: string;
  /** Expected sha256 (hex) of the archive. */
  sha256?: string;
}

export interface FetchResult {
  dir: string;
  url: string;
  archive: string;
  bytes: number;
  sha256: string;
  checksum: { verified: boolean; against: 'option' | 'published' | 'none' };
  extracted: string[];
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function download(ctx: Context, url: string, target: string): Promise<number> {
  const part = `${target}.part`;
  const have = existsSync(part) ? (await stat(part)).size : 0;
  let response: Response;
  try {
    response = await fetch(url, have > 0 ? { headers: { Range: `bytes=${have}-` } } : {});
  } catch (error) {
    throw new NetworkError(`cannot download ${url}: ${describeError(error)}`, { cause: error });
  }
  if (response.status === 416) {
    // The .part file is already complete.
    await rename(part, target);
    return have;
  }
  if (!response.ok || !response.body) throw new NetworkError(`cannot download ${url}: HTTP ${response.status}`);
  const resumed = response.status === 206;
  const length = Number(response.headers.get('content-length') ?? 0);
  const total = (resumed ? have : 0) + length;
  const out = createWriteStream(part, { flags: resumed ? 'a' : 'w' });
  // A failed write (full disk) is an 'error' event: keep it for the loop instead of crashing.
  let writeError: Error | undefined;
  out.on('error', (error) => {
    writeError ??= error;
  });
  const step = ctx.progress.start(`downloading ${url}`);
  let received = resumed ? have : 0;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (writeError !== undefined) throw writeError;
      received += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      if (total > 0) step.update(`downloading ${url} (${(received / 1e6).toFixed(0)} MB)`, received / total);
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    if (writeError !== undefined) throw writeError;
  } catch (error) {
    // Keep what arrived: the next run resumes from the end of the .part file.
    if (!out.destroyed) await new Promise<void>((resolve) => out.end(() => resolve()));
    step.fail('download interrupted; run the command again to resume');
    if (error === writeError) {
      throw new StoreError(`cannot write ${part}: ${describeWriteError(error)}; free some space and run the command again to resume`, { field: 'dir', cause: error });
    }
    throw new NetworkError(`download of ${url} interrupted: ${describeError(error)}`, { cause: error });
  }
  if (length > 0 && received !== total) {
    step.fail('download incomplete; run the command again to resume');
    throw new NetworkError(`download of ${url} ended after ${received} of ${total} bytes`);
  }
  step.succeed(`downloaded ${(received / 1e6).toFixed(0)} MB`);
  await rename(part, target);
  return received;
}

async function publishedChecksum(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${url}.sha256`);
    if (!response.ok) return undefined;
    return /\b([0-9a-f]{64})\b/i.exec(await response.text())?.[1]?.toLowerCase();
  } catch {
    return undefined;
  }
}

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localHeaderOffset: number;
}

/** Reads the central directory of a zip archive (zip64 sizes and offsets included). */
async function readZipEntries(file: string): Promise<ZipEntry[]> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const tailLength = Math.min(size, 65_557 + 20);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0) throw new InputError(`${file} is not a zip archive`);
    let count = tail.readUInt16LE(eocd + 10);
    let dirSize = tail.readUInt32LE(eocd + 12);
    let dirOffset = tail.readUInt32LE(eocd + 16);
    const locator = eocd - 20;
    if (locator >= 0 && tail.readUInt32LE(locator) === 0x07064b50) {
      const record = Buffer.alloc(56);
      await handle.read(record, 0, 56, Number(tail.readBigUInt64LE(locator + 8)));
      count = Number(record.readBigUInt64LE(32));
      dirSize = Number(record.readBigUInt64LE(40));
      dirOffset = Number(record.readBigUInt64LE(48));
    }
    const central = Buffer.alloc(dirSize);
    await handle.read(central, 0, dirSize, dirOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      const nameLength = central.readUInt16LE(p + 28);
      const extraLength = central.readUInt16LE(p + 30);
      const commentLength = central.readUInt16LE(p + 32);
      let compressedSize = central.readUInt32LE(p + 20);
      const uncompressedSize = central.readUInt32LE(p + 24);
      let localHeaderOffset = central.readUInt32LE(p + 42);
      const name = central.toString('utf8', p + 46, p + 46 + nameLength);
      // zip64 extra field: the 0xffffffff fields, in order, as 64-bit values.
      let e = p + 46 + nameLength;
      while (e < p + 46 + nameLength + extraLength) {
        const id = central.readUInt16LE(e);
        const length = central.readUInt16LE(e + 2);
        if (id === 1) {
          let q = e + 4;
          if (uncompressedSize === 0xffffffff) q += 8;
          if (compressedSize === 0xffffffff) (compressedSize = Number(central.readBigUInt64LE(q))), (q += 8);
          if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(central.readBigUInt64LE(q));
        }
        e += 4 + length;
      }
      entries.push({ name, method: central.readUInt16LE(p + 10), compressedSize, localHeaderOffset });
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/**
 * Extracts one entry next to its target, flushes it and renames it over the target: a full disk
 * or a crash leaves the previous circuit file (or none), never a truncated one.
 */
async function extractEntryAtomically(archive: string, dataStart: number, entry: ZipEntry, target: string): Promise<void> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const source = createReadStream(archive, { start: dataStart, end: dataStart + entry.compressedSize - 1 });
    const sink = createWriteStream(tmp, { flags: 'wx', mode: 0o644 });
    if (entry.method === 8) await pipeline(source, createInflateRaw(), sink);
    else await pipeline(source, sink);
    const handle = await open(tmp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    // File system failures carry the system call; a corrupt entry (zlib) is the archive's fault.
    if (typeof (error as NodeJS.ErrnoException).syscall === 'string') {
      throw new StoreError(`cannot write ${target}: ${describeWriteError(error)}; ${existsSync(target) ? 'the previous file is unchanged' : 'no file was written'}`, { field: 'dir', cause: error });
    }
    throw new InputError(`${archive}: cannot extract ${entry.name}: ${describeError(error)}`, { cause: error });
  }
}

/** The circuits vc takes from the archive: its default ones and every on-demand one (V3 on chain and off chain, authV2, authV3; each size). */
const FETCHED_CIRCUIT_IDS: readonly string[] = [...PROJECT_CIRCUIT_IDS, ...ON_DEMAND_CIRCUIT_IDS];

/** Extracts `<...>/<circuitId>/<file>` entries of the project's circuits into `<dir>/<circuitId>/<file>`. */
async function extractCircuits(archive: string, dir: string): Promise<string[]> {
  const extracted: string[] = [];
  const handle = await open(archive, 'r');
  try {
    for (const entry of await readZipEntries(archive)) {
      const parts = entry.name.split('/').filter((s) => s !== '');
      const id = parts.at(-2);
      const file = parts.at(-1);
      if (entry.name.endsWith('/') || !id || !file || !FETCHED_CIRCUIT_IDS.includes(id)) continue;
      if (file.startsWith('.') || file.includes('\\') || parts.includes('..')) continue;
      const header = Buffer.alloc(30);
      await handle.read(header, 0, 30, entry.localHeaderOffset);
      const dataStart = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
      await mkdir(path.join(dir, id), { recursive: true });
      const target = path.join(dir, id, file);
      if (entry.method !== 0 && entry.method !== 8) throw new InputError(`${archive}: ${entry.name} uses zip compression method ${entry.method}; unzip it by hand`);
      await extractEntryAtomically(archive, dataStart, entry, target);
      extracted.push(path.join(id, file));
    }
  } finally {
    await handle.close();
  }
  return extracted;
}

/** The archive URL, checked before anything is created or downloaded (--url is user input). */
function parseArchiveUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`url: expected an http(s) URL of the circuits archive, got ${JSON.stringify(url)}`, { field: 'url' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InputError(`url: expected an http(s) URL of the circuits archive, got the ${parsed.protocol.replace(/:$/, '')} URL ${JSON.stringify(url)}`, { field: 'url' });
  }
  return parsed;
}

/** Downloads (resuming) the official circuits archive, checks it and extracts vc's circuits. */
export async function fetchOfficialCircuits(ctx: Context, options: FetchOptions): Promise<FetchResult> {
  const url = options.url ?? OFFICIAL_CIRCUITS_URL;
  const parsedUrl = parseArchiveUrl(url);
  const dir = path.resolve(options.dir);
  if (options.sha256 !== undefined && !/^[0-9a-f]{64}$/i.test(options.sha256)) {
    throw new InputError(`sha256: expected 64 hex characters, got ${JSON.stringify(options.sha256)}`, { field: 'sha256' });
  }
  await mkdir(dir, { recursive: true });
  const archive = path.join(dir, path.basename(parsedUrl.pathname) || 'circuits.zip');
  const bytes = existsSync(archive) ? (await stat(archive)).size : await download(ctx, url, archive);
  const sha256 = await sha256File(archive);
  const expected = options.sha256?.toLowerCase() ?? (await publishedChecksum(url));
  const against = options.sha256 !== undefined ? 'option' : expected !== undefined ? 'published' : 'none';
  if (expected !== undefined && expected !== sha256) {
    throw new VerificationError(`${archive}: sha256 ${sha256} does not match the expected ${expected}; delete it and fetch again`);
  }
  if (against === 'none') ctx.progress.info(`no checksum published at ${url}.sha256: the archive is unverified (sha256 ${sha256}); pass --sha256 to check it`);
  const extracted = await extractCircuits(archive, dir);
  return { dir, url, archive, bytes, sha256, checksum: { verified: expected !== undefined, against }, extracted };
}
