/**
 * W3C Bitstring Status List v1.0: the issuer revokes, suspends and unsuspends credentials it issued
 * with a status (`vc issuer issue --format bbs-2023 --status ...`, POST /credentials/issue with
 * options.credentialStatus), and publishes its signed status lists (GET /status-lists/:id).
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { STATUS_PURPOSES } from '../../status/bitstringStatusList.js';

const issuer = () => import('../status/issuerStatusLists.js');

const CredentialRef = z
  .string()
  .min(1, 'expected the credential\'s id or its credentialStatus id')
  .max(1000)
  .describe("the credential's id, or its credentialStatus id (e.g. http://127.0.0.1:3000/status-lists/revocation-1#94567)");

const StatusChangeResultSchema = z.object({
  message: z.string(),
  id: z.string(),
  statusPurpose: z.enum(STATUS_PURPOSES),
  statusListIndex: z.string(),
  statusListCredential: z.string(),
  set: z.boolean().describe('the entry\'s bit now: revoked or suspended when true'),
  changed: z.boolean().describe('false when the bit already had that value (the list was not re-signed)'),
});

export const statusRevoke = defineOperation({
  name: 'status.revoke',
  summary: 'revoke a credential issued with a status list entry: set its revocation bit and re-sign the list (for good)',
  input: z.strictObject({ id: CredentialRef }),
  result: StatusChangeResultSchema,
  mutates: true,
  run: async (ctx, input, call) => (await issuer()).changeCredentialStatus(ctx, { id: input.id, purpose: 'revocation', set: true, names: call.names }),
});

export const statusSuspend = defineOperation({
  name: 'status.suspend',
  summary: 'suspend a credential issued with a suspension status entry: set its bit and re-sign the list',
  input: z.strictObject({ id: CredentialRef }),
  result: StatusChangeResultSchema,
  mutates: true,
  run: async (ctx, input, call) => (await issuer()).changeCredentialStatus(ctx, { id: input.id, purpose: 'suspension', set: true, names: call.names }),
});

export const statusUnsuspend = defineOperation({
  name: 'status.unsuspend',
  summary: 'lift the suspension of a credential: clear its suspension bit and re-sign the list',
  input: z.strictObject({ id: CredentialRef }),
  result: StatusChangeResultSchema,
  mutates: true,
  run: async (ctx, input, call) => (await issuer()).changeCredentialStatus(ctx, { id: input.id, purpose: 'suspension', set: false, names: call.names }),
});

export const statusUpdate = defineOperation({
  name: 'status.update',
  summary: 'VC-API: change the status of an issued credential (true revokes or suspends, false unsuspends; a revocation is for good)',
  input: z.strictObject({
    credentialId: CredentialRef,
    credentialStatus: z
      .strictObject({
        type: z.literal('BitstringStatusListEntry').describe('the status type'),
        statusPurpose: z.enum(STATUS_PURPOSES).describe('the entry to change'),
      })
      .describe('which of the credential\'s status entries to change'),
    status: z.boolean().describe('the bit to set: true revokes or suspends, false unsuspends'),
  }),
  result: StatusChangeResultSchema,
  mutates: true,
  run: async (ctx, input, call) =>
    (await issuer()).changeCredentialStatus(ctx, { id: input.credentialId, purpose: input.credentialStatus.statusPurpose, set: input.status, names: call.names, field: 'credentialId' }),
});

export const statusList = defineOperation({
  name: 'status.list',
  summary: 'a signed BitstringStatusListCredential of this issuer, as verifiers fetch it',
  input: z.strictObject({
    id: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'expected a status list id such as revocation-1 (the last segment of its URL)')
      .describe('the status list id, the last segment of its URL (e.g. revocation-1)'),
  }),
  result: z.record(z.string(), z.unknown()),
  mutates: false,
  run: async (ctx, input, call) => (await issuer()).readStatusListCredential(ctx, input.id, call.names),
});
