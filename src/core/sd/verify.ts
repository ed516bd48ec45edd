/**
 * The verifier side of selective disclosure: one-time nonces, and the verification of a derived
 * credential (spec 2.5) as a list of checks. A failed verification is a result, not an exception.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from '../context.js';
import { InputError } from '../../errors.js';
import { isBundledDocument, CREDENTIALS_V1_URL } from '../../bbs/documentLoader.js';
import { findUndefinedJsonLdTerms } from '../../bbs/jsonldCheck.js';
import { verifyDerivedBbsProof, type JsonLdDocument } from '../../bbs/suite.js';
import { sdDocumentLoader } from './loader.js';
import { SD_NONCES_NAMESPACE, type StoredNonce } from './store.js';

/** The verifier's message for a valid credential (spec section 4, verifier). */
export const VERIFIED_MESSAGE = 'user has been verified successfully';
/** How long an issued nonce stays usable. */
export const DEFAULT_NONCE_TTL_SECONDS = 600;
/** The longest validity a nonce may be given (one day, as the HTTP route allows). */
export const MAX_NONCE_TTL_SECONDS = 86_400;

export interface VerificationCheck {
  id: 'proof-type' | 'context' | 'terms' | 'proof' | 'issuer' | 'trusted-issuer' | 'nonce';
  valid: boolean;
  reason?: string;
}

export interface VerifySelectiveDisclosureResult {
  verified: boolean;
  message: string;
  checks: VerificationCheck[];
}

export interface VerifySelectiveDisclosureOptions {
  /** The holder's derived credential (spec 2.5 `vc`). */
  vc: Record<string, unknown>;
  /** Require the proof's nonce to be one this verifier issued (default false: such a nonce is then merely checked when present). */
  requireNonce?: boolean | undefined;
}

export interface CreateVerifierNonceResult {
  nonce: string;
  expiresAt: string;
}

/**
 * Issues a one-time nonce (32 random bytes, base64) for a holder to bind its derived proof to.
 * Nonces that expired are deleted in the same transaction: an expired nonce, used or not, can no
 * longer make a proof pass, so keeping it would only let the store grow with every request.
 */
export function createVerifierNonce(ctx: Context, options: { ttlSeconds?: number } = {}): CreateVerifierNonceResult {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_NONCE_TTL_SECONDS;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_NONCE_TTL_SECONDS) {
    throw new InputError(`ttlSeconds: expected a whole number of seconds from 1 to ${MAX_NONCE_TTL_SECONDS}, got ${ttlSeconds}`, { field: 'ttlSeconds' });
  }
  const now = ctx.now();
  const nonce = randomBytes(32).toString('base64');
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000).toISOString();
  ctx.store.transaction(() => {
    // Unused expired nonces go (anyone may ask for nonces); used ones stay, so a captured proof
    // bound to one is still recognised as a replay after the nonce expired.
    ctx.store.deleteWhereTimestampBefore(SD_NONCES_NAMESPACE, 'expiresAt', now, { unlessSet: 'usedAt' });
    ctx.store.put<StoredNonce>(SD_NONCES_NAMESPACE, nonce, { createdAt: now.toISOString(), expiresAt });
  });
  return { nonce, expiresAt };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function checkContexts(vc: Record<string, unknown>): VerificationCheck {
  const contexts = vc['@context'];
  const list = Array.isArray(contexts) ? (contexts as unknown[]) : [contexts];
  if (list[0] !== CREDENTIALS_V1_URL) return { id: 'context', valid: false, reason: `the first @context must be ${CREDENTIALS_V1_URL}` };
  for (const entry of list) {
    if (typeof entry !== 'string') {
      return { id: 'context', valid: false, reason: 'an inline @context object is not accepted (it could redefine what a signed term means)' };
    }
    if (!isBundledDocument(entry)) return { id: 'context', valid: false, reason: `@context ${entry} is not a known context (remote contexts are never fetched)` };
  }
  return { id: 'context', valid: true };
}

/** The DID a verification method belongs to (`did:key:z...#z...` -> `did:key:z...`). */
function controllerOf(verificationMethod: string): string {
  return verificationMethod.split('#', 1)[0]!;
}

function checkTrust(ctx: Context, verificationMethod: string): VerificationCheck {
  const trusted = ctx.config.verifier.trustedIssuers;
  if (trusted.includes('*') || trusted.includes(verificationMethod) || trusted.includes(controllerOf(verificationMethod))) {
    return { id: 'trusted-issuer', valid: true };
  }
  return { id: 'trusted-issuer', valid: false, reason: `issuer key ${controllerOf(verificationMethod)} is not in the verifier's trusted issuers (VC_TRUSTED_ISSUERS)` };
}

/**
 * Reads the state of a nonce without changing it: unknown (not issued here), usable, or the reason
 * it cannot be used.
 */
