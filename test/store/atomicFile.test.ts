/**
 * The atomic writer behind `-o FILE` and the chain snapshots: injected faults (ENOSPC, short
 * writes, fsync and rename failures) and a real full file system (a small tmpfs, when root).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync as realWriteSync, openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode, InputError, StoreError } from '../../src/errors.js';
import { writeFileAtomic } from '../../src/output.js';
import { writeFileAtomicAsync, writeFileAtomicSync, type AtomicFileSystem } from '../../src/store/atomicFile.js';
import { newestSnapshot, settleAnvilDump } from '../../src/chain/node/snapshots.js';
import { ROOT, runVc, tempDir } from '../helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((fn) => fn()));
function dir(): string {
  const t = tempDir('vc-atomic-');
  cleanups.push(t.cleanup);
  return t.dir;
}

function errno(code: string, message: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}, ${syscall}`), { code, syscall });
}

const PREVIOUS = `${JSON.stringify({ previous: true, list: [1, 2, 3] }, null, 2)}\n`;
const NEXT = `${JSON.stringify({ next: 'x'.repeat(20_000) }, null, 2)}\n`;

/** A directory holding a good out.json; returns the paths. */
function withPrevious(): { dir: string; file: string } {
  const d = dir();
  const file = path.join(d, 'out.json');
  writeFileSync(file, PREVIOUS, { mode: 0o600 });
  return { dir: d, file };
}

function expectFailure(run: () => void, file: string, reason: RegExp): StoreError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(StoreError);
  const error = caught as StoreError;
  expect(error.exitCode).toBe(ExitCode.config);
  expect(error.message).toContain(`cannot write ${file}: `);
  expect(error.message).toMatch(reason);
  expect(error.message).not.toContain('\n');
  return error;
}

function expectUntouched(d: string, file: string): void {
  expect(readFileSync(file, 'utf8')).toBe(PREVIOUS);
  expect(readdirSync(d)).toEqual(['out.json']);
}

describe('writeFileAtomicSync', () => {
  it('replaces the file with every byte, mode 0600 by default, and leaves no temporary file', () => {
    const { dir: d, file } = withPrevious();
    writeFileAtomicSync(file, NEXT);
    expect(readFileSync(file, 'utf8')).toBe(NEXT);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['out.json']);
    writeFileAtomicSync(path.join(d, 'public.json'), 'x', { mode: 0o644 });
    expect(statSync(path.join(d, 'public.json')).mode & 0o777).toBe(0o644);
  });

  it('continues after short writes until every byte is written', () => {
    const { file } = withPrevious();
    let calls = 0;
    const fs: Partial<AtomicFileSystem> = {
      // At most 1000 bytes per call, as a kernel may do under pressure.
      writeSync: (fd, buffer, offset, length, position) => {
        calls++;
        return realWriteSync(fd, buffer, offset, Math.min(length, 1000), position);
      },
    };
    writeFileAtomicSync(file, NEXT, { fs });
    expect(readFileSync(file, 'utf8')).toBe(NEXT);
    expect(calls).toBe(Math.ceil(Buffer.byteLength(NEXT) / 1000));
  });

  it('ENOSPC at the first write: throws naming the file, previous file intact, no temporary file', () => {
    const { dir: d, file } = withPrevious();
    const fs: Partial<AtomicFileSystem> = {
      writeSync: () => {
        throw errno('ENOSPC', 'no space left on device', 'write');
      },
    };
    const error = expectFailure(() => writeFileAtomicSync(file, NEXT, { fs }), file, /no space left on device; the previous file is unchanged$/);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expectUntouched(d, file);
  });

  it('a short write followed by ENOSPC (the 4,096-byte truncation) never replaces the file', () => {
    const { dir: d, file } = withPrevious();
    let calls = 0;
    const fs: Partial<AtomicFileSystem> = {
      writeSync: (fd, buffer, offset, length, position) => {
        if (calls++ === 0) return realWriteSync(fd, buffer, offset, Math.min(length, 4096), position);
        throw errno('ENOSPC', 'no space left on device', 'write');
      },
    };
    expectFailure(() => writeFileAtomicSync(file, NEXT, { fs }), file, /no space left on device; the previous file is unchanged$/);
    expectUntouched(d, file);
  });

  it('a short write that makes no more progress is a failure, not a success', () => {
    const { dir: d, file } = withPrevious();
    let calls = 0;
    const fs: Partial<AtomicFileSystem> = {
      writeSync: (fd, buffer, offset, length, position) => (calls++ === 0 ? realWriteSync(fd, buffer, offset, 4096, position) : 0),
    };
    expectFailure(() => writeFileAtomicSync(file, NEXT, { fs }), file, /stopped short.*; the previous file is unchanged$/);
    expectUntouched(d, file);
  });

  it('EDQUOT and EIO at fsync: previous file intact, temporary file removed', () => {
    for (const code of ['EDQUOT', 'EIO']) {
      const { dir: d, file } = withPrevious();
      const fs: Partial<AtomicFileSystem> = {
        fsyncSync: () => {
          throw errno(code, code === 'EIO' ? 'i/o error' : 'quota exceeded', 'fsync');
        },
      };
      expectFailure(() => writeFileAtomicSync(file, NEXT, { fs }), file, code === 'EIO' ? /input\/output error/ : /disk quota exceeded/);
      expectUntouched(d, file);
    }
  });

  it('a failed rename: previous file intact, temporary file removed', () => {
    const { dir: d, file } = withPrevious();
    const fs: Partial<AtomicFileSystem> = {
      renameSync: () => {
        throw errno('EIO', 'i/o error', 'rename');
      },
    };
    expectFailure(() => writeFileAtomicSync(file, NEXT, { fs }), file, /input\/output error; the previous file is unchanged$/);
    expectUntouched(d, file);
  });

  it('says so when there was no previous file, and creates none', () => {
    const d = dir();
    const file = path.join(d, 'new.json');
    const fs: Partial<AtomicFileSystem> = {
      writeSync: () => {
        throw errno('ENOSPC', 'no space left on device', 'write');
      },
    };
    expectFailure(() => writeFileAtomicSync(file, NEXT, { fs }), file, /no space left on device; no file was written$/);
    expect(readdirSync(d)).toEqual([]);
  });

  it('a file system that cannot fsync a directory (EINVAL) is not a failure', () => {
    const { file } = withPrevious();
    let syncs = 0;
    const fs: Partial<AtomicFileSystem> = {
      fsyncSync: () => {
        if (++syncs === 2) throw errno('EINVAL', 'invalid argument', 'fsync');
      },
    };
    writeFileAtomicSync(file, NEXT, { fs });
    expect(syncs).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe(NEXT);
  });

  it('-o into a missing directory is an input error (exit 2) naming the file', () => {
    const file = path.join(dir(), 'missing', 'out.json');
    expect(() => writeFileAtomic(file, '{}')).toThrow(InputError);
    expect(() => writeFileAtomic(file, '{}')).toThrow(`cannot write ${file}: no such directory; no file was written`);
  });
});

