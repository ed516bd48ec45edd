/**
 * The credentialSubject fields of an iden3 credential type, read from its documents: the terms
 * its JSON-LD context defines for the type (its type-scoped context and the context's own terms)
 * and the properties its JSON schema gives credentialSubject. They name what a user may write,
 * so a subject, a query field or a disclosure key that is not among them is refused with the
 * fields that exist and the closest one, before any library reports it in its own words.
 */

/** True when the context defines the term `type`. */
export function contextDefinesType(context: unknown, type: string): boolean {
  return contextDefinitions(context).some((definition) => Object.hasOwn(definition, type));
}

/**
 * The JSON-LD terms a context gives credentials of `type`; undefined when they cannot be listed:
 * the context does not define the type, or a default vocabulary (@vocab) makes any term valid.
 */
export function contextFieldsOfType(context: unknown, type: string): string[] | undefined {
  const definitions = contextDefinitions(context);
  const typeTerm = definitions.find((definition) => Object.hasOwn(definition, type))?.[type];
  if (typeTerm === undefined) return undefined;
  const fields = new Set<string>();
  const scoped = typeof typeTerm === 'object' && typeTerm !== null ? (typeTerm as Record<string, unknown>)['@context'] : undefined;
  const all = [...contextDefinitions({ '@context': scoped }), ...definitions];
  if (all.some((definition) => Object.hasOwn(definition, '@vocab'))) return undefined;
  for (const definition of all) {
    for (const [term, value] of Object.entries(definition)) {
      // Keywords, prefixes (a plain IRI ending in # or /) and other types are not subject fields.
      if (term.startsWith('@') || term === 'id' || term === 'type') continue;
      if (typeof value === 'string' && /[#/:]$/.test(value)) continue;
      if (typeof value === 'object' && value !== null && '@context' in value) continue;
      fields.add(term);
    }
  }
  return [...fields].sort();
}

/** The type names a context defines (terms with a type-scoped context). */
export function contextTypes(context: unknown): string[] {
  return contextDefinitions(context)
    .flatMap((definition) => Object.entries(definition))
    .filter(([term, value]) => !term.startsWith('@') && typeof value === 'object' && value !== null && '@context' in value)
    .map(([term]) => term);
}

/** The object definitions of a document's @context (a list, an object; URLs are skipped). */
function contextDefinitions(document: unknown): Array<Record<string, unknown>> {
  const context = typeof document === 'object' && document !== null ? (document as Record<string, unknown>)['@context'] : undefined;
  const list = Array.isArray(context) ? context : [context];
  return list.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && !Array.isArray(entry));
}

/** One node of a JSON schema, as far as the checks below read it. */
export interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** The schema of credentialSubject in an iden3 JSON schema, if it has one. */
export function subjectSchemaOf(schema: unknown): SchemaNode | undefined {
  const node = (schema as { properties?: { credentialSubject?: unknown } } | undefined)?.properties?.credentialSubject;
  return typeof node === 'object' && node !== null ? (node as SchemaNode) : undefined;
}

/** The fields credentialSubject may have by the schema (its properties, without id). */
export function schemaFieldsOf(schema: unknown): string[] | undefined {
  const properties = subjectSchemaOf(schema)?.properties;
  return properties === undefined ? undefined : Object.keys(properties).filter((field) => field !== 'id').sort();
}

/** A problem of a subject against its schema: the path inside the subject and what was expected. */
export interface SubjectProblem {
  /** e.g. `birthDate`, `address.city` ('' for the subject itself). */
  path: string;
  problem: string;
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function fits(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

const join = (base: string, key: string | number): string => (typeof key === 'number' ? `${base}[${key}]` : base === '' ? key : `${base}.${key}`);

/**
 * The first problem of `value` against `node` (types, required properties, enumerations,
 * date-time formats, properties the schema closes out), walking objects and arrays; undefined
 * when none of those checks fails. The js-sdk still validates the whole credential afterwards;
 * this only says, before it, where a subject goes wrong.
 */
export function checkAgainstSchema(value: unknown, node: SchemaNode, path = ''): SubjectProblem | undefined {
  const actual = typeOfValue(value);
  const expected = node.type === undefined ? undefined : Array.isArray(node.type) ? node.type : [node.type];
  if (expected !== undefined && !expected.some((type) => fits(type, actual))) {
    return { path, problem: `expected ${expected.map((type) => (type === 'integer' ? 'an integer' : type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`)).join(' or ')}, got ${actual === 'integer' || actual === 'array' || actual === 'object' ? `an ${actual}` : `a ${actual}`} (${JSON.stringify(value)?.slice(0, 60)})` };
  }
  if (node.enum !== undefined && !node.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    return { path, problem: `expected one of ${node.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}, got ${JSON.stringify(value)?.slice(0, 60)}` };
  }
  if (node.const !== undefined && JSON.stringify(node.const) !== JSON.stringify(value)) {
    return { path, problem: `expected ${JSON.stringify(node.const)}, got ${JSON.stringify(value)?.slice(0, 60)}` };
  }
  if (typeof value === 'string' && (node.format === 'date-time' || node.format === 'date') && Number.isNaN(Date.parse(value))) {
    return { path, problem: `expected a ${node.format} (ISO 8601, e.g. ${node.format === 'date' ? '2030-12-31' : '2030-12-31T00:00:00Z'}), got ${JSON.stringify(value).slice(0, 60)}` };
  }
  const shown = JSON.stringify(value)?.slice(0, 60);
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) return { path, problem: `expected at least ${node.minimum}${node.title === undefined ? '' : ` (${node.title})`}, got ${shown}` };
    if (node.maximum !== undefined && value > node.maximum) return { path, problem: `expected at most ${node.maximum}${node.title === undefined ? '' : ` (${node.title})`}, got ${shown}` };
  }
  if (typeof value === 'string') {
    if (node.minLength !== undefined && value.length < node.minLength) return { path, problem: `expected at least ${node.minLength} character${node.minLength === 1 ? '' : 's'}, got ${shown}` };
    if (node.maxLength !== undefined && value.length > node.maxLength) return { path, problem: `expected at most ${node.maxLength} characters, got ${value.length}` };
    if (node.pattern !== undefined) {
      let matches = true;
      try {
        matches = new RegExp(node.pattern, 'u').test(value);
      } catch {
        // A pattern JavaScript cannot read is left to the js-sdk's validator.
      }
      if (!matches) return { path, problem: `${shown} does not match the schema's pattern ${node.pattern}${node.title === undefined ? '' : ` (${node.title})`}` };
    }
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const field of node.required ?? []) {
      if (path === '' && field === 'id') continue; // the holder's DID, set by the issuer
      if (!Object.hasOwn(object, field)) return { path: join(path, field), problem: `missing: the schema requires it${node.properties?.[field]?.type === undefined ? '' : ` (${String(node.properties[field].type)})`}` };
    }
    for (const [field, child] of Object.entries(object)) {
      const childNode = node.properties?.[field];
      if (childNode === undefined) {
        if (node.additionalProperties === false) {
          return { path: join(path, field), problem: `not a field of the schema (its fields: ${Object.keys(node.properties ?? {}).join(', ')})` };
        }
        continue;
      }
      const problem = checkAgainstSchema(child, childNode, join(path, field));
      if (problem !== undefined) return problem;
    }
  }
  if (actual === 'array' && node.items !== undefined) {
    const items = value as unknown[];
    for (let index = 0; index < items.length; index++) {
      const problem = checkAgainstSchema(items[index], node.items, join(path, index));
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
