/**
 * The Driver of the shared behavioural suite (veramo-style, see DESIGN.md): the operations of the
 * three services by their names in the operation table (src/core/operations), taking and
 * returning the spec shapes (the HTTP bodies, which are the operations' inputs). Three transports
 * carry a call: in this process (invokeOperation), over HTTP (the route table) and through the
 * `vc` binary (the command table), so the same behaviours run against all three surfaces.
 */
import { expect } from 'vitest';
import type { DidObject } from '../../../src/iden3/did.js';
import { ExitCode } from '../../../src/errors.js';

export type Json = Record<string, unknown>;

/** What a failed call reports, in either driver. */
export class DriverCallError extends Error {
  constructor(
    message: string,
    /** HTTP status (over HTTP: the response's; in process: the error's httpStatus). */
    readonly status: number,
    /** Stable error code (`error.code` of the body / VcError.code). */
    readonly code: string,
    readonly field: string | undefined,
    /** Process exit code the CLI would use (in process only). */
    readonly exitCode: number | undefined,
    /** The thrown VcError's class and its ancestors, e.g. [NotFoundError, InputError, VcError] (in process only). */
    readonly errorClasses?: string[],
  ) {
    super(message);
    this.name = 'DriverCallError';
  }
}

export interface VerifyResult {
  verified: boolean;
  message: string;
  checks: Array<{ id: string; valid: boolean; reason?: string }>;
}

export interface DiscloseResult {
  message: string;
  vc: Json;
}

export type { DidObject } from '../../../src/iden3/did.js';

export type DriverKind = 'in-process' | 'http' | 'cli';

/** Runs one operation of the table by name with its input; failures are DriverCallErrors. */
export type OperationTransport = (operation: string, input: Json) => Promise<unknown>;

/** The Driver over a transport: each method is one operation of the table. */
export function driverOver(kind: DriverKind, call: OperationTransport, close: () => Promise<void>): Driver {
  const as = <T>(operation: string) => (input: object = {}) => call(operation, input as Json) as Promise<T>;
  return {
    kind,
    issueSdCredential: as('sd.issue'),
    storeSdCredential: as('sd.import'),
    discloseSd: as('sd.disclose'),
    createNonce: as('sd.nonce'),
    verifyVc: as('sd.verify'),
    createHolderDid: as('pbq.holderDid'),
    createIssuerDid: () => call('pbq.issuerDid', {}) as Promise<{ payload: DidObject; did_String: string; created: boolean }>,
    issuePbqCredential: as('pbq.issue'),
    createCredentialRequest: as('pbq.request'),
    proveSubmit: as('pbq.proveSubmit'),
    revokePbqCredential: as('pbq.revoke'),
    listHeldCredentials: as('holder.list'),
    deleteHeldCredential: as('holder.delete'),
    close,
  };
}

/** The operations behind the spec routes, with the spec's request and response bodies. */
export interface Driver {
  readonly kind: DriverKind;
  // Selective disclosure.
  issueSdCredential(body: { type?: string; credentialSubject?: Json }): Promise<Json>;
  storeSdCredential(body: { credential: unknown }): Promise<{ stored: true; type: string; id: string; issuer: string }>;
  discloseSd(body: { credentialType?: unknown; credentialId?: unknown; selectiveDisclosureKeys: unknown; nonce?: unknown }): Promise<DiscloseResult>;
  createNonce(body?: { ttlSeconds?: number }): Promise<{ nonce: string; expiresAt: string }>;
  verifyVc(body: { vc: unknown }): Promise<VerifyResult>;
  // Proof by query.
  createHolderDid(body?: { new?: boolean }): Promise<{ message: string; did: DidObject; did_String: string; created: boolean }>;
  createIssuerDid(): Promise<{ payload: DidObject; did_String: string; created: boolean }>;
  issuePbqCredential(body: { did: unknown; type?: string; subject?: Json }): Promise<{ message: string; credential: Json }>;
  createCredentialRequest(body?: Json): Promise<Json & { id: number }>;
  proveSubmit(body: { verifiableCredential: unknown; credentialRequest: unknown }): Promise<Json>;
  revokePbqCredential(body: { nonce: unknown }): Promise<Json>;
  // The holder's credential store.
  listHeldCredentials(body?: { type?: string; issuer?: string; kind?: string }): Promise<{ credentials: Array<Json & { id: string; type: string; kind: string }> }>;
  deleteHeldCredential(body: { id: unknown }): Promise<Json & { deleted: true; id: string }>;
  /** Releases the driver (server, context, local chain). */
  close(): Promise<void>;
}

/** The VcError subclass behind each error code (what the CLI throws for what HTTP answers). */
const ERROR_CLASS_BY_CODE: Record<string, string> = {
  invalid_input: 'InputError',
  not_found: 'NotFoundError',
  conflict: 'ConflictError',
  unprocessable: 'UnprocessableError',
  verification_failed: 'VerificationError',
  config_error: 'ConfigError',
};

/** The HTTP status of each error code (what a CLI error code would answer over HTTP). */
export const STATUS_BY_CODE: Record<string, number> = {
  invalid_input: 400,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  verification_failed: 422,
  config_error: 500,
  internal_error: 500,
  network_error: 502,
  store_error: 503,
};

/** The exit code of a process that failed with a VcError of this code. */
export function exitCodeOf(code: string): number {
  if (code === 'verification_failed') return ExitCode.verificationFailed;
  if (code === 'config_error' || code === 'store_error') return ExitCode.config;
  if (code === 'network_error') return ExitCode.network;
  if (code === 'internal_error') return ExitCode.internal;
  return ExitCode.usage;
}

/** Asserts that `promise` fails with the given status, code and (when given) field. */
export async function expectCallError(
  promise: Promise<unknown>,
  expected: { status: number; code: string; field?: string | RegExp; message?: RegExp },
): Promise<DriverCallError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'the call was expected to fail').toBeInstanceOf(DriverCallError);
  const error = caught as DriverCallError;
  expect({ status: error.status, code: error.code }, error.message).toEqual({ status: expected.status, code: expected.code });
  if (typeof expected.field === 'string') expect(error.field).toBe(expected.field);
  else if (expected.field instanceof RegExp) expect(error.field).toMatch(expected.field);
  if (expected.message !== undefined) expect(error.message).toMatch(expected.message);
  // On the command line a rejected proof exits 1 and every other error a caller can cause is an
  // input error (exit 2).
  if (error.exitCode !== undefined && expected.status < 500) expect(error.exitCode).toBe(expected.code === 'verification_failed' ? 1 : 2);
  if (error.errorClasses !== undefined) expect(error.errorClasses).toContain(ERROR_CLASS_BY_CODE[expected.code]);
  return error;
}
