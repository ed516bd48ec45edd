/**
 * The static JSON-LD document loader of the BBS+ flow. Every context a credential of ours can
 * name ships in fixtures/contexts/, others are those the user pinned in the wallet (`vc documents
 * add`, read after the bundled ones and checked against their recorded hash), and BLS12-381 G2
 * did:key identifiers are resolved by decoding the key from the identifier itself, so signing,
 * deriving and verifying never touch the network. An unknown URL is an error naming it and the
 * command that pins it (a remote context could change what a signature means).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UnprocessableError } from '../errors.js';
import { packageRoot } from '../paths.js';
import { addDocumentCommand, type PinnedLookup } from '../store/pinnedDocuments.js';
import { BBS_V1_URL, CREDENTIALS_V1_URL, SD_PASSPORT_CONTEXT_URL, SD_PASSPORT_SCHEMA_URL, SD_PASSPORT_V2_CONTEXT_URL } from './contextUrls.js';
import { isBlsDidKeyUrl, resolveBlsDidKey } from './didKey.js';

export { BBS_V1_URL, CREDENTIALS_V1_URL, SD_PASSPORT_CONTEXT_URL, SD_PASSPORT_SCHEMA_URL, SD_PASSPORT_V2_CONTEXT_URL };
/** Re-exported for the modules that locate fixtures/ through this one. */
export { packageRoot };

/** Every bundled document: URL -> file under fixtures/contexts/. */
export const BUNDLED_DOCUMENTS: Readonly<Record<string, string>> = {
  [CREDENTIALS_V1_URL]: 'credentials-v1.json',
  [BBS_V1_URL]: 'security-bbs-v1.json',
  'https://w3id.org/security/v1': 'security-v1.json',
  'https://w3id.org/security/v2': 'security-v2.json',
  'https://w3id.org/security/suites/jws-2020/v1': 'security-suites-jws-2020-v1.json',
  'https://www.w3.org/ns/did/v1': 'did-v1.json',
  [SD_PASSPORT_CONTEXT_URL]: 'sd-passport-v1.json',
  [SD_PASSPORT_V2_CONTEXT_URL]: 'sd-passport-v2.json',
  [SD_PASSPORT_SCHEMA_URL]: 'sd-passport-v1.schema.json',
};

/** The shape jsonld expects from a document loader. */
export interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: unknown;
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/** Error thrown for a URL that is neither bundled, nor pinned, nor a did:key we can decode. */
export class UnknownDocumentError extends UnprocessableError {
  override readonly code: string = 'unknown_document';
  readonly url: string;
  constructor(url: string) {
    super(unknownContextMessage(url), { field: '@context', publicUrls: [url] });
    this.url = url;
  }
}

/** Why a context is refused, and how to have it: the URL and the command that pins it. */
export function unknownContextMessage(url: string): string {
  return `unknown JSON-LD context ${url}: add it with \`${addDocumentCommand(url)}\` (vc never fetches documents from the network)`;
}

/** Directory of the bundled JSON-LD contexts. */
export function contextsDirectory(): string {
  return path.join(packageRoot(), 'fixtures', 'contexts');
}

/** True when the URL is served by the static loader without any I/O beyond the package itself. */
export function isBundledDocument(url: string): boolean {
  return Object.hasOwn(BUNDLED_DOCUMENTS, url);
}

/**
 * Creates the static loader: the bundled documents, then those `pinned` finds (the wallet's, read
 * and checked at each call), then did:key. Parsed files are cached per loader and every call
 * returns a fresh copy, so no caller can alter what the next one sees.
 */
export function createStaticDocumentLoader(pinned?: PinnedLookup): DocumentLoader {
  const directory = contextsDirectory();
  const cache = new Map<string, string>();
  return async (url: string): Promise<RemoteDocument> => {
    if (isBundledDocument(url)) {
      let text = cache.get(url);
      if (text === undefined) {
        text = readFileSync(path.join(directory, BUNDLED_DOCUMENTS[url]!), 'utf8');
        cache.set(url, text);
      }
      return { contextUrl: null, documentUrl: url, document: JSON.parse(text) as unknown };
    }
    const found = pinned?.(url);
    if (found !== undefined) return { contextUrl: null, documentUrl: url, document: found };
    if (isBlsDidKeyUrl(url)) {
      return { contextUrl: null, documentUrl: url, document: await resolveBlsDidKey(url) };
    }
    throw new UnknownDocumentError(url);
  };
}
