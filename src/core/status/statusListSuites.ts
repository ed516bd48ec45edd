/**
 * The cryptosuites status lists are signed and checked with: the one place where the status list
 * code (src/status, src/core/status) meets a suite. A list is signed by the issuer of the
 * credentials it is about, with that issuer's key (the specification's validation and Digital
 * Bazaar's checkStatus both require the two issuers to be the same), so each suite that issues
 * credentials with a status brings a signer here, and each suite a verifier accepts brings a
 * proof check. Today: bbs-2023, eddsa-rdfc-2022 and ecdsa-rdfc-2019 (P-256, P-384): a list is signed
 * with the suite and key of the credentials it is about, so that a verifier that checks the
 * credential can check its list (Digital Bazaar's checkStatus verifies the list with the suite the
 * caller gives it, usually the credential's).
 *
 * bbs-2023 lists carry a derived proof that discloses everything: the specification verifies
 * only derived bbs-2023 proofs (a base proof is the issuer's secret material for deriving), so a
 * verifier with any bbs-2023 implementation (Digital Bazaar's checkStatus among them) can check the
 * list as served. A list given with a base proof (another issuer's) is checked too: vc verifies a
 * base proof by deriving a disclosure of everything and verifying that.
 */
import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { shortId } from '../../sd/didKey.js';
import type { JsonLdDocument } from '../../sd/proofOutcome.js';
import { BBS_2023, bbs2023KeyMaterial, loadIssuerBbs2023Key, proofHeader } from '../../sd/suites/bbs2023/bbs2023Suite.js';
import { isKnownContext } from '../../sd/suites/bbs2023/bbs2023Loader.js';
import { RDFC_KEY_TYPES, type RdfcKeyType } from '../../sd/suites/rdfc/rdfcDidKey.js';
import { loadIssuerRdfcKey } from '../../sd/suites/rdfc/rdfcKeys.js';
import { cryptosuiteOfKey, isRdfcCryptosuite } from '../../sd/suites/rdfc/rdfcSuite.js';
import { checkBbs2023Document } from '../sd/bbs2023Credentials.js';
import { checkRdfcCredential } from '../sd/rdfcChecks.js';
import { checkBbs2023Cost } from '../sd/sdCost.js';
import { sdEngine } from '../sd/sdEngine.js';

/** Signs status list credentials as one issuer. */
export interface StatusListSigner {
  /** The cryptosuite of the proofs it makes. */
  suite: string;
  /** The DID it signs as (the lists' issuer). */
  issuer: string;
  /** The list credential signed (as it is served). */
  sign(unsigned: JsonLdDocument): Promise<JsonLdDocument>;
}

/** The issuer's bbs-2023 signer of status lists: a base proof, then a derived proof disclosing everything. */
export async function bbs2023StatusListSigner(ctx: Context): Promise<StatusListSigner> {
  const key = await loadIssuerBbs2023Key(ctx);
  return {
    suite: BBS_2023,
    issuer: key.did,
    sign: async (unsigned) => {
      const engine = await sdEngine(ctx);
      const base = await engine.signBbs2023(unsigned, bbs2023KeyMaterial(key), ['/issuer', '/validFrom'], ctx.now());
      const everything = Object.keys(base)
        .filter((member) => member !== 'proof' && member !== '@context')
        .map((member) => `/${member}`);
      return engine.deriveBbs2023(base, everything, new Uint8Array());
    },
  };
}

/**
 * The name a status list's signer goes by in the wallet (StoredStatusList.suite): the cryptosuite,
 * and for ecdsa-rdfc-2019 the curve too (one issuer DID per curve, so one set of lists per curve).
 */
export function rdfcStatusListSuite(keyType: RdfcKeyType): string {
  const cryptosuite = cryptosuiteOfKey(keyType);
  return keyType === 'Ed25519' ? cryptosuite : `${cryptosuite} ${keyType}`;
}

/** The issuer's eddsa-rdfc-2022 or ecdsa-rdfc-2019 signer of status lists (the key of `keyType`). */
export async function rdfcStatusListSigner(ctx: Context, keyType: RdfcKeyType): Promise<StatusListSigner> {
  const key = await loadIssuerRdfcKey(ctx, keyType);
  return {
    suite: rdfcStatusListSuite(keyType),
    issuer: key.did,
    sign: async (unsigned) => (await sdEngine(ctx)).signRdfcCredential(unsigned, key.material, ctx.now()),
  };
}

/** The signer of a suite for re-signing a stored list: it must still be the list's issuer. */
export async function statusListSigner(ctx: Context, suite: string): Promise<StatusListSigner> {
  if (suite === BBS_2023) return bbs2023StatusListSigner(ctx);
  const keyType = RDFC_KEY_TYPES.find((candidate) => rdfcStatusListSuite(candidate) === suite);
  if (keyType !== undefined) return rdfcStatusListSigner(ctx, keyType);
  throw new Error(`no status list signer for the cryptosuite ${suite}`);
}

/**
 * Whether a status list credential's proof holds (its issuer controls the key, its validity dates
 * hold), with the checks any credential of that suite gets before the proof (cost, contexts,
 * shape, the VC data model's rules), or why not. A suite vc does not verify is a reason, not an error.
 */