function inspectNonce(ctx: Context, nonce: string | undefined, requireNonce: boolean): { check: VerificationCheck; issuedHere: boolean } {
  if (nonce === undefined) {
    return { check: { id: 'nonce', valid: false, reason: 'the proof carries no nonce' }, issuedHere: false };
  }
  const stored = ctx.store.get<StoredNonce>(SD_NONCES_NAMESPACE, nonce);
  if (stored === undefined) {
    return requireNonce
      ? { check: { id: 'nonce', valid: false, reason: 'the proof nonce was not issued by this verifier (get one with `vc verifier nonce`)' }, issuedHere: false }
      : { check: { id: 'nonce', valid: true }, issuedHere: false };
  }
  if (stored.usedAt !== undefined) {
    return { check: { id: 'nonce', valid: false, reason: `nonce already used at ${stored.usedAt} (replayed proof)` }, issuedHere: true };
  }
  if (Date.parse(stored.expiresAt) <= ctx.now().getTime()) {
    return { check: { id: 'nonce', valid: false, reason: `nonce expired at ${stored.expiresAt}` }, issuedHere: true };
  }
  return { check: { id: 'nonce', valid: true }, issuedHere: true };
}

/** Marks an issued nonce used, atomically; false when another verification used it first. */
function consumeNonce(ctx: Context, nonce: string): boolean {
  return ctx.store.transaction(() => {
    const stored = ctx.store.get<StoredNonce>(SD_NONCES_NAMESPACE, nonce);
    if (stored === undefined || stored.usedAt !== undefined) return false;
    ctx.store.put<StoredNonce>(SD_NONCES_NAMESPACE, nonce, { ...stored, usedAt: ctx.now().toISOString() });
    return true;
  });
}

/**
 * Verifies a selectively disclosed credential: the derived BBS+ proof over exactly the disclosed
 * statements, contexts and terms that cannot change meaning, an issuer binding and trust, and the
 * verifier's one-time nonce (used up on success, so a replay fails).
 */
export async function verifySelectiveDisclosure(ctx: Context, options: VerifySelectiveDisclosureOptions): Promise<VerifySelectiveDisclosureResult> {
  const vc = options.vc;
  const checks: VerificationCheck[] = [];
  const proof = record(vc.proof);
  const proofType = proof?.type;
  const verificationMethod = typeof proof?.verificationMethod === 'string' ? proof.verificationMethod : undefined;

  if (proof === undefined || verificationMethod === undefined) {
    checks.push({ id: 'proof-type', valid: false, reason: 'the credential has no proof object with a verificationMethod' });
    return finish(checks);
  }
  if (proofType !== 'BbsBlsSignatureProof2020') {
    checks.push({ id: 'proof-type', valid: false, reason: `expected a derived proof of type BbsBlsSignatureProof2020, got ${String(proofType)}` });
    return finish(checks);
  }
  checks.push({ id: 'proof-type', valid: true });

  const contextCheck = checkContexts(vc);
  checks.push(contextCheck);
  const documentLoader = await sdDocumentLoader(ctx);
  if (contextCheck.valid) {
    const { proof: _proof, ...document } = vc;
    const undefinedTerm = await findUndefinedJsonLdTerms(document, documentLoader);
    checks.push(undefinedTerm === undefined ? { id: 'terms', valid: true } : { id: 'terms', valid: false, reason: undefinedTerm });
  }

  const proofCheck = await verifyDerivedBbsProof(vc, documentLoader);
  checks.push(proofCheck.verified ? { id: 'proof', valid: true } : { id: 'proof', valid: false, reason: proofCheck.reason ?? 'the BBS+ proof does not verify' });

  const issuer = typeof vc.issuer === 'string' ? vc.issuer : typeof record(vc.issuer)?.id === 'string' ? (record(vc.issuer)!.id as string) : undefined;
  checks.push(
    issuer === controllerOf(verificationMethod)
      ? { id: 'issuer', valid: true }
      : { id: 'issuer', valid: false, reason: `the proof's key belongs to ${controllerOf(verificationMethod)}, not to the credential's issuer ${String(issuer)}` },
  );
  checks.push(checkTrust(ctx, verificationMethod));

  const nonce = typeof proof.nonce === 'string' ? proof.nonce : undefined;
  const inspected = inspectNonce(ctx, nonce, options.requireNonce === true);
  const othersValid = checks.every((check) => check.valid);
  if (othersValid && inspected.check.valid && inspected.issuedHere && !consumeNonce(ctx, nonce!)) {
    checks.push({ id: 'nonce', valid: false, reason: 'nonce already used (replayed proof)' });
  } else {
    checks.push(inspected.check);
  }
  return finish(checks);
}

function finish(checks: VerificationCheck[]): VerifySelectiveDisclosureResult {
  const failed = checks.find((check) => !check.valid);
  if (failed === undefined) return { verified: true, message: VERIFIED_MESSAGE, checks };
  return { verified: false, message: `verification failed: ${failed.reason ?? failed.id}`, checks };
}

export type { JsonLdDocument };
