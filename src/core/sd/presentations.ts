/**
 * Verifiable presentations (VC Data Model 2.0): the holder wraps credentials (derived disclosures
 * or whole credentials) in a VerifiablePresentation signed by its own key, a did:key, with proof
 * purpose authentication, bound to the verifier's challenge and domain; the verifier checks that
 * proof, the challenge and domain it asked for, every credential inside (each with the suite its
 * proof names) and the holder binding: a credential that names its subject is presented by that
 * subject (the presentation's signer is the credentialSubject.id).
 *
 * A challenge this verifier issued (`vc verifier nonce`) is used up by a successful verification,
 * so the same presentation cannot be verified twice; VC_REQUIRE_NONCE requires such a challenge.
 */
import type { Context } from '../../context.js';
import { isVcError, UnprocessableError } from '../../errors.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { shortId } from '../../sd/didKey.js';
import type { JsonLdDocument } from '../../sd/proofOutcome.js';
import { loadHolderRdfcKey, type RdfcKey } from '../../sd/suites/rdfc/rdfcKeys.js';
import type { RdfcKeyType } from '../../sd/suites/rdfc/rdfcDidKey.js';
import { cryptosuiteOfKey, describeRdfcError, rdfcProofForm } from '../../sd/suites/rdfc/rdfcSuite.js';
import { CREDENTIALS_V2_URL, isKnownContext } from '../../sd/suites/bbs2023/bbs2023Loader.js';
import { checkBbs2023Shape } from './bbs2023Credentials.js';
import { assertDataModel } from '../vcDataModel.js';
import { findEmbeddedKeyword, type VerificationCheck } from './documentChecks.js';
import { sdEngine } from './sdEngine.js';
import { checkPresentedCredential, inspectChallenge } from './verify.js';

type Json = Record<string, unknown>;

/** The most credentials one presentation may carry (each is verified with its own proof). */
export const MAX_PRESENTED_CREDENTIALS = 10;
/** The longest challenge or domain accepted. */
export const MAX_BINDING_LENGTH = 1024;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The holder's presentation key, as a verifier and an issuer need it (no secret). */
export interface HolderKeyDescription {
  did: string;
  verificationMethod: string;
  keyType: RdfcKeyType;
  type: 'Multikey';
  publicKeyMultibase: string;
  /** The suite its presentations are signed with. */
  cryptosuite: string;
}

function describe(key: RdfcKey): HolderKeyDescription {
  return { did: key.did, verificationMethod: key.verificationMethod, keyType: key.keyType, type: 'Multikey', publicKeyMultibase: key.publicKeyMultibase, cryptosuite: cryptosuiteOfKey(key.keyType) };
}

/** The holder's did:key of `keyType` (created on first use): the credentialSubject.id to have credentials issued to. */
export function describeHolderKey(ctx: Context, keyType: RdfcKeyType = 'Ed25519'): HolderKeyDescription {
  return describe(loadHolderRdfcKey(ctx, keyType));
}

/** The credentials of a presentation (`verifiableCredential`: one object or a list), or why they are not acceptable. */
function presentedCredentials(presentation: Json): Json[] | { problem: string } {
  const value = presentation.verifiableCredential;
  if (value === undefined) return { problem: 'verifiableCredential: the presentation carries no credential' };
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0) return { problem: 'verifiableCredential: the presentation carries no credential' };
  if (list.length > MAX_PRESENTED_CREDENTIALS) return { problem: `verifiableCredential: more than ${MAX_PRESENTED_CREDENTIALS} credentials` };
  for (const [index, item] of list.entries()) {
    const credential = record(item);
    if (credential === undefined) return { problem: `verifiableCredential[${index}]: expected a credential object (a credential given by reference is not accepted)` };
    const types = Array.isArray(credential.type) ? (credential.type as unknown[]) : [credential.type];
    if (types.includes('EnvelopedVerifiableCredential')) return { problem: `verifiableCredential[${index}]: an enveloped credential is not supported (embed the credential with its Data Integrity proof)` };
    if (!types.includes('VerifiableCredential')) return { problem: `verifiableCredential[${index}]: type must include VerifiableCredential` };
    if (credential.proof === undefined) return { problem: `verifiableCredential[${index}]: the credential has no proof` };
  }
  return list as Json[];
}

