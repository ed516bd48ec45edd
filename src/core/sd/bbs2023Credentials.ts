/**
 * Selective disclosure on the W3C standard: bbs-2023 Data Integrity proofs over VC Data Model 2.0
 * credentials (and 1.1 ones with the data-integrity context, as the W3C test suite sends them).
 * The same flow as BbsBlsSignature2020 (issue, keep, disclose, verify with trust, validity and a
 * one-time verifier nonce, here carried as the derived proof's presentation header), plus the
 * general operations of the W3C VC-API (issue a given credential, derive with JSON Pointers,
 * verify a proof), which the W3C conformance suite drives.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import { InputError, TooLargeError, UnprocessableError } from '../../errors.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { shortId } from '../../sd/didKey.js';
import { CREDENTIALS_V1_URL, SD_PASSPORT_V2_CONTEXT_URL } from '../../sd/documentLoader.js';
import { CREDENTIALS_V2_URL, DATA_INTEGRITY_V2_URL, isKnownContext } from '../../sd/suites/bbs2023/bbs2023Loader.js';
import { STATUS_LIST_V1_CONTEXT_URL } from '../../status/bitstringStatusList.js';
import { bbs2023KeyMaterial, loadIssuerBbs2023Key, proofHeader, describeBbs2023Error, type Bbs2023Key } from '../../sd/suites/bbs2023/bbs2023Suite.js';
import { isVcError } from '../../errors.js';
import { admitTogether, sdEngine } from './sdEngine.js';
import type { JsonLdDocument } from '../../sd/proofOutcome.js';
import { noPinnedContexts, pinnedContexts, type PinnedContextCheck, type VerificationCheck } from './documentChecks.js';
import { dataModelCheck, dataModelError, dataModelVersion, findDataModelViolation, parseDateTimeStamp, type DataModelRole, type DataModelViolation } from '../vcDataModel.js';
import { checkBbs2023Cost } from './sdCost.js';

/** The contexts of the credentials vc issues with bbs-2023, in order. */
export const BBS_2023_CREDENTIAL_CONTEXTS: readonly string[] = [CREDENTIALS_V2_URL, SD_PASSPORT_V2_CONTEXT_URL];


function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** True when the credential carries a Data Integrity proof (bbs-2023, or another cryptosuite to refuse with a reason). */
export function isDataIntegrityCredential(credential: Record<string, unknown>): boolean {
  return record(credential.proof)?.type === 'DataIntegrityProof';
}

/** The VC version a credential's first context names: 2 (credentials/v2), 1 (2018/credentials/v1), or undefined. */
function vcVersion(credential: Record<string, unknown>): 1 | 2 | undefined {
  const contexts = credential['@context'];
  const first = Array.isArray(contexts) ? (contexts as unknown[])[0] : contexts;
  return first === CREDENTIALS_V2_URL ? 2 : first === CREDENTIALS_V1_URL ? 1 : undefined;
}

/**
 * The @context of a VC 1.1 credential with a bbs-2023 proof (as the W3C test suite sends them):
 * credentials v1 first, the data-integrity v2 context among them (else `cryptosuite` would not
 * expand), bundled URLs only, no inline objects. VC 2.0 contexts are the data model's rules
 * (src/core/vcDataModel.ts), which accept inline contexts as section 4.3 does.
 */
export function checkBbs2023Contexts(credential: Record<string, unknown>, pinned: PinnedContextCheck = noPinnedContexts): VerificationCheck {
  const contexts = credential['@context'];
  const list = Array.isArray(contexts) ? (contexts as unknown[]) : [contexts];
  if (vcVersion(credential) !== 1) return { id: 'context', valid: false, reason: `the first @context must be ${CREDENTIALS_V1_URL} for a VC 1.1 credential` };
  for (const entry of list) {
    if (typeof entry !== 'string') return { id: 'context', valid: false, reason: 'an inline @context object is not accepted in a VC 1.1 credential (it could redefine what a signed term means)' };
    const refused = isKnownContext(entry) ? undefined : pinned(entry);
    if (refused !== undefined) return { id: 'context', valid: false, reason: refused };
  }
  if (!list.includes(DATA_INTEGRITY_V2_URL)) {
    return { id: 'context', valid: false, reason: `a VC 1.1 credential with a bbs-2023 proof must list ${DATA_INTEGRITY_V2_URL} in its @context` };
  }
  return { id: 'context', valid: true };
}

