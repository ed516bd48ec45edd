/**
 * The rules of the W3C Verifiable Credentials Data Model 2.0 (Recommendation, 2025) that an
 * issuer or a verifier must apply to a credential, each with its check id, its section and the
 * normative statement it enforces. One table, used wherever vc reads a credential: issuing
 * (refused: exit 2, HTTP 422 naming the check), keeping and disclosing (the holder refuses what no
 * verifier would accept), and verifying (a failed check `data-model:<id>` in the result).
 *
 * VC 1.1 credentials (bbs-2023 accepts them with the data-integrity context, BbsBlsSignature2020
 * is 1.1 only) get the rules 1.1 shares with 2.0: identifiers, types, issuer, subject, and the
 * typed objects (status, schema, refresh service, terms of use, evidence).
 *
 * What JSON-LD itself decides is left to JSON-LD: a term no context defines is the `terms` check
 * (safe-mode expansion), which also enforces section 5.2.1: no `@vocab` fallback unless the
 * credential brings one (an inline `@vocab`, the examples context, or the undefined-terms context
 * as its last context).
 */
import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { DataModelError } from '../errors.js';
import { shortId } from '../sd/didKey.js';
import { PROTECTED_TERM_REDEFINITION, processJsonLdContext } from '../sd/jsonldCheck.js';
import { CREDENTIALS_V2_URL, UNDEFINED_TERMS_V2_URL, isKnownContext, publishedDocumentBytes } from '../sd/suites/bbs2023/bbs2023Loader.js';
import { CREDENTIALS_V1_URL } from '../sd/contextUrls.js';
import { noPinnedContexts, pinnedContexts, type PinnedContextCheck, type VerificationCheck } from './sd/documentChecks.js';
import { sdDocumentLoader2023 } from './sd/sdDocumentLoader.js';

/** Who applies a rule: the issuer before it signs, the verifier (and a holder, who checks what a verifier will) when it reads. */
export type DataModelRole = 'issuer' | 'verifier';

/** One normative statement of the data model, as vc enforces it. */
export interface DataModelRule {
  /** The check id, reported as `data-model:<id>`. */
  readonly id: string;
  /** Its section in VC Data Model 2.0. */
  readonly section: string;
  /** The statement, quoted from the specification (abridged where marked). */
  readonly statement: string;
  /** Who applies it. */
  readonly roles: readonly DataModelRole[];
  /** The data model versions it applies to (1: VC 1.1 credentials, which share the rule). */
  readonly versions: readonly (1 | 2)[];
}

const BOTH: readonly DataModelRole[] = ['issuer', 'verifier'];
const V2: readonly (1 | 2)[] = [2];
const ALL: readonly (1 | 2)[] = [1, 2];

function rule(id: string, section: string, statement: string, versions = V2, roles = BOTH): DataModelRule {
  return { id, section, statement, roles, versions };
}