/**
 * Why a presentation's own members (its credentials and proof aside) are not what vc signs or
 * accepts, or undefined: VC 2.0 first in @context (bundled contexts only), type
 * VerifiablePresentation, a holder that is a URL, no JSON-LD keyword inside, a bounded shape.
 */
function checkPresentationMembers(presentation: Json): string | undefined {
  const contexts = presentation['@context'];
  const first = Array.isArray(contexts) ? (contexts as unknown[])[0] : contexts;
  if (first !== CREDENTIALS_V2_URL) return `@context: the first context of a presentation must be ${CREDENTIALS_V2_URL}`;
  const { verifiableCredential: _credentials, proof: _proof, ...own } = presentation;
  for (const entry of Array.isArray(contexts) ? (contexts as unknown[]) : [contexts]) {
    if (typeof entry !== 'string') return '@context: an inline @context object is not accepted in a presentation (it could redefine what a signed term means)';
    if (!isKnownContext(entry)) return `@context ${shortId(entry)} is not a known context (remote contexts are never fetched)`;
  }
  const types = Array.isArray(presentation.type) ? (presentation.type as unknown[]) : [presentation.type];
  if (!types.includes('VerifiablePresentation')) return 'type must include VerifiablePresentation';
  const holder = typeof presentation.holder === 'string' ? presentation.holder : record(presentation.holder)?.id;
  if (presentation.holder !== undefined && (typeof holder !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(holder))) return 'holder: expected a URL (the holder\'s DID) or an object with one as its id';
  const keyword = findEmbeddedKeyword(own);
  if (keyword !== undefined) return `${keyword}: a JSON-LD keyword inside the presentation is not accepted (it could redefine what a signed term means)`;
  // The shape check of credentials applies to the presentation's own members; it asks for a subject.
  const shape = checkBbs2023Shape({ ...own, credentialSubject: {} });
  return shape?.replace('the credential', 'the presentation');
}

/** The ids a credential's subjects name (credentialSubject: one object or a list). */
export function subjectIds(credential: Json): string[] {
  const subjects = Array.isArray(credential.credentialSubject) ? (credential.credentialSubject as unknown[]) : [credential.credentialSubject];
  return subjects.map((subject) => record(subject)?.id).filter((id): id is string => typeof id === 'string');
}

export interface CreatePresentationOptions {
  /** The credentials to present (each a credential with its proof), or... */
  credentials?: Json[] | undefined;
  /** ...an unsigned presentation to sign (VC-API: its holder, when given, must be this holder). */
  presentation?: Json | undefined;
  challenge: string;
  domain?: string | undefined;
  keyType?: RdfcKeyType | undefined;
  names?: FieldNamer | undefined;
  /** The input field of the credentials, for messages (`credentials`, `presentation.verifiableCredential`). */
  credentialsField?: string | undefined;
}

/**
 * Signs a presentation of the credentials with the holder's key, bound to the verifier's challenge
 * and domain. Refused before signing: what a verifier would refuse in the presentation itself, and
 * a credential whose subject is someone else (the verifier's holder binding would fail).
 */
