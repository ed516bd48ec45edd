/**
 * Issuing a credential for selective disclosure (spec 2.4): a JSON-LD credential signed by the
 * issuer's BBS+ key (BbsBlsSignature2020, spec 2.6), kept by the holder of this wallet.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError } from '../../errors.js';
import { parseInput, plainFieldNames, type FieldNamer } from '../validate.js';
import {
  BBS_V1_URL,
  CREDENTIALS_V1_URL,
  SD_PASSPORT_CONTEXT_URL,
  SD_PASSPORT_SCHEMA_URL,
  packageRoot,
} from '../../sd/documentLoader.js';
import { loadIssuerBlsKey } from '../../sd/suites/bbs2020/bbs2020Keys.js';
import type { JsonLdDocument } from '../../sd/proofOutcome.js';
import { checkSubjectShape, findEmbeddedKeyword } from './documentChecks.js';
import { sdEngine } from './sdEngine.js';
import { BbsCredentialSchema, CredentialSubjectSchema, PASSPORT_CREDENTIAL_TYPE, PassportSubjectSchema, type BbsCredential } from './sdSchemas.js';
import { keepIssuedCredential } from '../holder/holderStore.js';
import { assertDataModel } from '../vcDataModel.js';
import { BBS_2023_CREDENTIAL_CONTEXTS, signBbs2023Credential, signGivenBbs2023Credential } from './bbs2023Credentials.js';
import { BBS_2023, loadIssuerBbs2023Key } from '../../sd/suites/bbs2023/bbs2023Suite.js';
import type { StatusPurpose } from '../../status/bitstringStatusList.js';
import { credentialStatusAssignment, statusRequest } from '../status/issuerStatusLists.js';

export interface IssueSelectiveDisclosureOptions {
  /** Credential type (default PassportCredential); it must be defined by a bundled context. */
  type?: string | undefined;
  /** credentialSubject fields; defaults to fixtures/subjects/passport.json for PassportCredential. */
  subject?: Record<string, unknown> | undefined;
  /** The holder's DID, used as credentialSubject.id (overrides subject.id). */
  holder?: string | undefined;
  /** How the caller names input fields in messages (the subject is its field `credentialSubject`). */
  names?: FieldNamer | undefined;
  /** When the credential stops being valid (ISO 8601); none by default. */
  expirationDate?: string | undefined;
  /**
   * Keep the credential in the holder's store of this wallet (default true) when it is for the
   * holder: its subject is one of the holder's DIDs, or it names none. Never for someone else.
   */
  store?: boolean | undefined;
  /** bbs-2023 only: JSON Pointers always disclosed (default: the issuer and the validity fields). */
  mandatoryPointers?: readonly string[] | undefined;
  /** bbs-2023 only: give the credential a W3C Bitstring Status List entry of each purpose. */
  status?: readonly StatusPurpose[] | undefined;
  /** bbs-2023 only: sign this whole credential (VC 2.0, or 1.1) instead of building a passport from a subject. */
  credential?: Record<string, unknown> | undefined;
}

/** The contexts every BBS+ credential of ours carries, in order. */
export const SD_CREDENTIAL_CONTEXTS: readonly string[] = [CREDENTIALS_V1_URL, BBS_V1_URL, SD_PASSPORT_CONTEXT_URL];