/** Every rule, in the order they are checked. */
export const DATA_MODEL_RULES: readonly DataModelRule[] = [
  rule('context-present', '4.3', 'Verifiable credentials and verifiable presentations MUST include a @context property.'),
  rule('context-first', '4.3', 'The value of the @context property MUST be an ordered set where the first item is a URL with the value https://www.w3.org/ns/credentials/v2.'),
  rule('context-items', '4.3', 'Subsequent items in the ordered set MUST be composed of any combination of URLs and objects, where each is processable as a JSON-LD Context.'),
  rule('context-known', '4.3', 'Application developers MUST understand every JSON-LD context used by their application, at least to the extent that it affects the meaning of the terms used by their application.'),
  rule('undefined-terms-last', '5.2.1', 'If a conforming document does not use JSON-LD Contexts that define all terms used, it MUST include the https://www.w3.org/ns/credentials/undefined-terms/v2 as the last value in the @context property.'),
  rule('compacted-form', '6.1.2', 'JSON-LD compacted document form MUST be used for all representations of the data model using the application/vc or application/vp media type.', ALL),
  rule('language-value', '11.1', 'When the language value object is used in place of a string value, the object MUST contain a @value property whose value is a string.', ALL),
  rule('language-value-keys', '11.1', 'The language value object MUST NOT include any other keys beyond @value, @language, and @direction.', ALL),
  rule('type-present', '4.5', 'Verifiable credentials and verifiable presentations MUST contain a type property with an associated value.', ALL),
  rule('type-values', '4.5', 'The value of the type property MUST be one or more terms and absolute URL strings.', ALL),
  rule('type-vc', '4.5', 'Objects that MUST have a type specified: verifiable credential object, VerifiableCredential and, optionally, a more specific verifiable credential type.', ALL),
  rule('name', '4.6', 'If present, the value of the name property MUST be a string or a language value object.'),
  rule('description', '4.6', 'If present, the value of the description property MUST be a string or a language value object.'),
  rule('issuer-present', '4.7', 'A verifiable credential MUST have an issuer property.', ALL),
  rule('issuer-url', '4.7', 'The value of the issuer property MUST be either a URL or an object containing an id property whose value is a URL.', ALL),
  rule('credential-subject', '4.8', 'A verifiable credential MUST contain a credentialSubject property.', ALL),
  rule('credential-subject-claims', '4.8', 'The value of the credentialSubject property is a set of objects where each object MUST be the subject of one or more claims.', ALL),
  rule('valid-from', '4.9', 'If present, the value of the validFrom property MUST be an [XMLSCHEMA11-2] dateTimeStamp string value (a verifier reads one without a time zone offset as UTC, section 5.8).'),
  rule('valid-until', '4.9', 'If present, the value of the validUntil property MUST be an [XMLSCHEMA11-2] dateTimeStamp string value (a verifier reads one without a time zone offset as UTC, section 5.8).'),
  rule('validity-order', '4.9', 'If a validUntil value also exists, the validFrom value MUST express a point in time that is temporally the same or earlier than the point in time expressed by the validUntil value (and the validUntil value the same or later).'),
  rule('status-type', '4.10', 'credentialStatus: the type property is REQUIRED. The related normative guidance in Section 4.5 Types MUST be followed.', ALL),
  rule('schema-type', '4.11', 'Each credentialSchema MUST specify its type (for example, JsonSchema).', ALL),
  rule('schema-id', '4.11', 'Each credentialSchema MUST specify ... an id property that MUST be a URL identifying the schema file.', ALL),
  rule('related-resource-objects', '5.3', 'The value of the relatedResource property MUST be one or more objects.'),
  rule('related-resource-id', '5.3', 'relatedResource id: the identifier for the resource is REQUIRED and conforms to the format defined in Section 4.4 Identifiers.'),
  rule('related-resource-unique', '5.3', 'relatedResource id: the value MUST be unique among the list of related resource objects.'),
  rule('related-resource-digest', '5.3', 'Each object associated with relatedResource MUST contain at least a digestSRI or a digestMultibase value.'),
  rule('related-resource-digest-match', '5.3', 'A conforming verifier implementation that makes use of a resource based on the id of a relatedResource object ... MUST compute the digest of the retrieved resource. If the digest provided by the issuer does not match the digest computed for the retrieved resource, the conforming verifier implementation MUST produce an error.'),
  rule('refresh-service-type', '5.4', 'Each refreshService value MUST specify its type.', ALL),
  rule('terms-of-use-type', '5.5', 'Each termsOfUse value MUST specify its type, for example, TrustFrameworkPolicy, and MAY specify its instance id.', ALL),
  rule('evidence-objects', '5.6', 'If present, the value of the evidence property MUST be either a single object or a set of one or more objects.', ALL),
  rule('evidence-type', '5.6', 'evidence: the type property is REQUIRED. The related normative guidance in Section 4.5 Types MUST be followed.', ALL),
  rule('reserved-type', '5.10', 'Implementations MUST specify a type property in the value associated with the reserved property (confidenceMethod, renderMethod).'),
  rule('id-url', '4.4', "If present, id property's value MUST be a single URL (also for credentialStatus, evidence and relatedResource objects: \"the normative guidance in Section 4.4 Identifiers MUST be followed\").", ALL),
  rule('jsonld-expansion', 'B.1', 'Implementations that apply the base context ... during operations such as JSON-LD Expansion ... If such operations are performed and result in an error, the verifiable credential or verifiable presentation MUST result in a verification failure.'),
];

