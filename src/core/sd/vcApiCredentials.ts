/**
 * The W3C VC-API operations on credentials (see src/core/operations/vcApiOperations.ts): issue a
 * given credential (bbs-2023, or eddsa-rdfc-2022 / ecdsa-rdfc-2019), derive a bbs-2023 disclosure
 * by JSON Pointers, verify a proof with the suite it names. Every check of the sd.* flow that does
 * not depend on the spec's flat passport subjects applies here too.
 */
import type { Context } from '../../context.js';
import { InputError, TooLargeError } from '../../errors.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { BBS_2023, proofHeader } from '../../sd/suites/bbs2023/bbs2023Suite.js';
import type { StatusPurpose } from '../../status/bitstringStatusList.js';
import { statusRequest } from '../status/issuerStatusLists.js';
import { checkCredentialStatus } from '../status/credentialStatusCheck.js';
import { admitTogether, sdEngine } from './sdEngine.js';
import {
  checkBbs2023BaseCredential,
  checkBbs2023Document,
  checkBbs2023Validity,
  checkPointers,
  deriveBbs2023Credential,
  resolvePointer,
  signGivenBbs2023Credential,
} from './bbs2023Credentials.js';
import { checkBbs2023Cost } from './sdCost.js';
import { shortId } from '../../sd/didKey.js';
import { RDFC_CRYPTOSUITES, isRdfcCryptosuite, type RdfcCryptosuite } from '../../sd/suites/rdfc/rdfcSuite.js';
import { checkRdfcCredential } from './rdfcChecks.js';
import { signGivenRdfcCredential } from './rdfcCredentials.js';
import { rdfcStatusListSuite } from '../status/statusListSuites.js';

type Json = Record<string, unknown>;


/**
 * POST /credentials/issue: the credential signed with the suite asked for (default bbs-2023), with
 * the issuer filled in when absent, and a status list entry of each purpose asked for, in a list
 * signed with the same suite and key (the credential's status is then changed by its id,
 * options.credentialId, or its credentialStatus id).
 */
export async function vcApiIssue(
  ctx: Context,
  options: {
    credential: Json;
    mandatoryPointers?: readonly string[] | undefined;
    status?: readonly StatusPurpose[] | undefined;
    credentialId?: string | undefined;
    cryptosuite?: 'bbs-2023' | RdfcCryptosuite | undefined;
    curve?: 'P-256' | 'P-384' | undefined;
    names?: FieldNamer;
  },
): Promise<{ verifiableCredential: Json }> {
  const names = options.names ?? plainFieldNames;
  const cryptosuite = options.cryptosuite ?? 'bbs-2023';
  if (options.curve !== undefined && cryptosuite !== 'ecdsa-rdfc-2019') {
    throw new InputError(`${names('options.curve')}: applies to ecdsa-rdfc-2019 only (the cryptosuite is ${cryptosuite})`, { field: 'options.curve' });
  }
  if (isRdfcCryptosuite(cryptosuite)) {
    if (options.mandatoryPointers !== undefined) {
      throw new InputError(`${names('options.mandatoryPointers')}: applies to bbs-2023 only (${cryptosuite} signs the whole credential, nothing can be left out)`, { field: 'options.mandatoryPointers' });
    }
    const keyType = cryptosuite === 'eddsa-rdfc-2022' ? 'Ed25519' : (options.curve ?? 'P-256');
    const credential = await signGivenRdfcCredential(ctx, {
      credential: options.credential,
      keyType,
      names,
      base: 'credential',
      status: statusRequest(ctx, { purposes: options.status, suite: rdfcStatusListSuite(keyType), names, credentialId: options.credentialId }),
    });
    return { verifiableCredential: credential };
  }
  const credential = await signGivenBbs2023Credential(ctx, {
    credential: options.credential,
    mandatoryPointers: options.mandatoryPointers,
    names,
    base: 'credential',
    status: statusRequest(ctx, { purposes: options.status, suite: BBS_2023, names, credentialId: options.credentialId }),
  });
  return { verifiableCredential: credential };
}

/** POST /credentials/derive: the base credential checked, then a disclosure of the pointers bound to the presentation header. */
export async function vcApiDerive(
  ctx: Context,
  options: { credential: Json; selectivePointers: readonly string[]; presentationHeader?: string | undefined; names?: FieldNamer },
): Promise<{ verifiableCredential: Json }> {
  const names = options.names ?? plainFieldNames;
  const pointers = checkPointers(options.selectivePointers, 'options.selectivePointers', names);
  for (const [index, pointer] of pointers.entries()) {
    const field = `options.selectivePointers[${index}]`;
    if (pointer === '/proof' || pointer.startsWith('/proof/') || pointer.startsWith('/@context')) {
      throw new InputError(`${names(field)}: ${pointer} cannot be disclosed (the proof and the contexts are not statements of the credential)`, { field });
    }
    if (!resolvePointer(options.credential, pointer)) throw new InputError(`${names(field)}: ${pointer} selects nothing in the credential`, { field });
  }
  let header = new Uint8Array();
  if (options.presentationHeader !== undefined) {
    const bytes = Buffer.from(options.presentationHeader, 'base64url');
    if (bytes.toString('base64url') !== options.presentationHeader) {
      throw new InputError(`${names('options.presentationHeader')}: expected base64url without padding`, { field: 'options.presentationHeader' });
    }
    header = new Uint8Array(bytes);
  }
  await checkBbs2023BaseCredential(ctx, options.credential, names, 'verifiableCredential');
  const derived = await deriveBbs2023Credential(ctx, options.credential, pointers, header, 'given');
  return { verifiableCredential: derived };
}

