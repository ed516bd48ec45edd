/**
 * The static document loader of bbs-2023 (W3C Data Integrity BBS, VC Data Model 2.0). It serves
 * what the 2020 loader serves (fixtures/contexts/), the W3C contexts a VC 2.0 credential names:
 * credentials v2 and the VC 2.0 examples context as the W3C publishes them (fixtures/contexts/,
 * byte for byte, so that a relatedResource digest of them can be checked), the undefined-terms
 * context, data-integrity v1/v2, multikey v1, the Bitstring Status List v1 context a VC 1.1
 * credential with a status list entry names, and the VDL context of the W3C test suite's driver's
 * licence (read from the npm packages that publish them), then the documents the user pinned in
 * the wallet, and BLS12-381 G2 did:key identifiers resolved as Multikey verification methods.
 * Nothing is ever fetched: an unknown URL is an UnknownDocumentError naming it and the command
 * that pins it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { UnprocessableError } from '../../../errors.js';
import {
  BUNDLED_DOCUMENTS,
  SD_PASSPORT_CONTEXT_URL,
  SD_PASSPORT_V2_CONTEXT_URL,
  UnknownDocumentError,
  contextsDirectory,
  createStaticDocumentLoader,
  isBundledDocument,
  type DocumentLoader,
  type RemoteDocument,
} from '../../documentLoader.js';
import { isBlsDidKeyUrl, shortId } from '../../didKey.js';
import { STATUS_LIST_V1_CONTEXT_URL } from '../../../status/bitstringStatusList.js';
import type { PinnedLookup } from '../../../store/pinnedDocuments.js';

export const CREDENTIALS_V2_URL = 'https://www.w3.org/ns/credentials/v2';
export const DATA_INTEGRITY_V1_URL = 'https://w3id.org/security/data-integrity/v1';
export const DATA_INTEGRITY_V2_URL = 'https://w3id.org/security/data-integrity/v2';
export const MULTIKEY_V1_URL = 'https://w3id.org/security/multikey/v1';
export const VDL_V1_URL = 'https://w3id.org/vdl/v1';
/** The VC 2.0 examples context: a `@vocab` for the specification's examples (a credential that names it brings that `@vocab`). */
export const CREDENTIALS_EXAMPLES_V2_URL = 'https://www.w3.org/ns/credentials/examples/v2';
/** VC 2.0 section 5.2.1: the last context of a document whose terms no other context defines (a `@vocab` too). */
export const UNDEFINED_TERMS_V2_URL = 'https://www.w3.org/ns/credentials/undefined-terms/v2';
const DID_V1_URL = 'https://www.w3.org/ns/did/v1';

/**
 * The W3C contexts kept in fixtures/contexts/ exactly as the W3C publishes them (w3c/vc-data-model
 * at 979c4af, contexts/credentials/v2 and contexts/credentials/examples/v2): URL -> file. The npm
 * package's credentials v2 holds the same JSON in other whitespace, so its digest would differ.
 */
export const W3C_DOCUMENTS: Readonly<Record<string, string>> = {
  [CREDENTIALS_V2_URL]: 'credentials-v2.json',
  [CREDENTIALS_EXAMPLES_V2_URL]: 'credentials-examples-v2.json',
};

/** The W3C contexts bbs-2023 adds, each from the npm package that publishes it: URL -> [package, file in its contexts/]. */
export const PACKAGED_DOCUMENTS: Readonly<Record<string, readonly [string, string]>> = {
  [UNDEFINED_TERMS_V2_URL]: ['@digitalbazaar/credentials-context', 'undefined-terms-v2.jsonld'],
  [DATA_INTEGRITY_V1_URL]: ['@digitalbazaar/data-integrity-context', 'data-integrity-v1.jsonld'],
  [DATA_INTEGRITY_V2_URL]: ['@digitalbazaar/data-integrity-context', 'data-integrity-v2.jsonld'],
  [MULTIKEY_V1_URL]: ['@digitalbazaar/multikey-context', 'multikey-v1.jsonld'],
  [VDL_V1_URL]: ['@digitalbazaar/vdl-context', 'vdl-v1.jsonld'],
  [STATUS_LIST_V1_CONTEXT_URL]: ['@digitalbazaar/vc-bitstring-status-list-context', 'vc-bitstring-status-list-v1.jsonld'],
};

/** True for a URL either loader serves from the package itself (no I/O beyond it). */
export function isKnownContext(url: string): boolean {
  return isBundledDocument(url) || Object.hasOwn(PACKAGED_DOCUMENTS, url) || Object.hasOwn(W3C_DOCUMENTS, url);
}

