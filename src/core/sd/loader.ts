/**
 * The static document loader of this context, created once per process.
 */
import type { Context } from '../../context.js';
import { createStaticDocumentLoader, type DocumentLoader } from '../../bbs/documentLoader.js';

/** The offline JSON-LD document loader shared by every selective-disclosure operation of `ctx`. */
export function sdDocumentLoader(ctx: Context): Promise<DocumentLoader> {
  return ctx.lazy('bbs.documentLoader', async () => createStaticDocumentLoader());
}
