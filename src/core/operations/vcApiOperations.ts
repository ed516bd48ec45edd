/**
 * The W3C VC-API operations (POST /credentials/issue, /credentials/derive, /credentials/verify,
 * /presentations, /presentations/verify), with the request and response shapes the VC-API
 * defines, so the W3C conformance suite (vc-di-bbs-test-suite) can drive `vc serve`. They work on
 * any credential (nested subjects, JSON Pointers), where the sd.* operations keep to the spec's
 * flat subjects. Credentials are signed with bbs-2023 by default, or eddsa-rdfc-2022 /
 * ecdsa-rdfc-2019, after the VC data model's rules; a verification runs the suite the proof names.
 * Credential verify checks the VC data model's rules, the proof, its purpose and dates, and the
 * domain and challenge asked for; trust and nonces are the sd.verify operation's (POST /verify-vc).
 * Presentation verify checks everything vp.verify does.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { STATUS_PURPOSES } from '../../status/bitstringStatusList.js';

const bbs2023 = () => import('../sd/vcApiCredentials.js');

const Pointers = z.array(z.string()).max(200);
const Credential = z.record(z.string(), z.unknown());

/** A status list entry asked for at issuance (VC-API: the entry's type and purpose; the issuer assigns the rest). */
const StatusRequest = z.strictObject({
  type: z.literal('BitstringStatusListEntry').describe('the status type; BitstringStatusListEntry is the one vc assigns'),
  statusPurpose: z.enum(STATUS_PURPOSES).describe('revocation or suspension'),
});

export const vcapiIssue = defineOperation({
  name: 'vcapi.issue',
  summary: 'VC-API: sign the given credential (VC 2.0, or 1.1 with the data-integrity context appended) with a bbs-2023 base proof, or with eddsa-rdfc-2022 / ecdsa-rdfc-2019 (options.cryptosuite), with a status list entry when asked, refusing one that breaks a rule of the VC data model',
  input: z.strictObject({
    credential: Credential.describe("the credential to sign; issuer, when given, must be this issuer's DID of the suite (see GET /bbs-key)"),
    options: z
      .looseObject({
        cryptosuite: z.enum(['bbs-2023', 'eddsa-rdfc-2022', 'ecdsa-rdfc-2019']).describe('the proof\'s cryptosuite (default bbs-2023, the selective-disclosure suite)').optional(),
        curve: z.enum(['P-256', 'P-384']).describe('ecdsa-rdfc-2019 only: the key\'s curve (default P-256)').optional(),
        mandatoryPointers: Pointers.describe('bbs-2023 only: JSON Pointers always disclosed (default: issuer and validity fields)').optional(),
        credentialStatus: z
          .union([
            StatusRequest,
            z
              .array(StatusRequest)
              .min(1)
              .max(STATUS_PURPOSES.length)
              .refine((entries) => new Set(entries.map((entry) => entry.statusPurpose)).size === entries.length, 'each statusPurpose at most once'),
          ])
          .describe('give the credential a W3C Bitstring Status List entry (a random index of a list of 131,072, the list signed with the credential\'s suite and key): {"type": "BitstringStatusListEntry", "statusPurpose": "revocation"}, or one of each purpose')
          .optional(),
        credentialId: z.string().min(1).max(500).describe('an id to change the credential\'s status by (POST /credentials/status), when the credential has no id').optional(),
      })
      .optional(),
  }),
  result: z.object({ verifiableCredential: Credential }),
  // A status list index is claimed in a store transaction (a new list under the wallet's lock):
  // issuances run side by side, as without a status.
  mutates: 'coalesced',
  run: async (ctx, input, call) => {
    const status = input.options?.credentialStatus;
    return (await bbs2023()).vcApiIssue(ctx, {
      credential: input.credential,
      mandatoryPointers: input.options?.mandatoryPointers,
      status: status === undefined ? undefined : (Array.isArray(status) ? status : [status]).map((entry) => entry.statusPurpose),
      credentialId: input.options?.credentialId,
      cryptosuite: input.options?.cryptosuite,
      curve: input.options?.curve,
      names: call.names,
    });
  },
});

export const vcapiDerive = defineOperation({
  name: 'vcapi.derive',
  summary: 'VC-API: derive a bbs-2023 disclosure revealing what the JSON Pointers select (and the mandatory ones)',
  input: z.strictObject({
    verifiableCredential: Credential.describe('a credential with a bbs-2023 base proof'),
    options: z
      .looseObject({
        selectivePointers: Pointers.describe('JSON Pointers to reveal, e.g. /credentialSubject/name').optional(),
        presentationHeader: z.string().max(1024).describe('base64url presentation header to bind the proof to (a verifier nonce)').optional(),
      })
      .optional(),
  }),
  result: z.object({ verifiableCredential: Credential }),
  mutates: false,
  run: async (ctx, input, call) =>
    (await bbs2023()).vcApiDerive(ctx, {
      credential: input.verifiableCredential,
      selectivePointers: input.options?.selectivePointers ?? [],
      presentationHeader: input.options?.presentationHeader,
      names: call.names,
    }),
});

