/**
 * Reading command-line input files: JSON with a precise one-line error naming the file and
 * what was wrong. Parsing against a schema is done by the core's shared schemas.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';

/** Reads and parses a JSON file; `what` names the option for the error message (e.g. --credential). */
export function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw new InputError(`${what}: cannot read ${file}: ${reason}`, { field: what, cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`${what}: ${file} is not valid JSON (${(error as Error).message})`, { field: what, cause: error });
  }
}
