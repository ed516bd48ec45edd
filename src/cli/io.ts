/**
 * Reading command-line input files: strict JSON (src/jsonInput.ts) with a precise one-line error
 * naming the file, the JSON path and what was wrong. Parsing against a schema is done by the
 * core's shared schemas.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { parseJsonText } from '../jsonInput.js';

/** The largest input file read (credentials, requests, schemas are kilobytes). */
export const MAX_INPUT_FILE_BYTES = 16 * 1024 * 1024;

/** Reads and parses a JSON file; `what` names the option for the error message (e.g. --credential). */
export function readJsonFile(file: string, what: string): unknown {
  // The strict parser refuses duplicate keys, deep nesting and unsafe integers, naming the path.
  return parseJsonText(readInputFile(file, what), `${what}: ${file}`);
}

/**
 * Reads a JSON Lines file (one JSON value per line; blank lines are skipped): the values, and the
 * line number of each (1-based), so errors can name the line. A line that is not JSON is refused
 * with its number.
 */
export function readJsonLinesFile(file: string, what: string): { values: unknown[]; lines: number[] } {
  const values: unknown[] = [];
  const lines: number[] = [];
  readInputFile(file, what)
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      values.push(parseJsonText(line, `${what}: ${file} line ${index + 1}`));
      lines.push(index + 1);
    });
  return { values, lines };
}

/** Reads a text file (a token); `what` names the option for the error message. */
export function readTextFile(file: string, what: string): string {
  return readInputFile(file, what);
}

/** The text of an input file: a regular file of at most MAX_INPUT_FILE_BYTES. */
function readInputFile(file: string, what: string): string {
  let text: string;
  try {
    // Opened without blocking on a FIFO, checked to be a regular file of bounded size before reading:
    // /dev/zero or a named pipe would otherwise be read forever.
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new InputError(`${what}: ${file} is not a regular file`, { field: what });
      if (stat.size > MAX_INPUT_FILE_BYTES) throw new InputError(`${what}: ${file} is larger than ${MAX_INPUT_FILE_BYTES / 1024 / 1024} MiB`, { field: what });
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw new InputError(`${what}: cannot read ${file}: ${reason}`, { field: what, cause: error });
  }
  return text;
}
