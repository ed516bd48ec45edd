/**
 * The verifier's status check of a credential that carries BitstringStatusListEntry entries: for
 * each, its status list (given by the caller, kept in this wallet, or fetched from the issuer
 * service on this machine, and nothing else), the list's own proof, its issuer (the credential's),
 * its purpose, its length (at least 131,072 entries), and the bit at the entry's index. The result
 * is one check, `status`, with the reason when it fails: a credential whose status cannot be
 * established is not verified (the specification's retrieval and verification errors).
 */
import type { Context } from '../../context.js';
import { describeError, isVcError } from '../../errors.js';
import { STATUS_PURPOSES, issuerOf, readStatusBit, readStatusEntries, type StatusEntry } from '../../status/bitstringStatusList.js';
import { fetchLoopbackStatusList, isLoopbackUrl } from '../../status/statusListFetch.js';
import type { VerificationCheck } from '../sd/documentChecks.js';
import { findStatusListByUrl, issuerBaseUrl, statusListIdAt } from './issuerStatusLists.js';
import { PinnedDocumentChangedError, readPinnedDocument } from '../../store/pinnedDocuments.js';
import { verifyStatusListProof } from './statusListSuites.js';

type Json = Record<string, unknown>;

export interface CredentialStatusOptions {
  /** Status list credentials the caller gives (`vc verifier verify --status-list FILE`), used first. */
  statusLists?: readonly Json[] | undefined;
}

/** Where a status list came from, for the reason of a failure. */
type ListSource = 'given' | 'wallet' | 'documents' | 'issuer service';

function fail(reason: string): VerificationCheck {
  return { id: 'status', valid: false, reason };
}

/**
 * The status list named `url`: one the caller gave, this wallet's own when it is by the
 * credential's issuer (wallets on one machine name their lists alike by default), one pinned in
 * the documents store (`vc documents add URL FILE`), or, when `url` is exactly a list of the
 * configured issuer service (VC_ISSUER_URL, else the issuer service of this process, else its
 * default address: `${base}/status-lists/<id>`, nothing else on that host) and that service is on
 * the loopback, fetched from it. Never any other network.
 */
async function obtainStatusList(ctx: Context, url: string, issuer: string | undefined, options: CredentialStatusOptions): Promise<{ list: Json; source: ListSource } | { problem: string }> {
  const given = options.statusLists?.find((list) => list.id === url);
  if (given !== undefined) return { list: given, source: 'given' };
  const kept = findStatusListByUrl(ctx, url);
  if (kept !== undefined && issuerOf(kept) === issuer) return { list: kept, source: 'wallet' };
  try {
    const pinned = readPinnedDocument(ctx.store, url);
    if (typeof pinned === 'object' && pinned !== null && !Array.isArray(pinned)) return { list: pinned as Json, source: 'documents' };
  } catch (error) {
    if (error instanceof PinnedDocumentChangedError) return { problem: describeError(error) };
    throw error;
  }
  const base = await issuerBaseUrl(ctx);
  if (statusListIdAt(url, base) !== undefined && isLoopbackUrl(base)) {
    try {
      return { list: await fetchLoopbackStatusList(url), source: 'issuer service' };
    } catch (error) {
      if (!isVcError(error)) throw error;
      return { problem: `the status list could not be fetched: ${describeError(error)}` };
    }
  }
  return {
    problem:
      `not at hand: give it (vc verifier verify --status-list FILE, from \`vc issuer status-list\`), pin it (vc documents add URL FILE) or verify in the issuer's wallet; ` +
      `vc fetches status lists only from the issuer service on this machine (VC_ISSUER_URL on 127.0.0.1, localhost or ::1, now ${base})`,
  };
}

/** The status of one entry: undefined when it holds, else why not. */
async function entryProblem(ctx: Context, credential: Json, entry: StatusEntry, options: CredentialStatusOptions, lists: Map<string, Promise<Awaited<ReturnType<typeof verifiedList>>>>): Promise<string | undefined> {
  if (!(STATUS_PURPOSES as readonly string[]).includes(entry.statusPurpose)) {
    return `statusPurpose "${entry.statusPurpose}" is not one vc checks (${STATUS_PURPOSES.join(', ')})`;
  }
  let pending = lists.get(entry.statusListCredential);
  if (pending === undefined) {
    pending = verifiedList(ctx, entry.statusListCredential, issuerOf(credential), options);
    lists.set(entry.statusListCredential, pending);
  }
  const obtained = await pending;
  const where = `status list ${entry.statusListCredential}`;
  if ('problem' in obtained) return `${where}: ${obtained.problem}`;
  const listIssuer = issuerOf(obtained.list);
  const credentialIssuer = issuerOf(credential);
  if (listIssuer === undefined || listIssuer !== credentialIssuer) {
    return `${where} (${obtained.source}) is issued by ${listIssuer ?? 'nobody'}, not by the credential's issuer ${credentialIssuer ?? '(none)'}`;
  }
  const bit = await readStatusBit(entry, obtained.list);
  if ('problem' in bit) return `${where} (${obtained.source}) is refused: ${bit.problem}`;
  if (bit.set) return `${entry.statusPurpose === 'revocation' ? 'revoked' : 'suspended'}: index ${entry.statusListIndex} of ${where} is set (${entry.statusPurpose})`;
  return undefined;
}

/** A status list whose proof holds, or why there is none. */
async function verifiedList(ctx: Context, url: string, issuer: string | undefined, options: CredentialStatusOptions): Promise<{ list: Json; source: ListSource } | { problem: string }> {
  const obtained = await obtainStatusList(ctx, url, issuer, options);
  if ('problem' in obtained) return obtained;
  const proof = await verifyStatusListProof(ctx, obtained.list);
  if (!proof.verified) return { problem: `the list (${obtained.source}) does not verify: ${proof.reason}` };
  return obtained;
}

/**
 * The `status` check of a credential, or undefined when it carries no credentialStatus. A status
 * of a type vc does not know is a failed check (it cannot be established), as is any entry whose
 * list is missing, does not verify, has another purpose or issuer, or is too short.
 */
export async function checkCredentialStatus(ctx: Context, credential: Json, options: CredentialStatusOptions = {}): Promise<VerificationCheck | undefined> {
  if (credential.credentialStatus === undefined) return undefined;
  const read = readStatusEntries(credential);
  if ('problem' in read) return fail(read.problem);
  if (read.otherTypes.length > 0) {
    return fail(`credentialStatus of type ${read.otherTypes.map((type) => JSON.stringify(type)).join(', ')} cannot be checked (vc checks BitstringStatusListEntry)`);
  }
  const lists = new Map<string, Promise<Awaited<ReturnType<typeof verifiedList>>>>();
  for (const entry of read.entries) {
    const problem = await entryProblem(ctx, credential, entry, options, lists);
    if (problem !== undefined) return fail(problem);
  }
  return { id: 'status', valid: true };
}
