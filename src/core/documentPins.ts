/**
 * `vc documents add|list|remove`: the JSON-LD contexts and JSON schemas others publish, pinned in
 * the wallet under their URLs (src/store/pinnedDocuments.ts keeps them with their hash). Adding
 * checks what is added: a context must process as JSON-LD with only documents vc has (a context
 * that imports another names the one to add first), a schema must name no other URL than the one
 * it is pinned under. A URL vc bundles cannot be pinned (the bundled copy is always read first).
 */
import type { Context } from '../context.js';
import { ConflictError, InputError, NotFoundError, TooLargeError, UnprocessableError, describeError, isVcError, walkErrorCauses } from '../errors.js';
import { Iden3Documents, schemaUrlOf } from '../iden3/documents.js';
import { loadIden3Modules } from '../iden3/modules.js';
import { createBbs2023DocumentLoader, isKnownContext } from '../sd/suites/bbs2023/bbs2023Loader.js';
import type { DocumentLoader } from '../sd/documentLoader.js';
import {
  addDocumentCommand,
  listPinnedDocuments,
  pinnedDocumentRecord,
  pinnedLookup,
  removePinnedDocument,
  sha256Hex,
  writePinnedDocument,
  type PinnedDocument,
  type PinnedDocumentKind,
} from '../store/pinnedDocuments.js';
import { plainFieldNames, type FieldNamer } from './validate.js';

/** The largest document pinned (contexts and schemas are kilobytes). */
export const MAX_PINNED_DOCUMENT_BYTES = 1024 * 1024;

export interface AddDocumentOptions {
  url: string;
  document: unknown;
  names?: FieldNamer | undefined;
}

export interface AddDocumentResult extends PinnedDocument {
  /** False when the same document was pinned under the URL already (nothing changed). */
  added: boolean;
  /** What else the document needs, when vc does not have it yet (the context a schema names). */
  note?: string;
}

/** What a JSON document is: a JSON-LD context, an (iden3) JSON schema, or neither. */
function kindOf(document: unknown): PinnedDocumentKind | undefined {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return undefined;
  const object = document as Record<string, unknown>;
  if (object['@context'] !== undefined) return 'context';
  if (typeof object.$schema === 'string' || object.$metadata !== undefined || typeof object.properties === 'object') return 'schema';
  return undefined;
}

/** The loaders a pinned document is checked with: every document vc has, pinned ones included. */
async function knownDocuments(ctx: Context): Promise<{ iden3: Iden3Documents; loader: DocumentLoader; isBundled: (url: string) => boolean }> {
  const { sdk } = await loadIden3Modules();
  const iden3 = new Iden3Documents(ctx.store, sdk);
  const sd = createBbs2023DocumentLoader(pinnedLookup(ctx.store));
  const iden3Loader = iden3.loader();
  const loader: DocumentLoader = async (url) => {
    if (isKnownContext(url) || pinnedDocumentRecord(ctx.store, url) !== undefined) return sd(url);
    return iden3Loader(url);
  };
  return { iden3, loader, isBundled: (url) => isKnownContext(url) || iden3.isBundled(url) };
}

/** Why a context does not process as JSON-LD with the documents vc has (with the URLs it names), or undefined. */
async function contextProblem(url: string, document: Record<string, unknown>, known: DocumentLoader): Promise<{ text: string; urls: string[] } | undefined> {
  const { default: jsonld } = await import('jsonld');
  const loader: DocumentLoader = async (wanted) => (wanted === url ? { contextUrl: null, documentUrl: url, document: structuredClone(document) } : known(wanted));
  try {
    // Expanding a node under the context processes all of it, and every context it imports.
    await jsonld.expand({ '@context': url, '@id': 'urn:vc:documents:check' } as Parameters<typeof jsonld.expand>[0], {
      documentLoader: loader as unknown as NonNullable<Parameters<typeof jsonld.expand>[1]>['documentLoader'],
    });
    return undefined;
  } catch (error) {
    // The loaders' refusal of a document they lack names it (UnknownDocumentError.url, or publicUrls).
    const unknown = walkErrorCauses(error, (link) => {
      const { url: named, publicUrls, code } = link as { url?: unknown; publicUrls?: unknown; code?: unknown };
      return (typeof named === 'string' || Array.isArray(publicUrls)) && code !== 'pinned_document_changed';
    }) as { url?: string; publicUrls?: string[] } | undefined;
    const missing = unknown?.url ?? unknown?.publicUrls?.[0];
    if (missing !== undefined) return { text: `it imports the context ${missing}, which vc does not have: add that one first (${addDocumentCommand(missing)})`, urls: [missing] };
    const ours = walkErrorCauses(error, isVcError) as { message: string; publicUrls?: string[] } | undefined;
    return { text: `not a JSON-LD context vc can process: ${ours === undefined ? describeError(error) : ours.message}`, urls: ours?.publicUrls === undefined ? [] : [...ours.publicUrls] };
  }
}