/**
 * The checks of a bbs-2023 document before any proof work, in order, stopping at the first that
 * fails: the VC 1.1 contexts (`context`, VC 1.1 only), the shape (`shape`: bounded, nothing JSON-LD
 * drops), and the data model's rules (`data-model`, src/core/vcDataModel.ts) for `role`.
 */
export async function checkBbs2023Document(ctx: Context, document: Record<string, unknown>, role: DataModelRole): Promise<{ checks: VerificationCheck[]; violation?: DataModelViolation }> {
  const checks: VerificationCheck[] = [];
  if (dataModelVersion(document) === 1) {
    const contexts = checkBbs2023Contexts(document, pinnedContexts(ctx));
    checks.push(contexts);
    if (!contexts.valid) return { checks };
  }
  const shape = checkBbs2023Shape(document);
  checks.push(shape === undefined ? { id: 'shape', valid: true } : { id: 'shape', valid: false, reason: shape });
  if (shape !== undefined) return { checks };
  const violation = await findDataModelViolation(ctx, document, role);
  checks.push(dataModelCheck(violation));
  return violation === undefined ? { checks } : { checks, violation };
}

/** Why the validity dates of a VC 2.0 or 1.1 credential fail at `now`, or undefined. */
export function checkBbs2023Validity(credential: Record<string, unknown>, now: Date): string | undefined {
  const fields: Array<[string, 'from' | 'until']> = vcVersion(credential) === 1 ? [['issuanceDate', 'from'], ['expirationDate', 'until']] : [['validFrom', 'from'], ['validUntil', 'until']];
  for (const [field, kind] of fields) {
    const value = credential[field];
    if (value === undefined) {
      if (field === 'issuanceDate') return 'issuanceDate is missing (a VC 1.1 credential must carry one)';
      continue;
    }
    // Without a time zone offset a time is UTC (VC 2.0 section 5.8), never this machine's local time.
    const time = parseDateTimeStamp(value);
    if (time === undefined) return `${field} ${shortId(JSON.stringify(value), 60)} is not a date (expected ISO 8601, e.g. 2026-01-31T12:00:00Z)`;
    if (kind === 'from' && time > now.getTime() + 60_000) return `${field} ${String(value)} is in the future (now ${now.toISOString()})`;
    if (kind === 'until' && time <= now.getTime()) return `${field} ${String(value)} has passed (now ${now.toISOString()})`;
  }
  return undefined;
}

/** The most members (object keys and array items, at any depth) a bbs-2023 document may have, its proof aside. */
export const MAX_BBS_2023_MEMBERS = 1000;
/** The most members its proof may have (a proof has about ten). */
export const MAX_BBS_2023_PROOF_MEMBERS = 64;
/** The deepest nesting accepted. */
const MAX_DEPTH = 16;

/**
 * Why a document has a shape vc does not process, or undefined: checked before any JSON-LD work,
 * where unusual shapes cost (blank node identifiers make canonicalisation expensive; many members
 * make it slow), and for members JSON-LD drops silently (null, an empty list, `__proto__`), which a
 * reader would see without their being signed. Members are counted before they are walked, so a
 * body of many members costs no more than the limits.
 */