/** The bundled sample passport subject (fixtures/subjects/passport.json). */
export function samplePassportSubject(): Record<string, unknown> {
  const file = path.join(packageRoot(), 'fixtures', 'subjects', 'passport.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The credentialSubject of an issuance: the given one (checked) or the sample passport, with the holder as its id. */
export function resolveSubject(type: string, options: IssueSelectiveDisclosureOptions): Record<string, unknown> {
  const names = options.names ?? plainFieldNames;
  let subject: Record<string, unknown>;
  if (options.subject !== undefined) {
    subject = { ...parseInput(CredentialSubjectSchema, options.subject, names, 'credentialSubject') };
  } else if (type === PASSPORT_CREDENTIAL_TYPE) {
    subject = samplePassportSubject();
  } else {
    throw new NotFoundError(`no sample subject for credential type ${type}: give the credentialSubject fields (${names('credentialSubject')})`, { field: 'credentialSubject' });
  }
  // The shape first: a nested value is refused for what it is, not as a wrong type of one field.
  const shape = checkSubjectShape(subject);
  if (shape !== undefined) throw new InputError(`${names('credentialSubject')}: ${shape}`, { field: shape.split(':', 1)[0]! });
  if (type === PASSPORT_CREDENTIAL_TYPE) subject = { ...parseInput(PassportSubjectSchema, subject, names, 'credentialSubject') };
  if ('type' in subject) {
    throw new UnprocessableError(`${names('credentialSubject.type')}: type is not part of a selective-disclosure subject (the credential carries the type)`, { field: 'credentialSubject.type' });
  }
  if (options.holder !== undefined) subject.id = options.holder;
  // Spec 2.4 shows an empty subject id: we read it as "no identifier" (a JSON-LD blank node), since
  // an empty @id is a relative IRI that JSON-LD would drop together with every field of the subject.
  if (subject.id === '' || subject.id === undefined) delete subject.id;
  return subject;
}

/** An expiration date as the credential carries it (ISO 8601 UTC), later than the issuance. */
export function checkExpirationDate(value: string, issuedAt: Date, names: FieldNamer): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(time)) {
    throw new InputError(`${names('expirationDate')}: expected an ISO 8601 date such as 2030-12-31 or 2030-12-31T23:59:59Z, got "${value.slice(0, 40)}"`, { field: 'expirationDate' });
  }
  if (time <= issuedAt.getTime()) throw new InputError(`${names('expirationDate')}: ${value} is not after the issuance (${issuedAt.toISOString()})`, { field: 'expirationDate' });
  return new Date(time).toISOString();
}

/**
 * Issues a BBS+ signed credential (spec 2.4 shape with a proper JSON-LD @context and type) and
 * stores it for the holder. Refuses subjects with fields no bundled context defines.
 */
export async function issueSelectiveDisclosureCredential(ctx: Context, options: IssueSelectiveDisclosureOptions = {}): Promise<BbsCredential> {
  const type = options.type ?? PASSPORT_CREDENTIAL_TYPE;
  const subject = resolveSubject(type, options);
  const key = await loadIssuerBlsKey(ctx);
  const engine = await sdEngine(ctx);
  const issuedAt = ctx.now();

  const unsigned: JsonLdDocument = {
    '@context': [...SD_CREDENTIAL_CONTEXTS],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', type],
    issuer: key.did,
    issuanceDate: issuedAt.toISOString(),
    ...(options.expirationDate !== undefined ? { expirationDate: checkExpirationDate(options.expirationDate, issuedAt, options.names ?? plainFieldNames) } : {}),
    ...(type === PASSPORT_CREDENTIAL_TYPE ? { credentialSchema: { id: SD_PASSPORT_SCHEMA_URL, type: 'JsonSchema2023' } } : {}),
    credentialSubject: subject,
  };
  const keyword = findEmbeddedKeyword(unsigned);
  if (keyword !== undefined) {
    throw new InputError(`${(options.names ?? plainFieldNames)('credentialSubject')}: ${keyword}: JSON-LD keywords are not accepted in a subject (they could redefine what a signed term means)`, { field: keyword });
  }
  // What vc builds keeps the data model's rules (the subject is the caller's; its id must be a URL).
  await assertDataModel(ctx, unsigned, 'issuer', options.names ?? plainFieldNames, '', { version: 1 });
  const undefinedTerm = await engine.findUndefinedTerms(unsigned);
  if (undefinedTerm !== undefined) {
    throw new UnprocessableError(`${(options.names ?? plainFieldNames)('credentialSubject')}: cannot issue ${type}: ${undefinedTerm}`, { field: 'credentialSubject' });
  }

  const progress = ctx.progress.start(`signing ${type} with BBS+`);
  let signed: JsonLdDocument;
  try {
    signed = await engine.signCredential(unsigned, key, issuedAt);
  } catch (error) {
    progress.fail();
    throw error;
  }
  progress.succeed(`signed ${type} (BbsBlsSignature2020)`);
  // Validated for the type, but returned as signed: zod would reorder the keys.
  parseInput(BbsCredentialSchema, signed, 'signed credential');
  const credential = signed as BbsCredential;
  if (options.store !== false) keepIssuedCredential(ctx, credential, 'bbs2020');
  return credential;
}

