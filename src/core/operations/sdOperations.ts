/**
 * Selective disclosure (BBS+): the operations of the issuer, the holder and the verifier.
 * Input field names are the spec's HTTP body names; the CLI names its flags after them.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { MAX_NONCE_TTL_SECONDS } from '../sd/nonce.js';
import {
  BbsCredentialSchema,
  CredentialSubjectSchema,
  CredentialTypeSchema,
  DiscloseResultSchema,
  NonceResultSchema,
  VerifyResultSchema,
} from '../sd/sdSchemas.js';

const sd = () => import('../sd/index.js');

export const sdIssue = defineOperation({
  name: 'sd.issue',
  summary: 'issue a BBS+ signed credential for selective disclosure (spec 2.4); kept by the holder of the same wallet',
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
  summary: 'issue the same credential on the W3C standard: VC 2.0 with a bbs-2023 DataIntegrityProof; kept by the holder of the same wallet',
  input: sdIssue.input.extend({
    mandatoryPointers: z
      .array(z.string())
      .max(100)
      .describe('JSON Pointers always disclosed, e.g. /issuer (default: the issuer and the validity fields)')
      .optional(),
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
      credential: input.credential,
      names: call.names,
    });
  },
});

export const sdIssuerKey = defineOperation({
  name: 'sd.issuerKey',
  summary: "the issuer's BBS+ public key (did:key, BLS12-381 G2); the seed phrase only when asked for",
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
    credentialType: CredentialTypeSchema.describe("credential type to disclose from (the holder's latest of that type)"),
    selectiveDisclosureKeys: z
      .array(z.string().min(1))
      .min(1, 'expected at least one key to reveal')
      .max(200)
      .describe('credentialSubject fields to reveal, e.g. id,name,nationality (fields the credential lacks are ignored); for bbs-2023 also JSON Pointers, e.g. /credentialSubject/name'),
    nonce: z.string().min(1).describe("the verifier's nonce to bind the proof to; random when absent").optional(),
    credential: z.unknown().describe('disclose from this BBS+ (2020 or bbs-2023) credential instead of the stored one').optional(),
  }),
  result: DiscloseResultSchema,
  mutates: false,
  run: async (ctx, input, call) =>
    (await sd()).deriveSelectiveDisclosure(ctx, {
      type: input.credentialType,
      keys: input.selectiveDisclosureKeys,
      nonce: input.nonce,
      credential: input.credential,
      names: call.names,
    }),
});

export const sdImport = defineOperation({
  name: 'sd.import',
  summary: "keep an issuer's BBS+ credential for later disclosure (every check a verifier makes comes first)",
  input: z.strictObject({ credential: BbsCredentialSchema.describe("the BBS+ credential (the issuer's output, spec 2.4)") }),
  result: z.object({ stored: z.literal(true), type: z.string(), id: z.string().optional(), issuer: z.string() }),
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
  summary: 'verify a selectively disclosed credential: verified is false with the reason when any check fails',
  input: z.strictObject({
    vc: z.record(z.string(), z.unknown()).describe('the derived credential (spec 2.5)'),
    requireNonce: z.boolean().describe('refuse proofs whose nonce this verifier did not issue (always on with VC_REQUIRE_NONCE=true)').optional(),
  }),
  result: VerifyResultSchema,
  mutates: false,
  run: async (ctx, input) => (await sd()).verifySelectiveDisclosure(ctx, { vc: input.vc, requireNonce: input.requireNonce === true }),
  failure: (result) => (result.verified ? undefined : result.message),
});