export function checkBbs2023Shape(document: Record<string, unknown>): string | undefined {
  // The proof is counted apart: what an issuer signs within the limit stays within it once signed.
  const counts = { document: 1, proof: 0 };
  const over = (inProof: boolean, added: number): string | undefined => {
    if (inProof) return (counts.proof += added) > MAX_BBS_2023_PROOF_MEMBERS ? `proof: more than ${MAX_BBS_2023_PROOF_MEMBERS} members` : undefined;
    return (counts.document += added) > MAX_BBS_2023_MEMBERS ? `the credential has more than ${MAX_BBS_2023_MEMBERS} members (proof aside)` : undefined;
  };
  const stack: Array<{ value: unknown; path: string; depth: number; inProof: boolean }> = [{ value: document, path: '', depth: 0, inProof: false }];
  while (stack.length > 0) {
    const { value, path, depth, inProof } = stack.pop()!;
    if (depth > MAX_DEPTH) return `${path}: nested deeper than ${MAX_DEPTH} levels`;
    const where = path === '' ? 'the credential' : path;
    if (value === null) return `${where}: null is not a value (JSON-LD drops it, so it is not signed)`;
    if (typeof value === 'string' && value.startsWith('_:')) return `${where}: blank node identifiers (_:...) are not accepted`;
    if (Array.isArray(value)) {
      if (value.length === 0) return `${where}: an empty list is not accepted (JSON-LD drops it, so it is not signed)`;
      const tooMany = over(inProof, value.length);
      if (tooMany !== undefined) return tooMany;
      value.forEach((item, index) => stack.push({ value: item, path: `${path}[${index}]`, depth: depth + 1, inProof }));
    } else if (typeof value === 'object') {
      const keys = Object.keys(value as object);
      const proofMember = path === '' && keys.includes('proof');
      const tooMany = over(inProof, keys.length - (proofMember ? 1 : 0)) ?? (proofMember ? over(true, 1) : undefined);
      if (tooMany !== undefined) return tooMany;
      for (const key of keys) {
        if (key === '__proto__') return `${where}: the key __proto__ is not accepted`;
        stack.push({ value: (value as Record<string, unknown>)[key], path: path === '' ? key : `${path}.${key}`, depth: depth + 1, inProof: inProof || (path === '' && key === 'proof') });
      }
    }
  }
  return undefined;
}

