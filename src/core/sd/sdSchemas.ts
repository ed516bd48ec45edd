/**
 * Shapes of the selective-disclosure flow, shared by CLI input files and HTTP bodies. Shapes stay
 * loose where a verifier must report tampering as a failed check (exit 1) rather than reject the
 * input as malformed (exit 2).
 */
import { z } from 'zod';
import { STATUS_PURPOSES } from '../../status/bitstringStatusList.js';

/** The credential type with a bundled context and a sample subject. */
export const PASSPORT_CREDENTIAL_TYPE = 'PassportCredential';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a real calendar date written as the integer YYYYMMDD. */
function isYyyymmdd(value: number): boolean {
  if (!Number.isInteger(value) || value < 10000101 || value > 99991231) return false;
  const year = Math.floor(value / 10000);
  const month = Math.floor(value / 100) % 100;
  const day = value % 100;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const yyyymmdd = z.number().refine(isYyyymmdd, { message: 'expected a date as the integer YYYYMMDD (e.g. 19900101)' });

/**
 * A PassportCredential subject (spec 2.3 fields, without type). Extra fields pass this schema and
 * are then refused unless a bundled context defines them (see the JSON-LD check at issuance).
 */
export const PassportSubjectSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().min(1, 'expected a non-empty name'),
  passportNumber: z.string().min(1, 'expected a non-empty passport number'),
  nationality: z.string().regex(/^[A-Z]{3}$/, 'expected a three-letter upper-case country code (ISO 3166-1 alpha-3, e.g. NLD)'),
  birthDate: yyyymmdd,
  customerReference: z.string().regex(UUID_RE, 'expected a UUID (8-4-4-4-12 hex digits)'),
  expiryDate: yyyymmdd,
  publicAddress: z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected 0x-prefixed hex'),
});
export type PassportSubject = z.output<typeof PassportSubjectSchema>;

/** Any credential subject: a JSON object (its terms are checked against the contexts later). */
export const CredentialSubjectSchema = z.record(z.string(), z.unknown());

/** A credential type name as it appears in `type` (a JSON-LD term, not a URL). */
export const CredentialTypeSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'expected a credential type name such as PassportCredential');

const ContextSchema = z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).min(1, 'expected at least one context');

/** A BBS+ proof object (spec 2.6); `nonce` only on the holder's derived proof. */
export const BbsProofSchema = z.looseObject({
  type: z.string(),
  created: z.string().optional(),
  verificationMethod: z.string(),
  proofPurpose: z.string(),
  proofValue: z.string(),
  nonce: z.string().optional(),
});
export type BbsProof = z.output<typeof BbsProofSchema>;

/** A credential signed with BbsBlsSignature2020 (spec 2.4, issuer output) or derived from one (2.5), or the same with a bbs-2023 DataIntegrityProof. */
export const BbsCredentialSchema = z.looseObject({
  '@context': ContextSchema,
  id: z.string().optional(),
  type: z.union([z.string(), z.array(z.string()).min(1)]),
  credentialSubject: CredentialSubjectSchema,
  issuer: z.union([z.string(), z.looseObject({ id: z.string() })]),
  // VC 2.0 (bbs-2023) has validFrom instead; the validity checks of each suite require their field.
  issuanceDate: z.string().optional(),
  proof: BbsProofSchema,
});
export type BbsCredential = z.output<typeof BbsCredentialSchema>;

/** One check of a verification. */
export const VerificationCheckSchema = z.object({
  id: z.string(),
  valid: z.boolean(),
  reason: z.string().optional(),
});

/** The verifier's answer (POST /verify-vc, `vc verifier verify`). */
export const VerifyResultSchema = z.object({
  verified: z.boolean(),
  message: z.string(),
  checks: z.array(VerificationCheckSchema),
});

/** The holder's answer (spec 2.5). */
export const DiscloseResultSchema = z.object({
  message: z.string(),
  vc: z.record(z.string(), z.unknown()),
});

/** A one-time verifier nonce. */
export const NonceResultSchema = z.object({
  nonce: z.string(),
  expiresAt: z.string(),
});

/** A status list credential given to a verifier (its checks come later: a failed one is a result). */
const StatusListCredentialSchema = z.record(z.string(), z.unknown());
/** The most status lists one verification may be given. */
const MAX_GIVEN_STATUS_LISTS = 8;
/** Status list credentials given to a verifier: one, or a list of them (a JSON array in one file). */
export const GivenStatusListsSchema = z
  .union([StatusListCredentialSchema, z.array(StatusListCredentialSchema).min(1).max(MAX_GIVEN_STATUS_LISTS)])
  .describe("the signed status list credential(s) the credentials' credentialStatus name (from `vc issuer status-list`; several: a JSON array in one file), checked like any other");

/** The given status lists as a list. */
export function givenStatusLists(given: z.infer<typeof GivenStatusListsSchema> | undefined): Record<string, unknown>[] | undefined {
  return given === undefined ? undefined : Array.isArray(given) ? given : [given];
}

/** The iden3 status kinds (`vc issuer issue --status rhs|onchain|agent`, ISSUE_STATUS_KINDS), named when given to a W3C suite. */
const IDEN3_STATUS_KINDS: readonly string[] = ['rhs', 'onchain', 'agent'];

/**
 * The W3C Bitstring Status List purposes a credential gets entries for (`--status revocation,suspension`):
 * each once; an iden3 status kind given here is named as such.
 */
export function statusPurposesSchema(description: string) {
  return z
    .array(
      z.enum(STATUS_PURPOSES, {
        error: (issue) =>
          typeof issue.input === 'string' && IDEN3_STATUS_KINDS.includes(issue.input)
            ? `${issue.input} is an iden3 credential status; this format takes revocation and/or suspension`
            : `expected revocation or suspension, got ${JSON.stringify(issue.input)}`,
      }),
    )
    .min(1, 'expected revocation, suspension or both')
    .max(STATUS_PURPOSES.length, 'expected each of revocation and suspension at most once')
    .refine((purposes) => new Set(purposes).size === purposes.length, { message: 'a status purpose is given twice' })
    .describe(description);
}
