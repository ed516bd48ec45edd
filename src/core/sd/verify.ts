/**
 * The verifier side of selective disclosure: one-time nonces, and the verification of a derived
 * credential (spec 2.5) as a list of checks. A failed verification is a result, not an exception.
 */
import type { Context } from '../../context.js';
import { InputError, UnprocessableError } from '../../errors.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { shortId } from '../../sd/didKey.js';
import type { JsonLdDocument } from '../../sd/proofOutcome.js';
import { checkContexts, pinnedContexts, checkPresentedShape, checkValidityDates, findEmbeddedKeyword, type VerificationCheck } from './documentChecks.js';
import { admitTogether, sdEngine } from './sdEngine.js';
import { SD_NONCES_NAMESPACE, type StoredNonce } from './sdRecords.js';
import { MAX_NONCE_TTL_SECONDS, existingVerifierNonceSecret, mintVerifierNonce, openVerifierNonce, verifierNonceSecret } from './nonce.js';
import { checkBbs2023Validity, checkDerivedBbs2023, isDataIntegrityCredential } from './bbs2023Credentials.js';
import { checkCredentialStatus } from '../status/credentialStatusCheck.js';
import { checkRdfcCredential } from './rdfcChecks.js';
import { RDFC_CRYPTOSUITES, isRdfcCryptosuite } from '../../sd/suites/rdfc/rdfcSuite.js';
import { dataModelCheck, findDataModelViolation } from '../vcDataModel.js';

export { MAX_NONCE_TTL_SECONDS } from './nonce.js';
export type { VerificationCheck } from './documentChecks.js';

/** The verifier's message for a valid credential (spec section 4, verifier). */
export const VERIFIED_MESSAGE = 'user has been verified successfully';
/** How long an issued nonce stays usable. */
export const DEFAULT_NONCE_TTL_SECONDS = 600;

export interface VerifySelectiveDisclosureResult {
  verified: boolean;
  message: string;
  checks: VerificationCheck[];
}

export interface VerifySelectiveDisclosureOptions {
  /** The holder's derived credential (spec 2.5 `vc`). */
  vc: Record<string, unknown>;
  /** How the caller names input fields (`--credential FILE` on the command line). */
  names?: FieldNamer | undefined;
  /** Require the proof's nonce to be one this verifier issued (default false: such a nonce is then merely checked when present); VC_REQUIRE_NONCE=true requires it whatever this says. */
  requireNonce?: boolean | undefined;
  /** Status list credentials the caller gives for the credential's status entries (see src/core/status). */
  statusLists?: readonly Record<string, unknown>[] | undefined;
}

export interface CreateVerifierNonceResult {
  nonce: string;
  expiresAt: string;
}

/**
 * Issues a one-time nonce for a holder to bind its derived proof to. The nonce authenticates
 * itself and carries its expiry (see nonce.ts), so issuing one writes nothing: anyone may ask for
 * nonces without growing the store, and an expired one stays refused without any record of it.
 */
export function createVerifierNonce(ctx: Context, options: { ttlSeconds?: number } = {}): CreateVerifierNonceResult {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_NONCE_TTL_SECONDS;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_NONCE_TTL_SECONDS) {
    throw new InputError(`ttlSeconds: expected a whole number of seconds from 1 to ${MAX_NONCE_TTL_SECONDS}, got ${ttlSeconds}`, { field: 'ttlSeconds' });
  }
  const expiresAtMs = ctx.now().getTime() + ttlSeconds * 1000;
  const nonce = mintVerifierNonce(verifierNonceSecret(ctx), expiresAtMs);
  return { nonce, expiresAt: new Date(expiresAtMs).toISOString() };
}

/**
 * What a document given to the verifier is when it is not a selective-disclosure credential at
 * all (an iden3 credential, or the issuer's response wrapping one), said so; else undefined.
 */
function otherCredentialKind(document: Record<string, unknown>): string | undefined {
  const inner = record(document.credential);
  if (document.proof === undefined && inner !== undefined && typeof document.message === 'string') {
    const wrapped = otherCredentialKind(inner);
    if (wrapped !== undefined) return `an issuer's response holding ${wrapped}`;
  }
  const proofs = Array.isArray(document.proof) ? document.proof : [document.proof];
  const proofTypes = proofs.map((proof) => record(proof)?.type).filter((type): type is string => typeof type === 'string');
  const iden3Proof = proofTypes.find((type) => type === 'BJJSignature2021' || type.startsWith('Iden3'));
  const statusType = record(document.credentialStatus)?.type;
  if (iden3Proof !== undefined) return `an iden3 credential (proof ${iden3Proof})`;
  if (typeof statusType === 'string' && statusType.startsWith('Iden3') && document.proof === undefined) return `an iden3 credential without its proofs (status ${statusType})`;
  return undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
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
  return { id: 'trusted-issuer', valid: false, reason: `issuer key ${shortId(controllerOf(verificationMethod))} is not in the verifier's trusted issuers (VC_TRUSTED_ISSUERS)` };
}