/** A JSON Pointer (RFC 6901) to a credentialSubject field. */
export function subjectPointer(key: string): string {
  return `/credentialSubject/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const JSON_POINTER = /^(\/([^~/]|~[01])*)+$/;

/** Checks a list of JSON Pointers given by a caller. */
export function checkPointers(pointers: readonly string[], field: string, names: FieldNamer): string[] {
  for (const [index, pointer] of pointers.entries()) {
    if (typeof pointer !== 'string' || !JSON_POINTER.test(pointer) || pointer.length > 500) {
      throw new InputError(`${names(`${field}[${index}]`)}: expected a JSON Pointer such as /credentialSubject/name, got ${shortId(JSON.stringify(pointer) ?? '', 60)}`, { field: `${field}[${index}]` });
    }
  }
  return [...new Set(pointers)];
}

/** True when the JSON Pointer names a member of the document (a pointer to nothing cannot be disclosed). */
export function resolvePointer(document: unknown, pointer: string): boolean {
  let current: unknown = document;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= current.length) return false;
      current = current[Number(token)];
    } else if (record(current) !== undefined && Object.hasOwn(current as object, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return false;
    }
  }
  return true;
}

/** The pointers always disclosed: the issuer, the validity fields and the status the credential has. */
export function defaultMandatoryPointers(credential: Record<string, unknown>): string[] {
  return ['/issuer', '/validFrom', '/validUntil', '/issuanceDate', '/expirationDate', '/credentialStatus'].filter((pointer) => resolvePointer(credential, pointer));
}

/**
 * What an issuer checks before it signs a credential with any suite: it has no proof yet, it
 * breaks no rule of the data model and passes the document checks a verifier makes (each refusal
 * names its check), and it carries no credentialStatus of the caller's (the issuer assigns it).
 */
export async function checkSignable(ctx: Context, unsigned: JsonLdDocument, names: FieldNamer, base: string): Promise<void> {
  const refuse = (field: string, reason: string): UnprocessableError => new UnprocessableError(`${names(field === '' ? base : `${base}.${field}`)}: ${reason}`, { field: field === '' ? base : `${base}.${field}` });
  if (unsigned.proof !== undefined) throw refuse('proof', 'the credential already has a proof (give it unsigned)');
  // The issuer signs nothing the data model forbids (each refusal names its check).
  const checked = await checkBbs2023Document(ctx, unsigned, 'issuer');
  if (checked.violation !== undefined) throw dataModelError(checked.violation, base, names);
  const failed = checked.checks.find((check) => !check.valid);
  if (failed !== undefined) throw refuse(failed.id === 'context' ? '@context' : '', failed.reason ?? failed.id);
  if (unsigned.credentialStatus !== undefined) {
    throw refuse('credentialStatus', 'the issuer assigns the status list entry itself: leave credentialStatus out and ask for one (options.credentialStatus of POST /credentials/issue, --status of vc issuer issue)');
  }
}

/** A status list entry for a credential being signed: how many entries, and the assignment (after every check passed). */
export interface Bbs2023StatusAssignment {
  entries: number;
  /** Assigns the entries for a credential of `issuer` and returns its credentialStatus. */
  assign(issuer: string): Promise<unknown>;
  /** Called once the credential carrying the entries is signed (its own id then names them). */
  signed?(): void;
}

/** A stand-in of `entries` status entries, of their shape, for counting a credential's cost before they are assigned. */
function statusPlaceholder(entries: number): unknown {
  const entry = { id: '', type: '', statusPurpose: '', statusListIndex: '', statusListCredential: '' };
  return entries === 1 ? entry : Array.from({ length: entries }, () => ({ ...entry }));
}

/**
 * Signs a credential with the issuer's bbs-2023 key after the checks every later step makes
 * (contexts, keywords, shape, terms JSON-LD would drop), so a credential issued here can be kept,
 * disclosed and verified. `issuer` must be this wallet's bbs-2023 DID.
 */
export async function signBbs2023Credential(
  ctx: Context,
  unsigned: JsonLdDocument,
  options: { mandatoryPointers?: readonly string[] | undefined; names?: FieldNamer | undefined; base?: string; status?: Bbs2023StatusAssignment | undefined } = {},
): Promise<{ credential: JsonLdDocument; key: Bbs2023Key }> {
  const names = options.names ?? plainFieldNames;
  const base = options.base ?? 'credential';
  const refuse = (field: string, reason: string): UnprocessableError => new UnprocessableError(`${names(field === '' ? base : `${base}.${field}`)}: ${reason}`, { field: field === '' ? base : `${base}.${field}` });
  // The cost first, from the JSON alone: a credential too large to sign is refused in milliseconds
  // (counted with the status entries it will carry, so that no later step refuses what is signed).
  const cost = checkBbs2023Cost(options.status === undefined ? unsigned : { ...unsigned, credentialStatus: statusPlaceholder(options.status.entries) }, 'base');
  if (cost !== undefined) throw new TooLargeError(`${names(base)}: ${cost}`, { field: base });
  const key = await loadIssuerBbs2023Key(ctx);
  await checkSignable(ctx, unsigned, names, base);
  const issuer = typeof unsigned.issuer === 'string' ? unsigned.issuer : record(unsigned.issuer)?.id;
  if (issuer !== key.did) throw refuse('issuer', `expected this issuer's bbs-2023 DID ${key.did} (see \`vc issuer bbs-key\`), got ${shortId(JSON.stringify(issuer) ?? 'nothing', 80)}`);
  const engine = await sdEngine(ctx);
  const undefinedTerm = await engine.findUndefinedTerms2023(unsigned);
  if (undefinedTerm !== undefined) throw refuse('', undefinedTerm);
  const given = options.mandatoryPointers === undefined ? [] : checkPointers(options.mandatoryPointers, 'mandatoryPointers', names);
  const missingGiven = given.find((pointer) => !resolvePointer(unsigned, pointer));
  if (missingGiven !== undefined) throw new UnprocessableError(`${names('mandatoryPointers')}: ${missingGiven} selects nothing in the credential`, { field: 'mandatoryPointers' });
  // Every check passed: only now is a status list index assigned (and the list created, once).
  const document = options.status === undefined ? unsigned : { ...unsigned, credentialStatus: await options.status.assign(key.did) };
  // The issuer, the validity fields and the status are always disclosed, whatever the caller
  // lists: a holder who could hide validUntil or the status would present an expired or revoked
  // credential as valid, and without the issuer (or a VC 1.1 issuanceDate) no disclosure verifies.
  const pointers = [...new Set([...defaultMandatoryPointers(document), ...given])];
  const now = ctx.now();
  const progress = ctx.progress.start('signing with bbs-2023');
  let credential: JsonLdDocument;
  try {
    credential = await engine.signBbs2023(document, bbs2023KeyMaterial(key), pointers, now);
    progress.succeed('signed (DataIntegrityProof, bbs-2023)');
  } catch (error) {
    progress.fail();
    // A fault of the server (a busy or crashed worker) keeps its own status (503, 500).
    if (isVcError(error) && error.httpStatus >= 500) throw error;
    throw new UnprocessableError(`${names(base)}: cannot sign it with bbs-2023: ${describeBbs2023Error(error)}`, { field: base, cause: error });
  }
  options.status?.signed?.();
  return { credential, key };
}

