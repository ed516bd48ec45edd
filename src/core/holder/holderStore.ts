/**
 * The holder's credential store: every credential the holder of this wallet keeps, of every kind
 * (iden3, BbsBlsSignature2020, bbs-2023), several per type, each under its own id, in the store
 * namespace `holder.credentials`. What goes in was checked first (./holderImport.ts for imports;
 * an issuance of this wallet for one of the holder's own DIDs). Every write is one SQLite
 * transaction, so a kill at any point leaves the store as before or as after, never between.
 *
 * Wallets written before this store kept one BBS+ credential per type under `sd.credentials`
 * (keyed by the type, the latest one winning): those records move here, all of them, on the first
 * use of the store (one transaction), and the old namespace is left empty.
 */
import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { IDENTITIES_NS, PROFILES_NS, ROLES_NS } from '../../iden3/storage.js';
import { existingHolderKeyDids } from '../../sd/suites/rdfc/rdfcKeys.js';

/** Store namespace of the held credentials, keyed by their id in the store. */
export const HELD_CREDENTIALS_NAMESPACE = 'holder.credentials';
/** The namespace of the former one-credential-per-type BBS+ store (migrated on first use). */
export const LEGACY_SD_CREDENTIALS_NAMESPACE = 'sd.credentials';

/** The kinds of credential a holder keeps: how each is proved and checked. */
export const HELD_KINDS = ['iden3', 'bbs2020', 'bbs2023'] as const;
export type HeldKind = (typeof HELD_KINDS)[number];

/** How a credential came into the store. */
export type HeldSource = 'issued' | 'imported' | 'migrated';

/** What the store says about a credential, without the credential itself (list, import results). */
export interface HeldCredentialSummary {
  /** The id in the store: the credential's own id when it can name it in a URL path, else a content hash (urn:sha256:...). */
  id: string;
  kind: HeldKind;
  /** The credential's own type (the first besides VerifiableCredential). */
  type: string;
  types: string[];
  issuer: string;
  /** credentialSubject.id; absent for a credential without a subject id (a bearer credential). */
  subject?: string;
  /** The credential's own id, when it has one. */
  credentialId?: string;
  /** issuanceDate or validFrom, as the credential says. */
  issuedAt?: string;
  /** expirationDate or validUntil, as the credential says. */
  expiresAt?: string;
  storedAt: string;
  source: HeldSource;
}

/** A held credential: its summary and the credential exactly as it was received. */
export interface HeldCredentialRecord extends HeldCredentialSummary {
  credential: Record<string, unknown>;
  /** The order it was stored in (1, 2, ...): the last stored is the newest, whatever the clock says. */
  sequence?: number;
}

/** The most credentials one store keeps (a list answer stays bounded). */
export const MAX_HELD_CREDENTIALS = 10_000;

const ID_IN_PATH = /^[A-Za-z0-9:._~@+-]{1,100}$/;

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function proofsOf(credential: Record<string, unknown>): Record<string, unknown>[] {
  const proof = credential.proof;
  return (Array.isArray(proof) ? proof : [proof]).map(asRecord).filter((entry): entry is Record<string, unknown> => entry !== undefined);
}

/** The iden3 proof types a holder can check (and the MTP circuits use). */
export const IDEN3_PROOF_TYPES: readonly string[] = ['BJJSignature2021', 'Iden3SparseMerkleTreeProof'];

/**
 * The kind of a credential by its proof, or why it is not one a holder keeps: a derived BBS+
 * proof (a disclosure, made for one verifier), or a proof type vc does not know.
 */
