/**
 * Validation of operation inputs against zod schemas (the one source of truth for shapes, also
 * used for the OpenAPI document and the command help), and the naming of input fields in error
 * messages. Core names a field by its path in the operation's input; each adapter supplies a
 * FieldNamer that says it in its own terms (`--subject a.json: field birthDate` on the command
 * line, `request body: field credentialSubject.birthDate` over HTTP).
 */
import type { z } from 'zod';
import { InputError } from '../errors.js';

/** Says where an input field (a dotted path into the operation's input; '' for all of it) came from. */
export type FieldNamer = (path: string) => string;

/** The namer of direct calls (tests, benchmarks, other operations): the path itself. */
export const plainFieldNames: FieldNamer = (path) => (path === '' ? 'input' : path);

/** Formats a zod issue path as `a.b[0].c`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc === '' ? String(part) : `${acc}.${String(part)}`), '');
}

/** Joins a base path and a path relative to it (`credential` + `proof.type`, `nodes` + `[0]`). */
export function joinPath(base: string, relative: string): string {
  if (base === '') return relative;
  if (relative === '') return base;
  return relative.startsWith('[') ? `${base}${relative}` : `${base}.${relative}`;
}

/**
 * Parses `value` with `schema`; on failure throws one InputError naming the first failing field
 * and what was expected. `names` says where the value came from: a FieldNamer with the value's
 * path in the input (`base`), or a plain label for values that are not user input.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, names: FieldNamer | string, base = ''): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const relative = formatPath(issue.path);
  // A field left out is said so, not as a value of the wrong type.
  const message = issue.code === 'invalid_type' && / received undefined$/.test(issue.message) ? `missing (expected ${issue.expected})` : issue.message;
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problem${result.error.issues.length > 2 ? 's' : ''})` : '';
  if (typeof names === 'string') {
    const where = relative === '' ? names : `${names}: field ${relative}`;
    throw new InputError(`${where}: ${message}${more}`, { field: relative === '' ? names : relative });
  }
  const field = joinPath(base, relative);
  throw new InputError(`${names(field)}: ${message}${more}`, field === '' ? {} : { field });
}