const RULES_BY_ID: ReadonlyMap<string, DataModelRule> = new Map(DATA_MODEL_RULES.map((entry) => [entry.id, entry]));

/** A broken rule: its check id, the JSON path it is about, and a one-line reason. */
export interface DataModelViolation {
  /** `data-model:<rule id>`. */
  check: string;
  rule: DataModelRule;
  /** The member the rule is about, as a JSON path (`credentialSchema[0].type`; '' for the credential). */
  path: string;
  reason: string;
}

/** The check id of a rule in verification results and error messages. */
export function dataModelCheckId(ruleId: string): string {
  return `data-model:${ruleId}`;
}

/** The data model version a credential's first context names: 1 for credentials v1, else 2 (whose rules then say what is wrong). */
export function dataModelVersion(credential: Record<string, unknown>): 1 | 2 {
  const contexts = credential['@context'];
  const first = Array.isArray(contexts) ? (contexts as unknown[])[0] : contexts;
  return first === CREDENTIALS_V1_URL ? 1 : 2;
}

/** A verification check of the data model: `data-model` when every rule holds, `data-model:<id>` with the reason of the first that does not. */
export function dataModelCheck(violation: DataModelViolation | undefined): VerificationCheck {
  if (violation === undefined) return { id: 'data-model', valid: true };
  return { id: violation.check as VerificationCheck['id'], valid: false, reason: describeViolation(violation) };
}

/** The violation as one line: where, what, and the check with its section. */
export function describeViolation(violation: DataModelViolation): string {
  const where = violation.path === '' ? '' : `${violation.path}: `;
  return `${where}${violation.reason} (check ${violation.check}, VC Data Model 2.0 §${violation.rule.section})`;
}

// ---------------------------------------------------------------------------------------------
// Values

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A property's values as a list (JSON-LD: one value or an array of them). */
function valuesOf(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
}

/** The path of the index-th value of `property` (no index when the property holds a single value). */
function valuePath(property: string, value: unknown, index: number): string {
  return Array.isArray(value) ? `${property}[${index}]` : property;
}

function show(value: unknown, max = 60): string {
  return shortId(JSON.stringify(value) ?? 'undefined', max);
}

/**
 * True for a URL as the data model means it (the URL Standard's absolute URL): a scheme, no
 * white space, and parsed by the WHATWG URL parser (urn:uuid:..., did:..., https://...).
 */
