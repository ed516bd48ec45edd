/**
 * The error hierarchy of `vc`. Every error a user can cause is a VcError subclass carrying an
 * exit code and (for HTTP) a status; only bin/vc.ts turns them into a process exit.
 * Anything that is not a VcError is a bug (exit code 70).
 */

export const ExitCode = {
  ok: 0,
  verificationFailed: 1,
  usage: 2,
  config: 3,
  network: 4,
  internal: 70,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface VcErrorOptions {
  /** Extra detail shown on a second line in verbose mode and in JSON output. */
  details?: string;
  /** The input field or file the error is about (JSON error bodies carry it as `field`). */
  field?: string;
  /** The underlying error. */
  cause?: unknown;
  /**
   * URLs in the message that name public documents (a JSON-LD context, a JSON schema), shown
   * whole where other URLs are cut to their origin (redactUrls): the user needs them to act.
   */
  publicUrls?: readonly string[];
}

/** Base class: a short one-line message meant for the user, an exit code and an HTTP status. */
export class VcError extends Error {
  readonly exitCode: ExitCodeValue = ExitCode.internal;
  readonly httpStatus: number = 500;
  /** Stable machine-readable code used in JSON error bodies. */
  readonly code: string = 'internal_error';
  readonly details: string | undefined;
  readonly field: string | undefined;
  /** URLs of public documents the message names (VcErrorOptions.publicUrls). */
  readonly publicUrls: readonly string[] | undefined;

  constructor(message: string, options: VcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details;
    this.field = options.field;
    this.publicUrls = options.publicUrls;
  }

  /** This error and its causes (walkErrorCauses): the first for which `fn` is true, or the innermost without `fn`. */
  walk(fn?: (link: unknown) => boolean): unknown {
    return walkErrorCauses(this, fn);
  }
}

/** How many links of a cause chain are followed (chains are short; a longer one is a loop). */
export const MAX_CAUSE_DEPTH = 8;

/**
 * The error behind `error`, as libraries record it: the first of a list (an array, or the
 * `errors` jsonld-signatures and AggregateError collect), jsonld's `details.cause`, the standard
 * `cause`, or the `error` property ethers and others use; undefined at the end of the chain.
 */
export function nextErrorCause(error: unknown): unknown {
  if (Array.isArray(error)) return error[0];
  if (typeof error !== 'object' || error === null) return undefined;
  const link = error as { errors?: unknown; details?: { cause?: unknown }; cause?: unknown; error?: unknown };
  if (Array.isArray(link.errors) && link.errors.length > 0) return link.errors[0];
  if (link.details?.cause !== undefined) return link.details.cause;
  return link.cause !== undefined ? link.cause : link.error;
}

/**
 * The one walk over an error's causes (viem's BaseError.walk): from `error` itself down the chain
 * of nextErrorCause, at most `maxDepth` links. With `fn`, the first link for which it is true
 * (undefined if none); without, the innermost link.
 */
export function walkErrorCauses(error: unknown, fn?: (link: unknown) => boolean, maxDepth = MAX_CAUSE_DEPTH): unknown {
  let current = error;
  for (let depth = 1; current !== undefined && current !== null; depth++) {
    if (fn?.(current) === true) return current;
    const next = nextErrorCause(current);
    if (next === undefined || next === null || depth >= maxDepth) break;
    current = next;
  }
  return fn === undefined ? current : undefined;
}

/** Bad command-line usage or bad input data (file missing, invalid JSON, wrong field). */
export class InputError extends VcError {
  override readonly exitCode = ExitCode.usage;
  override readonly httpStatus: number = 400;
  override readonly code: string = 'invalid_input';
}

/** A well-formed request whose content cannot be processed (unknown type, missing credential...). */
export class UnprocessableError extends InputError {
  override readonly httpStatus: number = 422;
  override readonly code: string = 'unprocessable';
}

/**
 * A credential that breaks a rule of the VC data model (src/core/vcDataModel.ts): an issuer does
 * not sign it, a holder does not keep it. HTTP 422 `data_model_violation`, exit 2; the message
 * and `check` name the rule (`data-model:schema-type`).
 */
export class DataModelError extends UnprocessableError {
  override readonly code: string = 'data_model_violation';
  /** The check id, `data-model:<rule>`. */
  readonly check: string;
  constructor(message: string, check: string, options: VcErrorOptions = {}) {
    super(message, options);
    this.check = check;
  }
}

/**
 * The input is more work than one request may cost (a credential with more statements than the
 * route's limit): HTTP 413 `payload_too_large`, exit 2. The message names the limit and what was counted.
 */
export class TooLargeError extends InputError {
  override readonly httpStatus: number = 413;
  override readonly code: string = 'payload_too_large';
}

/** Something requested does not exist (no stored credential of that type, unknown DID...). */
export class NotFoundError extends InputError {
  override readonly httpStatus: number = 404;
  override readonly code: string = 'not_found';
}

/** The request conflicts with the current state (already exists, nonce reused...). */
export class ConflictError extends InputError {
  override readonly httpStatus: number = 409;
  override readonly code: string = 'conflict';
}

/** Invalid configuration (environment, .env file, conf). */
export class ConfigError extends VcError {
  override readonly exitCode = ExitCode.config;
  override readonly httpStatus: number = 500;
  override readonly code: string = 'config_error';
}

/** The chain, an RPC endpoint or another remote service failed. */
export class NetworkError extends VcError {
  override readonly exitCode = ExitCode.network;
  override readonly httpStatus: number = 502;
  override readonly code: string = 'network_error';
}

/**
 * A verification failed or a proof was rejected (by us or by a contract). Commands that verify
 * normally return a result object instead; this is for operations whose only outcome is success.
 */
export class VerificationError extends VcError {
  override readonly exitCode = ExitCode.verificationFailed;
  override readonly httpStatus: number = 422;
  override readonly code: string = 'verification_failed';
}

/** The wallet store is locked by another process for too long or unreadable, or a file cannot be written (full disk, I/O error). */
export class StoreError extends VcError {
  override readonly exitCode = ExitCode.config;
  override readonly httpStatus: number = 503;
  override readonly code: string = 'store_error';
}

/** A fault of vc itself or of its environment, not of the input (exit 70, HTTP 500): e.g. a failed self-test. */
export class InternalError extends VcError {}

/**
 * The service is busy: `vc serve`'s worker pool has as many calls waiting as it queues, so this
 * one is refused at once instead of waiting behind them (HTTP 503 with Retry-After). Nothing
 * was done; the same request succeeds later. Exit 4 like a busy or unreachable service, should a
 * command ever meet it (commands run their work in process and never queue).
 */
export class OverloadedError extends VcError {
  override readonly exitCode = ExitCode.network;
  override readonly httpStatus: number = 503;
  override readonly code: string = 'overloaded';
  /** Whole seconds after which a retry is likely to be accepted (the Retry-After header). */
  readonly retryAfterSeconds: number;

  constructor(message: string, options: VcErrorOptions & { retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds ?? 1));
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'NETWORK_ERROR', 'TIMEOUT']);

