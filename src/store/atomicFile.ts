/**
 * Atomic file replacement: a temp file in the same directory, fsync, rename. A crash at any point
 * leaves either the old file or the new one, never a half-written file.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Writes `data` to `file` atomically with the given mode (default 0600). */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, mode = 0o600): void {
  const target = path.resolve(file);
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', mode);
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, target);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // the temp file may not exist
    }
    throw error;
  }
}
