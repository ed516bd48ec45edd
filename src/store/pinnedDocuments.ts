/**
 * Documents the user pinned in the wallet: JSON-LD contexts and JSON schemas that others publish,
 * each kept under its URL with the SHA-256 of its exact bytes (`vc documents add URL FILE`). Every
 * path that resolves a document reads the bundled set first, then this one, and never the
 * network. The text is kept apart from its record, by its hash: every read hashes the text again
 * and refuses a copy that no longer has the hash recorded when it was added, so a document that
 * changed in the wallet can never change what a credential means without the user adding it anew.
 */
import { createHash } from 'node:crypto';
import { UnprocessableError } from '../errors.js';
import type { WalletStore } from './store.js';

/** URL -> PinnedDocument. */
export const PINNED_DOCUMENTS_NS = 'documents.pinned';
/** SHA-256 (hex) -> the document's text, exactly as added. */
export const PINNED_CONTENT_NS = 'documents.content';

/** What a pinned document is. */
export type PinnedDocumentKind = 'context' | 'schema';

/** The record of one pinned document. */
export interface PinnedDocument {
  url: string;
  kind: PinnedDocumentKind;
  /** SHA-256 of the document's bytes (UTF-8), hex. */
  sha256: string;
  bytes: number;
  /** When it was added (ISO 8601). */
  addedAt: string;
}

/** The command that pins `url`, for messages that refuse an unknown document. */
export function addDocumentCommand(url: string): string {
  return `vc documents add ${url} FILE`;
}

/** A pinned document whose stored copy no longer has the hash recorded when it was added. */
export class PinnedDocumentChangedError extends UnprocessableError {
  override readonly code: string = 'pinned_document_changed';
  constructor(
    readonly url: string,
    recorded: string,
    found: string | undefined,
  ) {
    super(
      `the stored copy of ${url} changed since it was added (sha256 ${recorded.slice(0, 16)}... recorded, ${found === undefined ? 'no copy found' : `${found.slice(0, 16)}... found`}); it is not used: remove it and add it again (vc documents remove ${url}; ${addDocumentCommand(url)})`,
      { field: '@context', publicUrls: [url] },
    );
  }
}

/** SHA-256 of a text's UTF-8 bytes, hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * A stored record as a PinnedDocument; one another program broke (not JSON, or not the shape vc
 * writes) becomes a record whose copy can never match (sha256 ''): it reads as changed, is listed
 * as not intact, and `vc documents remove` / `add` replace it.
 */
function asPinnedRecord(url: string, value: unknown): PinnedDocument {
  const record = value as Partial<PinnedDocument> | null | undefined;
  const valid =
    typeof record === 'object' && record !== null && record.url === url && (record.kind === 'context' || record.kind === 'schema') && typeof record.sha256 === 'string' && /^[0-9a-f]{64}$/.test(record.sha256) && typeof record.bytes === 'number';
  return valid ? (record as PinnedDocument) : { url, kind: 'context', sha256: '', bytes: 0, addedAt: '' };
}

/** The record of `url`, if pinned (no check of its copy). */
export function pinnedDocumentRecord(store: WalletStore, url: string): PinnedDocument | undefined {
  const found = store.getLenient(PINNED_DOCUMENTS_NS, url);
  if (found === undefined) return undefined;
  return asPinnedRecord(url, 'value' in found ? found.value : undefined);
}

/** Every pinned document's record, by URL. */
export function listPinnedDocuments(store: WalletStore): PinnedDocument[] {
  return store.listLenient(PINNED_DOCUMENTS_NS).map((record) => asPinnedRecord(record.key, record.value));
}

/**
 * The pinned document at `url`, parsed, or undefined when none is pinned there; a copy that does
 * not hash to the recorded SHA-256 is a PinnedDocumentChangedError.
 */
export function readPinnedDocument(store: WalletStore, url: string): unknown {
  const record = pinnedDocumentRecord(store, url);
  if (record === undefined) return undefined;
  const stored = record.sha256 === '' ? undefined : store.getLenient(PINNED_CONTENT_NS, record.sha256);
  const text = stored !== undefined && 'value' in stored && typeof stored.value === 'string' ? stored.value : undefined;
  const found = text === undefined ? undefined : sha256Hex(text);
  if (found !== record.sha256) throw new PinnedDocumentChangedError(url, record.sha256, found);
  try {
    return JSON.parse(text!) as unknown;
  } catch {
    throw new PinnedDocumentChangedError(url, record.sha256, found);
  }
}

/**
 * Pins `text` under `url` in one transaction. Returns the record and whether it was new: the same
 * bytes under the same URL are already pinned (nothing changes); other bytes under a pinned URL
 * are refused by the caller before this is called.
 */
export function writePinnedDocument(store: WalletStore, record: Omit<PinnedDocument, 'sha256' | 'bytes'>, text: string): { record: PinnedDocument; added: boolean } {
  const sha256 = sha256Hex(text);
  const full: PinnedDocument = { ...record, sha256, bytes: Buffer.byteLength(text, 'utf8') };
  return store.transaction(() => {
    const existing = pinnedDocumentRecord(store, record.url);
    const stored = store.getLenient(PINNED_CONTENT_NS, sha256);
    if (existing?.sha256 === sha256 && stored !== undefined && 'value' in stored && stored.value === text) return { record: existing, added: false };
    store.put(PINNED_CONTENT_NS, sha256, text);
    store.put(PINNED_DOCUMENTS_NS, record.url, full);
    return { record: full, added: true };
  });
}

/** Unpins `url` (its text goes once no other URL names it); returns the record removed, if any. */
export function removePinnedDocument(store: WalletStore, url: string): PinnedDocument | undefined {
  return store.transaction(() => {
    const record = pinnedDocumentRecord(store, url);
    if (record === undefined) return undefined;
    store.delete(PINNED_DOCUMENTS_NS, url);
    if (record.sha256 !== '' && !listPinnedDocuments(store).some((other) => other.sha256 === record.sha256)) store.delete(PINNED_CONTENT_NS, record.sha256);
    return record;
  });
}

/** A lookup of pinned documents for loaders: the parsed document, or undefined when not pinned. */
export type PinnedLookup = (url: string) => unknown;

/** The lookup over a wallet store (each call reads and checks the stored copy). */
export function pinnedLookup(store: WalletStore): PinnedLookup {
  return (url) => readPinnedDocument(store, url);
}