/**
 * A NetworkError for a failure that is a lost connection (a node that died mid-command, a socket
 * closed under a library call), whatever library raised it; undefined for anything else. Used by
 * the entry points so such failures exit 4 / answer 502 with the reason, never as internal bugs.
 */
export function asConnectionFailure(error: unknown): NetworkError | undefined {
  if (isVcError(error)) return undefined;
  const lost = walkErrorCauses(error, (link) => {
    const code = (link as { code?: unknown }).code;
    return typeof code === 'string' && CONNECTION_CODES.has(code);
  }, 6);
  if (lost !== undefined) return new NetworkError(`lost the connection to the chain or a service (${redactUrls(describeError(lost))})`, { cause: error });
  if (error instanceof Error && /\b(ECONNREFUSED|ECONNRESET|socket hang up)\b/.test(error.message)) {
    return new NetworkError(`lost the connection to the chain or a service (${redactUrls(describeError(error))})`, { cause: error });
  }
  return undefined;
}

/** True when the value is one of our errors (as opposed to a bug or a library failure). */
export function isVcError(error: unknown): error is VcError {
  return error instanceof VcError;
}

/** A one-line description of any thrown value, for wrapping library errors. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}

/**
 * Replaces every URL in a message by its origin: RPC and RHS URLs often carry API keys in their
 * path, query or user info, which must not reach HTTP clients or shared logs.
 */
export function redactUrls(text: string, publicUrls: readonly string[] = []): string {
  return text.replace(/\b(https?|wss?):\/\/[^\s"'<>)`]+/gi, (match) => {
    const trailing = /[.,;:]+$/.exec(match)?.[0] ?? '';
    // A public document's URL (VcErrorOptions.publicUrls) is its name: shown whole.
    if (publicUrls.includes(match.slice(0, match.length - trailing.length))) return match;
    try {
      const url = new URL(match.slice(0, match.length - trailing.length));
      const hidden = url.pathname.length > 1 || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '' ? '/…' : '';
      return `${url.protocol}//${url.host}${hidden}${trailing}`;
    } catch {
      return `(url)${trailing}`;
    }
  });
}

/**
 * " (did you mean X?)" when one of `candidates` is close to `word` (same letters but for case, or
 * at most a third of them edited), else "".
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const lower = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = name.toLowerCase() === lower ? 0 : editDistance(lower, name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best === undefined || best.name === word || best.distance > Math.max(1, Math.floor(word.length / 3))) return '';
  return ` (did you mean ${best.name}?)`;
}

/** Levenshtein distance (insertions, deletions, substitutions; a swap of neighbours counts one). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