/**
 * The credential as the VC-API issuer receives it, completed: VC 1.1 gets the data-integrity
 * context (and an issuanceDate when it has none), and the Bitstring Status List context when it is
 * to carry a status (VC 2.0's base context defines those terms).
 */
export function completeForBbs2023(credential: Record<string, unknown>, now: Date, options: { status?: boolean } = {}): JsonLdDocument {
  const completed = structuredClone(credential);
  if (vcVersion(completed) === 1) {
    const contexts = Array.isArray(completed['@context']) ? [...(completed['@context'] as unknown[])] : [completed['@context']];
    if (!contexts.includes(DATA_INTEGRITY_V2_URL)) contexts.push(DATA_INTEGRITY_V2_URL);
    if (options.status === true && !contexts.includes(STATUS_LIST_V1_CONTEXT_URL)) contexts.push(STATUS_LIST_V1_CONTEXT_URL);
    completed['@context'] = contexts;
    if (completed.issuanceDate === undefined) completed.issuanceDate = now.toISOString();
  }
  // No id is invented: a disclosure always reveals the credential's id, which would link every
  // presentation of it.
  return completed;
}

/**
 * Signs a credential given whole (the VC-API issuer, `vc issuer issue --format bbs-2023
 * --credential FILE`): VC 1.1 gets the data-integrity context (and the Bitstring Status List
 * context when it is to carry a status), an absent issuer becomes this issuer's bbs-2023 DID, and
 * every check of signBbs2023Credential applies (the data model's rules first). `status` makes the
 * status list assignment for the completed credential, when one is asked for.
 */
export async function signGivenBbs2023Credential(
  ctx: Context,
  options: {
    credential: Record<string, unknown>;
    mandatoryPointers?: readonly string[] | undefined;
    names?: FieldNamer | undefined;
    base?: string;
    status?: ((completed: JsonLdDocument) => Bbs2023StatusAssignment) | undefined;
  },
): Promise<JsonLdDocument> {
  const names = options.names ?? plainFieldNames;
  const completed = completeForBbs2023(options.credential, ctx.now(), { status: options.status !== undefined });
  if (completed.issuer === undefined) completed.issuer = (await loadIssuerBbs2023Key(ctx)).did;
  const status = options.status?.(completed);
  const { credential } = await signBbs2023Credential(ctx, completed, { mandatoryPointers: options.mandatoryPointers, names, base: options.base ?? 'credential', status });
  return credential;
}

/** The verifier's nonce as presentation-header bytes, insisting it round-trips through base64. */
export function nonceBytes(nonce: string | undefined, names: FieldNamer): Uint8Array {
  if (nonce === undefined) return new Uint8Array(randomBytes(32));
  const bytes = Buffer.from(nonce, 'base64');
  if (bytes.length === 0 || bytes.toString('base64') !== nonce) {
    throw new InputError(`${names('nonce')}: expected a base64 string (as issued by \`vc verifier nonce\`), got "${shortId(nonce, 40)}"`, { field: 'nonce' });
  }
  return new Uint8Array(bytes);
}

/**
 * Checks a bbs-2023 base credential a holder keeps or discloses from: the checks a verifier makes
 * later, up front, and the issuer's base proof (verified by disclosing everything and verifying that).
 */
export async function checkBbs2023BaseCredential(ctx: Context, credential: JsonLdDocument, names: FieldNamer, base: string): Promise<void> {
  const refuse = (field: string, reason: string): UnprocessableError => new UnprocessableError(`${names(base)}: ${reason}`, { field: field === '' ? base : `${base}.${field}` });
  const header = proofHeader(credential);
  if ('problem' in header) throw refuse('proof', header.problem);
  if (header.kind !== 'base') throw refuse('proof', 'this is a derived (disclosed) proof; a holder discloses from the issuer\'s base proof');
  const cost = checkBbs2023Cost(credential, 'base');
  if (cost !== undefined) throw new TooLargeError(`${names(base)}: ${cost}`, { field: base });
  // What a verifier will refuse, a holder does not keep or disclose from.
  const checked = await checkBbs2023Document(ctx, credential, 'verifier');
  if (checked.violation !== undefined) throw dataModelError(checked.violation, base, names);
  const failed = checked.checks.find((check) => !check.valid);
  if (failed !== undefined) throw refuse(failed.id === 'context' ? '@context' : '', failed.reason ?? failed.id);
  const validity = checkBbs2023Validity(credential, ctx.now());
  if (validity !== undefined) throw refuse(validity.split(' ', 1)[0]!, validity);
  const check = await (await sdEngine(ctx)).verifyBbs2023(credential, ctx.now());
  if (!check.verified) throw refuse('proof', `the issuer's bbs-2023 proof does not verify: ${check.reason}`);
}

