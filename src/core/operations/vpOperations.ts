/**
 * Verifiable presentations (VC 2.0): the holder's did:key, a presentation of credentials signed
 * with it for a verifier's challenge and domain, and the verifier's check of one (its proof, the
 * challenge and domain, every credential inside, the holder binding). The VC-API routes of the
 * same work are in vcApiOperations.ts.
 */
import { GivenStatusListsSchema, givenStatusLists } from '../sd/sdSchemas.js';
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { VerificationCheckSchema } from '../sd/sdSchemas.js';

const presentations = () => import('../sd/presentations.js');

const Document = z.record(z.string(), z.unknown());
/** The key types a holder may sign presentations with. */
const HolderKeyTypeSchema = z.enum(['Ed25519', 'P-256', 'P-384']);
const Binding = z.string().min(1, 'expected a non-empty string').max(1024, 'expected at most 1024 characters');

const HolderKeySchema = z.object({
  did: z.string(),
  verificationMethod: z.string(),
  keyType: HolderKeyTypeSchema,
  type: z.literal('Multikey'),
  publicKeyMultibase: z.string(),
  cryptosuite: z.string(),
});

export const vpHolderKey = defineOperation({
  name: 'vp.holderKey',
  summary: "the holder's did:key that signs its presentations (created on first use, kept in the wallet): the credentialSubject.id to have credentials issued to",
  input: z.strictObject({
    keyType: HolderKeyTypeSchema.describe('Ed25519 (eddsa-rdfc-2022, the default), P-256 or P-384 (ecdsa-rdfc-2019)').optional(),
  }),
  result: HolderKeySchema,
  // The key is created once, in one store transaction (as the issuer's seed phrase is): a read.
  mutates: false,
  run: async (ctx, input) => (await presentations()).describeHolderKey(ctx, input.keyType),
});

export const vpPresent = defineOperation({
  name: 'vp.present',
  summary: "present credentials: a VC 2.0 VerifiablePresentation around them, signed with the holder's did:key (proof purpose authentication) for the verifier's challenge and domain",
  input: z.strictObject({
    credentials: z
      .array(Document)
      .min(1, 'expected at least one credential')
      .max(10, 'expected at most 10 credentials')
      .describe('the credentials to present: derived disclosures (bbs-2023, BbsBlsSignatureProof2020) or whole credentials (eddsa-rdfc-2022, ecdsa-rdfc-2019)'),
    challenge: Binding.describe("the verifier's challenge (e.g. a nonce of `vc verifier nonce`)"),
    domain: Binding.describe("the verifier's domain, e.g. verifier.example"),
    keyType: HolderKeyTypeSchema.describe('the holder key to sign with: Ed25519 (default) or P-256 / P-384').optional(),
  }),
  result: Document,
  // The holder's key is created on first use in one store transaction; nothing else is written.
  mutates: false,
  run: async (ctx, input, call) =>
    (await presentations()).createHolderPresentation(ctx, { credentials: input.credentials, challenge: input.challenge, domain: input.domain, keyType: input.keyType, names: call.names }),
});

const PresentationCheckSchema = z.object({ id: z.string(), valid: z.boolean(), reason: z.string().optional() });

const VerifyPresentationResultSchema = z.object({
  verified: z.boolean(),
  message: z.string(),
  checks: z.array(PresentationCheckSchema),
  credentials: z.array(
    z.object({
      index: z.number().int(),
      id: z.string().optional(),
      issuer: z.string().optional(),
      verified: z.boolean(),
      checks: z.array(VerificationCheckSchema),
    }),
  ),
});

export const vpVerify = defineOperation({
  name: 'vp.verify',
  summary: 'verify a presentation: its proof, the challenge and domain asked for, every credential inside and the holder binding; verified is false with the reason when any check fails',
  input: z.strictObject({
    verifiablePresentation: Document.describe('the presentation (the output of `vc holder present`, or a VC-API {verifiablePresentation})'),
    challenge: Binding.describe('the challenge this verifier gave the holder'),
    domain: Binding.describe('the domain this verifier gave the holder'),
    requireNonce: z.boolean().describe('refuse a challenge this verifier did not issue with `vc verifier nonce` (always on with VC_REQUIRE_NONCE=true)').optional(),
    statusList: GivenStatusListsSchema.optional(),
  }),
  result: VerifyPresentationResultSchema,
  mutates: false,
  run: async (ctx, input) =>
    (await presentations()).verifyPresentation(ctx, {
      presentation: input.verifiablePresentation,
      challenge: input.challenge,
      domain: input.domain,
      requireNonce: input.requireNonce,
      statusLists: givenStatusLists(input.statusList),
    }),
  failure: (result) => (result.verified ? undefined : result.message),
});
