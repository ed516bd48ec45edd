/**
 * What every suite's calls give back, the same whichever suite and whichever thread ran them: the
 * JSON-LD documents, a proof check's outcome, and a library failure described in another thread.
 */

/** A JSON-LD object as the libraries see it. */
export type JsonLdDocument = Record<string, unknown>;

/** Outcome of a proof check: valid, or the first library error as a one-line reason. */
export interface ProofCheckResult {
  verified: boolean;
  reason?: string;
}

/**
 * A library failure that happened in another thread (a worker of `vc serve`), carried back with
 * the sentence the suite's describer (describeProofError, describeBbs2023Error) gave for it there: the library's error objects do not cross
 * threads, so the caller gets the description that the original error would have had here.
 */
export class DescribedProofError extends Error {
  override readonly name: string = 'DescribedProofError';
  /** What describeProofError said about the original error. */
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.reason = reason;
  }
}