/** A nonce this verifier issued: self-authenticating, or a record of the older stored format. */
interface IssuedNonce {
  /** Canonical base64, the key of its record. */
  key: string;
  expiresAt: string;
  /** An older-format nonce (32 random bytes), known only by its record written at issuance. */
  stored: boolean;
}

/**
 * Reads the state of a nonce without changing it: unknown (not issued here), usable, or the reason
 * it cannot be used. A nonce of ours is recognised from the nonce itself; one of the older format
 * from its record, kept for good so that it too stays refused once expired.
 */
function inspectNonce(ctx: Context, nonce: string | undefined, requireNonce: boolean): { check: VerificationCheck; issued?: IssuedNonce } {
  if (nonce === undefined) {
    return { check: { id: 'nonce', valid: false, reason: 'the proof carries no nonce' } };
  }
  const opened = openVerifierNonce(existingVerifierNonceSecret(ctx), nonce);
  const stored = ctx.store.get<StoredNonce>(SD_NONCES_NAMESPACE, opened.key);
  if (!opened.ours && stored === undefined) {
    return requireNonce
      ? { check: { id: 'nonce', valid: false, reason: `the proof nonce was not issued by this verifier (${opened.reason}; get one with \`vc verifier nonce\`)` } }
      : { check: { id: 'nonce', valid: true } };
  }
  const issued: IssuedNonce = opened.ours
    ? { key: opened.key, expiresAt: opened.expiresAt.toISOString(), stored: false }
    : { key: opened.key, expiresAt: stored!.expiresAt, stored: true };
  if (stored?.usedAt !== undefined) {
    return { check: { id: 'nonce', valid: false, reason: `nonce already used at ${stored.usedAt} (replayed proof)` }, issued };
  }
  if (Date.parse(issued.expiresAt) <= ctx.now().getTime()) {
    return { check: { id: 'nonce', valid: false, reason: `nonce expired at ${issued.expiresAt}` }, issued };
  }
  return { check: { id: 'nonce', valid: true }, issued };
}

/**
 * Marks an issued nonce used, atomically; returns the failed check when it cannot be used (another
 * verification used it first, or it expired meanwhile). Used self-authenticating nonces are
 * recorded until they expire; then their records go, as the embedded expiry refuses them anyway.
 */
function consumeNonce(ctx: Context, issued: IssuedNonce): VerificationCheck | undefined {
  return ctx.store.transaction(() => {
    const now = ctx.now();
    if (Date.parse(issued.expiresAt) <= now.getTime()) return { id: 'nonce', valid: false, reason: `nonce expired at ${issued.expiresAt}` };
    // Only records without createdAt (used self-authenticating nonces) may go: an older-format
    // record is the only thing that refuses its nonce, used or not.
    ctx.store.deleteWhereTimestampBefore(SD_NONCES_NAMESPACE, 'expiresAt', now, { unlessSet: 'createdAt' });
    const stored = ctx.store.get<StoredNonce>(SD_NONCES_NAMESPACE, issued.key);
    if (stored?.usedAt !== undefined || (issued.stored && stored === undefined)) {
      return { id: 'nonce', valid: false, reason: `nonce already used${stored?.usedAt === undefined ? '' : ` at ${stored.usedAt}`} (replayed proof)` };
    }
    const usedAt = now.toISOString();
    ctx.store.put<StoredNonce>(SD_NONCES_NAMESPACE, issued.key, stored === undefined ? { expiresAt: issued.expiresAt, usedAt } : { ...stored, usedAt });
    return undefined;
  });
}

/**
 * What the checks of a presented credential found before its nonce: the checks, and whether the
 * proof can be bound to a nonce at all (a BBS+ derived proof is, with the nonce it carries; an
 * eddsa-rdfc-2022 or ecdsa-rdfc-2019 proof is not: its freshness comes from a presentation's
 * challenge). `complete` is false when a check failed before the proof was checked.
 */
export interface PresentedCredentialChecks {
  checks: VerificationCheck[];
  complete: boolean;
  nonce: { bound: true; value: string | undefined } | { bound: false };
}

/** The cryptosuites a Data Integrity proof may name here. */
const DATA_INTEGRITY_SUITES = ['bbs-2023', ...RDFC_CRYPTOSUITES];

/**
 * Every check of a credential but its nonce, by the suite its proof names: BbsBlsSignatureProof2020
 * and bbs-2023 (derived proofs: a holder discloses), eddsa-rdfc-2022 and ecdsa-rdfc-2019; then the
 * issuer binding, trust and validity. An unknown suite is refused with the ones known.
 */