const VcApiVerifyResultSchema = z.object({
  verified: z.boolean(),
  checks: z.array(z.string()),
  warnings: z.array(z.object({ name: z.string(), message: z.string() })),
  errors: z.array(z.object({ name: z.string(), message: z.string(), check: z.string().describe('the failed check, for a rule of the VC data model: data-model:<rule>').optional() })),
});

export const vcapiVerify = defineOperation({
  name: 'vcapi.verify',
  summary: 'VC-API: verify a credential\'s proof with the suite it names (bbs-2023 base or derived, eddsa-rdfc-2022, ecdsa-rdfc-2019) and the VC data model\'s rules; 200 when they hold, 422 with the reasons when not',
  input: z.strictObject({
    verifiableCredential: Credential.describe('the credential to verify'),
    options: z
      .looseObject({
        checks: z.array(z.string()).max(10).optional(),
        domain: z.string().max(1024).describe('the domain the proof must name').optional(),
        challenge: z.string().max(1024).describe('the challenge the proof must name').optional(),
      })
      .optional(),
  }),
  result: VcApiVerifyResultSchema,
  mutates: false,
  run: async (ctx, input) =>
    (await bbs2023()).vcApiVerify(ctx, { credential: input.verifiableCredential, domain: input.options?.domain, challenge: input.options?.challenge }),
  failure: (result) => (result.verified ? undefined : (result.errors[0]?.message ?? 'verification failed')),
});

const presentations = () => import('../sd/presentations.js');

export const vcapiProve = defineOperation({
  name: 'vcapi.prove',
  summary: "VC-API: sign the given presentation with the holder's did:key (proof purpose authentication) for the verifier's challenge and domain",
  input: z.strictObject({
    presentation: Credential.describe('the unsigned VC 2.0 presentation: @context, type VerifiablePresentation, verifiableCredential (1 to 10 credentials); holder, when given, must be this holder\'s did:key'),
    options: z.strictObject({
      challenge: z.string().min(1).max(1024).describe("the verifier's challenge"),
      domain: z.string().min(1).max(1024).describe("the verifier's domain").optional(),
      cryptosuite: z.enum(['eddsa-rdfc-2022', 'ecdsa-rdfc-2019']).describe('eddsa-rdfc-2022 (the holder\'s Ed25519 key, default) or ecdsa-rdfc-2019 (its P-256 key)').optional(),
      type: z.literal('DataIntegrityProof').optional(),
      proofPurpose: z.literal('authentication', 'a presentation is signed for authentication').optional(),
      verificationMethod: z.string().max(200).describe("the holder's key (GET /did-key); another is refused").optional(),
    }),
  }),
  result: z.object({ verifiablePresentation: Credential }),
  mutates: false,
  run: async (ctx, input, call) => (await presentations()).vcApiProve(ctx, { presentation: input.presentation, options: input.options, names: call.names }),
});

const VcApiPresentationResultSchema = VcApiVerifyResultSchema.extend({
  credentialResults: z.array(z.object({ index: z.number().int(), verified: z.boolean(), checks: z.array(z.string()), errors: z.array(z.object({ name: z.string(), message: z.string() })) })),
});

export const vcapiVerifyPresentation = defineOperation({
  name: 'vcapi.verifyPresentation',
  summary: "VC-API: verify a presentation: its proof, the challenge and domain, every credential inside (each with the suite its proof names) and the holder binding; 200 when it holds, 422 with the reasons when not",
  input: z.strictObject({
    verifiablePresentation: Credential.describe('the presentation with its proof'),
    options: z.looseObject({
      challenge: z.string().min(1).max(1024).describe('the challenge this verifier gave the holder (required: without it any earlier presentation would do)'),
      domain: z.string().min(1).max(1024).describe('the domain this verifier gave the holder, checked when given').optional(),
    }),
  }),
  result: VcApiPresentationResultSchema,
  mutates: false,
  run: async (ctx, input) => (await presentations()).vcApiVerifyPresentation(ctx, { presentation: input.verifiablePresentation, challenge: input.options.challenge, domain: input.options.domain }),
  failure: (result) => (result.verified ? undefined : (result.errors[0]?.message ?? 'verification failed')),
});
