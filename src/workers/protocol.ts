/**
 * The messages between a worker pool (pool.ts, main thread) and its workers, and the transport of
 * errors across that boundary. Both sides import this module.
 *
 * A worker first prepares (loads its libraries, runs their self-tests) and says `ready` or
 * `failed`; then it answers each `call` with a `result` or an `error`, one call at a time.
 *
 * Errors: structured cloning keeps only the message of an Error, so a VcError would arrive as a
 * plain Error and callers would lose its class, code, status, exit code and field. So the worker
 * sends the class name, message and every own plain field, and the main thread rebuilds an object
 * of the same class (by name, from the classes it knows) with those fields, without running a
 * constructor: `instanceof`, `code`, `httpStatus`, `exitCode`, `field` and the message are what
 * the in-process call would have thrown. An error of a library, whose object cannot be rebuilt,
 * is described where it happened (`describe`, e.g. describeProofError) and arrives as the class
 * the caller's describer recognises with that description (DescribedProofError for BBS+).
 */
import { parentPort, threadId } from 'node:worker_threads';
import * as errors from '../errors.js';

/** main -> worker: run `method` with `args` (structured-cloned). */
export interface CallMessage {
  type: 'call';
  id: number;
  method: string;
  args: unknown[];
}

/** worker -> main. */
export type WorkerMessage =
  /** Prepared (libraries loaded, self-tests passed): `info` is what `prepare` returned. */
  | { type: 'ready'; info: unknown }
  /** Preparing failed: the worker serves nothing and the pool stops it. */
  | { type: 'failed'; error: SerializedError }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'error'; id: number; error: SerializedError };

/** An error as it crosses threads. */
export interface SerializedError {
  /** The class to rebuild (the error's `name`, which vc's error classes set to their class name). */
  name: string;
  message: string;
  stack?: string | undefined;
  /** Own enumerable fields with plain values: code, httpStatus, exitCode, field, details, url, reason... */
  fields: Record<string, string | number | boolean | null>;
}

/** A class an error can be rebuilt as. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/** The class name a library error travels as, with its description in `fields.reason`. */
export const DESCRIBED_ERROR_NAME = 'DescribedProofError';

function plainFields(error: object): SerializedError['fields'] {
  const fields: SerializedError['fields'] = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  return fields;
}

/**
 * The transportable form of `error` (worker side). vc's own errors (VcError and the classes named
 * in `own`) travel as themselves; anything else, when `describe` is given, as DescribedProofError
 * with what `describe` says about it; otherwise as a plain Error with its first message line.
 */
export function serializeError(error: unknown, options: { own?: readonly string[]; describe?: (error: unknown) => string } = {}): SerializedError {
  const stack = error instanceof Error ? error.stack : undefined;
  if (errors.isVcError(error) || (error instanceof Error && options.own?.includes(error.name) === true)) {
    return { name: error.name, message: error.message, stack, fields: plainFields(error) };
  }
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
  if (options.describe !== undefined) {
    return { name: DESCRIBED_ERROR_NAME, message, stack, fields: { name: DESCRIBED_ERROR_NAME, reason: options.describe(error) } };
  }
  return { name: 'Error', message, stack, fields: {} };
}

/** Every error class of src/errors.ts, by name (VcError and its subclasses). */
const VC_ERROR_CLASSES: ReadonlyMap<string, ErrorClass> = new Map(
  (Object.values(errors) as unknown[])
    .filter((value): value is ErrorClass => typeof value === 'function' && (value === errors.VcError || (value.prototype as unknown) instanceof errors.VcError))
    .map((value) => [value.name, value]),
);

/**
 * Rebuilds an error sent by a worker (main side) as an instance of its class: one of
 * src/errors.ts, one of `classes`, VcError for a VcError subclass this thread does not know (its
 * code, status and exit code are kept as fields), else Error. The stack is the worker's.
 */
export function reviveError(serialized: SerializedError, classes: readonly ErrorClass[], workerThreadId: number): Error {
  const known = VC_ERROR_CLASSES.get(serialized.name) ?? classes.find((candidate) => candidate.name === serialized.name);
  const fallback = typeof serialized.fields.httpStatus === 'number' ? errors.VcError : Error;
  const error = Object.create((known ?? fallback).prototype as object) as Error;
  Object.defineProperty(error, 'message', { value: serialized.message, writable: true, configurable: true, enumerable: false });
  const stack = `${serialized.stack ?? `${serialized.name}: ${serialized.message}`}\n    (in worker thread ${workerThreadId})`;
  Object.defineProperty(error, 'stack', { value: stack, writable: true, configurable: true, enumerable: false });
  Object.assign(error, serialized.fields);
  if (!Object.hasOwn(error, 'name') && known === undefined) Object.defineProperty(error, 'name', { value: serialized.name, writable: true, configurable: true, enumerable: false });
  return error;
}

/** What a worker module passes to `serveCalls`. */
export interface WorkerService {
  /** Runs before the first call (load libraries, self-tests); its result is the `ready` message's info. */
  prepare(): Promise<unknown>;
  /** The callable methods, by name; each returns structured-cloneable values. */
  methods: Readonly<Record<string, (...args: never[]) => Promise<unknown>>>;
  /** Classes besides VcError that travel as themselves (by name). */
  own?: readonly string[];
  /** Describes a library error for its callers (see serializeError). */
  describe?: (error: unknown) => string;
}

/** Serves calls from the pool on this worker thread's parent port (worker side). */
export function serveCalls(service: WorkerService): void {
  const port = parentPort;
  if (port === null) throw new errors.InternalError('a worker module was loaded outside a worker thread');
  const send = (message: WorkerMessage): void => port.postMessage(message);
  const failure = (error: unknown) => serializeError(error, { ...(service.own === undefined ? {} : { own: service.own }), ...(service.describe === undefined ? {} : { describe: service.describe }) });
  void (async () => {
    let info: unknown;
    try {
      info = await service.prepare();
    } catch (error) {
      send({ type: 'failed', error: failure(error) });
      port.close();
      return;
    }
    port.on('message', (message: CallMessage) => {
      void (async () => {
        const method = Object.hasOwn(service.methods, message.method) ? service.methods[message.method] : undefined;
        try {
          if (method === undefined) throw new errors.InternalError(`worker thread ${threadId} has no method ${message.method}`);
          const value = await (method as (...args: unknown[]) => Promise<unknown>)(...message.args);
          try {
            send({ type: 'result', id: message.id, value });
          } catch (error) {
            // A value that cannot be cloned is a bug of the method, reported as such.
            send({ type: 'error', id: message.id, error: serializeError(new errors.InternalError(`the result of ${message.method} cannot cross threads: ${errors.describeError(error)}`)) });
          }
        } catch (error) {
          send({ type: 'error', id: message.id, error: failure(error) });
        }
      })();
    });
    send({ type: 'ready', info });
  })();
}