export async function checkPresentedCredential(
  ctx: Context,
  vc: Record<string, unknown>,
  options: { statusLists?: readonly Record<string, unknown>[] | undefined } = {},
): Promise<PresentedCredentialChecks> {
  const checks: VerificationCheck[] = [];
  const proof = record(vc.proof);
  const proofType = proof?.type;
  const verificationMethod = typeof proof?.verificationMethod === 'string' ? proof.verificationMethod : undefined;
  const incomplete = (): PresentedCredentialChecks => ({ checks, complete: false, nonce: { bound: false } });

  if (proof === undefined || verificationMethod === undefined) {
    checks.push({ id: 'proof-type', valid: false, reason: 'the credential has no proof object with a verificationMethod' });
    return incomplete();
  }
  if (isDataIntegrityCredential(vc)) {
    const cryptosuite = proof.cryptosuite;
    if (isRdfcCryptosuite(cryptosuite)) {
      checks.push(...(await checkRdfcCredential(ctx, vc)));
      if (!checks.some((check) => check.id === 'proof')) return incomplete();
      checks.push(...bindingChecks(ctx, vc, verificationMethod, checkBbs2023Validity(vc, ctx.now())));
      await pushStatus(ctx, vc, checks, options.statusLists);
      return { checks, complete: true, nonce: { bound: false } };
    }
    if (cryptosuite !== 'bbs-2023') {
      checks.push({ id: 'proof-type', valid: false, reason: `cryptosuite ${shortId(JSON.stringify(cryptosuite) ?? 'nothing', 60)} is not supported (supported: ${DATA_INTEGRITY_SUITES.join(', ')})` });
      return incomplete();
    }
    const derived = await checkDerivedBbs2023(ctx, vc);
    checks.push(...derived.checks);
    if (!checks.some((check) => check.id === 'proof')) return incomplete();
    const header = derived.presentationHeader;
    const nonce = header === undefined || header.length === 0 ? undefined : Buffer.from(header).toString('base64');
    checks.push(...bindingChecks(ctx, vc, verificationMethod, checkBbs2023Validity(vc, ctx.now())));
    await pushStatus(ctx, vc, checks, options.statusLists);
    return { checks, complete: true, nonce: { bound: true, value: nonce } };
  }
  if (proofType !== 'BbsBlsSignatureProof2020') {
    checks.push({ id: 'proof-type', valid: false, reason: `expected a derived proof of type BbsBlsSignatureProof2020 or a DataIntegrityProof (${DATA_INTEGRITY_SUITES.join(', ')}), got ${shortId(JSON.stringify(proofType) ?? 'nothing', 60)}` });
    return incomplete();
  }
  checks.push({ id: 'proof-type', valid: true });

  const embedded = findEmbeddedKeyword(vc);
  const contextCheck: VerificationCheck =
    embedded === undefined
      ? checkContexts(vc, pinnedContexts(ctx))
      : { id: 'context', valid: false, reason: `${embedded}: a JSON-LD keyword inside the credential is not accepted (it could redefine what a signed term means)` };
  checks.push(contextCheck);
  // The shape first: JSON-LD work on an unusual shape can take minutes, and some shapes hide data.
  const shape = checkPresentedShape(vc);
  checks.push(shape === undefined ? { id: 'shape', valid: true } : { id: 'shape', valid: false, reason: shape });
  if (shape !== undefined) return incomplete();
  // The VC 1.1 share of the data model's rules (identifiers, types, issuer, subject, typed objects).
  const dataModel = dataModelCheck(await findDataModelViolation(ctx, vc, 'verifier', { version: 1 }));
  checks.push(dataModel);
  if (!dataModel.valid) return incomplete();
  const engine = await sdEngine(ctx);
  // The terms and the proof are checked independently of each other: at once, so that with the
  // worker threads of `vc serve` they run side by side (in process they simply interleave).
  const { proof: _proof, ...document } = vc;
  admitTogether(engine, contextCheck.valid ? 2 : 1);
  const [undefinedTerm, proofCheck] = await Promise.all([contextCheck.valid ? engine.findUndefinedTerms(document) : undefined, engine.verifyDerivedProof(vc)]);
  if (contextCheck.valid) {
    checks.push(undefinedTerm === undefined ? { id: 'terms', valid: true } : { id: 'terms', valid: false, reason: undefinedTerm });
  }
  checks.push(proofCheck.verified ? { id: 'proof', valid: true } : { id: 'proof', valid: false, reason: proofCheck.reason ?? 'the BBS+ proof does not verify' });
  const nonce = typeof proof.nonce === 'string' ? proof.nonce : undefined;
  checks.push(...bindingChecks(ctx, vc, verificationMethod, checkValidityDates(vc, ctx.now())));
  return { checks, complete: true, nonce: { bound: true, value: nonce } };
}

