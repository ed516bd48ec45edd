/**
 * The BBS+ engine of `vc serve`: the BbsEngine interface (src/sd/engine.ts) served by a pool of
 * worker threads running bbsWorker.ts, so that signing, deriving, verifying and JSON-LD expansion
 * use every core and never block the event loop. Callers see what the in-process engine gives:
 * the same results and reasons, and errors rebuilt as the same classes (protocol.ts); on top,
 * OverloadedError when the pool's queue is full, and InternalError when a worker dies or overruns
 * its deadline during the call (it is replaced). Workers are also replaced, without failing any
 * call, every BBS_CALLS_PER_WORKER calls of MATTR's WebAssembly: the memory it leaks goes with them.
 */
import { UnknownDocumentError } from '../documentLoader.js';
import { PinnedDocumentChangedError } from '../../store/pinnedDocuments.js';
import type { OverloadedError } from '../../errors.js';
import type { BbsEngine, PresentationBinding } from '../engine.js';
import type { RdfcKeyMaterial } from '../suites/rdfc/rdfcKeys.js';
import { blsKeyMaterial, type BlsIssuerKey } from '../suites/bbs2020/bbs2020Keys.js';
import { MalformedProofValueError } from '../suites/bbs2020/proofValue.js';
import { DescribedProofError, type JsonLdDocument, type ProofCheckResult } from '../proofOutcome.js';
import type { BBS_WORKER_METHODS, BbsWorkerData, BbsWorkerInfo } from './bbsWorker.js';
import { WorkerPool, defaultWorkerCount, workerEntry } from '../../workers/pool.js';
import type { Bbs2023CheckResult, Bbs2023KeyMaterial, VerifyBbs2023Options } from '../suites/bbs2023/bbs2023Suite.js';

type Methods = typeof BBS_WORKER_METHODS;

/**
 * Calls of MATTR's BBS+ WebAssembly (RECYCLED_BY) after which a BBS+ worker is replaced by a
 * fresh one. That WebAssembly never gives back the memory of a proof: its linear memory grows by
 * about 125 KiB for each proof derived or verified (12.5 MiB per 100 calls, in process as in a
 * worker), so a long-running server would grow by about 100 KiB per request; a worker's memory
 * goes with its thread. 500 such calls bound that to about 60 MiB per worker, and a fresh worker
 * (about 0.8 s of one core to load and self-test) per 500 calls costs about 1%. The other calls
 * (JSON-LD expansion, bbs-2023 in JavaScript) leave nothing behind and do not count.
 */
export const BBS_CALLS_PER_WORKER = 500;
/** The worker methods that run MATTR's BBS+ WebAssembly. */
const RECYCLED_BY: ReadonlySet<string> = new Set(['signCredential', 'deriveProof', 'verifyDerivedProof', 'verifySignature'] satisfies Array<keyof Methods>);

export interface BbsWorkerPoolOptions {
  /** Worker threads (default: one per core). */
  size?: number | undefined;
  /** Waiting calls beyond which calls are refused (default QUEUE_PER_WORKER per worker). */
  queueLimit?: number | undefined;
  /** Deadline of one running call in ms (default DEFAULT_CALL_TIMEOUT_MS). */
  callTimeoutMs?: number | undefined;
  /** Calls of the BBS+ WebAssembly after which a worker is replaced by a fresh one (default BBS_CALLS_PER_WORKER). */
  maxCallsPerWorker?: number | undefined;
  /** The worker module (default the built bbsWorker.js); tests wrap it. */
  entry?: URL | undefined;
  /** Receives a line per worker that failed and was replaced. */
  log?: ((message: string) => void) | undefined;
  /** The wallet home whose pinned documents the workers' loaders read after the bundled ones (none: bundled only). */
  home?: string | undefined;
}

/** A BbsEngine whose calls run in worker threads. */
export class BbsWorkerPool implements BbsEngine {
  private constructor(readonly pool: WorkerPool) {}

