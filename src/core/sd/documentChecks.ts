/**
 * Checks of a BBS+ credential document that do not need the proof: JSON-LD keywords that could
 * change what a signed term means, the validity dates against the injected clock, and the shape
 * of a credential subject that selective disclosure can handle. Shared by issuance, import,
 * disclosure and verification, so a credential vc accepts at one step is never refused later.
 */
import type { Context } from '../../context.js';
import { CREDENTIALS_V1_URL, isBundledDocument } from '../../sd/documentLoader.js';
import { shortId } from '../../sd/didKey.js';
import { PinnedDocumentChangedError, addDocumentCommand, readPinnedDocument } from '../../store/pinnedDocuments.js';

/** How far in the future an issuanceDate may lie, for clocks that differ a little. */
export const CLOCK_SKEW_SECONDS = 60;

/** A JSON path for messages: `credentialSubject.address[0]`. */
function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
}

/**
 * The path of the first JSON-LD keyword (`@context`, `@id`, `@graph`...) below the document's top
 * level, or of a top-level keyword other than `@context`. Such a keyword could alias a signed term
 * or reshape the graph, so the JSON a reader sees would not be what was signed.
 */
export function findEmbeddedKeyword(document: Record<string, unknown>): string | undefined {
  // Paths are built only for the member found: a body of a few hundred thousand members is
  // walked in milliseconds, before the member limits refuse it.
  interface Node {
    value: unknown;
    parent: Node | undefined;
    key: string | number;
  }
  const pathOf = (node: Node): string => (node.parent === undefined ? '' : join(pathOf(node.parent), node.key));
  const root: Node = { value: document, parent: undefined, key: '' };
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value } = node;
    // Only objects and arrays can hold a keyword: plain values are not pushed.
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        if (typeof value[index] === 'object' && value[index] !== null) stack.push({ value: value[index], parent: node, key: index });
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        // The top-level @context is checked on its own (bundled URLs only).
        if (node === root && key === '@context') continue;
        if (key.startsWith('@')) return join(pathOf(node), key);
        const child = (value as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) stack.push({ value: child, parent: node, key });
      }
    }
  }
  return undefined;
}

/** Why the validity dates of a credential fail at `now`, or undefined when they hold. */
export function checkValidityDates(credential: Record<string, unknown>, now: Date): string | undefined {
  const issuanceDate = credential.issuanceDate;
  if (typeof issuanceDate !== 'string' || Number.isNaN(Date.parse(issuanceDate))) {
    return `issuanceDate ${JSON.stringify(issuanceDate ?? null)} is not a date (expected ISO 8601, e.g. 2026-01-31T12:00:00Z)`;
  }
  if (Date.parse(issuanceDate) > now.getTime() + CLOCK_SKEW_SECONDS * 1000) {
    return `issuanceDate ${issuanceDate} is in the future (now ${now.toISOString()})`;
  }
  const expirationDate = credential.expirationDate;
  if (expirationDate !== undefined) {
    if (typeof expirationDate !== 'string' || Number.isNaN(Date.parse(expirationDate))) {
      return `expirationDate ${JSON.stringify(expirationDate)} is not a date (expected ISO 8601)`;
    }
    if (Date.parse(expirationDate) <= now.getTime()) return `expirationDate ${expirationDate} has passed (now ${now.toISOString()})`;
  }
  return undefined;
}

/**
 * Why a credential subject cannot be issued or disclosed, or undefined. Selective disclosure here
 * reveals whole subject fields, so each value must be a plain JSON value: a string, a boolean or a
 * number JSON carries exactly (an integer within 2^53). A nested object or an array would become
 * further JSON-LD nodes that a field-level disclosure cannot reveal consistently.
 */
export function checkSubjectShape(subject: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(subject)) {
    const field = `credentialSubject.${key}`;
    if (key.startsWith('@')) return `${field}: JSON-LD keywords are not accepted in a subject (they could redefine what a signed term means)`;
    if (key === 'id') {
      if (typeof value !== 'string') return `${field}: expected the subject's identifier as a string`;
      continue;
    }
    if (Array.isArray(value)) return `${field}: an array cannot be selectively disclosed (use one plain value per field)`;
    if (value === null) return `${field}: null is not a value (leave the field out)`;
    if (typeof value === 'object') return `${field}: a nested object cannot be selectively disclosed (use one plain value per field)`;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `${field}: expected a finite number`;
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        return `${field}: the integer ${value} is beyond 2^53 and would not be signed exactly (write it as a string)`;
      }
    } else if (typeof value !== 'string' && typeof value !== 'boolean') {
      return `${field}: expected a string, number or boolean`;
    }
  }
  return undefined;
}

/** The most members (object keys and array items, at any depth) a presented credential may have. */
export const MAX_CREDENTIAL_MEMBERS = 200;

