/**
 * The document loaders of this context, created once per process: the bundled documents, then
 * those pinned in the wallet (read and checked at each use).
 */
import { ServiceKey, type Context } from '../../context.js';
import { createStaticDocumentLoader, type DocumentLoader } from '../../sd/documentLoader.js';
import { createBbs2023DocumentLoader } from '../../sd/suites/bbs2023/bbs2023Loader.js';
import { pinnedLookup } from '../../store/pinnedDocuments.js';

const DOCUMENT_LOADER_KEY = new ServiceKey<DocumentLoader>('bbs.documentLoader');
const DOCUMENT_LOADER_2023_KEY = new ServiceKey<DocumentLoader>('bbs2023.documentLoader');

/** The offline JSON-LD document loader shared by every selective-disclosure operation of `ctx`. */
export function sdDocumentLoader(ctx: Context): Promise<DocumentLoader> {
  return ctx.lazy(DOCUMENT_LOADER_KEY, async () => createStaticDocumentLoader(pinnedLookup(ctx.store)));
}

/** The offline bbs-2023 document loader of `ctx` (VC 2.0 and Data Integrity contexts too). */
export function sdDocumentLoader2023(ctx: Context): Promise<DocumentLoader> {
  return ctx.lazy(DOCUMENT_LOADER_2023_KEY, async () => createBbs2023DocumentLoader(pinnedLookup(ctx.store)));
}
