/**
 * The W3C VC-API operations for bbs-2023 (POST /credentials/issue, /credentials/derive,
 * /credentials/verify), with the request and response shapes the VC-API defines, so the W3C
 * conformance suite (vc-di-bbs-test-suite) can drive `vc serve`. They work on any credential
 * (nested subjects, JSON Pointers), where the sd.* operations keep to the spec's flat subjects.
 * Verify checks the VC data model's rules, the proof, its purpose and dates, and the domain and challenge asked for; trust
 * and nonces are the sd.verify operation's (POST /verify-vc).
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';

const bbs2023 = () => import('../sd/vcApiCredentials.js');

const Pointers = z.array(z.string()).max(200);
const Credential = z.record(z.string(), z.unknown());

export const vcapiIssue = defineOperation({
  name: 'vcapi.issue',
  summary: 'VC-API: sign the given credential with a bbs-2023 base proof (VC 2.0, or 1.1 with the data-integrity context appended), refusing one that breaks a rule of the VC data model',
  input: z.strictObject({
    credential: Credential.describe('the credential to sign; issuer, when given, must be this issuer\'s bbs-2023 DID'),
    options: z.looseObject({ mandatoryPointers: Pointers.describe('JSON Pointers always disclosed (default: issuer and validity fields)').optional() }).optional(),
  }),
  result: z.object({ verifiableCredential: Credential }),
  mutates: false,
  run: async (ctx, input, call) => (await bbs2023()).vcApiIssue(ctx, { credential: input.credential, mandatoryPointers: input.options?.mandatoryPointers, names: call.names }),
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
  summary: 'VC-API: verify a credential\'s bbs-2023 proof (base or derived) and the VC data model\'s rules; 200 when they hold, 422 with the reasons when not',
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
