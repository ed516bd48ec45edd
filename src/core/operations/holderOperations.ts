/**
 * The holder's credential store: list, show, delete, import and export the credentials the holder
 * of this wallet keeps, of every kind (iden3, BbsBlsSignature2020, bbs-2023), each under its id.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';

const store = () => import('../holder/holderStore.js');

const KINDS = ['iden3', 'bbs2020', 'bbs2023'] as const;

const heldIdSchema = z.string().min(1).max(200).describe('the id of a held credential (its id in the store, or the credential\'s own id), as `list` shows it');

const summarySchema = z.object({
  id: z.string().describe("its id in the holder's store"),
  kind: z.enum(KINDS),
  type: z.string(),
  types: z.array(z.string()),
  issuer: z.string(),
  subject: z.string().optional().describe('credentialSubject.id (absent: a credential without a subject id)'),
  credentialId: z.string().optional().describe("the credential's own id, when it has one"),
  issuedAt: z.string().optional(),
  expiresAt: z.string().optional(),
  storedAt: z.string(),
  source: z.enum(['issued', 'imported', 'migrated']).describe('issued by this wallet for its holder, imported, or kept by a former version of vc'),
});

const filterFields = {
  type: z.string().min(1).max(200).describe('only credentials of this type, e.g. PassportCredential').optional(),
  issuer: z.string().min(1).max(400).describe('only credentials of this issuer (its DID)').optional(),
};

export const holderList = defineOperation({
  name: 'holder.list',
  summary: "the credentials the holder keeps (every kind, several per type), newest first, without the credentials themselves",
  input: z.strictObject({ ...filterFields, kind: z.enum(KINDS).describe('only credentials of this kind: iden3, bbs2020 or bbs2023').optional() }),
  result: z.object({ credentials: z.array(summarySchema) }),
  mutates: false,
  run: async (ctx, input) => {
    const { listHeldCredentials, summaryOf } = await store();
    const records = listHeldCredentials(ctx, { type: input.type, issuer: input.issuer, kinds: input.kind === undefined ? undefined : [input.kind] });
    return { credentials: records.map(summaryOf) };
  },
});

export const holderShow = defineOperation({
  name: 'holder.show',
  summary: 'one held credential: what the store says about it, and the credential itself',
  input: z.strictObject({ id: heldIdSchema }),
  result: summarySchema.extend({ credential: z.record(z.string(), z.unknown()) }),
  mutates: false,
  run: async (ctx, input, call) => {
    const { publicRecord, requireHeldCredential } = await store();
    return publicRecord(requireHeldCredential(ctx, input.id, 'id', call.names('id')));
  },
});

export const holderDelete = defineOperation({
  name: 'holder.delete',
  summary: "delete a held credential from the holder's store",
  input: z.strictObject({ id: heldIdSchema }),
  result: summarySchema.extend({ deleted: z.literal(true) }),
  // One store transaction, nothing else.
  mutates: 'atomic',
  run: async (ctx, input, call) => {
    const { deleteHeldCredential, summaryOf } = await store();
    return { deleted: true as const, ...summaryOf(deleteHeldCredential(ctx, input.id, 'id', call.names('id'))) };
  },
});

export const holderImport = defineOperation({
  name: 'holder.import',
  summary: "keep credentials of any kind in the holder's store: each is checked first (the issuer's signature or Merkle proof against its state, its status and dates) and must be for one of the holder's DIDs",
  input: z.strictObject({
    credential: z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown()).min(1).max(100)])
      .describe('the credential, or a list of up to 100 (as `vc holder credentials export` writes them): all are kept, or none'),
  }),
  result: z.object({ imported: z.array(summarySchema.extend({ alreadyHeld: z.boolean().describe('the holder already had this very credential') })) }),
  mutates: true,
  run: async (ctx, input, call) => {
    const { importHeldCredentials } = await import('../holder/holderImport.js');
    return importHeldCredentials(ctx, { credential: input.credential, names: call.names });
  },
});

export const holderExport = defineOperation({
  name: 'holder.export',
  summary: 'the held credentials themselves, as their issuers gave them: one by its id, or a list (of a type, of an issuer), to import elsewhere',
  input: z.strictObject({ id: heldIdSchema.optional(), ...filterFields }),
  result: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]),
  mutates: false,
  run: async (ctx, input, call) => {
    const { listHeldCredentials, requireHeldCredential } = await store();
    if (input.id !== undefined) {
      if (input.type !== undefined || input.issuer !== undefined) {
        const { InputError } = await import('../../errors.js');
        throw new InputError(`${call.names('id')} names one credential: ${call.names('type')} and ${call.names('issuer')} choose a list instead`, { field: input.type !== undefined ? 'type' : 'issuer' });
      }
      return requireHeldCredential(ctx, input.id, 'id', call.names('id')).credential;
    }
    return listHeldCredentials(ctx, { type: input.type, issuer: input.issuer }).map((record) => record.credential);
  },
});
