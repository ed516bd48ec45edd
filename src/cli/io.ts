/**
 * Reading command-line input files: strict JSON (src/jsonInput.ts) with a precise one-line error
 * naming the file, the JSON path and what was wrong. Parsing against a schema is done by the
 * core's shared schemas.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { parseJsonText } from '../jsonInput.js';

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
  // The strict parser refuses duplicate keys, deep nesting and unsafe integers, naming the path.
  return parseJsonText(text, `${what}: ${file}`);
}