export async function createHolderPresentation(ctx: Context, options: CreatePresentationOptions): Promise<JsonLdDocument> {
  const names = options.names ?? plainFieldNames;
  const keyType = options.keyType ?? 'Ed25519';
  const key = loadHolderRdfcKey(ctx, keyType);
  const field = options.credentialsField ?? (options.presentation === undefined ? 'credentials' : 'presentation.verifiableCredential');
  let presentation: Json;
  if (options.presentation !== undefined) {
    presentation = structuredClone(options.presentation);
    if (presentation.proof !== undefined) throw new UnprocessableError(`${names('presentation.proof')}: the presentation already has a proof (give it unsigned)`, { field: 'presentation.proof' });
    const holder = typeof presentation.holder === 'string' ? presentation.holder : record(presentation.holder)?.id;
    if (presentation.holder === undefined) presentation.holder = key.did;
    else if (holder !== key.did) {
      throw new UnprocessableError(`${names('presentation.holder')}: expected this holder's ${keyType} did:key ${key.did} (the presentation's signer), got ${shortId(JSON.stringify(presentation.holder), 80)}`, { field: 'presentation.holder' });
    }
  } else {
    presentation = { '@context': [CREDENTIALS_V2_URL], type: ['VerifiablePresentation'], holder: key.did, verifiableCredential: options.credentials ?? [] };
  }
  const base = options.presentation === undefined ? '' : 'presentation';
  const members = checkPresentationMembers(presentation);
  if (members !== undefined) throw new UnprocessableError(`${names(base)}: ${members}`, base === '' ? {} : { field: base });
  const credentials = presentedCredentials(presentation);
  if ('problem' in credentials) throw new UnprocessableError(`${names(field)}: ${credentials.problem.replace(/^verifiableCredential:? ?/, '')}`, { field });
  for (const [index, credential] of credentials.entries()) {
    // A holder presents nothing a verifier refuses by the data model's rules (a shape out of bounds is the verifier's shape check).
    if (checkBbs2023Shape(credential) === undefined) await assertDataModel(ctx, credential, 'verifier', names, `${field}[${index}]`);
    const ids = subjectIds(credential);
    if (ids.length > 0 && !ids.includes(key.did)) {
      throw new UnprocessableError(
        `${names(`${field}[${index}]`)}: its subject is ${shortId(ids.join(', '), 120)}, not this holder (${key.did}): a verifier would refuse the holder binding; have it issued to this did:key (vc holder did-key)`,
        { field: `${field}[${index}]` },
      );
    }
  }
  const engine = await sdEngine(ctx);
  const { verifiableCredential: _credentials, ...own } = presentation;
  const undefinedTerm = await engine.findUndefinedTerms2023(own);
  if (undefinedTerm !== undefined) throw new UnprocessableError(`${names(base)}: ${undefinedTerm.replace('credential', 'presentation')}`, base === '' ? {} : { field: base });
  const suite = cryptosuiteOfKey(keyType);
  const progress = ctx.progress.start(`signing a presentation of ${credentials.length} credential${credentials.length === 1 ? '' : 's'} with ${suite}`);
  try {
    const signed = await engine.signRdfcPresentation(presentation, key.material, { challenge: options.challenge, domain: options.domain }, ctx.now());
    progress.succeed(`signed the presentation (DataIntegrityProof, ${suite}, authentication)`);
    return signed;
  } catch (error) {
    progress.fail();
    if (isVcError(error) && error.httpStatus >= 500) throw error;
    throw new UnprocessableError(`${names(field)}: cannot sign a presentation of these credentials: ${describeRdfcError(error, suite)}`, { field, cause: error });
  }
}

/** One check of a presentation: a failed one is a result with its reason. */
export interface PresentationCheck {
  id: 'presentation' | 'proof-type' | 'challenge' | 'domain' | 'holder' | 'proof' | 'fresh-challenge' | 'credentials';
  valid: boolean;
  reason?: string;
}

export interface PresentedCredentialResult {
  index: number;
  id?: string;
  issuer?: string;
  verified: boolean;
  checks: VerificationCheck[];
}

export interface VerifyPresentationResult {
  verified: boolean;
  message: string;
  /** The checks of the presentation itself. */
  checks: PresentationCheck[];
  /** The checks of each credential inside, holder binding included (empty when the presentation failed first). */
  credentials: PresentedCredentialResult[];
}

export interface VerifyPresentationOptions {
  presentation: Json;
  /** The challenge this verifier gave the holder (a nonce of `vc verifier nonce`, or its own). */
  challenge: string;
  /** The domain this verifier gave, checked when given. */
  domain?: string | undefined;
  /** Require a challenge this verifier issued (always on with VC_REQUIRE_NONCE=true). */
  requireNonce?: boolean | undefined;
  /** Status list credentials the caller gives for the credentials' statuses (`--status-list FILE`), used first. */
  statusLists?: readonly Record<string, unknown>[] | undefined;
}