export function heldKindOf(credential: Record<string, unknown>): { kind: HeldKind } | { problem: string } {
  const proofs = proofsOf(credential);
  if (proofs.length === 0) return { problem: 'it has no proof object (expected an iden3 proof, BbsBlsSignature2020 or a bbs-2023 DataIntegrityProof)' };
  const types = proofs.map((proof) => String(proof.type));
  if (types.some((type) => IDEN3_PROOF_TYPES.includes(type))) return { kind: 'iden3' };
  if (types.includes('BbsBlsSignature2020') || types.includes('sec:BbsBlsSignature2020')) return { kind: 'bbs2020' };
  if (types.includes('BbsBlsSignatureProof2020')) {
    return { problem: 'its proof is a BbsBlsSignatureProof2020: a disclosure derived for a verifier, not the issuer\'s credential (keep the issuer\'s BbsBlsSignature2020 credential)' };
  }
  const cryptosuite = proofs[0]!.cryptosuite;
  if (types[0] === 'DataIntegrityProof' && cryptosuite === 'bbs-2023') return { kind: 'bbs2023' };
  const named = types[0] === 'DataIntegrityProof' ? `DataIntegrityProof (cryptosuite ${String(cryptosuite)})` : types.join(', ');
  return { problem: `proof type ${named} is not one vc holds (expected BJJSignature2021 / Iden3SparseMerkleTreeProof, BbsBlsSignature2020, or a DataIntegrityProof with cryptosuite bbs-2023)` };
}

/** JSON with object keys in code-point order at every depth: the same text for the same credential. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = asRecord(value);
  if (record === undefined) return JSON.stringify(value);
  const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

/** The content hash of a credential: the same for the same credential, whatever its keys' order. */
export function credentialDigest(credential: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(credential)).digest('hex');
}

/**
 * The id a credential is kept under: its own `id` when that can stand in a URL path (at most 100
 * characters, no `/`, `?` or `#`: urn:uuid ids can), otherwise `urn:sha256:` and its content hash
 * (vc's bbs-2023 credentials carry no id, so that their disclosures share none).
 */
export function heldCredentialId(credential: Record<string, unknown>): string {
  const own = credential.id;
  if (typeof own === 'string' && ID_IN_PATH.test(own)) return own;
  return `urn:sha256:${credentialDigest(credential)}`;
}

function typesOf(credential: Record<string, unknown>): string[] {
  const type = credential.type;
  return (Array.isArray(type) ? type : [type]).filter((entry): entry is string => typeof entry === 'string');
}

function issuerOf(credential: Record<string, unknown>): string {
  const issuer = credential.issuer;
  if (typeof issuer === 'string') return issuer;
  const id = asRecord(issuer)?.id;
  return typeof id === 'string' ? id : '';
}

/** credentialSubject.id of a credential, if it names one (a bearer credential has none). */
export function subjectIdOf(credential: Record<string, unknown>): string | undefined {
  const subject = Array.isArray(credential.credentialSubject) ? credential.credentialSubject[0] : credential.credentialSubject;
  const id = asRecord(subject)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The summary of a credential of a known kind, as the store would keep it now. */
export function summarize(credential: Record<string, unknown>, kind: HeldKind, source: HeldSource, storedAt: string): HeldCredentialSummary {
  const types = typesOf(credential);
  const subject = subjectIdOf(credential);
  const issuedAt = credential.issuanceDate ?? credential.validFrom;
  const expiresAt = credential.expirationDate ?? credential.validUntil;
  return {
    id: heldCredentialId(credential),
    kind,
    type: types.find((type) => type !== 'VerifiableCredential') ?? 'VerifiableCredential',
    types,
    issuer: issuerOf(credential),
    ...(subject === undefined ? {} : { subject }),
    ...(typeof credential.id === 'string' ? { credentialId: credential.id } : {}),
    ...(typeof issuedAt === 'string' ? { issuedAt } : {}),
    ...(typeof expiresAt === 'string' ? { expiresAt } : {}),
    storedAt,
    source,
  };
}

/** The summary part of a record (what list and import answer). */
export function summaryOf(record: HeldCredentialRecord): HeldCredentialSummary {
  const { credential: _credential, sequence: _sequence, ...summary } = record;
  return summary;
}

/** What the store answers about a record (show): its summary and the credential, not its internals. */
export function publicRecord(record: HeldCredentialRecord): HeldCredentialSummary & { credential: Record<string, unknown> } {
  return { ...summaryOf(record), credential: record.credential };
}

/** Where the store keeps the last sequence number it gave. */
const HELD_META_NAMESPACE = 'holder.meta';
const SEQUENCE_KEY = 'sequence';

/**
 * The sequence number of the next credential stored, and records it (inside the storing
 * transaction): one read and one write, however many credentials are held (a batch of a thousand
 * iden3 issuances for the holder stores each).
 */
function nextSequence(ctx: Context): number {
  let last = ctx.store.get<number>(HELD_META_NAMESPACE, SEQUENCE_KEY);
  if (last === undefined) {
    // First use (or a store written before the counter): continue after what is held.
    last = 0;
    for (const { value } of ctx.store.list<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE)) last = Math.max(last, value.sequence ?? 0);
  }
  ctx.store.put<number>(HELD_META_NAMESPACE, SEQUENCE_KEY, last + 1);
  return last + 1;
}

