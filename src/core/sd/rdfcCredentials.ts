/**
 * Credentials signed with eddsa-rdfc-2022 or ecdsa-rdfc-2019 (no selective disclosure): the
 * issuer's signing after every check a verifier makes later (rdfcChecks.ts), with a W3C Bitstring
 * Status List entry when asked (its list signed with the same suite and key). The document checks
 * are the bbs-2023 ones (VC 1.1 contexts, shape, the VC data model's rules of
 * src/core/vcDataModel.ts, terms JSON-LD would drop): the rules of the data model do not depend on
 * the suite.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { InputError, isVcError, UnprocessableError } from '../../errors.js';
import { plainFieldNames, parseInput, type FieldNamer } from '../validate.js';
import { shortId } from '../../sd/didKey.js';
import type { JsonLdDocument } from '../../sd/proofOutcome.js';
import { loadIssuerRdfcKey, type IssuerRdfcKey } from '../../sd/suites/rdfc/rdfcKeys.js';
import type { RdfcKeyType } from '../../sd/suites/rdfc/rdfcDidKey.js';
import { cryptosuiteOfKey, describeRdfcError } from '../../sd/suites/rdfc/rdfcSuite.js';
import { SD_PASSPORT_SCHEMA_URL } from '../../sd/documentLoader.js';
import { BBS_2023_CREDENTIAL_CONTEXTS, checkSignable, completeForBbs2023, type Bbs2023StatusAssignment } from './bbs2023Credentials.js';
import { findEmbeddedKeyword } from './documentChecks.js';
import { sdEngine } from './sdEngine.js';
import { BbsCredentialSchema, PASSPORT_CREDENTIAL_TYPE, type BbsCredential } from './sdSchemas.js';
import { checkExpirationDate, resolveSubject, type IssueSelectiveDisclosureOptions } from './sdIssuance.js';

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The issuer a credential names (a string, or an object's id). */
export function issuerOf(credential: Record<string, unknown>): string | undefined {
  if (typeof credential.issuer === 'string') return credential.issuer;
  const id = record(credential.issuer)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Signs a credential with the issuer's key of `keyType` after the checks every later step makes
 * (contexts, keywords, shape, terms JSON-LD would drop); `issuer` must be that key's did:key.
 */
export async function signRdfcCredentialChecked(
  ctx: Context,
  unsigned: JsonLdDocument,
  options: { keyType: RdfcKeyType; names?: FieldNamer | undefined; base?: string; status?: Bbs2023StatusAssignment | undefined },
): Promise<{ credential: JsonLdDocument; key: IssuerRdfcKey }> {
  const names = options.names ?? plainFieldNames;
  const base = options.base ?? 'credential';
  const suite = cryptosuiteOfKey(options.keyType);
  const refuse = (field: string, reason: string): UnprocessableError => new UnprocessableError(`${names(field === '' ? base : `${base}.${field}`)}: ${reason}`, { field: field === '' ? base : `${base}.${field}` });
  const key = await loadIssuerRdfcKey(ctx, options.keyType);
  await checkSignable(ctx, unsigned, names, base);
  const issuer = issuerOf(unsigned);
  if (issuer !== key.did) throw refuse('issuer', `expected this issuer's ${suite} ${options.keyType} DID ${key.did} (see \`vc issuer bbs-key\`), got ${shortId(JSON.stringify(unsigned.issuer) ?? 'nothing', 80)}`);
  const engine = await sdEngine(ctx);
  const undefinedTerm = await engine.findUndefinedTerms2023(unsigned);
  if (undefinedTerm !== undefined) throw refuse('', undefinedTerm);
  // Every check passed: only now is a status list index assigned (and the list created, once).
  const document = options.status === undefined ? unsigned : { ...unsigned, credentialStatus: await options.status.assign(key.did) };
  const progress = ctx.progress.start(`signing with ${suite} (${options.keyType})`);
  let credential: JsonLdDocument;
  try {
    credential = await engine.signRdfcCredential(document, key.material, ctx.now());
    progress.succeed(`signed (DataIntegrityProof, ${suite})`);
  } catch (error) {
    progress.fail();
    // A fault of the server (a busy or crashed worker) keeps its own status (503, 500).
    if (isVcError(error) && error.httpStatus >= 500) throw error;
    throw new UnprocessableError(`${names(base)}: cannot sign it with ${suite}: ${describeRdfcError(error, suite)}`, { field: base, cause: error });
  }
  options.status?.signed?.();
  return { credential, key };
}

/**
 * Issues the passport credential (or another type a bundled context defines) on VC 2.0 with an
 * eddsa-rdfc-2022 or ecdsa-rdfc-2019 proof under the issuer's did:key of that suite. Nothing is
 * kept: without selective disclosure the holder presents the credential as it is
 * (`vc holder present --credential FILE`).
 */
export async function issueRdfcCredential(
  ctx: Context,
  options: Omit<IssueSelectiveDisclosureOptions, 'status'> & { keyType: RdfcKeyType; status?: RdfcStatusRequest | undefined },
): Promise<BbsCredential> {
  if (options.credential !== undefined) return issueGivenRdfcCredential(ctx, options.credential, options);
  const type = options.type ?? PASSPORT_CREDENTIAL_TYPE;
  const names = options.names ?? plainFieldNames;
  const subject = resolveSubject(type, { ...options, status: undefined });
  const key = await loadIssuerRdfcKey(ctx, options.keyType);
  const issuedAt = ctx.now();
  const unsigned: JsonLdDocument = {
    '@context': [...BBS_2023_CREDENTIAL_CONTEXTS],
    // Every presentation of it shows the whole credential anyway: an id links nothing more.
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', type],
    issuer: key.did,
    validFrom: new Date(Math.floor(issuedAt.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    ...(options.expirationDate !== undefined ? { validUntil: checkExpirationDate(options.expirationDate, issuedAt, names) } : {}),
    ...(type === PASSPORT_CREDENTIAL_TYPE ? { credentialSchema: { id: SD_PASSPORT_SCHEMA_URL, type: 'JsonSchema' } } : {}),
    credentialSubject: subject,
  };
  const keyword = findEmbeddedKeyword(unsigned);
  if (keyword !== undefined) {
    throw new UnprocessableError(`${names('credentialSubject')}: ${keyword}: JSON-LD keywords are not accepted in a subject (they could redefine what a signed term means)`, { field: keyword });
  }
  const { credential } = await signRdfcCredentialChecked(ctx, unsigned, { keyType: options.keyType, names, base: 'credentialSubject', status: options.status?.(unsigned) });
  parseInput(BbsCredentialSchema, credential, 'signed credential');
  return credential as BbsCredential;
}

/** The status list assignment of a credential about to be signed (it names the credential's id, if any), when one is asked for. */
export type RdfcStatusRequest = (completed: JsonLdDocument) => Bbs2023StatusAssignment;

/**
 * Signs a credential given whole (POST /credentials/issue with an rdfc cryptosuite, `vc issuer
 * issue --format eddsa-rdfc-2022|ecdsa-rdfc-2019 --credential FILE`): VC 1.1 gets the data-integrity
 * context (and the status list context when it is to carry a status), an absent issuer becomes
 * this issuer's DID of the suite, and every check of signRdfcCredentialChecked applies.
 */
export async function signGivenRdfcCredential(
  ctx: Context,
  options: { credential: Record<string, unknown>; keyType: RdfcKeyType; names?: FieldNamer | undefined; base?: string; status?: RdfcStatusRequest | undefined },
): Promise<JsonLdDocument> {
  const completed = completeForBbs2023(options.credential, ctx.now(), { status: options.status !== undefined });
  if (completed.issuer === undefined) completed.issuer = (await loadIssuerRdfcKey(ctx, options.keyType)).did;
  const { credential } = await signRdfcCredentialChecked(ctx, completed, { keyType: options.keyType, names: options.names, base: options.base ?? 'credential', status: options.status?.(completed) });
  return credential;
}

async function issueGivenRdfcCredential(ctx: Context, given: Record<string, unknown>, options: Omit<IssueSelectiveDisclosureOptions, 'status'> & { keyType: RdfcKeyType; status?: RdfcStatusRequest | undefined }): Promise<BbsCredential> {
  const names = options.names ?? plainFieldNames;
  const conflicting = (['type', 'subject', 'holder', 'expirationDate'] as const).find((option) => options[option] !== undefined);
  if (conflicting !== undefined) {
    const field = conflicting === 'subject' ? 'credentialSubject' : conflicting;
    throw new InputError(`${names(field)}: give either the whole credential (${names('credential')}) or the fields to build one from, not both`, { field });
  }
  return (await signGivenRdfcCredential(ctx, { credential: given, keyType: options.keyType, names, base: 'credential', status: options.status })) as BbsCredential;
}