export function isUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return false;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) || /[\s\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** XML Schema 1.1 dateTime (VC 2.0 section 5.8's expression); the time zone offset (group 5) is what makes it a dateTimeStamp. */
const DATE_TIME = /^(-?(?:[1-9][0-9]{3,}|0[0-9]{3}))-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T((?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?|24:00:00(?:\.0+)?)(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$/;

/**
 * The instant of an XML Schema dateTime in milliseconds, or undefined when the value is not one.
 * Without a time zone offset it is read as UTC (VC 2.0 section 5.8), never as local time; an
 * issuer must write the offset (a dateTimeStamp, section 4.9), so with `requireOffset` a value
 * without one is refused.
 */
export function parseDateTimeStamp(value: unknown, requireOffset = false): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (match === null) return undefined;
  const offset = match[5];
  if (offset === undefined && requireOffset) return undefined;
  const [, year, month, day] = match as unknown as [string, string, string, string];
  // Date.parse reads ISO strings of 4-digit years only; the day must exist in its month.
  if (!/^\d{4}$/.test(year)) return undefined;
  const time = Date.parse(`${value.slice(0, value.length - (offset?.length ?? 0))}${offset ?? 'Z'}`);
  if (Number.isNaN(time)) return undefined;
  const probe = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (probe.getUTCDate() !== Number(day)) return undefined;
  return time;
}

// ---------------------------------------------------------------------------------------------
// The checks

type Found = { rule: string; path: string; reason: string } | undefined;

const LANGUAGE_KEYS = new Set(['@value', '@language', '@direction']);

/** True for an object that is a language value object (at least one of its keys is @value, @language or @direction). */
function looksLikeLanguageValue(value: Json): boolean {
  return Object.keys(value).some((key) => LANGUAGE_KEYS.has(key));
}

/** Why a language value object breaks section 11.1, or undefined. */
function checkLanguageValue(value: Json, path: string): Found {
  const other = Object.keys(value).find((key) => !LANGUAGE_KEYS.has(key));
  if (other !== undefined) return { rule: 'language-value-keys', path, reason: `a language value object may hold only @value, @language and @direction, not ${shortId(other, 40)}` };
  if (typeof value['@value'] !== 'string') return { rule: 'language-value', path, reason: 'a language value object must have a @value that is a string' };
  if (value['@language'] !== undefined && (typeof value['@language'] !== 'string' || !/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(value['@language']))) {
    return { rule: 'language-value', path: join(path, '@language'), reason: `@language ${show(value['@language'])} is not a BCP 47 language tag` };
  }
  if (value['@direction'] !== undefined && value['@direction'] !== 'ltr' && value['@direction'] !== 'rtl') {
    return { rule: 'language-value', path: join(path, '@direction'), reason: `@direction ${show(value['@direction'])} is not "ltr" or "rtl"` };
  }
  return undefined;
}

/**
 * One walk over the document (the top-level @context aside): language value objects (11.1),
 * keywords of the expanded form (6.1.2), every `id` a URL (4.4) and every `type` one or more
 * strings (4.5). The shape check has bounded the document before this runs.
 */
function walkDocument(document: Json): Found {
  const stack: Array<{ value: unknown; path: string; top: boolean }> = [{ value: document, path: '', top: true }];
  let found: Found;
  const note = (candidate: Found): void => {
    // Language and keyword problems first: they decide how the rest reads.
    if (found === undefined) found = candidate;
  };
  while (stack.length > 0) {
    const { value, path, top } = stack.pop()!;
    if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: join(path, index), top: false }));
      continue;
    }
    if (!isObject(value)) continue;
    if (!top && looksLikeLanguageValue(value)) {
      const problem = checkLanguageValue(value, path);
      if (problem !== undefined) return problem;
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (top && key === '@context') continue;
      const at = join(path, key);
      if (key.startsWith('@')) return { rule: 'compacted-form', path: at, reason: `the JSON-LD keyword ${shortId(key, 40)} is not accepted inside a credential (compacted form uses the context's terms, such as id and type; a keyword here could redefine what a signed term means)` };
      if (key === 'id' && !isUrl(child)) note({ rule: 'id-url', path: at, reason: `${show(child)} is not a single URL (use a DID, a urn:uuid: or an https URL)` });
      if (key === 'type') {
        const types = valuesOf(child);
        if (types.length === 0 || types.some((type) => typeof type !== 'string' || type.length === 0)) {
          note({ rule: 'type-values', path: at, reason: `${show(child)} is not one or more terms or URLs (strings)` });
        }
      }
      if (typeof child === 'object' && child !== null) stack.push({ value: child, path: at, top: false });
    }
  }
  return found;
}

/** The objects a property holds, refusing any other value under `rule`. */
function objectsOf(credential: Json, property: string, ruleId: string, what: string): Found | Array<{ value: Json; path: string }> {
  const value = credential[property];
  const objects: Array<{ value: Json; path: string }> = [];
  for (const [index, item] of valuesOf(value).entries()) {
    const path = valuePath(property, value, index);
    if (!isObject(item)) return { rule: ruleId, path, reason: `expected ${what} (an object), got ${show(item)}` };
    objects.push({ value: item, path });
  }
  return objects;
}

/** Each object of `property` must have a type (its format is type-values'). */
function requireTypes(credential: Json, property: string, ruleId: string, what: string): Found {
  const objects = objectsOf(credential, property, ruleId, what);
  if (!Array.isArray(objects)) return objects;
  for (const { value, path } of objects) {
    if (value.type === undefined) return { rule: ruleId, path, reason: `${what} has no type` };
  }
  return undefined;
}

