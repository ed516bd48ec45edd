/**
 * Selective disclosure (BBS+): the operations of the issuer, the holder and the verifier.
 * Input field names are the spec's HTTP body names; the CLI names its flags after them.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { MAX_NONCE_TTL_SECONDS } from '../sd/nonce.js';
import type { Context } from '../../context.js';
import type { RdfcKeyType } from '../../sd/suites/rdfc/rdfcDidKey.js';
import type { FieldNamer } from '../validate.js';
import type { BbsCredential } from '../sd/sdSchemas.js';
import {
  BbsCredentialSchema,
  GivenStatusListsSchema,
  givenStatusLists,
  CredentialSubjectSchema,
  CredentialTypeSchema,
  DiscloseResultSchema,
  NonceResultSchema,
  VerifyResultSchema,
  statusPurposesSchema,
} from '../sd/sdSchemas.js';

const sd = () => import('../sd/index.js');

const MultikeySchema = z.object({ did: z.string(), verificationMethod: z.string(), type: z.literal('Multikey'), publicKeyMultibase: z.string() });

export const sdIssue = defineOperation({
  name: 'sd.issue',
  summary: "issue a BBS+ signed credential for selective disclosure (spec 2.4); kept by the holder of the same wallet when it is for the holder (never for another holder)",
  input: z.strictObject({
    type: CredentialTypeSchema.describe('credential type; it must be defined by a bundled JSON-LD context').optional(),
    credentialSubject: CredentialSubjectSchema.describe('the credentialSubject fields (default: the sample passport, fixtures/subjects/passport.json)').optional(),
    holder: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/, 'expected a DID or another absolute IRI, e.g. did:example:alice')
      .describe("the holder's DID, used as credentialSubject.id")
      .optional(),
    expirationDate: z.string().describe('expirationDate of the credential (ISO 8601, e.g. 2030-12-31)').optional(),
  }),
  result: BbsCredentialSchema,
  mutates: true,
  run: async (ctx, input, call) =>
    (await sd()).issueSelectiveDisclosureCredential(ctx, {
      type: input.type,
      subject: input.credentialSubject,
      holder: input.holder,
      expirationDate: input.expirationDate,
      names: call.names,
    }),
});

export const sdIssueBbs2023 = defineOperation({
  name: 'sd.issueBbs2023',
  summary: 'issue the same credential on the W3C standard: VC 2.0 with a bbs-2023 DataIntegrityProof; kept by the holder of the same wallet as sd.issue does',
  input: sdIssue.input.extend({
    mandatoryPointers: z
      .array(z.string())
      .max(100)
      .describe('JSON Pointers always disclosed, e.g. /issuer (default: the issuer and the validity fields)')
      .optional(),
    status: statusPurposesSchema('give the credential a W3C Bitstring Status List entry (a random index of a list of 131,072) for revocation, suspension or both').optional(),
    credential: z
      .record(z.string(), z.unknown())
      .describe("sign this whole VC 2.0 credential instead of a passport built from a subject (every rule of the VC data model is checked first; issuer defaults to this issuer's bbs-2023 DID)")
      .optional(),
  }),
  result: BbsCredentialSchema,
  mutates: true,
  run: async (ctx, input, call) => {
    const { issueBbs2023SelectiveDisclosureCredential } = await import('../sd/sdIssuance.js');
    return issueBbs2023SelectiveDisclosureCredential(ctx, {
      type: input.type,
      subject: input.credentialSubject,
      holder: input.holder,
      expirationDate: input.expirationDate,
      mandatoryPointers: input.mandatoryPointers,
      status: input.status,
      credential: input.credential,
      names: call.names,
    });
  },
});

/** The inputs of an rdfc issuance besides the passport's: a status, or a whole credential. */
const rdfcIssueInput = sdIssue.input.extend({
  status: statusPurposesSchema(
    'give the credential a W3C Bitstring Status List entry (a random index of a list of 131,072, signed with the same suite and key) for revocation, suspension or both',
  ).optional(),
  credential: z
    .record(z.string(), z.unknown())
    .describe("sign this whole VC 2.0 credential instead of a passport built from a subject (every rule of the VC data model is checked first; issuer defaults to this issuer's DID of the suite)")
    .optional(),
});