describe('writeFileAtomicAsync (the chain checkpoint, off the event loop)', () => {
  it('replaces the file with every byte, mode 0600, and leaves no temporary file', async () => {
    const { dir: d, file } = withPrevious();
    const big = Buffer.from(NEXT.repeat(50));
    await writeFileAtomicAsync(file, big);
    expect(readFileSync(file).equals(big)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['out.json']);
  });

  it('into a missing directory: a StoreError naming the file, and nothing written', async () => {
    const file = path.join(dir(), 'missing', 'state.json');
    const error = await writeFileAtomicAsync(file, NEXT).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toBe(`cannot write ${file}: no such directory; no file was written`);
  });
});

describe('local chain snapshots (anvil dumps its own state in place)', () => {
  const snapshot = (block: number): string => JSON.stringify({ block: { number: block }, accounts: {}, best_block_number: block, blocks: [] });

  function stateDir(): string {
    const d = path.join(dir(), 'chain', '152');
    mkdirSync(d, { recursive: true });
    return d;
  }

  it('an incomplete anvil dump never replaces the last good autosave and is dropped', () => {
    const d = stateDir();
    const good = snapshot(7);
    writeFileSync(path.join(d, 'autosave.json'), good);
    writeFileSync(path.join(d, 'autosave.anvil.json'), snapshot(9).slice(0, 40)); // cut short by a full disk
    expect(newestSnapshot(d)).toEqual({ file: path.join(d, 'autosave.json'), blockNumber: 7 });
    expect(settleAnvilDump(d)).toEqual({ outcome: 'incomplete' });
    expect(readFileSync(path.join(d, 'autosave.json'), 'utf8')).toBe(good);
    expect(existsSync(path.join(d, 'autosave.anvil.json'))).toBe(false);
  });

  it('a complete, newer anvil dump becomes autosave.json; a stale one is dropped', () => {
    const d = stateDir();
    writeFileSync(path.join(d, 'autosave.json'), snapshot(7));
    writeFileSync(path.join(d, 'autosave.anvil.json'), snapshot(9));
    expect(settleAnvilDump(d)).toEqual({ outcome: 'promoted', blockNumber: 9 });
    expect(readFileSync(path.join(d, 'autosave.json'), 'utf8')).toBe(snapshot(9));
    writeFileSync(path.join(d, 'autosave.anvil.json'), snapshot(3));
    expect(settleAnvilDump(d)).toEqual({ outcome: 'stale', blockNumber: 3 });
    expect(readFileSync(path.join(d, 'autosave.json'), 'utf8')).toBe(snapshot(9));
    expect(readdirSync(d)).toEqual(['autosave.json']);
  });

  it('JSON that is not an anvil state is not a snapshot', () => {
    const d = stateDir();
    writeFileSync(path.join(d, 'state.json'), '{"best_block_number": 12}');
    writeFileSync(path.join(d, 'autosave.json'), snapshot(2));
    expect(newestSnapshot(d)).toEqual({ file: path.join(d, 'autosave.json'), blockNumber: 2 });
  });
});