/** The wallet's issuer identities (its default issuer and ISSUER_DID): the issuer's, not the holder's. */
function issuerDids(ctx: Context): Set<string> {
  const dids = new Set<string>();
  const role = ctx.store.get<{ did?: unknown }>(ROLES_NS, 'issuer')?.did;
  if (typeof role === 'string') dids.add(role);
  if (ctx.config.issuer.did !== undefined) dids.add(ctx.config.issuer.did);
  return dids;
}

/**
 * The DIDs of this wallet's holder: the identities whose keys the wallet holds (`vc holder did
 * create`, each one made with --new too), the subjects it can prove for, but the issuer's own, and
 * their profiles (`vc holder did create --profile-nonce N`); and the did:key of each presentation
 * key it made (`vc holder did-key`), the subject it presents as.
 * A credential naming another subject is someone else's.
 */
export function holderDids(ctx: Context): string[] {
  const issuers = issuerDids(ctx);
  const identities = ctx.store
    .list<unknown>(IDENTITIES_NS)
    .map((entry) => entry.key)
    .filter((did) => !issuers.has(did));
  const held = new Set(identities);
  const profiles = ctx.store
    .list<{ genesisIdentifier?: unknown }>(PROFILES_NS)
    .filter((entry) => typeof entry.value.genesisIdentifier === 'string' && held.has(entry.value.genesisIdentifier))
    .map((entry) => entry.key);
  return [...identities, ...profiles, ...existingHolderKeyDids(ctx)];
}

/** True when `subject` is one of the holder's DIDs. */
export function isHolderDid(ctx: Context, subject: string): boolean {
  if (ctx.store.get<unknown>(IDENTITIES_NS, subject) !== undefined) return !issuerDids(ctx).has(subject);
  const profile = ctx.store.get<{ genesisIdentifier?: unknown }>(PROFILES_NS, subject);
  if (typeof profile?.genesisIdentifier === 'string') return isHolderDid(ctx, profile.genesisIdentifier);
  return subject.startsWith('did:key:') && existingHolderKeyDids(ctx).includes(subject);
}

/**
 * Moves the records of the former BBS+ store (one per type, under sd.credentials) into this one,
 * all of them and in one transaction: a credential already here (the same id) is kept as it is.
 */
export function migrateLegacyCredentials(ctx: Context): number {
  if (ctx.store.count(LEGACY_SD_CREDENTIALS_NAMESPACE) === 0) return 0;
  return ctx.store.transaction(() => {
    const legacy = ctx.store
      .list<{ credential?: unknown; storedAt?: unknown }>(LEGACY_SD_CREDENTIALS_NAMESPACE)
      .sort((a, b) => String(a.value.storedAt ?? '').localeCompare(String(b.value.storedAt ?? '')));
    for (const { key, value } of legacy) {
      const credential = asRecord(value.credential);
      if (credential !== undefined) {
        const found = heldKindOf(credential);
        const kind: HeldKind = 'kind' in found ? found.kind : 'bbs2020';
        const storedAt = typeof value.storedAt === 'string' ? value.storedAt : ctx.now().toISOString();
        const summary = summarize(credential, kind, 'migrated', storedAt);
        if (ctx.store.get(HELD_CREDENTIALS_NAMESPACE, summary.id) === undefined) {
          ctx.store.put<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE, summary.id, { ...summary, credential, sequence: nextSequence(ctx) });
        }
      }
      ctx.store.delete(LEGACY_SD_CREDENTIALS_NAMESPACE, key);
    }
    return legacy.length;
  });
}

