/**
 * The holder side of selective disclosure: derive a BbsBlsSignatureProof2020 that reveals only
 * the requested credentialSubject fields (spec 2.5), and import credentials to disclose later.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError, didYouMean, isVcError } from '../../errors.js';
import { joinPath, parseInput, plainFieldNames, type FieldNamer } from '../validate.js';
import { describeProofError } from '../../sd/suites/bbs2020/bbs2020Suite.js';
import { type JsonLdDocument } from '../../sd/proofOutcome.js';
import { checkContexts, pinnedContexts, checkPresentedShape, checkSubjectShape, checkValidityDates, findEmbeddedKeyword } from './documentChecks.js';
import { sdEngine } from './sdEngine.js';
import { BbsCredentialSchema, CredentialTypeSchema, type BbsCredential } from './sdSchemas.js';
import { readHolderCredential, storeHolderCredential } from './sdRecords.js';
import { assertDataModel } from '../vcDataModel.js';
import { checkBbs2023BaseCredential, checkPointers, deriveBbs2023Credential, isDataIntegrityCredential, nonceBytes, subjectPointer } from './bbs2023Credentials.js';

/** The holder's message of spec 2.5. */
export const DISCLOSURE_MESSAGE = 'proof successfully generated and submitted';

/** Top-level credential fields kept in the derived credential when they exist (spec 2.5). */
const KEPT_CREDENTIAL_FIELDS = ['issuer', 'issuanceDate', 'expirationDate', 'credentialSchema', 'credentialStatus'] as const;

/** MATTR names blank nodes `urn:bnid:_:c14nN` in derived documents; they are not real identifiers. */
const BLANK_NODE_ID_PREFIX = 'urn:bnid:';

export interface DeriveSelectiveDisclosureOptions {
  /**
   * Credential type to disclose from (the holder's stored credential of that type); with
   * `credential`, optional (the credential's own type) and else checked against it.
   */
  type?: string | undefined;
  /**
   * credentialSubject fields to reveal; `id` included when asked (and when the subject has one).
   * A key close to a field the subject has (a typo) is refused, naming it; another key the
   * credential lacks is left out (spec 2.5 rule 4). For a bbs-2023 credential, an entry starting with
   * `/` is a JSON Pointer into it.
   */
  keys: readonly string[];
  /** Verifier nonce (base64) to bind the proof to; a random one when absent. */
  nonce?: string | undefined;
  /** Use this credential instead of the stored one. */
  credential?: unknown;
  /** How the caller names input fields in messages (`credentialType`, `credential`, `nonce`). */
  names?: FieldNamer | undefined;
}

export interface DeriveSelectiveDisclosureResult {
  message: string;
  vc: JsonLdDocument;
}

function typesOf(credential: BbsCredential): string[] {
  return Array.isArray(credential.type) ? credential.type : [credential.type];
}

/** Decodes a base64 nonce, insisting it round-trips so the verifier finds exactly this string. */
function decodeNonce(nonce: string, names: FieldNamer): Uint8Array {
  const bytes = Buffer.from(nonce, 'base64');
  if (bytes.length === 0 || bytes.toString('base64') !== nonce) {
    throw new InputError(`${names('nonce')}: expected a base64 string (as issued by \`vc verifier nonce\`), got "${nonce.slice(0, 40)}"`, { field: 'nonce' });
  }
  return new Uint8Array(bytes);
}

/** The type a credential is disclosed as: its first type besides VerifiableCredential. */
function ownType(credential: BbsCredential): string | undefined {
  return typesOf(credential).find((t) => t !== 'VerifiableCredential');
}

function loadCredential(ctx: Context, options: DeriveSelectiveDisclosureOptions): { credential: BbsCredential; type: string } {
  const names = options.names ?? plainFieldNames;
  if (options.type === undefined && options.credential === undefined) {
    throw new InputError(`${names('credentialType')}: missing: give the credential type to disclose from the holder's credentials, or the credential itself (${names('credential')})`, { field: 'credentialType' });
  }
  if (options.type === undefined) {
    const credential = parseInput(BbsCredentialSchema, options.credential, names, 'credential');
    const type = ownType(credential);
    if (type === undefined) throw new UnprocessableError(`${names('credential.type')}: lists no credential type besides VerifiableCredential`, { field: 'credential.type' });
    return { credential, type };
  }
  const type = parseInput(CredentialTypeSchema, options.type, names, 'credentialType');
  if (options.credential === undefined) {
    const stored = readHolderCredential(ctx, type);
    if (stored === undefined) {
      throw new NotFoundError(`the holder has no ${type} credential: keep one first (issued by this wallet in the BBS+ format, or imported)`, {
        field: 'credentialType',
      });
    }
    return { credential: stored, type };
  }
  const credential = parseInput(BbsCredentialSchema, options.credential, names, 'credential');
  if (!typesOf(credential).includes(type)) {
    throw new UnprocessableError(`${names('credential.type')}: is a ${typesOf(credential).join('/')} credential, not ${type}`, { field: 'credential.type' });
  }
  return { credential, type };
}