describe('a real full file system (tmpfs)', () => {
  let mountPoint: string | undefined;
  let skipReason: string | undefined;
  const work = tempDir('vc-fulldisk-');

  beforeAll(() => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) {
      skipReason = 'needs root on Linux to mount a small tmpfs';
      return;
    }
    const point = path.join(work.dir, 'small');
    mkdirSync(point);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', point], { encoding: 'utf8' });
    if (mounted.status !== 0) {
      skipReason = `mount -t tmpfs failed: ${(mounted.stderr || mounted.error?.message || 'unknown').trim()}`;
      return;
    }
    mountPoint = point;
  });

  afterAll(() => {
    if (mountPoint !== undefined) spawnSync('umount', [mountPoint]);
    work.cleanup();
  });

  /** Fills the tmpfs, then frees `freePages` pages of 4 KiB. */
  function fill(point: string, freePages: number): void {
    const pad = path.join(point, 'pad');
    writeFileSync(pad, Buffer.alloc(4096 * freePages, 1));
    const fd = openSync(path.join(point, 'filler'), 'w');
    const chunk = Buffer.alloc(4096, 2);
    try {
      for (;;) realWriteSync(fd, chunk);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }
    unlinkSync(pad);
  }

  it('vc -o on a full disk exits 3 with one line naming the file; the previous out.json is intact', (ctx) => {
    if (mountPoint === undefined) return ctx.skip(skipReason);
    const point = mountPoint;
    const home = path.join(work.dir, 'home');
    // A subject with a long name makes the credential about 10 KB: more than the space left.
    const subject = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'subjects', 'passport.json'), 'utf8')) as Record<string, unknown>;
    subject.name = `Alice ${'x'.repeat(9000)}`;
    const subjectFile = path.join(work.dir, 'subject.json');
    writeFileSync(subjectFile, JSON.stringify(subject));
    const out = path.join(point, 'out.json');
    const args = ['issuer', 'issue', '--format', 'bbs', '--subject', subjectFile, '-o', out];

    const first = runVc(args, { home });
    expect(first.status, first.stderr).toBe(0);
    const previous = readFileSync(out);
    expect(previous.length).toBeGreaterThan(8192);

    // One page free: the first write is short (4,096 bytes), the next fails with ENOSPC.
    // No page free: the first write fails.
    for (const freePages of [1, 0]) {
      fill(point, freePages);
      const run = runVc(args, { home });
      expect(run.status, run.stderr).toBe(ExitCode.config);
      const lines = run.stderr.trim().split('\n');
      expect(lines, run.stderr).toHaveLength(1);
      // The credential was issued (and kept by the holder): the message says so, with its id.
      expect(lines[0]).toMatch(new RegExp(`^error: cannot write ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: no space left on device; the previous file is unchanged; the command itself completed, only its result was not written \\(urn:uuid:`));
      expect(run.stderr).not.toMatch(/wrote/);
      expect(readFileSync(out).equals(previous)).toBe(true);
      expect(readdirSync(point).sort()).toEqual(['filler', 'out.json']);
      rmSync(path.join(point, 'filler'));
    }
  });

  it('writeFileAtomicAsync on a full disk: a StoreError naming the file, the previous file intact, no temporary file', async (ctx) => {
    if (mountPoint === undefined) return ctx.skip(skipReason);
    const file = path.join(mountPoint, 'state.json');
    writeFileSync(file, PREVIOUS);
    for (const freePages of [1, 0]) {
      fill(mountPoint, freePages);
      const error = await writeFileAtomicAsync(file, Buffer.alloc(64 * 1024, 7)).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).message).toBe(`cannot write ${file}: no space left on device; the previous file is unchanged`);
      expect(readFileSync(file, 'utf8')).toBe(PREVIOUS);
      expect(readdirSync(mountPoint).filter((name) => name.includes('state.json'))).toEqual(['state.json']);
      rmSync(path.join(mountPoint, 'filler'));
    }
  });
});

describe('targets that are not regular files', () => {
  const work = tempDir('vc-atomic-special-');
  afterAll(() => work.cleanup());

  it('writes into a FIFO in place (as -o /dev/null or a pipe must), leaving it a FIFO', async () => {
    const { spawn } = await import('node:child_process');
    const { lstatSync } = await import('node:fs');
    const fifo = path.join(work.dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo]);
    let received = '';
    reader.stdout.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const done = new Promise((resolve) => reader.on('close', resolve));
    writeFileAtomicSync(fifo, '{"through":"the pipe"}\n');
    await done;
    expect(received).toBe('{"through":"the pipe"}\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(work.dir)).toEqual(['pipe']);
  });

  it('follows a symbolic link: the link stays a link and its target gets the new content', async () => {
    const { symlinkSync, lstatSync } = await import('node:fs');
    const real = path.join(work.dir, 'real.json');
    const link = path.join(work.dir, 'link.json');
    writeFileSync(real, 'old');
    symlinkSync(real, link);
    writeFileAtomicSync(link, 'new');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('new');
  });
});