function allRecords(ctx: Context): HeldCredentialRecord[] {
  migrateLegacyCredentials(ctx);
  return ctx.store.list<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE).map((entry) => entry.value);
}

/** Newest first: the last stored (received) first, as with the former store where the latest one won. */
function newestFirst(a: HeldCredentialRecord, b: HeldCredentialRecord): number {
  const order = (b.sequence ?? 0) - (a.sequence ?? 0);
  if (order !== 0) return order;
  return b.storedAt < a.storedAt ? -1 : b.storedAt > a.storedAt ? 1 : a.id < b.id ? -1 : 1;
}

export interface HeldCredentialFilter {
  /** Credentials of this type (any of their types). */
  type?: string | undefined;
  /** Credentials of this issuer (its DID). */
  issuer?: string | undefined;
  /** Credentials of these kinds only. */
  kinds?: readonly HeldKind[] | undefined;
  /** Credentials this says yes to (what a request can use). */
  accept?: ((record: HeldCredentialRecord) => boolean) | undefined;
}

function matches(record: HeldCredentialRecord, filter: HeldCredentialFilter): boolean {
  return (
    (filter.type === undefined || record.types.includes(filter.type)) &&
    (filter.issuer === undefined || record.issuer === filter.issuer) &&
    (filter.kinds === undefined || filter.kinds.includes(record.kind)) &&
    (filter.accept === undefined || filter.accept(record))
  );
}

/** The held credentials that match `filter`, newest (last received) first. */
export function listHeldCredentials(ctx: Context, filter: HeldCredentialFilter = {}): HeldCredentialRecord[] {
  return allRecords(ctx)
    .filter((record) => matches(record, filter))
    .sort(newestFirst);
}

/**
 * The held credential named `id`: its id in the store, or else the credential's own id when one
 * held credential has it.
 */
export function findHeldCredential(ctx: Context, id: string): HeldCredentialRecord | undefined {
  migrateLegacyCredentials(ctx);
  const direct = ctx.store.get<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE, id);
  if (direct !== undefined) return direct;
  const byOwnId = allRecords(ctx).filter((record) => record.credentialId === id);
  return byOwnId.length === 1 ? byOwnId[0] : undefined;
}

/** The held credential named `id`, or NotFoundError naming `field` and how to list what is held. */
export function requireHeldCredential(ctx: Context, id: string, field: string, where: string): HeldCredentialRecord {
  const found = findHeldCredential(ctx, id);
  if (found === undefined) throw new NotFoundError(`${where}: the holder has no credential ${id} (\`vc holder credentials list\` shows what it holds)`, { field });
  return found;
}

/**
 * Keeps a checked credential. An import refuses a different credential under an id already held
 * (ConflictError: delete it first) and keeps the same credential once (`alreadyHeld`); an issuance
 * of this wallet replaces its own record (a recovered issuance writes the same credential again).
 */