/**
 * The documents vc holds byte for byte as their publisher serves them, so a digest of them
 * (a relatedResource's digestSRI or digestMultibase) can be checked: the W3C files above, the
 * packaged ones checked identical to the W3C's (undefined-terms v2 against w3c/vc-data-model,
 * data-integrity v1 against w3c/vc-data-integrity at 570d764), and vc's own contexts, which vc
 * publishes. The other bundled documents are the published JSON re-indented, or npm copies
 * whose bytes differ from what their URL serves: their digests are not checked.
 */
const PUBLISHED_BYTES: ReadonlySet<string> = new Set([
  CREDENTIALS_V2_URL,
  CREDENTIALS_EXAMPLES_V2_URL,
  UNDEFINED_TERMS_V2_URL,
  DATA_INTEGRITY_V1_URL,
  SD_PASSPORT_CONTEXT_URL,
  SD_PASSPORT_V2_CONTEXT_URL,
]);

const require = createRequire(import.meta.url);

/** The directory of an installed package, found from its entry point (its exports hide package.json). */
function packageDirectory(name: string): string {
  let directory = path.dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as { name?: unknown };
      if (manifest.name === name) return directory;
    } catch {
      // no manifest here: keep climbing
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`cannot find the directory of the installed package ${name}`);
    directory = parent;
  }
}

/** The file vc reads a known document from (no I/O beyond the package itself), or undefined. */
function documentFile(url: string): string | undefined {
  if (Object.hasOwn(W3C_DOCUMENTS, url)) return path.join(contextsDirectory(), W3C_DOCUMENTS[url]!);
  const packaged = Object.hasOwn(PACKAGED_DOCUMENTS, url) ? PACKAGED_DOCUMENTS[url] : undefined;
  if (packaged !== undefined) return path.join(packageDirectory(packaged[0]), 'contexts', packaged[1]);
  if (isBundledDocument(url)) return path.join(contextsDirectory(), BUNDLED_DOCUMENTS[url]!);
  return undefined;
}

/** The bytes of a document vc holds as its publisher serves them (see PUBLISHED_BYTES), or undefined. */
export function publishedDocumentBytes(url: string): Uint8Array | undefined {
  if (!PUBLISHED_BYTES.has(url)) return undefined;
  const file = documentFile(url);
  return file === undefined ? undefined : new Uint8Array(readFileSync(file));
}

/** A BLS12-381 G2 did:key (or its key's DID URL) as a Multikey DID document or verification method. */
export function resolveMultikeyDidKey(url: string): Record<string, unknown> {
  const [did, fragment] = url.split('#', 2) as [string, string | undefined];
  const multibase = did.slice('did:key:'.length);
  if (!/^zUC[67][1-9A-HJ-NP-Za-km-z]{131}$/.test(multibase)) {
    throw new UnprocessableError(`${shortId(did)} is not a valid BLS12-381 G2 did:key (expected did:key:zUC7 or did:key:zUC6 and 131 base58 characters)`, { field: 'verificationMethod' });
  }
  if (fragment !== undefined && fragment !== multibase) {
    throw new UnprocessableError(`${shortId(url)}: unknown verification method (a did:key has only #${multibase})`, { field: 'verificationMethod' });
  }
  const id = `${did}#${multibase}`;
  const method = { id, type: 'Multikey', controller: did, publicKeyMultibase: multibase };
  // A DID URL naming the key resolves to the key itself, as the did:key method defines.
  if (fragment !== undefined) return { '@context': MULTIKEY_V1_URL, ...method };
  return {
    '@context': [DID_V1_URL, MULTIKEY_V1_URL],
    id: did,
    verificationMethod: [method],
    assertionMethod: [id],
    authentication: [id],
    capabilityInvocation: [id],
    capabilityDelegation: [id],
  };
}

/**
 * The bbs-2023 loader. Parsed contexts are cached per loader; every call returns a fresh copy, so
 * no caller can alter what the next one sees.
 */
export function createBbs2023DocumentLoader(pinned?: PinnedLookup): DocumentLoader {
  const fixtures = createStaticDocumentLoader(pinned);
  const cache = new Map<string, string>();
  return async (url: string): Promise<RemoteDocument> => {
    if (Object.hasOwn(PACKAGED_DOCUMENTS, url) || Object.hasOwn(W3C_DOCUMENTS, url)) {
      let text = cache.get(url);
      if (text === undefined) {
        text = readFileSync(documentFile(url)!, 'utf8');
        cache.set(url, text);
      }
      return { contextUrl: null, documentUrl: url, document: JSON.parse(text) as unknown };
    }
    if (isBlsDidKeyUrl(url)) return { contextUrl: null, documentUrl: url, document: resolveMultikeyDidKey(url) };
    if (isBundledDocument(url)) return fixtures(url);
    const found = pinned?.(url);
    if (found !== undefined) return { contextUrl: null, documentUrl: url, document: found };
    throw new UnknownDocumentError(url);
  };
}