export async function verifyStatusListProof(ctx: Context, list: JsonLdDocument): Promise<{ verified: true } | { verified: false; reason: string }> {
  const key = verifiedListKey(list);
  const verifiedLists = verifiedListsOf(ctx);
  const now = ctx.now().getTime();
  const verifiedAt = key === undefined ? undefined : verifiedLists.get(key);
  if (verifiedAt !== undefined && now >= verifiedAt) return { verified: true };
  const result = await checkStatusListProof(ctx, list);
  if (result.verified && key !== undefined) {
    verifiedLists.delete(key);
    verifiedLists.set(key, now);
    if (verifiedLists.size > VERIFIED_LISTS_KEPT) verifiedLists.delete(verifiedLists.keys().next().value!);
  }
  return result;
}

/**
 * The status lists whose proof held, per wallet context (a server keeps one for its life): the
 * SHA-256 of the list's JSON text -> when (ctx.now(), ms) it was found to hold. A verifier that
 * checks many credentials against one unchanged list (vc serve's verify routes, a presentation of
 * several credentials of one issuer) checks the list's proof once, not each time (a bbs-2023
 * proof: a few hundred ms of CPU). Only what cannot change with time or the wallet is kept:
 * see verifiedListKey.
 */
const verifiedListsByContext = new WeakMap<Context, Map<string, number>>();
/** The most lists kept per context (the oldest checked goes first). */
const VERIFIED_LISTS_KEPT = 64;

function verifiedListsOf(ctx: Context): Map<string, number> {
  let lists = verifiedListsByContext.get(ctx);
  if (lists === undefined) {
    lists = new Map();
    verifiedListsByContext.set(ctx, lists);
  }
  return lists;
}

/**
 * The key a list's verification is kept under, or undefined when its result could change while
 * the text stays the same: a list with an end of validity (validUntil, expirationDate, a proof's
 * expires) would expire, and one with a context vc does not carry in its package (a document the
 * user pinned, which can be removed or changed, or an inline one) is left to the checks each
 * time. What is kept stays true later on (a list valid from a date is valid after it); a
 * verification at an earlier instant (an injected clock) checks again.
 */
function verifiedListKey(list: JsonLdDocument): string | undefined {
  if (list.validUntil !== undefined || list.expirationDate !== undefined) return undefined;
  const proofs = Array.isArray(list.proof) ? (list.proof as unknown[]) : [list.proof];
  if (proofs.some((proof) => typeof proof !== 'object' || proof === null || Array.isArray(proof) || (proof as Record<string, unknown>).expires !== undefined)) return undefined;
  const contexts = Array.isArray(list['@context']) ? (list['@context'] as unknown[]) : [list['@context']];
  if (!contexts.every((context) => typeof context === 'string' && isKnownContext(context))) return undefined;
  return createHash('sha256').update(JSON.stringify(list)).digest('hex');
}

/** verifyStatusListProof without the kept results. */
async function checkStatusListProof(ctx: Context, list: JsonLdDocument): Promise<{ verified: true } | { verified: false; reason: string }> {
  const proof = list.proof;
  const cryptosuite = typeof proof === 'object' && proof !== null && !Array.isArray(proof) ? (proof as Record<string, unknown>).cryptosuite : undefined;
  if (isRdfcCryptosuite(cryptosuite)) {
    // The checks of any credential of the suite: its proof's form, contexts, shape, the data
    // model's rules, terms, and the proof.
    const refused = (await checkRdfcCredential(ctx, list)).find((check) => !check.valid);
    if (refused === undefined) return { verified: true };
    return { verified: false, reason: refused.id === 'proof' ? `its ${cryptosuite} proof does not verify: ${refused.reason ?? 'the proof does not match'}` : (refused.reason ?? refused.id) };
  }
  if (cryptosuite !== BBS_2023) {
    if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) return { verified: false, reason: 'it has no proof object' };
    const type = (proof as Record<string, unknown>).type;
    const named = `${shortId(JSON.stringify(type) ?? 'no type', 40)}${cryptosuite === undefined ? '' : `, cryptosuite ${shortId(JSON.stringify(cryptosuite), 40)}`}`;
    return { verified: false, reason: `its proof (${named}) is not of a suite vc checks status lists with (${BBS_2023}, eddsa-rdfc-2022, ecdsa-rdfc-2019)` };
  }
  const header = proofHeader(list);
  if ('problem' in header) return { verified: false, reason: `its proof cannot be checked: ${header.problem}` };
  const cost = checkBbs2023Cost(list, header.kind === 'base' ? 'verifyBase' : 'verifyDerived');
  if (cost !== undefined) return { verified: false, reason: cost.replace(/^the credential/, 'it') };
  // A list is a credential: the VC 1.1 contexts, its shape and the data model's rules, as any other.
  const checked = await checkBbs2023Document(ctx, list, 'verifier');
  const refused = checked.checks.find((check) => !check.valid);
  if (refused !== undefined) return { verified: false, reason: refused.reason ?? refused.id };
  const result = await (await sdEngine(ctx)).verifyBbs2023(list, ctx.now());
  if (!result.verified) return { verified: false, reason: `its bbs-2023 proof does not verify: ${result.reason ?? 'the proof does not match'}` };
  return { verified: true };
}