/**
 * Refuses the keys (not JSON Pointers) that name no field of the credential's subject but are
 * close to one (a typo, `nationalty`), with that field and the fields there are: a typo would
 * otherwise disclose less than meant. A key like no field at all is left out of the disclosure,
 * as spec 2.5 rule 4 has it ("only the requested keys that exist in the credential").
 */
function checkDisclosureKeys(credential: BbsCredential, keys: readonly string[], names: FieldNamer): void {
  const subject = credential.credentialSubject as Record<string, unknown>;
  const fields = Object.keys(subject);
  // `id` links the subject when it has one, and asks for nothing when it has none (a blank node).
  const typos = [...new Set(keys)]
    .filter((key) => !key.startsWith('/') && key !== 'id' && !Object.hasOwn(subject, key))
    .map((key) => ({ key, hint: didYouMean(key, fields) }))
    .filter(({ hint }) => hint !== '');
  if (typos.length === 0) return;
  throw new UnprocessableError(
    `${names('selectiveDisclosureKeys')}: the credential has no subject field ${typos.map(({ key, hint }) => `${key}${hint}`).join(', ')}; its fields: ${fields.join(', ')}`,
    { field: 'selectiveDisclosureKeys' },
  );
}

/**
 * Derives the spec 2.5 response: a credential revealing only the requested subject fields that
 * exist, with a BbsBlsSignatureProof2020 that carries the nonce.
 */
export async function deriveSelectiveDisclosure(ctx: Context, given: DeriveSelectiveDisclosureOptions): Promise<DeriveSelectiveDisclosureResult> {
  const { credential, type } = loadCredential(ctx, given);
  const options = { ...given, type };
  checkDisclosureKeys(credential, options.keys, options.names ?? plainFieldNames);
  if (isDataIntegrityCredential(credential)) return deriveBbs2023Disclosure(ctx, credential, options);
  // A stored credential passed these checks when it was issued or imported; a file has not yet.
  if (options.credential !== undefined) await checkDisclosableCredential(ctx, credential, options.names ?? plainFieldNames, 'credential');
  else {
    const shape = checkSubjectShape(credential.credentialSubject);
    if (shape !== undefined) throw new UnprocessableError(`the stored ${options.type} credential cannot be disclosed: ${shape}`, { field: 'credentialType' });
  }
  const subject = credential.credentialSubject;
  const revealed = [...new Set(options.keys)].filter((key) => Object.hasOwn(subject, key));
  const nonce = options.nonce === undefined ? new Uint8Array(randomBytes(32)) : decodeNonce(options.nonce, options.names ?? plainFieldNames);

  // A JSON-LD frame: the credential's own nodes, and only the chosen subject properties. The
  // subject's id is never framed as a property: a named subject is always linked by its id.
  const frame: JsonLdDocument = {
    '@context': credential['@context'],
    type: credential.type,
    '@explicit': true,
    ...Object.fromEntries(KEPT_CREDENTIAL_FIELDS.filter((field) => credential[field] !== undefined).map((field) => [field, {}])),
    credentialSubject: {
      '@explicit': true,
      ...Object.fromEntries(revealed.filter((key) => key !== 'id').map((key) => [key, {}])),
    },
  };

  const engine = await sdEngine(ctx);
  const progress = ctx.progress.start(`deriving a BBS+ proof revealing ${revealed.length} field${revealed.length === 1 ? '' : 's'}`);
  let derived: JsonLdDocument;
  try {
    derived = await engine.deriveProof(credential as JsonLdDocument, frame, nonce);
  } catch (error) {
    progress.fail();
    // A fault of the server (a busy or crashed BBS+ worker, a failed self-test) is not the
    // credential's: it keeps its own status (503, 500) instead of becoming a 422.
    if (isVcError(error) && error.httpStatus >= 500) throw error;
    throw new UnprocessableError(`cannot derive a proof from the ${options.type} credential: ${describeProofError(error)}`, { cause: error });
  }
  progress.succeed('derived BbsBlsSignatureProof2020');

  // Framing returns RDF-shaped values (typed-literal objects, reordered types); the issuer's own JSON
  // values canonicalise to the same statements, so they are put back for a readable credential.
  const derivedSubject = (derived.credentialSubject ?? {}) as Record<string, unknown>;
  const disclosedSubject: Record<string, unknown> = {};
  if (typeof derivedSubject.id === 'string' && !derivedSubject.id.startsWith(BLANK_NODE_ID_PREFIX)) disclosedSubject.id = derivedSubject.id;
  for (const key of revealed) if (key !== 'id') disclosedSubject[key] = subject[key];

  const vc: JsonLdDocument = {
    id: derived.id,
    '@context': credential['@context'],
    type: credential.type,
    credentialSubject: disclosedSubject,
    ...Object.fromEntries(KEPT_CREDENTIAL_FIELDS.filter((field) => derived[field] !== undefined).map((field) => [field, derived[field]])),
    proof: derived.proof,
  };
  return { message: DISCLOSURE_MESSAGE, vc };
}

