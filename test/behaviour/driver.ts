/**
 * The Driver of the shared behavioural suite (veramo-style, see DESIGN.md): every operation of the
 * three services, taking and returning the spec shapes (the HTTP bodies). One implementation calls
 * the core operations in this process, the other calls the routes of a real server, so the same
 * behaviours run against both and the CLI and `vc serve` cannot drift apart.
 */
import { expect } from 'vitest';
import type { DidObject } from '../../src/iden3/did.js';

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

export type { DidObject } from '../../src/iden3/did.js';

/** The operations behind the spec routes, with the spec's request and response bodies. */
export interface Driver {
  readonly kind: 'in-process' | 'http';
  // Selective disclosure.
  issueSdCredential(body: { type?: string; credentialSubject?: Json }): Promise<Json>;
  storeSdCredential(body: { credential: unknown }): Promise<{ stored: true; type: string; issuer: string }>;
  discloseSd(body: { credentialType: unknown; selectiveDisclosureKeys: unknown; nonce?: unknown }): Promise<DiscloseResult>;
  createNonce(body?: { ttlSeconds?: number }): Promise<{ nonce: string; expiresAt: string }>;
  verifyVc(body: { vc: unknown }): Promise<VerifyResult>;
  // Proof by query.
  createHolderDid(body?: { new?: boolean }): Promise<{ message: string; did: DidObject; did_String: string }>;
  createIssuerDid(): Promise<{ payload: DidObject }>;
  issuePbqCredential(body: { did: unknown; type?: string; subject?: Json }): Promise<{ message: string; credential: Json }>;
  createCredentialRequest(body?: Json): Promise<Json & { id: number }>;
  proveSubmit(body: { verifiableCredential: unknown; credentialRequest: unknown }): Promise<Json>;
  revokePbqCredential(body: { nonce: unknown }): Promise<Json>;
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