function checkContexts(credential: Json, pinned: PinnedContextCheck): Found {
  if (!Object.hasOwn(credential, '@context')) return { rule: 'context-present', path: '', reason: 'the credential has no @context' };
  const contexts = credential['@context'];
  if (!Array.isArray(contexts) || contexts[0] !== CREDENTIALS_V2_URL) {
    return { rule: 'context-first', path: '@context', reason: `expected a list whose first item is ${CREDENTIALS_V2_URL}, got ${show(Array.isArray(contexts) ? contexts[0] : contexts, 80)}` };
  }
  const seen = new Set<string>();
  for (const [index, item] of contexts.entries()) {
    const path = `@context[${index}]`;
    if (typeof item === 'string') {
      if (seen.has(item)) return { rule: 'context-items', path, reason: `${shortId(item)} is listed twice (the contexts are an ordered set)` };
      seen.add(item);
      // A context vc bundles, or one the user pinned in the wallet (`vc documents add`).
      const refused = isKnownContext(item) ? undefined : pinned(item);
      if (refused !== undefined) return { rule: 'context-known', path, reason: refused.replace(/^@context /, '') };
    } else if (!isObject(item)) {
      return { rule: 'context-items', path, reason: `expected a context URL or an inline context object, got ${show(item)}` };
    }
  }
  const undefinedTerms = contexts.indexOf(UNDEFINED_TERMS_V2_URL);
  if (undefinedTerms !== -1 && undefinedTerms !== contexts.length - 1) {
    return { rule: 'undefined-terms-last', path: `@context[${undefinedTerms}]`, reason: `${UNDEFINED_TERMS_V2_URL} must be the last context` };
  }
  return undefined;
}

function checkNameAndDescription(credential: Json): Found {
  for (const property of ['name', 'description'] as const) {
    const value = credential[property];
    if (value === undefined || typeof value === 'string') continue;
    // One language value object, or several in a list (section 11.1); their keys are walkDocument's.
    const languages = valuesOf(value);
    if (!languages.every((item) => isObject(item) && looksLikeLanguageValue(item))) {
      return { rule: property, path: property, reason: `expected a string or language value objects ({"@value", "@language"}), got ${show(value)}` };
    }
  }
  return undefined;
}

function checkIssuer(credential: Json): Found {
  if (!Object.hasOwn(credential, 'issuer')) return { rule: 'issuer-present', path: '', reason: 'the credential has no issuer' };
  const issuer = credential.issuer;
  if (typeof issuer === 'string') return isUrl(issuer) ? undefined : { rule: 'issuer-url', path: 'issuer', reason: `${show(issuer)} is not a URL` };
  if (!isObject(issuer)) return { rule: 'issuer-url', path: 'issuer', reason: `expected a URL or an object with an id, got ${show(issuer)}` };
  if (!isUrl(issuer.id)) return { rule: 'issuer-url', path: 'issuer.id', reason: issuer.id === undefined ? 'the issuer object has no id' : `${show(issuer.id)} is not a URL` };
  return undefined;
}

function checkSubject(credential: Json): Found {
  if (!Object.hasOwn(credential, 'credentialSubject')) return { rule: 'credential-subject', path: '', reason: 'the credential has no credentialSubject' };
  const value = credential.credentialSubject;
  for (const [index, subject] of valuesOf(value).entries()) {
    const path = valuePath('credentialSubject', value, index);
    if (!isObject(subject)) return { rule: 'credential-subject-claims', path, reason: `expected an object holding claims about a subject, got ${show(subject)}` };
    if (Object.keys(subject).length === 0) return { rule: 'credential-subject-claims', path, reason: 'the subject object makes no claim (it is empty)' };
  }
  return undefined;
}