/** Issues with the rdfc suite of `keyType`, with the status list entries asked for (in lists of that suite and key). */
async function issueWithRdfc(ctx: Context, input: z.infer<typeof rdfcIssueInput>, names: FieldNamer, keyType: RdfcKeyType): Promise<BbsCredential> {
  const [{ issueRdfcCredential }, { statusRequest }, { rdfcStatusListSuite }] = await Promise.all([
    import('../sd/rdfcCredentials.js'),
    import('../status/issuerStatusLists.js'),
    import('../status/statusListSuites.js'),
  ]);
  return issueRdfcCredential(ctx, {
    type: input.type,
    subject: input.credentialSubject,
    holder: input.holder,
    expirationDate: input.expirationDate,
    credential: input.credential,
    names,
    keyType,
    status: statusRequest(ctx, { purposes: input.status, suite: rdfcStatusListSuite(keyType), names }),
  });
}

export const sdIssueEddsaRdfc2022 = defineOperation({
  name: 'sd.issueEddsaRdfc2022',
  summary: 'issue the credential on VC 2.0 with an eddsa-rdfc-2022 DataIntegrityProof (Ed25519, no selective disclosure); the holder presents it whole (vc holder present)',
  input: rdfcIssueInput,
  result: BbsCredentialSchema,
  // A status list index is claimed in a store transaction (a new list under the wallet's lock).
  mutates: 'coalesced',
  run: async (ctx, input, call) => issueWithRdfc(ctx, input, call.names, 'Ed25519'),
});

export const sdIssueEcdsaRdfc2019 = defineOperation({
  name: 'sd.issueEcdsaRdfc2019',
  summary: 'issue the credential on VC 2.0 with an ecdsa-rdfc-2019 DataIntegrityProof (P-256, or P-384; no selective disclosure); the holder presents it whole (vc holder present)',
  input: rdfcIssueInput.extend({
    curve: z.enum(['P-256', 'P-384']).describe("the issuer key's curve (default P-256)").optional(),
  }),
  result: BbsCredentialSchema,
  mutates: 'coalesced',
  run: async (ctx, input, call) => issueWithRdfc(ctx, input, call.names, input.curve ?? 'P-256'),
});

export const sdIssuerKey = defineOperation({
  name: 'sd.issuerKey',
  summary: "the issuer's public keys as did:key (BBS+ BLS12-381 G2, bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019); the seed phrase only when asked for",
  input: z.strictObject({
    showSecret: z.boolean().describe('also give the BIP39 seed phrase the key derives from (a secret: keep it offline)').optional(),
  }),
  result: z.object({
    did: z.string(),
    verificationMethod: z.string(),
    type: z.string(),
    publicKeyBase58: z.string(),
    seedSource: z.string(),
    seedPhrase: z.string().optional(),
    bbs2023: z.object({ did: z.string(), verificationMethod: z.string(), type: z.literal('Multikey'), publicKeyMultibase: z.string() }),
    eddsaRdfc2022: MultikeySchema.describe('the eddsa-rdfc-2022 key (Ed25519) of the same phrase'),
    ecdsaRdfc2019: z.object({ 'P-256': MultikeySchema, 'P-384': MultikeySchema }).describe('the ecdsa-rdfc-2019 keys (P-256, P-384) of the same phrase'),
  }),
  mutates: false,
  run: async (ctx, input) => {
    const { describeIssuerBlsKey } = await import('../sd/issuerKey.js');
    return describeIssuerBlsKey(ctx, { showSecret: input.showSecret === true });
  },
});