/**
 * Issues the same credential as issueSelectiveDisclosureCredential on the W3C standard: VC Data
 * Model 2.0 (validFrom, validUntil) with a bbs-2023 DataIntegrityProof under the issuer's bbs-2023
 * did:key, and keeps it for the holder of this wallet.
 */
export async function issueBbs2023SelectiveDisclosureCredential(ctx: Context, options: IssueSelectiveDisclosureOptions = {}): Promise<BbsCredential> {
  const names = options.names ?? plainFieldNames;
  if (options.credential !== undefined) return issueGivenBbs2023Credential(ctx, options.credential, options);
  const type = options.type ?? PASSPORT_CREDENTIAL_TYPE;
  const subject = resolveSubject(type, options);
  const key = await loadIssuerBbs2023Key(ctx);
  const issuedAt = ctx.now();
  // Unlinkable disclosures: no credential id (a disclosure always reveals it) and the day of
  // issuance rather than its millisecond (validFrom is always disclosed).
  const issuedOn = new Date(Date.UTC(issuedAt.getUTCFullYear(), issuedAt.getUTCMonth(), issuedAt.getUTCDate()));
  const unsigned: JsonLdDocument = {
    '@context': [...BBS_2023_CREDENTIAL_CONTEXTS],
    type: ['VerifiableCredential', type],
    issuer: key.did,
    validFrom: issuedOn.toISOString(),
    ...(options.expirationDate !== undefined ? { validUntil: checkExpirationDate(options.expirationDate, issuedAt, names) } : {}),
    ...(type === PASSPORT_CREDENTIAL_TYPE ? { credentialSchema: { id: SD_PASSPORT_SCHEMA_URL, type: 'JsonSchema' } } : {}),
    credentialSubject: subject,
  };
  const keyword = findEmbeddedKeyword(unsigned);
  if (keyword !== undefined) {
    throw new InputError(`${names('credentialSubject')}: ${keyword}: JSON-LD keywords are not accepted in a subject (they could redefine what a signed term means)`, { field: keyword });
  }
  const status = options.status === undefined || options.status.length === 0 ? undefined : credentialStatusAssignment(ctx, { purposes: options.status, suite: BBS_2023, names });
  const { credential } = await signBbs2023Credential(ctx, unsigned, { mandatoryPointers: options.mandatoryPointers, names, base: 'credentialSubject', status });
  parseInput(BbsCredentialSchema, credential, 'signed credential');
  if (options.store !== false) keepIssuedCredential(ctx, credential, 'bbs2023');
  return credential as BbsCredential;
}

/**
 * Signs a credential given whole with bbs-2023 (the CLI's `--credential FILE`, the VC-API issuer's
 * body): the data model's rules and every check of a bbs-2023 issuance apply, and the signed
 * credential is kept by this wallet's holder when it is the holder's.
 */
async function issueGivenBbs2023Credential(ctx: Context, given: Record<string, unknown>, options: IssueSelectiveDisclosureOptions): Promise<BbsCredential> {
  const names = options.names ?? plainFieldNames;
  const conflicting = (['type', 'subject', 'holder', 'expirationDate'] as const).find((option) => options[option] !== undefined);
  if (conflicting !== undefined) {
    const field = conflicting === 'subject' ? 'credentialSubject' : conflicting;
    throw new InputError(`${names(field)}: give either the whole credential (${names('credential')}) or the fields to build one from, not both`, { field });
  }
  const credential = await signGivenBbs2023Credential(ctx, {
    credential: given,
    mandatoryPointers: options.mandatoryPointers,
    names,
    base: 'credential',
    status: statusRequest(ctx, { purposes: options.status, suite: BBS_2023, names }),
  });
  // Kept for this wallet's holder when it is the holder's (the store decides, as for any issuance).
  if (options.store !== false) keepIssuedCredential(ctx, credential, 'bbs2023');
  return credential as BbsCredential;
}
