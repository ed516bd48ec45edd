/**
 * Validation of input shapes (files on the CLI, bodies over HTTP) against zod schemas: the one
 * source of truth for shapes, also used to generate the OpenAPI document.
 */
import type { z } from 'zod';
import { InputError } from '../errors.js';

/** Formats a zod issue path as `a.b[0].c`. */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc === '' ? String(part) : `${acc}.${String(part)}`), '');
}

/**
 * Parses `value` with `schema`; on failure throws one InputError naming the source (a file or
 * "request body"), the first failing field and what was expected.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = formatPath(issue.path);
  const where = field === '' ? source : `${source}: field ${field}`;
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problem${result.error.issues.length > 2 ? 's' : ''})` : '';
  throw new InputError(`${where}: ${issue.message}${more}`, { field: field === '' ? source : field });
}
