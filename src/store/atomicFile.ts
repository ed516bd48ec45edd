/**
 * Atomic file replacement: a uniquely named temp file in the same directory, every byte written
 * (short writes continued, a write that makes no progress is a failure), fsync, close, rename over
 * the target, fsync of the directory. Any failure before the rename removes the temp file and
 * leaves the previous file byte for byte as it was; nothing is reported as written unless it is.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import { StoreError } from '../errors.js';

/** The file system calls the writer uses; tests inject failing ones (ENOSPC, short writes...). */
export interface AtomicFileSystem {
  openSync(file: string, flags: string, mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
  renameSync(from: string, to: string): void;
  unlinkSync(file: string): void;
  existsSync(file: string): boolean;
}

const realFs: AtomicFileSystem = {
  openSync: (file, flags, mode) => fs.openSync(file, flags, mode),
  writeSync: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  closeSync: (fd) => fs.closeSync(fd),
  renameSync: (from, to) => fs.renameSync(from, to),
  unlinkSync: (file) => fs.unlinkSync(file),
  existsSync: (file) => fs.existsSync(file),
};

export interface AtomicWriteOptions {
  /** Mode of the new file (default 0600: most of what vc writes is personal data or state). */
  mode?: number;
  /** File system calls to use instead of node:fs (fault injection in tests). */
  fs?: Partial<AtomicFileSystem>;
}

/** Plain-words reasons for the errno codes a write can end with. */
const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such directory',
  ENOTDIR: 'a parent is not a directory',
  EISDIR: 'it is a directory',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EXDEV: 'cross-device rename',
  ESHORTWRITE: 'the write stopped short (device full?)',
};

/** Errno codes meaning the path itself is wrong (the caller may call that an input error). */
export const PATH_ERROR_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'ELOOP', 'EROFS']);

/** The errno code of a failure of the writer (the cause of its StoreError), if any. */
export function writeFailureCode(error: unknown): string | undefined {
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** A one-line reason for a file system error: "no space left on device", never a stack. */
export function describeWriteError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && REASONS[code] !== undefined) return REASONS[code];
  const message = error instanceof Error ? error.message : String(error);
  // node:fs messages read "ENOSPC: no space left on device, write": keep the middle part.
  return /^[A-Z0-9]+: ([^,]+)/.exec(message)?.[1] ?? message.split('\n')[0] ?? 'unknown error';
}