export function keepHeldCredential(
  ctx: Context,
  credential: Record<string, unknown>,
  options: { kind: HeldKind; source: HeldSource; field?: string; where?: string },
): { record: HeldCredentialRecord; alreadyHeld: boolean } {
  migrateLegacyCredentials(ctx);
  return ctx.store.transaction(() => {
    const summary = summarize(credential, options.kind, options.source, ctx.now().toISOString());
    const existing = ctx.store.get<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE, summary.id);
    if (existing !== undefined && options.source !== 'issued') {
      if (credentialDigest(existing.credential) === credentialDigest(credential)) return { record: existing, alreadyHeld: true };
      if (gainsProofs(existing.credential, credential)) {
        // The same credential with more proofs (an iden3 one whose claim was published since it
        // was signed, `--proof both`): the held copy is upgraded in place, in its place in the order.
        const upgraded: HeldCredentialRecord = { ...existing, credential };
        ctx.store.put<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE, summary.id, upgraded);
        return { record: upgraded, alreadyHeld: true };
      }
      throw new ConflictError(`${options.where ?? 'credential'}: the holder already has another credential with the id ${summary.id} (\`vc holder credentials delete ${summary.id}\` first to replace it)`, {
        field: options.field ?? 'credential',
      });
    }
    if (existing === undefined && ctx.store.count(HELD_CREDENTIALS_NAMESPACE) >= MAX_HELD_CREDENTIALS) {
      throw new ConflictError(`${options.where ?? 'credential'}: the holder keeps at most ${MAX_HELD_CREDENTIALS} credentials: delete some first`, { field: options.field ?? 'credential' });
    }
    const record: HeldCredentialRecord = { ...summary, credential, sequence: nextSequence(ctx) };
    ctx.store.put<HeldCredentialRecord>(HELD_CREDENTIALS_NAMESPACE, summary.id, record);
    return { record, alreadyHeld: false };
  });
}

/**
 * True when `next` is `held` with more proofs: the same content (everything but `proof`), and
 * every proof of `held` among those of `next`, byte for byte.
 */
function gainsProofs(held: Record<string, unknown>, next: Record<string, unknown>): boolean {
  const { proof: _heldProof, ...heldContent } = held;
  const { proof: _nextProof, ...nextContent } = next;
  if (credentialDigest(heldContent) !== credentialDigest(nextContent)) return false;
  const nextProofs = new Set(proofsOf(next).map((proof) => credentialDigest({ proof })));
  const heldProofs = proofsOf(held).map((proof) => credentialDigest({ proof }));
  return nextProofs.size > heldProofs.length && heldProofs.every((digest) => nextProofs.has(digest));
}

/** Deletes a held credential (by its id in the store or its own id); NotFoundError when not held. */
export function deleteHeldCredential(ctx: Context, id: string, field: string, where: string): HeldCredentialRecord {
  return ctx.store.transaction(() => {
    const record = requireHeldCredential(ctx, id, field, where);
    ctx.store.delete(HELD_CREDENTIALS_NAMESPACE, record.id);
    return record;
  });
}

/**
 * The newest held credential of `type` among `kinds`, and how many there are of it: the one a
 * command uses when given the type alone. When several are held, a note on the progress line says
 * which one and how to choose another.
 */
export function newestHeldCredential(ctx: Context, filter: HeldCredentialFilter & { type: string }, what: string): HeldCredentialRecord | undefined {
  const found = listHeldCredentials(ctx, filter);
  const newest = found[0];
  if (newest !== undefined && found.length > 1) {
    ctx.progress.info(`the holder has ${found.length} ${what}; using the newest, ${newest.id}${newest.issuedAt === undefined ? '' : ` (issued ${newest.issuedAt})`}; --id ID chooses another (\`vc holder credentials list --type ${filter.type}\`)`);
  }
  return newest;
}

/**
 * Keeps a credential this wallet's issuer just issued when it is for the holder of this wallet
 * (its subject is one of the holder's DIDs, or it names no subject: a bearer credential), and
 * never when it is for someone else (a note on the progress line says so, unless `quiet`: a batch
 * of iden3 issuances). Returns the record kept, or undefined.
 */
export function keepIssuedCredential(ctx: Context, credential: Record<string, unknown>, kind: HeldKind, options: { quiet?: boolean } = {}): HeldCredentialRecord | undefined {
  const subject = subjectIdOf(credential);
  if (subject !== undefined && !isHolderDid(ctx, subject)) {
    if (options.quiet !== true) ctx.progress.info(`not kept by this wallet's holder: the credential is for ${subject}, which is not one of its DIDs`);
    return undefined;
  }
  // Kept, as the command says it would be: nothing to tell.
  return keepHeldCredential(ctx, credential, { kind, source: 'issued' }).record;
}