export interface VcApiVerifyResult {
  verified: boolean;
  checks: string[];
  warnings: Array<{ name: string; message: string }>;
  /** `check`: the failed check's id, for a rule of the data model (`data-model:<rule>`). */
  errors: Array<{ name: string; message: string; check?: string }>;
}

/** The checks this route makes: the data model's rules (with the document's form), then the proof. */
const CHECKS = ['data-model', 'proof'];

function failed(message: string, error: { name: string; check?: string } = { name: 'VerificationError' }): VcApiVerifyResult {
  return { verified: false, checks: [...CHECKS], warnings: [], errors: [{ ...error, message }] };
}

/**
 * POST /credentials/verify: the domain and challenge asked for, the proof's form (one encoding of
 * its value), the shape, the data model's rules (contexts included), terms JSON-LD would drop,
 * then the proof itself (purpose, dates, signature).
 */
export async function vcApiVerify(ctx: Context, options: { credential: Json; domain?: string | undefined; challenge?: string | undefined }): Promise<VcApiVerifyResult> {
  const credential = options.credential;
  const proof = credential.proof;
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) return failed('the credential has no proof object');
  const { domain, challenge, type, cryptosuite } = proof as Json;
  if (options.domain !== undefined && domain !== options.domain) return failed(`proof.domain ${shortId(JSON.stringify(domain) ?? 'absent', 80)} does not match options.domain`);
  if (options.challenge !== undefined && challenge !== options.challenge) return failed(`proof.challenge ${shortId(JSON.stringify(challenge) ?? 'absent', 80)} does not match options.challenge`);
  // The suite is the one the proof names: an unknown one is refused with the known ones.
  if (type === 'DataIntegrityProof' && isRdfcCryptosuite(cryptosuite)) {
    const rdfcChecks = await checkRdfcCredential(ctx, credential);
    const failedCheck = rdfcChecks.find((check) => !check.valid);
    if (failedCheck !== undefined) {
      const reason = failedCheck.reason ?? `${failedCheck.id} failed`;
      return failedCheck.id.startsWith('data-model:') ? failed(reason, { name: 'DataModelError', check: failedCheck.id }) : failed(reason);
    }
    return verifiedWithStatus(ctx, credential);
  }
  if (type === 'DataIntegrityProof' && cryptosuite !== 'bbs-2023') {
    return failed(`cryptosuite ${shortId(JSON.stringify(cryptosuite) ?? 'nothing', 60)} is not supported (supported: bbs-2023, ${RDFC_CRYPTOSUITES.join(', ')})`);
  }
  const header = proofHeader(credential);
  if ('problem' in header) return failed(header.problem);
  // Before any JSON-LD work: more than a request may cost is a 413 naming the limit.
  const cost = checkBbs2023Cost(credential, header.kind === 'base' ? 'verifyBase' : 'verifyDerived');
  if (cost !== undefined) throw new TooLargeError(`verifiableCredential: ${cost}`, { field: 'verifiableCredential' });
  const checked = await checkBbs2023Document(ctx, credential, 'verifier');
  const refused = checked.checks.find((check) => !check.valid);
  if (refused !== undefined) {
    return checked.violation === undefined ? failed(refused.reason ?? refused.id) : failed(refused.reason ?? refused.id, { name: 'DataModelError', check: checked.violation.check });
  }
  const validity = checkBbs2023Validity(credential, ctx.now());
  if (validity !== undefined) return failed(validity);
  const engine = await sdEngine(ctx);
  const { proof: _proof, ...document } = credential;
  admitTogether(engine, 2);
  const [undefinedTerm, result] = await Promise.all([engine.findUndefinedTerms2023(document), engine.verifyBbs2023(credential, ctx.now())]);
  if (undefinedTerm !== undefined) return failed(undefinedTerm);
  if (!result.verified) return failed(result.reason ?? 'the bbs-2023 proof does not verify');
  return verifiedWithStatus(ctx, credential);
}

/** A credential whose proof holds, with its status checked when it has one (its list obtained only as src/core/status allows). */
async function verifiedWithStatus(ctx: Context, credential: Json): Promise<VcApiVerifyResult> {
  const status = await checkCredentialStatus(ctx, credential);
  const checks = status === undefined ? [...CHECKS] : [...CHECKS, 'status'];
  if (status?.valid === false) return { verified: false, checks, warnings: [], errors: [{ name: 'StatusError', message: `status: ${status.reason ?? 'the status does not hold'}` }] };
  return { verified: true, checks, warnings: untrustedIssuerWarnings(ctx, credential), errors: [] };
}

/**
 * This route checks the proof, as the VC-API defines; trust and nonces are POST /verify-vc's. An
 * issuer outside VC_TRUSTED_ISSUERS is said, so a caller of the wrong route still sees it.
 */
function untrustedIssuerWarnings(ctx: Context, credential: Json): VcApiVerifyResult['warnings'] {
  const trusted = ctx.config.verifier.trustedIssuers;
  const issuer = typeof credential.issuer === 'string' ? credential.issuer : (credential.issuer as Json | undefined)?.id;
  if (trusted.includes('*') || (typeof issuer === 'string' && trusted.includes(issuer))) return [];
  return [{ name: 'UntrustedIssuer', message: `issuer ${shortId(String(issuer), 80)} is not in the verifier's trusted issuers (VC_TRUSTED_ISSUERS); POST /verify-vc would refuse it` }];
}
