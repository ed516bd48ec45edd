/**
 * Documents others publish (JSON-LD contexts, JSON schemas), pinned in the wallet under their
 * URLs: every path that resolves a document reads the bundled ones, then these, never the network.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';

const documentRecordSchema = z.object({
  url: z.string(),
  kind: z.enum(['context', 'schema']),
  sha256: z.string().describe('SHA-256 of the stored document (its compact JSON), checked on every read'),
  bytes: z.number(),
  addedAt: z.string(),
});

const urlSchema = z.string().min(1).max(2048);

export const documentsAdd = defineOperation({
  name: 'documents.add',
  summary: 'pin a JSON-LD context or JSON schema that others publish under its URL (its hash recorded and checked on every read); never fetched from the network',
  input: z.strictObject({
    url: urlSchema.describe('the URL credentials name the document by'),
    document: z.unknown().describe('the document: a JSON-LD context or an iden3 JSON schema'),
  }),
  result: documentRecordSchema.extend({ added: z.boolean(), note: z.string().optional() }),
  mutates: 'atomic',
  run: async (ctx, input, call) => {
    const { addDocument } = await import('../documentPins.js');
    return addDocument(ctx, { url: input.url, document: input.document, names: call.names });
  },
});

export const documentsList = defineOperation({
  name: 'documents.list',
  summary: 'the pinned documents, each with whether its stored copy still has its recorded hash',
  input: z.strictObject({}),
  result: z.object({ documents: z.array(documentRecordSchema.extend({ intact: z.boolean() })) }),
  mutates: false,
  run: async (ctx) => {
    const { listDocuments } = await import('../documentPins.js');
    return listDocuments(ctx);
  },
});

export const documentsRemove = defineOperation({
  name: 'documents.remove',
  summary: 'unpin a document (credentials that need it are refused again, naming it)',
  input: z.strictObject({ url: urlSchema.describe('the URL it was pinned under') }),
  result: documentRecordSchema.extend({ removed: z.literal(true) }),
  mutates: 'atomic',
  run: async (ctx, input, call) => {
    const { removeDocument } = await import('../documentPins.js');
    return removeDocument(ctx, { url: input.url, names: call.names });
  },
});