/**
 * Verifies a presented credential: the proof over exactly the (disclosed) statements, contexts
 * and terms that cannot change meaning, an issuer binding and trust, and for a BBS+ disclosure the
 * verifier's one-time nonce (used up on success, so a replay fails). An eddsa-rdfc-2022 or
 * ecdsa-rdfc-2019 credential carries no nonce: when nonces are required, it has to come in a
 * presentation signed with the verifier's challenge.
 */
export async function verifySelectiveDisclosure(ctx: Context, options: VerifySelectiveDisclosureOptions): Promise<VerifySelectiveDisclosureResult> {
  const kind = otherCredentialKind(options.vc);
  if (kind !== undefined) {
    const names = options.names ?? plainFieldNames;
    throw new UnprocessableError(
      `${names('vc')}: is ${kind}; \`verifier verify\` takes a W3C credential (a BBS+ disclosure from \`vc holder disclose\`, or an eddsa-rdfc-2022 / ecdsa-rdfc-2019 credential)${kind.includes('an iden3') ? '; an iden3 credential is proved on chain with `vc holder prove-submit`' : ''}`,
      { field: 'vc' },
    );
  }
  const presented = await checkPresentedCredential(ctx, options.vc, { statusLists: options.statusLists });
  const checks = presented.checks;
  if (!presented.complete) return finish(checks);
  // VC_REQUIRE_NONCE requires a nonce of ours for every verification; a caller cannot lift it.
  const requireNonce = options.requireNonce === true || ctx.config.verifier.requireNonce;
  if (!presented.nonce.bound) {
    if (requireNonce) {
      const suite = String(record(options.vc.proof)?.cryptosuite);
      checks.push({ id: 'nonce', valid: false, reason: `a ${suite} proof carries no nonce: present the credential in a presentation signed with this verifier's challenge (vc verifier verify --vp)` });
    }
    return finish(checks);
  }
  const inspected = inspectNonce(ctx, presented.nonce.value, requireNonce);
  const othersValid = checks.every((check) => check.valid);
  const refused = othersValid && inspected.check.valid && inspected.issued !== undefined ? consumeNonce(ctx, inspected.issued) : undefined;
  checks.push(refused ?? inspected.check);
  return finish(checks);
}

/** The status of a credential whose other checks hold (its list is obtained and verified), when it has one. */
async function pushStatus(ctx: Context, vc: Record<string, unknown>, checks: VerificationCheck[], statusLists: readonly Record<string, unknown>[] | undefined): Promise<void> {
  if (!checks.every((check) => check.valid)) return;
  const status = await checkCredentialStatus(ctx, vc, { statusLists });
  if (status !== undefined) checks.push(status);
}

/** The checks every suite shares after the proof: the issuer is the key's controller, the key is trusted, the validity dates hold. */
function bindingChecks(ctx: Context, vc: Record<string, unknown>, verificationMethod: string, validity: string | undefined): VerificationCheck[] {
  const issuer = typeof vc.issuer === 'string' ? vc.issuer : typeof record(vc.issuer)?.id === 'string' ? (record(vc.issuer)!.id as string) : undefined;
  return [
    issuer === controllerOf(verificationMethod)
      ? { id: 'issuer', valid: true }
      : {
          id: 'issuer',
          valid: false,
          reason: issuer === undefined ? 'the credential names no issuer' : `the proof's key belongs to ${shortId(controllerOf(verificationMethod))}, not to the credential's issuer ${shortId(issuer)}`,
        },
    checkTrust(ctx, verificationMethod),
    validity === undefined ? { id: 'validity', valid: true } : { id: 'validity', valid: false, reason: validity },
  ];
}

/**
 * The state of a challenge a presentation was signed with, as a nonce of this verifier: one this
 * verifier issued must be unused and unexpired (it is used up by `useChallenge`); another is
 * accepted unless `required`.
 */
export function inspectChallenge(ctx: Context, challenge: string, required: boolean): { check: VerificationCheck; use: () => VerificationCheck | undefined } {
  const inspected = inspectNonce(ctx, challenge, required);
  const issued = inspected.issued;
  return { check: inspected.check, use: () => (issued === undefined ? undefined : consumeNonce(ctx, issued)) };
}

function finish(checks: VerificationCheck[]): VerifySelectiveDisclosureResult {
  const failed = checks.find((check) => !check.valid);
  if (failed === undefined) return { verified: true, message: VERIFIED_MESSAGE, checks };
  return { verified: false, message: `verification failed: ${failed.reason ?? failed.id}`, checks };
}

export type { JsonLdDocument };
