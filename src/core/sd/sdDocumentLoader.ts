/**
 * The static document loader of this context, created once per process.
 */
import { ServiceKey, type Context } from '../../context.js';
import { createStaticDocumentLoader, type DocumentLoader } from '../../sd/documentLoader.js';

const DOCUMENT_LOADER_KEY = new ServiceKey<DocumentLoader>('bbs.documentLoader');

/** The offline JSON-LD document loader shared by every selective-disclosure operation of `ctx`. */
export function sdDocumentLoader(ctx: Context): Promise<DocumentLoader> {
  return ctx.lazy(DOCUMENT_LOADER_KEY, async () => createStaticDocumentLoader());
}