function shortWrite(written: number, total: number): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ESHORTWRITE: wrote ${written} of ${total} bytes, then no progress`);
  error.code = 'ESHORTWRITE';
  return error;
}

/** Writes every byte of `buffer` to `fd`, continuing after short writes. */
function writeAll(io: AtomicFileSystem, fd: number, buffer: Uint8Array): void {
  let offset = 0;
  while (offset < buffer.length) {
    const written = io.writeSync(fd, buffer, offset, buffer.length - offset, null);
    // A write that makes no progress would loop forever; the kernel normally reports ENOSPC instead.
    if (!(written > 0)) throw shortWrite(offset, buffer.length);
    offset += written;
  }
}

/** Flushes the directory entry of a rename; file systems that cannot fsync a directory are fine. */
function fsyncDirectory(io: AtomicFileSystem, dir: string): void {
  let fd: number;
  try {
    fd = io.openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    io.fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EBADF' && code !== 'EISDIR') throw error;
  } finally {
    try {
      io.closeSync(fd);
    } catch {
      // nothing left to do
    }
  }
}

/** Writes to a device, FIFO or socket by opening it for writing, as a shell redirection would. */
function writeToSpecialFile(target: string, file: string, buffer: Uint8Array): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(target, 'w');
    writeAll(realFs, fd, buffer);
  } catch (error) {
    throw new StoreError(`cannot write ${file}: ${describeWriteError(error)}`, { field: file, cause: error });
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The temporary file an atomic write of `target` writes first: in its directory, named for this process. */
function temporaryBeside(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** A write that failed before its rename: the target is as it was. */
function notWritten(file: string, error: unknown, existed: boolean): StoreError {
  return new StoreError(`cannot write ${file}: ${describeWriteError(error)}; ${existed ? 'the previous file is unchanged' : 'no file was written'}`, { field: file, cause: error });
}

/** A write renamed in place whose directory entry could not be flushed. */
function directoryNotFlushed(file: string, error: unknown): StoreError {
  return new StoreError(`wrote ${file} but could not flush its directory: ${describeWriteError(error)}; it may be lost on a crash`, { field: file, cause: error });
}

/**
 * Writes `data` to `file` atomically (mode 0600 unless told otherwise). On failure throws a
 * StoreError (exit code 3, HTTP 503) whose one-line message names the file and the cause, e.g.
 * "cannot write out.json: no space left on device; the previous file is unchanged"; the errno
 * error is its cause.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: number | AtomicWriteOptions = {}): void {
  const { mode = 0o600, fs: injected } = typeof options === 'number' ? { mode: options } : options;
  const io: AtomicFileSystem = { ...realFs, ...injected };
  let target = path.resolve(file);
  // A symbolic link is followed (the link stays a link); a device, a FIFO or a socket
  // (-o /dev/null, /dev/stdout, a pipe) is written in place: renaming a file over it would
  // replace the device itself.
  try {
    if (fs.lstatSync(target).isSymbolicLink()) target = fs.realpathSync(target);
    if (!fs.statSync(target).isFile()) {
      writeToSpecialFile(target, file, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      return;
    }
  } catch (error) {
    if (error instanceof StoreError) throw error;
    // absent (or a dangling link): created below
  }
  const dir = path.dirname(target);
  const tmp = temporaryBeside(target);
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let existed = false;
  try {
    existed = io.existsSync(target);
  } catch {
    // treated as absent: the message only says whether an older file was kept
  }
  let fd: number | undefined;
  let created = false;
  try {
    fd = io.openSync(tmp, 'wx', mode);
    created = true;
    writeAll(io, fd, buffer);
    io.fsyncSync(fd);
    const closing = fd;
    fd = undefined;
    io.closeSync(closing);
    io.renameSync(tmp, target);
    created = false;
  } catch (error) {
    if (fd !== undefined) {
      try {
        io.closeSync(fd);
      } catch {
        // the descriptor is released either way
      }
    }
    if (created) {
      try {
        io.unlinkSync(tmp);
      } catch {
        // nothing more can be done; the target itself was never touched
      }
    }
    throw notWritten(file, error, existed);
  }
  try {
    fsyncDirectory(io, dir);
  } catch (error) {
    // The new file is in place but its directory entry may not survive a power loss.
    throw directoryNotFlushed(file, error);
  }
}

/**
 * writeFileAtomicSync's contract, with the writes and fsyncs on libuv's thread pool: for large
 * files written by a server (the chain checkpoint, megabytes after every transaction), whose
 * fsync alone held the event loop for tens of milliseconds. A target that is a link, a device,
 * a FIFO or a socket is written by writeFileAtomicSync.
 */
export async function writeFileAtomicAsync(file: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const target = path.resolve(file);
  const existing = await fs.promises.lstat(target).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) {
    writeFileAtomicSync(file, data, mode);
    return;
  }
  const tmp = temporaryBeside(target);
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(tmp, 'wx', mode);
    // FileHandle.writeFile continues after short writes; a write that cannot go on throws (ENOSPC).
    await handle.writeFile(data);
    await handle.sync();
    const closing = handle;
    handle = undefined;
    await closing.close();
    await fs.promises.rename(tmp, target);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.promises.unlink(tmp).catch(() => undefined);
    throw notWritten(file, error, existing !== undefined);
  }
  try {
    fsyncDirectory(realFs, path.dirname(target));
  } catch (error) {
    throw directoryNotFlushed(file, error);
  }
}