/** Derives a disclosure of `pointers` (plus the issuer's mandatory ones) bound to `presentationHeader`. */
export async function deriveBbs2023Credential(ctx: Context, credential: JsonLdDocument, pointers: readonly string[], presentationHeader: Uint8Array, label: string): Promise<JsonLdDocument> {
  const present = pointers.filter((pointer) => resolvePointer(credential, pointer));
  const progress = ctx.progress.start(`deriving a bbs-2023 proof revealing ${present.length} field${present.length === 1 ? '' : 's'}`);
  try {
    const derived = await (await sdEngine(ctx)).deriveBbs2023(credential, present, presentationHeader);
    progress.succeed('derived a bbs-2023 disclosure proof');
    return derived;
  } catch (error) {
    progress.fail();
    if (isVcError(error) && error.httpStatus >= 500) throw error;
    throw new UnprocessableError(`cannot derive a proof from the ${label} credential: ${describeBbs2023Error(error)}`, { cause: error });
  }
}

/**
 * The checks of a derived bbs-2023 credential up to the proof (proof type, contexts, shape, the
 * data model, terms, the proof itself), with the presentation header the proof is bound to. The
 * caller adds the issuer binding, trust, validity and nonce checks shared with
 * BbsBlsSignature2020 (validity is also checked before the proof: a credential out of its
 * validity period fails that check, not the proof's).
 */
export async function checkDerivedBbs2023(ctx: Context, vc: Record<string, unknown>): Promise<{ checks: VerificationCheck[]; presentationHeader?: Uint8Array }> {
  const checks: VerificationCheck[] = [];
  const header = proofHeader(vc);
  if ('problem' in header) return { checks: [{ id: 'proof-type', valid: false, reason: header.problem }] };
  if (header.kind !== 'derived') {
    return { checks: [{ id: 'proof-type', valid: false, reason: "expected a derived bbs-2023 proof (the holder's disclosure), got the issuer's base proof" }] };
  }
  // More work than a request may cost is refused (413), not reported as a failed check: the
  // credential may be sound, this verifier just does not spend that long on one.
  const cost = checkBbs2023Cost(vc, 'verifyDerived');
  if (cost !== undefined) throw new TooLargeError(`vc: ${cost}`, { field: 'vc' });
  checks.push({ id: 'proof-type', valid: true });
  const checked = await checkBbs2023Document(ctx, vc, 'verifier');
  checks.push(...checked.checks);
  if (checked.checks.some((check) => !check.valid)) return { checks };
  // The dates before the proof: vc reads them as the data model says (UTC without an offset),
  // where vc.js, which checks them again inside the proof check, would use local time.
  const validity = checkBbs2023Validity(vc, ctx.now());
  if (validity !== undefined) return { checks: [...checks, { id: 'validity', valid: false, reason: validity }] };
  const engine = await sdEngine(ctx);
  const { proof: _proof, ...document } = vc;
  // Independent of each other: side by side on the worker threads of `vc serve`.
  admitTogether(engine, 2);
  const [undefinedTerm, result] = await Promise.all([engine.findUndefinedTerms2023(document), engine.verifyBbs2023(vc, ctx.now())]);
  checks.push(undefinedTerm === undefined ? { id: 'terms', valid: true } : { id: 'terms', valid: false, reason: undefinedTerm });
  checks.push(result.verified ? { id: 'proof', valid: true } : { id: 'proof', valid: false, reason: result.reason ?? 'the bbs-2023 proof does not verify' });
  return result.presentationHeader === undefined ? { checks } : { checks, presentationHeader: result.presentationHeader };
}
