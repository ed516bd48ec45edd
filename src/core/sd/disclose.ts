/**
 * The holder side of selective disclosure: derive a BbsBlsSignatureProof2020 that reveals only
 * the requested credentialSubject fields (spec 2.5), and the checks a credential to disclose must pass.
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
import { newestHeldCredential, requireHeldCredential } from '../holder/holderStore.js';
import { refuseCredentialAndId } from '../holder/heldSelection.js';
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
   * Credential type to disclose from: the holder's newest held BBS+ credential of that type, unless
   * `credentialId` or `credential` says which (then the type is the credential's, and must match).
   */
  type?: string | undefined;
  /** The id of a held credential to disclose from (`vc holder credentials list`). */
  credentialId?: string | undefined;
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
  /** How the caller names input fields in messages (`credentialType`, `credentialId`, `credential`, `nonce`). */
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

/** The credential to disclose from and its type: given, held under an id, or the newest held of the type. */
function loadCredential(ctx: Context, options: DeriveSelectiveDisclosureOptions): { credential: BbsCredential; type: string } {
  const names = options.names ?? plainFieldNames;
  const asked = options.type === undefined ? undefined : parseInput(CredentialTypeSchema, options.type, names, 'credentialType');
  refuseCredentialAndId(names, 'credential', options);
  const checkType = (credential: BbsCredential, field: string): string => {
    const types = typesOf(credential);
    if (asked !== undefined && !types.includes(asked)) {
      throw new UnprocessableError(`${names(field)}: is a ${types.join('/')} credential, not ${asked}`, { field });
    }
    return asked ?? types.find((type) => type !== 'VerifiableCredential') ?? types[0]!;
  };
  if (options.credential !== undefined) {
    const credential = parseInput(BbsCredentialSchema, options.credential, names, 'credential');
    return { credential, type: checkType(credential, 'credential.type') };
  }
  if (options.credentialId !== undefined) {
    const held = requireHeldCredential(ctx, options.credentialId, 'credentialId', names('credentialId'));
    if (held.kind === 'iden3') {
      throw new UnprocessableError(`${names('credentialId')}: ${held.id} is an iden3 credential; disclose takes BBS+ ones (\`vc holder prove-submit --id\` proves iden3 credentials)`, { field: 'credentialId' });
    }
    const credential = parseInput(BbsCredentialSchema, held.credential, `the held credential ${held.id}`);
    return { credential, type: checkType(credential, 'credentialId') };
  }
  if (asked === undefined) {
    throw new InputError(`${names('credentialType')}: missing: give the credential type, the id of a held credential (${names('credentialId')}), or the credential itself (${names('credential')})`, {
      field: 'credentialType',
    });
  }
  const held = newestHeldCredential(ctx, { type: asked, kinds: ['bbs2020', 'bbs2023'] }, `BBS+ ${asked} credentials`);
  if (held === undefined) {
    throw new NotFoundError(`the holder has no ${asked} credential to disclose (BBS+): keep one first (issued by this wallet for its holder in a BBS+ format, or imported with vc holder credentials import)`, {
      field: 'credentialType',
    });
  }
  return { credential: parseInput(BbsCredentialSchema, held.credential, `the held credential ${held.id}`), type: asked };
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
export async function deriveSelectiveDisclosure(ctx: Context, options: DeriveSelectiveDisclosureOptions): Promise<DeriveSelectiveDisclosureResult> {
  const { credential, type } = loadCredential(ctx, options);
  checkDisclosureKeys(credential, options.keys, options.names ?? plainFieldNames);
  if (isDataIntegrityCredential(credential)) return deriveBbs2023Disclosure(ctx, credential, type, options);
  // A stored credential passed these checks when it was issued or imported; a file has not yet.
  if (options.credential !== undefined) await checkDisclosableCredential(ctx, credential, options.names ?? plainFieldNames, 'credential');
  else {
    const shape = checkSubjectShape(credential.credentialSubject);
    if (shape !== undefined) throw new UnprocessableError(`the stored ${type} credential cannot be disclosed: ${shape}`, { field: options.credentialId === undefined ? 'credentialType' : 'credentialId' });
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
    throw new UnprocessableError(`cannot derive a proof from the ${type} credential: ${describeProofError(error)}`, { cause: error });
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
async function deriveBbs2023Disclosure(ctx: Context, credential: BbsCredential, type: string, options: DeriveSelectiveDisclosureOptions): Promise<DeriveSelectiveDisclosureResult> {
  const names = options.names ?? plainFieldNames;
  if (options.credential !== undefined) await checkBbs2023BaseCredential(ctx, credential as JsonLdDocument, names, 'credential');
  const raw = options.keys.filter((key) => key.startsWith('/'));
  checkPointers(raw, 'selectiveDisclosureKeys', names);
  const pointers = [...new Set(options.keys.map((key) => (key.startsWith('/') ? key : subjectPointer(key))))];
  const vc = await deriveBbs2023Credential(ctx, credential as JsonLdDocument, pointers, nonceBytes(options.nonce, names), type);
  return { message: DISCLOSURE_MESSAGE, vc };
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