/** The values of a proof member that may be one string or a list of them (domain). */
function values(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

function finish(checks: PresentationCheck[], credentials: PresentedCredentialResult[], signer: string | undefined): VerifyPresentationResult {
  const failed = checks.find((check) => !check.valid);
  if (failed !== undefined) return { verified: false, message: `verification failed: ${failed.reason ?? failed.id}`, checks, credentials };
  for (const credential of credentials) {
    const check = credential.checks.find((candidate) => !candidate.valid);
    if (check !== undefined) return { verified: false, message: `verification failed: credential ${credential.index}: ${check.reason ?? check.id}`, checks, credentials };
  }
  return { verified: true, message: `presentation verified: ${credentials.length} credential${credentials.length === 1 ? '' : 's'} presented by ${signer ?? 'the holder'}`, checks, credentials };
}

/**
 * Verifies a presentation: its members, its proof's form, the challenge and domain asked for, the
 * holder, the proof itself (over the credentials too), then each credential with the suite its own
 * proof names and the holder binding; the challenge, when this verifier issued it, is used up by
 * a verification that passes every check.
 */
export async function verifyPresentation(ctx: Context, options: VerifyPresentationOptions): Promise<VerifyPresentationResult> {
  const presentation = options.presentation;
  const checks: PresentationCheck[] = [];
  const members = checkPresentationMembers(presentation);
  const credentials = presentedCredentials(presentation);
  const problem = members ?? ('problem' in credentials ? credentials.problem : undefined);
  checks.push(problem === undefined ? { id: 'presentation', valid: true } : { id: 'presentation', valid: false, reason: problem });
  if (problem !== undefined || 'problem' in credentials) return finish(checks, [], undefined);

  const form = rdfcProofForm(presentation, 'authentication');
  if ('problem' in form) {
    const bbs = record(presentation.proof)?.cryptosuite === 'bbs-2023';
    checks.push({ id: 'proof-type', valid: false, reason: bbs ? 'a presentation is signed by its holder with eddsa-rdfc-2022 or ecdsa-rdfc-2019, not bbs-2023' : `the presentation's proof: ${form.problem}` });
    return finish(checks, [], undefined);
  }
  checks.push({ id: 'proof-type', valid: true });
  const proof = record(presentation.proof)!;
  const challenge = proof.challenge;
  checks.push(
    challenge === options.challenge
      ? { id: 'challenge', valid: true }
      : {
          id: 'challenge',
          valid: false,
          reason: `the presentation was signed for the challenge ${shortId(JSON.stringify(challenge) ?? 'none', 80)}, not ${shortId(JSON.stringify(options.challenge), 80)}: made for another request or another verifier (a replay)`,
        },
  );
  if (options.domain !== undefined) {
    checks.push(
      values(proof.domain).includes(options.domain)
        ? { id: 'domain', valid: true }
        : { id: 'domain', valid: false, reason: `the presentation was signed for the domain ${shortId(JSON.stringify(proof.domain) ?? 'none', 80)}, not ${shortId(JSON.stringify(options.domain), 80)}` },
    );
  }
  const holder = typeof presentation.holder === 'string' ? presentation.holder : (record(presentation.holder)?.id as string | undefined);
  if (holder !== undefined) {
    checks.push(holder === form.signer ? { id: 'holder', valid: true } : { id: 'holder', valid: false, reason: `the presentation names the holder ${shortId(holder, 80)} but is signed by ${shortId(form.signer, 80)}` });
  }
  if (checks.some((check) => !check.valid)) return finish(checks, [], form.signer);

  const engine = await sdEngine(ctx);
  const { verifiableCredential: _credentials, proof: _proof, ...own } = presentation;
  const undefinedTerm = await engine.findUndefinedTerms2023(own);
  if (undefinedTerm !== undefined) {
    checks[0] = { id: 'presentation', valid: false, reason: undefinedTerm.replace('credential', 'presentation') };
    return finish(checks, [], form.signer);
  }
  const result = await engine.verifyRdfcPresentation(presentation, { challenge: options.challenge, domain: options.domain }, ctx.now());
  checks.push(result.verified ? { id: 'proof', valid: true } : { id: 'proof', valid: false, reason: result.reason ?? `the presentation's ${form.cryptosuite} proof does not verify` });
  if (!result.verified) return finish(checks, [], form.signer);

  const results = await Promise.all(
    credentials.map(async (credential, index): Promise<PresentedCredentialResult> => {
      const presented = await checkPresentedCredential(ctx, credential, { statusLists: options.statusLists });
      const credentialChecks = [...presented.checks];
      const ids = subjectIds(credential);
      if (presented.complete && ids.length > 0) {
        credentialChecks.push(
          ids.includes(form.signer)
            ? { id: 'holder-binding', valid: true }
            : { id: 'holder-binding', valid: false, reason: `its subject is ${shortId(ids.join(', '), 120)}, but the presentation is signed by ${shortId(form.signer, 80)}: only the subject may present it` },
        );
      }
      const id = typeof credential.id === 'string' ? shortId(credential.id, 200) : undefined;
      const issuer = typeof credential.issuer === 'string' ? credential.issuer : (record(credential.issuer)?.id as string | undefined);
      return {
        index,
        ...(id === undefined ? {} : { id }),
        ...(typeof issuer === 'string' ? { issuer: shortId(issuer, 200) } : {}),
        verified: presented.complete && credentialChecks.every((check) => check.valid),
        checks: credentialChecks,
      };
    }),
  );
  // The challenge last: one this verifier issued is used up only by a verification that passed.
  const required = options.requireNonce === true || ctx.config.verifier.requireNonce;
  const fresh = inspectChallenge(ctx, options.challenge, required);
  const freshCheck = { ...fresh.check, id: 'fresh-challenge' as const, ...(fresh.check.reason === undefined ? {} : { reason: `challenge: ${fresh.check.reason}` }) };
  const allValid = checks.every((check) => check.valid) && results.every((entry) => entry.verified) && freshCheck.valid;
  const used = allValid ? fresh.use() : undefined;
  checks.push(used === undefined ? freshCheck : { id: 'fresh-challenge', valid: false, ...(used.reason === undefined ? {} : { reason: `challenge: ${used.reason}` }) });
  return finish(checks, results, form.signer);
}

/** POST /presentations (VC-API): the given presentation signed by the holder's key of the suite asked for. */
export async function vcApiProve(
  ctx: Context,
  options: {
    presentation: Json;
    options: { challenge: string; domain?: string | undefined; cryptosuite?: 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019' | undefined; verificationMethod?: string | undefined };
    names?: FieldNamer;
  },
): Promise<{ verifiablePresentation: JsonLdDocument }> {
  const names = options.names ?? plainFieldNames;
  const keyType: RdfcKeyType = options.options.cryptosuite === 'ecdsa-rdfc-2019' ? 'P-256' : 'Ed25519';
  const method = options.options.verificationMethod;
  if (method !== undefined) {
    const key = loadHolderRdfcKey(ctx, keyType);
    if (method !== key.verificationMethod) {
      throw new UnprocessableError(`${names('options.verificationMethod')}: this holder signs ${cryptosuiteOfKey(keyType)} presentations with ${key.verificationMethod} only`, { field: 'options.verificationMethod' });
    }
  }
  const verifiablePresentation = await createHolderPresentation(ctx, {
    presentation: options.presentation,
    challenge: options.options.challenge,
    domain: options.options.domain,
    keyType,
    names,
  });
  return { verifiablePresentation };
}

/** A VC-API verification result: the checks made, and the reasons of the failed ones. */
interface VcApiPresentationResult {
  verified: boolean;
  checks: string[];
  warnings: Array<{ name: string; message: string }>;
  errors: Array<{ name: string; message: string }>;
  credentialResults: Array<{ index: number; verified: boolean; checks: string[]; errors: Array<{ name: string; message: string }> }>;
}

/** POST /presentations/verify (VC-API): verifyPresentation in the VC-API's result shape. */
export async function vcApiVerifyPresentation(ctx: Context, options: { presentation: Json; challenge: string; domain?: string | undefined }): Promise<VcApiPresentationResult> {
  const result = await verifyPresentation(ctx, { presentation: options.presentation, challenge: options.challenge, domain: options.domain });
  const errors = (checks: ReadonlyArray<{ valid: boolean; reason?: string | undefined; id: string }>, prefix = ''): Array<{ name: string; message: string }> =>
    checks.filter((check) => !check.valid).map((check) => ({ name: 'VerificationError', message: `${prefix}${check.reason ?? `${check.id} failed`}` }));
  return {
    verified: result.verified,
    checks: result.checks.map((check) => check.id),
    warnings: [],
    errors: [...errors(result.checks), ...result.credentials.flatMap((credential) => errors(credential.checks, `credential ${credential.index}: `))],
    credentialResults: result.credentials.map((credential) => ({
      index: credential.index,
      verified: credential.verified,
      checks: credential.checks.map((check) => check.id),
      errors: errors(credential.checks),
    })),
  };
}