/** deriveSelectiveDisclosure for a credential with a bbs-2023 proof: the keys become JSON Pointers, the nonce the presentation header. */
async function deriveBbs2023Disclosure(ctx: Context, credential: BbsCredential, options: DeriveSelectiveDisclosureOptions & { type: string }): Promise<DeriveSelectiveDisclosureResult> {
  const names = options.names ?? plainFieldNames;
  if (options.credential !== undefined) await checkBbs2023BaseCredential(ctx, credential as JsonLdDocument, names, 'credential');
  const raw = options.keys.filter((key) => key.startsWith('/'));
  checkPointers(raw, 'selectiveDisclosureKeys', names);
  const pointers = [...new Set(options.keys.map((key) => (key.startsWith('/') ? key : subjectPointer(key))))];
  const vc = await deriveBbs2023Credential(ctx, credential as JsonLdDocument, pointers, nonceBytes(options.nonce, names), options.type);
  return { message: DISCLOSURE_MESSAGE, vc };
}

export interface StoreSelectiveDisclosureCredentialResult {
  stored: true;
  type: string;
  id: string | undefined;
  issuer: string;
}

/**
 * Refuses a credential the holder could not later disclose and have verified: a proof other than
 * BbsBlsSignature2020, contexts a verifier refuses (inline, unknown, a keyword inside the
 * document), undefined terms, a subject field disclosure cannot handle, dates that make it invalid
 * now, or an issuer signature that does not verify. The same checks as the verifier's, up front.
 */
export async function checkDisclosableCredential(ctx: Context, credential: BbsCredential, names: FieldNamer, base: string): Promise<void> {
  if (isDataIntegrityCredential(credential)) return checkBbs2023BaseCredential(ctx, credential as JsonLdDocument, names, base);
  const at = (relative: string): string => joinPath(base, relative);
  const refuse = (relative: string, reason: string): UnprocessableError => new UnprocessableError(`${names(base)}: ${reason}`, { field: at(relative) });
  if (!['BbsBlsSignature2020', 'sec:BbsBlsSignature2020'].includes(credential.proof.type)) {
    throw refuse('proof.type', `proof type ${credential.proof.type} cannot be selectively disclosed (expected BbsBlsSignature2020, or a DataIntegrityProof with cryptosuite bbs-2023)`);
  }
  const keyword = findEmbeddedKeyword(credential);
  if (keyword !== undefined) throw refuse(keyword, `${keyword}: a JSON-LD keyword inside the credential is not accepted (it could redefine what a signed term means)`);
  const contexts = checkContexts(credential, pinnedContexts(ctx));
  if (!contexts.valid) throw refuse('@context', contexts.reason ?? 'unsupported @context');
  const presented = checkPresentedShape(credential);
  if (presented !== undefined) throw refuse(presented.split(':', 1)[0]!, presented);
  const shape = checkSubjectShape(credential.credentialSubject);
  if (shape !== undefined) throw refuse(shape.split(':', 1)[0]!, shape);
  await assertDataModel(ctx, credential, 'verifier', names, base, { version: 1 });
  const engine = await sdEngine(ctx);
  const { proof: _proof, ...document } = credential;
  const undefinedTerm = await engine.findUndefinedTerms(document);
  if (undefinedTerm !== undefined) throw refuse('credentialSubject', undefinedTerm);
  const validity = checkValidityDates(credential, ctx.now());
  if (validity !== undefined) throw refuse(validity.split(' ', 1)[0]!, validity);
  const check = await engine.verifySignature(credential as JsonLdDocument);
  if (!check.verified) throw refuse('proof', `the issuer's BBS+ signature does not verify: ${check.reason}`);
}

/**
 * Keeps a BBS+ credential received from an issuer as the holder's credential of its type, after
 * every check a later disclosure and verification would make (a holder should not keep what it
 * cannot later prove). A refused credential never replaces the stored one.
 */
export async function storeSelectiveDisclosureCredential(ctx: Context, options: { credential: unknown; names?: FieldNamer }): Promise<StoreSelectiveDisclosureCredentialResult> {
  const names = options.names ?? plainFieldNames;
  const credential = parseInput(BbsCredentialSchema, options.credential, names, 'credential');
  const type = ownType(credential);
  if (type === undefined) throw new UnprocessableError(`${names('credential.type')}: lists no credential type besides VerifiableCredential`, { field: 'credential.type' });
  await checkDisclosableCredential(ctx, credential, names, 'credential');
  storeHolderCredential(ctx, type, options.credential as BbsCredential);
  const issuer = typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;
  return { stored: true, type, id: credential.id, issuer };
}