function checkValidityPeriod(credential: Json, role: DataModelRole): Found {
  const requireOffset = role === 'issuer';
  const times: Partial<Record<'validFrom' | 'validUntil', number>> = {};
  for (const property of ['validFrom', 'validUntil'] as const) {
    const value = credential[property];
    if (value === undefined) continue;
    const time = parseDateTimeStamp(value, requireOffset);
    if (time === undefined) {
      const missingOffset = requireOffset && parseDateTimeStamp(value) !== undefined;
      return {
        rule: property === 'validFrom' ? 'valid-from' : 'valid-until',
        path: property,
        reason: missingOffset
          ? `${show(value)} has no time zone offset (a dateTimeStamp ends with Z or +hh:mm, e.g. 2026-01-31T12:00:00Z)`
          : `${show(value)} is not an XML Schema dateTimeStamp (e.g. 2026-01-31T12:00:00Z)`,
      };
    }
    times[property] = time;
  }
  if (times.validFrom !== undefined && times.validUntil !== undefined && times.validFrom > times.validUntil) {
    return { rule: 'validity-order', path: 'validFrom', reason: `${String(credential.validFrom)} is after validUntil ${String(credential.validUntil)}` };
  }
  return undefined;
}

function checkSchemas(credential: Json): Found {
  const objects = objectsOf(credential, 'credentialSchema', 'schema-type', 'a data schema');
  if (!Array.isArray(objects)) return objects;
  for (const { value, path } of objects) {
    if (value.type === undefined) return { rule: 'schema-type', path, reason: 'the data schema has no type (e.g. JsonSchema)' };
    if (!isUrl(value.id)) return { rule: 'schema-id', path: join(path, 'id'), reason: value.id === undefined ? 'the data schema has no id (the URL of the schema file)' : `${show(value.id)} is not a URL` };
  }
  return undefined;
}

const SRI_ALGORITHMS: Readonly<Record<string, number>> = { sha256: 32, sha384: 48, sha512: 64 };
/** Multihash codes (multicodec table) of the hashes node:crypto computes: code -> [algorithm, digest length]. */
const MULTIHASH: ReadonlyMap<number, readonly [string, number]> = new Map([
  [0x12, ['sha256', 32]],
  [0x20, ['sha384', 48]],
  [0x13, ['sha512', 64]],
  [0x16, ['sha3-256', 32]],
  [0x15, ['sha3-384', 48]],
  [0x14, ['sha3-512', 64]],
]);