/**
 * Why a credential presented for verification or import has a shape vc does not process, or
 * undefined. Checked before any JSON-LD work, because that work is where unusual shapes cost: blank
 * node identifiers (`_:`) that reference each other make canonicalisation exponential, long arrays
 * make the proof check slow, and members that JSON-LD silently drops (null, an empty array, a
 * `__proto__` key) would be shown to a reader without being signed. The credentials vc issues and
 * derives always pass: plain subject values, arrays only for @context and type.
 */
export function checkPresentedShape(credential: Record<string, unknown>): string | undefined {
  let members = 0;
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: credential, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (++members > MAX_CREDENTIAL_MEMBERS) return `the credential has more than ${MAX_CREDENTIAL_MEMBERS} members`;
    const where = path === '' ? 'the credential' : path;
    if (value === null) return `${where}: null is not a value (JSON-LD drops it, so it is not signed)`;
    if (typeof value === 'string' && value.startsWith('_:')) return `${where}: blank node identifiers (_:...) are not accepted`;
    if (Array.isArray(value)) {
      if (!(depth === 1 && (path === '@context' || path === 'type'))) return `${where}: an array is not accepted here (only @context and type are lists)`;
      if (value.length === 0) return `${where}: an empty list is not accepted`;
      // Counted before they are walked, so a body of many members costs no more than the limit.
      if (members + stack.length + value.length > MAX_CREDENTIAL_MEMBERS) return `the credential has more than ${MAX_CREDENTIAL_MEMBERS} members`;
      value.forEach((item, index) => stack.push({ value: item, path: join(path, index), depth: depth + 1 }));
    } else if (typeof value === 'object') {
      const keys = Object.keys(value as object);
      if (members + stack.length + keys.length > MAX_CREDENTIAL_MEMBERS) return `the credential has more than ${MAX_CREDENTIAL_MEMBERS} members`;
      for (const key of keys) {
        if (key === '__proto__') return `${where}: the key __proto__ is not accepted`;
        stack.push({ value: (value as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
      }
    }
  }
  const subject = credential.credentialSubject;
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject)) return 'credentialSubject: expected an object';
  return checkSubjectShape(subject as Record<string, unknown>);
}

/**
 * One check of a verification: a failed one is a result with its reason, not an exception. The
 * rules of the VC data model (src/core/vcDataModel.ts) are one check, `data-model` when they all
 * hold, `data-model:<rule>` naming the first that does not.
 */
export interface VerificationCheck {
  id:
    | 'proof-type'
    | 'context'
    | 'shape'
    | 'terms'
    | 'proof'
    | 'issuer'
    | 'trusted-issuer'
    | 'validity'
    | 'nonce'
    | 'status'
    | 'holder-binding'
    | 'data-model'
    | `data-model:${string}`;
  valid: boolean;
  reason?: string;
}

/**
 * Whether a context URL that is not bundled may be used: undefined when the wallet has it pinned
 * (and its stored copy is intact), else why not.
 */
export type PinnedContextCheck = (url: string) => string | undefined;

/** Why `url` is not a known context, with the command that pins it. */
export function unknownContextReason(url: string): string {
  return `@context ${shortId(url, 300)} is not a known context: add it with \`${addDocumentCommand(shortId(url, 300))}\` (remote contexts are never fetched)`;
}

/** No pinned documents: every context that is not bundled is unknown. */
export const noPinnedContexts: PinnedContextCheck = unknownContextReason;

/** The check of the wallet's pinned contexts (each use reads the stored copy and checks its hash). */
export function pinnedContexts(ctx: Context): PinnedContextCheck {
  return (url) => {
    try {
      return readPinnedDocument(ctx.store, url) === undefined ? unknownContextReason(url) : undefined;
    } catch (error) {
      if (error instanceof PinnedDocumentChangedError) return error.message;
      throw error;
    }
  };
}

/** The @context list: credentials v1 first, bundled or pinned URLs only, no inline objects. */
export function checkContexts(vc: Record<string, unknown>, pinned: PinnedContextCheck = noPinnedContexts): VerificationCheck {
  const contexts = vc['@context'];
  const list = Array.isArray(contexts) ? (contexts as unknown[]) : [contexts];
  if (list[0] !== CREDENTIALS_V1_URL) return { id: 'context', valid: false, reason: `the first @context must be ${CREDENTIALS_V1_URL}` };
  for (const entry of list) {
    if (typeof entry !== 'string') {
      return { id: 'context', valid: false, reason: 'an inline @context object is not accepted (it could redefine what a signed term means)' };
    }
    const refused = isBundledDocument(entry) ? undefined : pinned(entry);
    if (refused !== undefined) return { id: 'context', valid: false, reason: refused };
  }
  return { id: 'context', valid: true };
}
