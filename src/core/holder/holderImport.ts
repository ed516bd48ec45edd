/**
 * Importing credentials into the holder's store (`vc holder credentials import`, POST
 * /credentials, and `vc holder import-sd` for BBS+ only): each credential is checked as a later
 * proof or verification would check it (its issuer's signature or Merkle proof, its status, its
 * dates and contexts), and its subject must be one of the holder's DIDs: a holder keeps its own
 * credentials, not someone else's. A list is checked whole before anything is kept, then kept in
 * one transaction: all of it or nothing.
 */
import type { Context } from '../../context.js';
import { InputError, UnprocessableError } from '../../errors.js';
import { joinPath, parseInput, plainFieldNames, type FieldNamer } from '../validate.js';
import { checkDisclosableCredential } from '../sd/disclose.js';
import { checkCredentialStatus } from '../status/credentialStatusCheck.js';
import { BbsCredentialSchema } from '../sd/sdSchemas.js';
import { heldKindOf, holderDids, isHolderDid, keepHeldCredential, subjectIdOf, summaryOf, type HeldCredentialSummary, type HeldKind } from './holderStore.js';

/** The most credentials one import takes. */
export const MAX_IMPORTED_CREDENTIALS = 100;

export interface ImportedCredential extends HeldCredentialSummary {
  /** True when the holder already had this very credential (nothing was written). */
  alreadyHeld: boolean;
}

export interface ImportHeldCredentialsOptions {
  /** One credential, or a list of them (as `vc holder credentials export` writes without an id). */
  credential: unknown;
  /** How the caller names input fields; the credential is the field `credential`. */
  names?: FieldNamer | undefined;
  /** The kinds this import takes (default: every kind). */
  kinds?: readonly HeldKind[] | undefined;
}

/** Why the holder does not keep a credential for `subject`, or undefined when it is the holder's. */
function foreignSubject(ctx: Context, subject: string | undefined): string | undefined {
  if (subject === undefined || isHolderDid(ctx, subject)) return undefined;
  const dids = holderDids(ctx);
  const own =
    dids.length === 0
      ? 'which has no DID yet (vc holder did create makes one)'
      : `whose DID${dids.length === 1 ? ' is' : 's are'} ${dids.slice(0, 3).join(', ')}${dids.length > 3 ? ` and ${dids.length - 3} more` : ''}`;
  return `the credential is for ${subject}, not for the holder of this wallet, ${own}; a holder keeps only its own credentials`;
}

/** Checks one credential for the holder's store; returns its kind. */
async function checkHeldCredential(ctx: Context, value: unknown, names: FieldNamer, base: string, kinds: readonly HeldKind[] | undefined): Promise<HeldKind> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(`${names(base)}: expected a credential (a JSON object)`, { field: base });
  }
  const credential = value as Record<string, unknown>;
  const refuse = (relative: string, reason: string): UnprocessableError => new UnprocessableError(`${names(joinPath(base, relative))}: ${reason}`, { field: joinPath(base, relative) });
  const found = heldKindOf(credential);
  if ('problem' in found) throw refuse('proof', found.problem);
  const { kind } = found;
  if (kinds !== undefined && !kinds.includes(kind)) {
    throw refuse('proof', `an ${kind} credential is not taken here (this takes ${kinds.join(', ')}); \`vc holder credentials import\` (POST /credentials) keeps every kind`);
  }
  const foreign = foreignSubject(ctx, subjectIdOf(credential));
  if (kind === 'iden3') {
    // Before the chain is asked anything: someone else's credential is refused at once.
    if (foreign !== undefined) throw refuse('credentialSubject.id', foreign);
    const { checkHeldIden3Credential } = await import('../pbq/iden3CredentialCheck.js');
    await checkHeldIden3Credential(ctx, credential, names, base);
    return kind;
  }
  // BbsBlsSignature2020 (VC 1.1, spec 2.4) defines no status vc can check.
  if (kind === 'bbs2020' && credential.credentialStatus !== undefined) {
    throw refuse('credentialStatus', `vc cannot check a status (${statusTypes(credential.credentialStatus)}) on a BbsBlsSignature2020 credential, so it cannot tell whether the issuer revoked it; not kept`);
  }
  // A BBS+ credential meets the checks a verifier makes first (a credential over the cost limits
  // is refused for its size at once, 413), then the question whose it is, then its status (a
  // bbs-2023 credential's Bitstring Status List entries, their lists obtained as a verifier does:
  // this wallet's own, or from the issuer service on this machine).
  const parsed = parseInput(BbsCredentialSchema, credential, names, base);
  await checkDisclosableCredential(ctx, parsed, names, base);
  if (foreign !== undefined) throw refuse('credentialSubject.id', foreign);
  const status = await checkCredentialStatus(ctx, credential);
  if (status !== undefined && !status.valid) throw refuse('credentialStatus', `${status.reason ?? 'its status cannot be established'}; not kept`);
  return kind;
}