export const sdDisclose = defineOperation({
  name: 'sd.disclose',
  summary: 'derive a credential revealing only the requested credentialSubject fields: a BbsBlsSignatureProof2020 (spec 2.5), or a bbs-2023 disclosure proof from a bbs-2023 credential',
  input: z.strictObject({
    credentialType: CredentialTypeSchema.describe("credential type to disclose from: the holder's newest BBS+ credential of that type (not needed when the credential or the id of a held one is given)").optional(),
    credentialId: z.string().min(1).max(200).describe('the id of a held credential to disclose from (vc holder credentials list)').optional(),
    selectiveDisclosureKeys: z
      .array(z.string().min(1))
      .min(1, 'expected at least one key to reveal')
      .max(200)
      .describe('credentialSubject fields to reveal, e.g. id,name,nationality (a key like no field of the credential is left out; one close to a field, a typo, is refused); for bbs-2023 also JSON Pointers, e.g. /credentialSubject/name'),
    nonce: z.string().min(1).describe("the verifier's nonce to bind the proof to; random when absent").optional(),
    credential: z.unknown().describe('disclose from this BBS+ (2020 or bbs-2023) credential instead of a held one').optional(),
  }),
  result: DiscloseResultSchema,
  mutates: false,
  run: async (ctx, input, call) =>
    (await sd()).deriveSelectiveDisclosure(ctx, {
      type: input.credentialType,
      credentialId: input.credentialId,
      keys: input.selectiveDisclosureKeys,
      nonce: input.nonce,
      credential: input.credential,
      names: call.names,
    }),
});

export const sdImport = defineOperation({
  name: 'sd.import',
  summary: "keep an issuer's BBS+ credential in the holder's store for later disclosure (every check a verifier makes comes first, and it must be the holder's own)",
  input: z.strictObject({ credential: BbsCredentialSchema.describe("the BBS+ credential (the issuer's output, spec 2.4)") }),
  result: z.object({ stored: z.literal(true), type: z.string(), id: z.string().describe("its id in the holder's store"), issuer: z.string() }),
  mutates: true,
  run: async (ctx, input, call) => (await sd()).storeSelectiveDisclosureCredential(ctx, { credential: input.credential, names: call.names }),
});

export const sdNonce = defineOperation({
  name: 'sd.nonce',
  summary: 'issue a one-time nonce for a holder to bind its selective-disclosure proof to',
  input: z.strictObject({
    ttlSeconds: z
      .number()
      .int()
      .min(1, `expected a number of seconds from 1 to ${MAX_NONCE_TTL_SECONDS} (one day)`)
      .max(MAX_NONCE_TTL_SECONDS, `expected a number of seconds from 1 to ${MAX_NONCE_TTL_SECONDS} (one day)`)
      .describe(`validity in seconds, at most ${MAX_NONCE_TTL_SECONDS} (default 600)`)
      .optional(),
  }),
  result: NonceResultSchema,
  mutates: true,
  run: async (ctx, input) => (await sd()).createVerifierNonce(ctx, input.ttlSeconds === undefined ? {} : { ttlSeconds: input.ttlSeconds }),
});

export const sdVerify = defineOperation({
  name: 'sd.verify',
  summary: 'verify a presented credential (a BBS+ disclosure, or an eddsa-rdfc-2022 / ecdsa-rdfc-2019 credential, by the suite its proof names): verified is false with the reason when any check fails',
  input: z.strictObject({
    vc: z.record(z.string(), z.unknown()).describe('the credential: a derived disclosure (spec 2.5) or an eddsa-rdfc-2022 / ecdsa-rdfc-2019 credential'),
    requireNonce: z.boolean().describe('refuse proofs whose nonce this verifier did not issue (always on with VC_REQUIRE_NONCE=true)').optional(),
    statusList: GivenStatusListsSchema.optional(),
  }),
  result: VerifyResultSchema,
  mutates: false,
  run: async (ctx, input, call) =>
    (await sd()).verifySelectiveDisclosure(ctx, {
      vc: input.vc,
      requireNonce: input.requireNonce === true,
      statusLists: givenStatusLists(input.statusList),
      names: call.names,
    }),
  failure: (result) => (result.verified ? undefined : result.message),
});
