/**
 * The module a BBS+ worker thread of `vc serve` runs (see src/workers/pool.ts and bbsWorkerPool.ts): the
 * in-process BBS+ engine (src/sd/engine.ts) behind the worker protocol, with this thread's own
 * static document loader (offline, bundled contexts) and its own BBS+ libraries, loaded through
 * src/sd/library.ts, which gives their WebAssembly node:crypto as its random source and
 * self-tests it. That happens before the worker says it is ready, so no call is ever served by
 * a worker whose randomness was not proven; a failed self-test is the worker's `failed` answer.
 *
 * Documents the user pinned in the wallet (`vc documents add`) are read from the wallet home the
 * pool names in workerData, at each use (so a document pinned while the server runs is seen), with
 * the same hash check as on the main thread.
 *
 * The issuer's key arrives as plain data with each signing call (BlsKeyMaterial) and is kept as a
 * MATTR key pair for the next ones. bbs-2023 runs here too (Digital Bazaar's JavaScript, whose
 * randomness is node:crypto's own), with its key as Bbs2023KeyMaterial, and so do eddsa-rdfc-2022
 * and ecdsa-rdfc-2019, with theirs as RdfcKeyMaterial.
 */
import { threadId, workerData } from 'node:worker_threads';
import { createStaticDocumentLoader } from '../documentLoader.js';
import { createBbs2023DocumentLoader } from '../suites/bbs2023/bbs2023Loader.js';
import { WalletStore } from '../../store/store.js';
import { readPinnedDocument, type PinnedLookup } from '../../store/pinnedDocuments.js';
import { inProcessBbsEngine } from '../engine.js';
import { blsKeyFromMaterial, type BlsIssuerKey, type BlsKeyMaterial } from '../suites/bbs2020/bbs2020Keys.js';
import { bbsLibraries, bbsRandomnessStats, type BbsRandomnessStats } from '../library.js';
import { describeProofError } from '../suites/bbs2020/bbs2020Suite.js';
import { type JsonLdDocument } from '../proofOutcome.js';
import { serveCalls } from '../../workers/protocol.js';
import type { Bbs2023KeyMaterial, VerifyBbs2023Options } from '../suites/bbs2023/bbs2023Suite.js';
import type { PresentationBinding } from '../engine.js';
import type { RdfcKeyMaterial } from '../suites/rdfc/rdfcKeys.js';

/** What a BBS+ worker reports when ready: its randomness self-test passed, and the draws it made. */
export interface BbsWorkerInfo {
  threadId: number;
  selfTested: true;
  randomness: BbsRandomnessStats;
}

/** What the pool gives each worker. */
export interface BbsWorkerData {
  /** The wallet home whose pinned documents the loaders read. */
  home: string;
}

/** The pinned documents of the pool's wallet home, the store opened on first need. */
function pinnedOfHome(home: string | undefined): PinnedLookup | undefined {
  if (home === undefined) return undefined;
  let store: WalletStore | undefined;
  return (url) => readPinnedDocument((store ??= WalletStore.open(home)), url);
}

const pinned = pinnedOfHome((workerData as Partial<BbsWorkerData> | null)?.home);
const engine = inProcessBbsEngine(createStaticDocumentLoader(pinned), createBbs2023DocumentLoader(pinned));

/** Key pairs built from the material of earlier calls (an issuer has one key; a few at most). */
const keys = new Map<string, Promise<BlsIssuerKey>>();
const MAX_KEYS = 8;

function keyOf(material: BlsKeyMaterial): Promise<BlsIssuerKey> {
  const id = `${material.verificationMethod} ${material.publicKeyBase58} ${material.privateKeyBase58}`;
  let key = keys.get(id);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = blsKeyFromMaterial(material);
    keys.set(id, key);
    key.catch(() => keys.delete(id));
  }
  return key;
}

/** The methods the pool calls; bbsWorkerPool.ts calls them with these arguments. */
export const BBS_WORKER_METHODS = {
  signCredential: async (credential: JsonLdDocument, key: BlsKeyMaterial, created: Date) => engine.signCredential(credential, await keyOf(key), created),
  deriveProof: (signed: JsonLdDocument, revealFrame: JsonLdDocument, nonce: Uint8Array) => engine.deriveProof(signed, revealFrame, nonce),
  verifyDerivedProof: (document: JsonLdDocument) => engine.verifyDerivedProof(document),
  verifySignature: (document: JsonLdDocument) => engine.verifySignature(document),
  findUndefinedTerms: (document: object) => engine.findUndefinedTerms(document),
  signBbs2023: (credential: JsonLdDocument, key: Bbs2023KeyMaterial, mandatoryPointers: string[], created: Date) => engine.signBbs2023(credential, key, mandatoryPointers, created),
  deriveBbs2023: (signed: JsonLdDocument, selectivePointers: string[], presentationHeader: Uint8Array) => engine.deriveBbs2023(signed, selectivePointers, presentationHeader),
  verifyBbs2023: (document: JsonLdDocument, now: Date, options?: VerifyBbs2023Options) => engine.verifyBbs2023(document, now, options),
  findUndefinedTerms2023: (document: object) => engine.findUndefinedTerms2023(document),
  signRdfcCredential: (credential: JsonLdDocument, key: RdfcKeyMaterial, created: Date) => engine.signRdfcCredential(credential, key, created),
  signRdfcPresentation: (presentation: JsonLdDocument, key: RdfcKeyMaterial, binding: PresentationBinding, created: Date) => engine.signRdfcPresentation(presentation, key, binding, created),
  verifyRdfcCredential: (document: JsonLdDocument, now: Date) => engine.verifyRdfcCredential(document, now),
  verifyRdfcPresentation: (document: JsonLdDocument, binding: PresentationBinding, now: Date) => engine.verifyRdfcPresentation(document, binding, now),
};

serveCalls({
  prepare: async (): Promise<BbsWorkerInfo> => {
    await bbsLibraries();
    return { threadId, selfTested: true, randomness: bbsRandomnessStats() };
  },
  methods: BBS_WORKER_METHODS,
  // vc's own refusals travel as themselves; a library's error as describeProofError's sentence.
  own: ['MalformedProofValueError', 'DescribedProofError'],
  describe: describeProofError,
});