/** The types of a credentialStatus (one entry or a list), for a message. */
function statusTypes(status: unknown): string {
  const list = Array.isArray(status) ? (status as unknown[]) : [status];
  const types = list.map((entry) => (typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as Record<string, unknown>).type : undefined));
  return `${list.length === 1 ? 'type' : 'types'} ${types.map((type) => (type === undefined ? 'none' : JSON.stringify(type).slice(0, 80))).join(', ')}`;
}

/**
 * Checks every credential given (see the module comment), then keeps them all in one transaction.
 * The same credential imported twice is kept once; another credential under an id already held is
 * refused (ConflictError), as is anything that fails a check (UnprocessableError naming it).
 */
export async function importHeldCredentials(ctx: Context, options: ImportHeldCredentialsOptions): Promise<{ imported: ImportedCredential[] }> {
  const names = options.names ?? plainFieldNames;
  const list = Array.isArray(options.credential) ? (options.credential as unknown[]) : [options.credential];
  if (list.length === 0) throw new InputError(`${names('credential')}: the list is empty: expected at least one credential`, { field: 'credential' });
  if (list.length > MAX_IMPORTED_CREDENTIALS) throw new InputError(`${names('credential')}: at most ${MAX_IMPORTED_CREDENTIALS} credentials at once, not ${list.length}`, { field: 'credential' });
  const checked: Array<{ credential: Record<string, unknown>; kind: HeldKind; base: string }> = [];
  for (const [index, credential] of list.entries()) {
    const base = Array.isArray(options.credential) ? `credential[${index}]` : 'credential';
    checked.push({ credential: credential as Record<string, unknown>, kind: await checkHeldCredential(ctx, credential, names, base, options.kinds), base });
  }
  const imported = ctx.store.transaction(() =>
    checked.map(({ credential, kind, base }) => {
      const { record, alreadyHeld } = keepHeldCredential(ctx, credential, { kind, source: 'imported', field: joinPath(base, 'id'), where: names(base) });
      return { ...summaryOf(record), alreadyHeld };
    }),
  );
  return { imported };
}

export interface StoreSelectiveDisclosureCredentialResult {
  stored: true;
  type: string;
  /** Its id in the holder's store (`vc holder credentials show ID`). */
  id: string;
  issuer: string;
}

/**
 * Keeps a BBS+ credential received from an issuer in the holder's store (`vc holder import-sd`,
 * POST /sd-credentials): importHeldCredentials for the BBS+ kinds only. Several credentials of a
 * type are kept side by side, each under its id; a refused one changes nothing.
 */
export async function storeSelectiveDisclosureCredential(ctx: Context, options: { credential: unknown; names?: FieldNamer }): Promise<StoreSelectiveDisclosureCredentialResult> {
  const names = options.names ?? plainFieldNames;
  const credential = parseInput(BbsCredentialSchema, options.credential, names, 'credential');
  const types = Array.isArray(credential.type) ? credential.type : [credential.type];
  const type = types.find((t) => t !== 'VerifiableCredential');
  if (type === undefined) throw new UnprocessableError(`${names('credential.type')}: lists no credential type besides VerifiableCredential`, { field: 'credential.type' });
  const { imported } = await importHeldCredentials(ctx, { credential: options.credential, names, kinds: ['bbs2020', 'bbs2023'] });
  const issuer = typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;
  return { stored: true, type, id: imported[0]!.id, issuer };
}