/** `vc documents add URL FILE`: pins a JSON-LD context or JSON schema under its URL. */
export async function addDocument(ctx: Context, options: AddDocumentOptions): Promise<AddDocumentResult> {
  const names = options.names ?? plainFieldNames;
  const { url } = options;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(url)) throw new InputError(`${names('url')}: expected the document's URL (an absolute IRI, e.g. https://...), got ${JSON.stringify(url).slice(0, 80)}`, { field: 'url' });
  const kind = kindOf(options.document);
  if (kind === undefined) {
    throw new UnprocessableError(`${names('document')}: expected a JSON-LD context (an object with @context) or a JSON schema (an object with $schema, $metadata or properties)`, { field: 'document' });
  }
  const text = JSON.stringify(options.document);
  if (Buffer.byteLength(text, 'utf8') > MAX_PINNED_DOCUMENT_BYTES) {
    throw new TooLargeError(`${names('document')}: larger than ${MAX_PINNED_DOCUMENT_BYTES / 1024} KiB; a context or schema is kilobytes`, { field: 'document' });
  }
  const known = await knownDocuments(ctx);
  if (known.isBundled(url)) throw new ConflictError(`${names('url')}: ${url} is bundled with vc, and the bundled copy is always the one read; nothing to add`, { field: 'url', publicUrls: [url] });
  const document = options.document as Record<string, unknown>;
  let note: string | undefined;
  if (kind === 'context') {
    const problem = await contextProblem(url, document, known.loader);
    if (problem !== undefined) throw new UnprocessableError(`${names('document')}: ${problem.text}`, { field: 'document', publicUrls: [url, ...problem.urls] });
  } else {
    const named = schemaUrlOf(document);
    if (named !== undefined && named !== url) {
      throw new UnprocessableError(`${names('document')}: the schema names its URL ${named} (${typeof document.$id === 'string' ? '$id' : '$metadata.uris.jsonSchema'}), not ${url}: pin it under its own URL`, {
        field: 'document',
        publicUrls: [url, named],
      });
    }
    const contextUrl = (document.$metadata as { uris?: { jsonLdContext?: unknown } } | undefined)?.uris?.jsonLdContext;
    if (typeof contextUrl === 'string' && !known.isBundled(contextUrl) && known.iden3.document(contextUrl) === undefined) {
      note = `its JSON-LD context ${contextUrl} is not in the wallet yet: add it too (${addDocumentCommand(contextUrl)})`;
    }
  }
  const existing = pinnedDocumentRecord(ctx.store, url);
  // A record another program broke (sha256 '') is replaced; another content is refused.
  if (existing !== undefined && existing.sha256 !== '' && existing.sha256 !== sha256Hex(text)) {
    throw new ConflictError(`${names('url')}: ${url} is pinned already with another content (sha256 ${existing.sha256.slice(0, 16)}..., added ${existing.addedAt}); remove it first (vc documents remove ${url})`, {
      field: 'url',
      publicUrls: [url],
    });
  }
  const { record, added } = writePinnedDocument(
    ctx.store,
    { url, kind, addedAt: ctx.now().toISOString() },
    text,
  );
  return { ...record, added, ...(note === undefined ? {} : { note }) };
}

/** `vc documents list`: every pinned document, by URL, each with whether its stored copy is intact. */
export function listDocuments(ctx: Context): { documents: Array<PinnedDocument & { intact: boolean }> } {
  const lookup = pinnedLookup(ctx.store);
  return {
    documents: listPinnedDocuments(ctx.store).map((record) => {
      let intact = true;
      try {
        lookup(record.url);
      } catch {
        intact = false;
      }
      return { ...record, intact };
    }),
  };
}

/** `vc documents remove URL`: unpins a document. */
export function removeDocument(ctx: Context, options: { url: string; names?: FieldNamer | undefined }): PinnedDocument & { removed: true } {
  const removed = removePinnedDocument(ctx.store, options.url);
  if (removed === undefined) {
    throw new NotFoundError(`${(options.names ?? plainFieldNames)('url')}: no document is pinned under ${options.url} (vc documents list shows those that are)`, { field: 'url', publicUrls: [options.url] });
  }
  return { ...removed, removed: true };
}