interface Digest {
  algorithm: string;
  expected: Buffer;
  /** How it was written, for messages. */
  label: string;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** base58btc (bitcoin alphabet) to bytes, or undefined for a character outside it. Short inputs only (quadratic). */
function decodeBase58(text: string): Buffer | undefined {
  const bytes: number[] = [];
  for (const character of text) {
    let carry = BASE58.indexOf(character);
    if (carry < 0) return undefined;
    for (let index = 0; index < bytes.length; index++) {
      carry += bytes[index]! * 58;
      bytes[index] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (const character of text) {
    if (character !== '1') break;
    bytes.push(0);
  }
  return Buffer.from(bytes.reverse());
}

/** The digests of a digestSRI value (SRI section 3.5 hash-expression, space-separated or a list), or why it is not one. */
function parseSri(value: unknown): Digest[] | string {
  const expressions = valuesOf(value).flatMap((item) => (typeof item === 'string' ? item.split(/\s+/).filter((token) => token !== '') : [item]));
  if (expressions.length === 0) return 'digestSRI holds no digest';
  const digests: Digest[] = [];
  for (const expression of expressions) {
    const match = typeof expression === 'string' ? /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})(\?[\x21-\x7e]*)?$/.exec(expression) : null;
    if (match === null) return `digestSRI ${show(expression)} is not an SRI hash-expression (sha256-, sha384- or sha512- and base64)`;
    const expected = Buffer.from(match[2]!, 'base64');
    if (expected.length !== SRI_ALGORITHMS[match[1]!]) return `digestSRI ${show(expression)}: a ${match[1]} digest is ${SRI_ALGORITHMS[match[1]!]} bytes, this one ${expected.length}`;
    digests.push({ algorithm: match[1]!, expected, label: `digestSRI ${shortId(match[0], 30)}` });
  }
  return digests;
}

/** The digests of a digestMultibase value (multibase u: base64url or z: base58btc, of a multihash), or why it is not one. */
function parseMultibase(value: unknown): Digest[] | string {
  const items = valuesOf(value);
  if (items.length === 0) return 'digestMultibase holds no digest';
  const digests: Digest[] = [];
  for (const item of items) {
    if (typeof item !== 'string' || item.length < 2 || item.length > 120) return `digestMultibase ${show(item)} is not a multibase string`;
    const body = item.slice(1);
    const bytes = item[0] === 'u' && /^[A-Za-z0-9_-]+$/.test(body) ? Buffer.from(body, 'base64url') : item[0] === 'z' ? decodeBase58(body) : undefined;
    if (bytes === undefined) return `digestMultibase ${show(item)}: vc reads the multibase prefixes u (base64url) and z (base58btc)`;
    const hash = MULTIHASH.get(bytes[0] ?? -1);
    if (hash === undefined || bytes[1] !== hash[1] || bytes.length !== hash[1] + 2) {
      return `digestMultibase ${show(item)} is not a multihash of sha2-256/384/512 or sha3-256/384/512`;
    }
    digests.push({ algorithm: hash[0], expected: bytes.subarray(2), label: `digestMultibase ${shortId(item, 30)}` });
  }
  return digests;
}

function checkRelatedResources(credential: Json): { found: Found; digests: Array<{ id: string; path: string; digests: Digest[] }> } {
  const digests: Array<{ id: string; path: string; digests: Digest[] }> = [];
  const objects = objectsOf(credential, 'relatedResource', 'related-resource-objects', 'a related resource');
  if (!Array.isArray(objects)) return { found: objects, digests };
  const ids = new Set<string>();
  for (const { value, path } of objects) {
    if (value.id === undefined) return { found: { rule: 'related-resource-id', path, reason: 'the related resource has no id' }, digests };
    if (!isUrl(value.id)) return { found: { rule: 'related-resource-id', path: join(path, 'id'), reason: `${show(value.id)} is not a URL` }, digests };
    if (ids.has(value.id)) return { found: { rule: 'related-resource-unique', path: join(path, 'id'), reason: `${shortId(value.id)} is listed twice` }, digests };
    ids.add(value.id);
    if (value.digestSRI === undefined && value.digestMultibase === undefined) {
      return { found: { rule: 'related-resource-digest', path, reason: 'the related resource has neither digestSRI nor digestMultibase' }, digests };
    }
    const found: Digest[] = [];
    for (const [property, parse] of [['digestSRI', parseSri], ['digestMultibase', parseMultibase]] as const) {
      if (value[property] === undefined) continue;
      const parsed = parse(value[property]);
      if (typeof parsed === 'string') return { found: { rule: 'related-resource-digest', path: join(path, property), reason: parsed }, digests };
      found.push(...parsed);
    }
    digests.push({ id: value.id, path, digests: found });
  }
  return { found: undefined, digests };
}

/** The synchronous rules, in table order; the first broken one. */
function checkStructure(credential: Json, version: 1 | 2, role: DataModelRole, pinned: PinnedContextCheck = noPinnedContexts): { found: Found; digests: Array<{ id: string; path: string; digests: Digest[] }> } {
  const none = { found: undefined, digests: [] };
  const steps: Array<() => Found> = [];
  if (version === 2) steps.push(() => checkContexts(credential, pinned));
  steps.push(
    () => walkDocument(credential),
    () => {
      if (!Object.hasOwn(credential, 'type')) return { rule: 'type-present', path: '', reason: 'the credential has no type' };
      const types = valuesOf(credential.type);
      return types.includes('VerifiableCredential') ? undefined : { rule: 'type-vc', path: 'type', reason: `${show(credential.type)} does not include VerifiableCredential` };
    },
  );
  if (version === 2) steps.push(() => checkNameAndDescription(credential));
  steps.push(() => checkIssuer(credential), () => checkSubject(credential));
  if (version === 2) steps.push(() => checkValidityPeriod(credential, role));
  steps.push(() => requireTypes(credential, 'credentialStatus', 'status-type', 'a credential status'), () => checkSchemas(credential));
  for (const step of steps) {
    const found = step();
    if (found !== undefined) return { found, digests: [] };
  }
  let related = none as ReturnType<typeof checkRelatedResources>;
  if (version === 2) {
    related = checkRelatedResources(credential);
    if (related.found !== undefined) return related;
  }
  const typed: Array<[string, string, string]> = [
    ['refreshService', 'refresh-service-type', 'a refresh service'],
    ['termsOfUse', 'terms-of-use-type', 'a terms of use policy'],
  ];
  for (const [property, ruleId, what] of typed) {
    const found = requireTypes(credential, property, ruleId, what);
    if (found !== undefined) return { found, digests: [] };
  }
  const evidence = objectsOf(credential, 'evidence', 'evidence-objects', 'evidence');
  if (!Array.isArray(evidence)) return { found: evidence, digests: [] };
  const untyped = evidence.find(({ value }) => value.type === undefined);
  if (untyped !== undefined) return { found: { rule: 'evidence-type', path: untyped.path, reason: 'the evidence has no type' }, digests: [] };
  if (version === 2) {
    for (const property of ['confidenceMethod', 'renderMethod']) {
      const found = requireTypes(credential, property, 'reserved-type', `a ${property}`);
      if (found !== undefined) return { found, digests: [] };
    }
  }
  return related;
}

/**
 * The first rule of the data model `credential` breaks for `role`, or undefined when it keeps
 * them all. Call it on a document whose shape is bounded (checkBbs2023Shape, checkPresentedShape):
 * the context processing and the digests are the only work beyond one walk of the JSON.
 */
export async function findDataModelViolation(ctx: Context, credential: Json, role: DataModelRole, options: { version?: 1 | 2 } = {}): Promise<DataModelViolation | undefined> {
  // A suite of VC 1.1 only (BbsBlsSignature2020) reads every credential as 1.1: its own context check refuses the rest.
  const version = options.version ?? dataModelVersion(credential);
  const violation = (found: NonNullable<Found>): DataModelViolation => {
    const rule = RULES_BY_ID.get(found.rule)!;
    return { check: dataModelCheckId(rule.id), rule, path: found.path, reason: found.reason };
  };
  const { found, digests } = checkStructure(credential, version, role, pinnedContexts(ctx));
  if (found !== undefined) return violation(found);
  if (version === 1) return undefined;
  // Every context item processable (4.3), no protected term redefined (an expansion error, B.1).
  const loader = await sdDocumentLoader2023(ctx);
  const problem = await processJsonLdContext(credential['@context'], loader);
  if (problem !== undefined) {
    const ruleId = problem.code === PROTECTED_TERM_REDEFINITION ? 'jsonld-expansion' : problem.code === 'loading remote context failed' ? 'context-known' : 'context-items';
    return violation({ rule: ruleId, path: '@context', reason: problem.reason });
  }
  for (const resource of digests) {
    const bytes = publishedDocumentBytes(resource.id);
    // vc never fetches: only the documents it holds as published can be compared (section 5.3
    // asks it of a verifier that makes use of the resource; vc uses only these).
    if (bytes === undefined) continue;
    for (const digest of resource.digests) {
      const actual = createHash(digest.algorithm).update(bytes).digest();
      if (!actual.equals(digest.expected)) {
        return violation({ rule: 'related-resource-digest-match', path: resource.path, reason: `${digest.label} does not match ${shortId(resource.id)} as vc holds it (${digest.algorithm} ${actual.toString('base64')})` });
      }
    }
  }
  return undefined;
}

/**
 * The DataModelError of a violation: the member named as the caller names fields (`base` the
 * credential's own field, e.g. `credential`; '' when the credential's members are fields themselves).
 */
export function dataModelError(violation: DataModelViolation, base: string, names: (field: string) => string): DataModelError {
  const field = violation.path === '' ? base : base === '' ? violation.path : `${base}.${violation.path}`;
  return new DataModelError(`${names(field)}: ${describeViolation({ ...violation, path: '' })}`, violation.check, { field });
}

/** Throws the DataModelError of the first rule `credential` breaks: an issuer's refusal to sign, a holder's to keep. */
export async function assertDataModel(ctx: Context, credential: Json, role: DataModelRole, names: (field: string) => string, base: string, options: { version?: 1 | 2 } = {}): Promise<void> {
  const found = await findDataModelViolation(ctx, credential, role, options);
  if (found !== undefined) throw dataModelError(found, base, names);
}