  /** Starts the workers; resolves once each passed its randomness self-test, else rejects with its error. */
  static async start(options: BbsWorkerPoolOptions = {}): Promise<BbsWorkerPool> {
    const pool = await WorkerPool.start({
      name: 'BBS+',
      entry: options.entry ?? workerEntry('bbsWorker.js', import.meta.url),
      size: options.size ?? defaultWorkerCount(),
      queueLimit: options.queueLimit,
      callTimeoutMs: options.callTimeoutMs,
      errorClasses: [UnknownDocumentError, PinnedDocumentChangedError, MalformedProofValueError, DescribedProofError],
      log: options.log,
      maxCallsPerWorker: options.maxCallsPerWorker ?? BBS_CALLS_PER_WORKER,
      recycledBy: RECYCLED_BY,
      ...(options.home === undefined ? {} : { workerData: { home: options.home } satisfies BbsWorkerData }),
    });
    return new BbsWorkerPool(pool);
  }

  /** Live worker threads; 0 once closed. */
  get size(): number {
    return this.pool.size;
  }

  /** The thread ids of the live workers. */
  get threadIds(): number[] {
    return this.pool.threadIds;
  }

  /** Calls waiting for a worker. */
  get waiting(): number {
    return this.pool.waiting;
  }

  /** What each worker reported when ready (its self-test passed, its random draws). */
  workerInfo(): BbsWorkerInfo[] {
    return this.pool.workerInfo().map((worker) => worker.info as BbsWorkerInfo);
  }

  /** Runs one worker method; with its thread id, for tests and logs. */
  callTraced<M extends keyof Methods>(method: M, ...args: Parameters<Methods[M]>): Promise<{ value: Awaited<ReturnType<Methods[M]>>; threadId: number }> {
    return this.pool.callTraced(method, args);
  }

  private call<M extends keyof Methods>(method: M, ...args: Parameters<Methods[M]>): Promise<Awaited<ReturnType<Methods[M]>>> {
    return this.pool.call(method, args);
  }

  signCredential(credential: JsonLdDocument, key: BlsIssuerKey, created: Date): Promise<JsonLdDocument> {
    return this.call('signCredential', credential, blsKeyMaterial(key), created);
  }

  deriveProof(signed: JsonLdDocument, revealFrame: JsonLdDocument, nonce: Uint8Array): Promise<JsonLdDocument> {
    return this.call('deriveProof', signed, revealFrame, nonce);
  }

  verifyDerivedProof(document: JsonLdDocument): Promise<ProofCheckResult> {
    return this.call('verifyDerivedProof', document);
  }

  verifySignature(document: JsonLdDocument): Promise<ProofCheckResult> {
    return this.call('verifySignature', document);
  }

  findUndefinedTerms(document: object): Promise<string | undefined> {
    return this.call('findUndefinedTerms', document);
  }

  signBbs2023(credential: JsonLdDocument, key: Bbs2023KeyMaterial, mandatoryPointers: string[], created: Date): Promise<JsonLdDocument> {
    return this.call('signBbs2023', credential, key, mandatoryPointers, created);
  }

  deriveBbs2023(signed: JsonLdDocument, selectivePointers: string[], presentationHeader: Uint8Array): Promise<JsonLdDocument> {
    return this.call('deriveBbs2023', signed, selectivePointers, presentationHeader);
  }

  verifyBbs2023(document: JsonLdDocument, now: Date, options?: VerifyBbs2023Options): Promise<Bbs2023CheckResult> {
    return this.call('verifyBbs2023', document, now, options);
  }

  findUndefinedTerms2023(document: object): Promise<string | undefined> {
    return this.call('findUndefinedTerms2023', document);
  }

  signRdfcCredential(credential: JsonLdDocument, key: RdfcKeyMaterial, created: Date): Promise<JsonLdDocument> {
    return this.call('signRdfcCredential', credential, key, created);
  }

  signRdfcPresentation(presentation: JsonLdDocument, key: RdfcKeyMaterial, binding: PresentationBinding, created: Date): Promise<JsonLdDocument> {
    return this.call('signRdfcPresentation', presentation, key, binding, created);
  }

  verifyRdfcCredential(document: JsonLdDocument, now: Date): Promise<ProofCheckResult> {
    return this.call('verifyRdfcCredential', document, now);
  }

  verifyRdfcPresentation(document: JsonLdDocument, binding: PresentationBinding, now: Date): Promise<ProofCheckResult> {
    return this.call('verifyRdfcPresentation', document, binding, now);
  }

  /** The refusal `calls` calls made now would meet (no room for them all), or undefined. */
  overloaded(calls = 1): OverloadedError | undefined {
    return this.pool.refusal(calls);
  }

  /** Stops every worker (waiting calls fail); resolves once all threads have exited. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
