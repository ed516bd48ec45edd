/**
 * The issuer side of W3C Bitstring Status Lists: a credential issued with a status gets a random
 * free index in a list of its issuer and purpose (a new list when none has room), and revoking,
 * suspending or unsuspending it flips its bit and re-signs the list credential, which the issuer
 * service serves at GET /status-lists/:id.
 *
 * Crash safety, with the wallet store's transactions: the index is claimed in the store before
 * the credential carrying it is signed (a kill in between wastes the index, never hands it out
 * twice); a list is created together with its signed credential; a re-signed list is stored with
 * its bits in one write, under the wallet's status-list lock (so two processes never re-sign from
 * the same old bits).
 */
import { ServiceKey, type Context } from '../../context.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../errors.js';
import { crashPoint } from '../../faults.js';
import {
  MIN_STATUS_LIST_LENGTH,
  STATUS_ENTRY_TYPE,
  createStatusList,
  decodeStatusList,
  drawFreeIndex,
  encodeStatusList,
  unsignedStatusListCredential,
  type StatusPurpose,
} from '../../status/bitstringStatusList.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import {
  STATUS_ENTRIES_NAMESPACE,
  STATUS_IDS_NAMESPACE,
  STATUS_LISTS_NAMESPACE,
  entryKey,
  type StoredStatusEntry,
  type StoredStatusIds,
  type StoredStatusList,
} from './statusRecords.js';
import { statusListSigner, type StatusListSigner } from './statusListSuites.js';

/** Where credentials name status lists when VC_ISSUER_URL is unset and no issuer service runs here: its default address. */
export const DEFAULT_ISSUER_URL = 'http://127.0.0.1:3000';
/** The path of the status lists under the issuer's base URL. */
export const STATUS_LISTS_PATH = '/status-lists';
/** A list takes new entries until half of it is assigned: random draws then succeed in two tries on average. */
export const LIST_FILL_LIMIT = 0.5;
/** The wallet lock that orders list creation and re-signing across processes. */
const STATUS_LOCK = 'status-lists';

const SERVED_ISSUER_URL = new ServiceKey<string>('status.servedIssuerUrl');

/**
 * Called by the server once the issuer service listens at `issuerUrl`: unless VC_ISSUER_URL is set,
 * new status lists are named under that address. On every interface (0.0.0.0, ::) that is the
 * loopback, which only this machine reaches: `reachable` is false and the caller says to set it.
 */
export function announceServedIssuer(ctx: Context, issuerUrl: string, listenHost: string): { url: string; reachable: boolean } | undefined {
  if (ctx.config.issuer.publicUrl !== undefined) return undefined;
  const wildcard = listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '[::]';
  const url = wildcard ? `http://127.0.0.1:${new URL(issuerUrl).port}` : issuerUrl;
  void ctx.lazy(SERVED_ISSUER_URL, () => Promise.resolve(url));
  return { url, reachable: !wildcard };
}

/** The issuer's base URL: VC_ISSUER_URL, the address of the issuer service of this process, or the default. */
export async function issuerBaseUrl(ctx: Context): Promise<string> {
  return ctx.config.issuer.publicUrl ?? (await ctx.peek(SERVED_ISSUER_URL)) ?? DEFAULT_ISSUER_URL;
}

/** A BitstringStatusListEntry as a credential carries it. */
export interface StatusListEntryJson {
  id: string;
  type: typeof STATUS_ENTRY_TYPE;
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
  [member: string]: unknown;
}

function entryJson(list: StoredStatusList, index: number): StatusListEntryJson {
  return { id: `${list.url}#${index}`, type: STATUS_ENTRY_TYPE, statusPurpose: list.purpose, statusListIndex: String(index), statusListCredential: list.url };
}

function usable(list: StoredStatusList, purpose: StatusPurpose, issuer: string, baseUrl: string): boolean {
  return list.purpose === purpose && list.issuer === issuer && list.baseUrl === baseUrl && list.assigned < list.length * LIST_FILL_LIMIT;
}

function findUsableList(ctx: Context, purpose: StatusPurpose, issuer: string, baseUrl: string): StoredStatusList | undefined {
  return ctx.store.list<StoredStatusList>(STATUS_LISTS_NAMESPACE).find((record) => usable(record.value, purpose, issuer, baseUrl))?.value;
}

/**
 * A list of `purpose` by `signer`'s issuer under `baseUrl` with room for an entry: an existing one,
 * or a new one created with its signed credential (under the wallet's lock, so that two processes
 * create one list between them, not two).
 */
async function ensureList(ctx: Context, purpose: StatusPurpose, signer: StatusListSigner, baseUrl: string): Promise<void> {
  if (findUsableList(ctx, purpose, signer.issuer, baseUrl) !== undefined) return;
  await ctx.store.withLock(STATUS_LOCK, async () => {
    if (findUsableList(ctx, purpose, signer.issuer, baseUrl) !== undefined) return;
    const taken = new Set(ctx.store.list<StoredStatusList>(STATUS_LISTS_NAMESPACE, `${purpose}-`).map((record) => record.key));
    let number = taken.size + 1;
    while (taken.has(`${purpose}-${number}`)) number += 1;
    const id = `${purpose}-${number}`;
    const url = `${baseUrl}${STATUS_LISTS_PATH}/${id}`;
    const list = await createStatusList(MIN_STATUS_LIST_LENGTH);
    const now = ctx.now();
    const credential = await signer.sign(await unsignedStatusListCredential({ url, issuer: signer.issuer, statusPurpose: purpose, list, validFrom: now }));
    const record: StoredStatusList = {
      id,
      url,
      baseUrl,
      purpose,
      issuer: signer.issuer,
      suite: signer.suite,
      length: list.length,
      assigned: 0,
      encodedList: await encodeStatusList(list),
      credential,
      version: 1,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    ctx.store.transaction(() => {
      if (ctx.store.get(STATUS_LISTS_NAMESPACE, id) !== undefined) throw new Error(`status list ${id} appeared while the wallet's status-list lock was held`);
      ctx.store.put(STATUS_LISTS_NAMESPACE, id, record);
    });
  });
}

/** Thrown inside the assignment transaction when a list filled up meanwhile (another process): the caller tries again. */
class ListFull extends Error {}

export interface AssignStatusOptions {
  purposes: readonly StatusPurpose[];
  signer: StatusListSigner;
  /** The credential's own id, to revoke it by (its credentialStatus ids always work). */
  credentialId?: string | undefined;
  names?: FieldNamer | undefined;
  /** The input field the credential id came from, for the conflict's message. */
  credentialIdField?: string | undefined;
}

/** A credential's assigned status, and the record of its own id to make once it is signed. */
export interface AssignedStatus {
  /** Its credentialStatus: one entry, or a list of entries for several purposes. */
  credentialStatus: StatusListEntryJson | StatusListEntryJson[];
  /**
   * Records the credential's own id (options.credentialId) as naming these entries, once the
   * credential is signed: a run that dies before (or fails to sign) leaves the id free for its
   * retry. ConflictError when another credential took the id meanwhile.
   */
  signed(): void;
}

/**
 * Assigns the credential one random free index in a list of each purpose, in one store transaction
 * (committed before the credential is signed), and returns its credentialStatus (each entry's id
 * names it from then on); its own id names it once `signed()` is called.
 */
export async function assignCredentialStatus(ctx: Context, options: AssignStatusOptions): Promise<AssignedStatus> {
  const names = options.names ?? plainFieldNames;
  const purposes = [...new Set(options.purposes)];
  const baseUrl = await issuerBaseUrl(ctx);
  for (let attempt = 0; ; attempt++) {
    for (const purpose of purposes) await ensureList(ctx, purpose, options.signer, baseUrl);
    try {
      const credentialId = options.credentialId;
      const idTaken = (): void => {
        if (credentialId !== undefined && ctx.store.get(STATUS_IDS_NAMESPACE, credentialId) !== undefined) {
          const field = options.credentialIdField ?? 'credential.id';
          throw new ConflictError(`${names(field)}: ${credentialId} already names a credential with a status entry (give each credential its own id)`, { field });
        }
      };
      const assignment = ctx.store.transaction(() => {
        idTaken();
        const now = ctx.now().toISOString();
        const assigned = purposes.map((purpose) => {
          const list = findUsableList(ctx, purpose, options.signer.issuer, baseUrl);
          if (list === undefined) throw new ListFull();
          const index = drawFreeIndex(list.length, (candidate) => ctx.store.get(STATUS_ENTRIES_NAMESPACE, entryKey(list.id, candidate)) !== undefined);
          if (index === undefined) throw new ListFull();
          const entry = entryJson(list, index);
          // An id someone chose for a credential (options.credentialId) that is this entry's id: draw again.
          if (ctx.store.get(STATUS_IDS_NAMESPACE, entry.id) !== undefined) throw new ListFull();
          const stored: StoredStatusEntry = {
            listId: list.id,
            index,
            purpose,
            statusId: entry.id,
            ...(credentialId === undefined ? {} : { credentialId }),
            assignedAt: now,
            set: false,
          };
          ctx.store.put(STATUS_ENTRIES_NAMESPACE, entryKey(list.id, index), stored);
          ctx.store.put<StoredStatusList>(STATUS_LISTS_NAMESPACE, list.id, { ...list, assigned: list.assigned + 1 });
          return { entry, key: entryKey(list.id, index) };
        });
        // Each of its entries' ids names the credential, with all its entries (either entry's id suspends it).
        const named: StoredStatusIds = { entries: assigned.map((item) => item.key) };
        for (const id of assigned.map((item) => item.entry.id)) ctx.store.put<StoredStatusIds>(STATUS_IDS_NAMESPACE, id, named);
        return { entries: assigned.map((item) => item.entry), named };
      });
      crashPoint('status:assigned');
      const { entries, named } = assignment;
      return {
        credentialStatus: entries.length === 1 ? entries[0]! : entries,
        signed: () => {
          if (credentialId === undefined) return;
          ctx.store.transaction(() => {
            idTaken();
            ctx.store.put<StoredStatusIds>(STATUS_IDS_NAMESPACE, credentialId, named);
          });
        },
      };
    } catch (error) {
      if (!(error instanceof ListFull) || attempt >= 5) throw error;
    }
  }
}

/** The outcome of a status change. */
export interface StatusChangeResult {
  message: string;
  /** The id the credential was named by. */
  id: string;
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
  /** The entry's bit now: revoked or suspended when set. */
  set: boolean;
  /** False when the bit already had that value (nothing was re-signed). */
  changed: boolean;
}

const DONE: Record<StatusPurpose, Record<'true' | 'false', string>> = {
  revocation: { true: 'revoked', false: 'not revoked' },
  suspension: { true: 'suspended', false: 'unsuspended' },
};

export interface ChangeStatusOptions {
  /** The credential's id or its credentialStatus id. */
  id: string;
  purpose: StatusPurpose;
  /** The bit to set: true revokes or suspends, false unsuspends. */
  set: boolean;
  names?: FieldNamer | undefined;
  /** The input field of the id (for messages). */
  field?: string | undefined;
}

/**
 * Sets the bit of a credential's entry of `purpose` and re-signs its list. Revocation is for good
 * (the specification's revocation is not reversible): clearing it is refused.
 */
export async function changeCredentialStatus(ctx: Context, options: ChangeStatusOptions): Promise<StatusChangeResult> {
  const names = options.names ?? plainFieldNames;
  const field = options.field ?? 'id';
  const { purpose, set } = options;
  if (purpose === 'revocation' && !set) {
    throw new UnprocessableError(`${names(field)}: a revocation cannot be undone (a Bitstring Status List revocation is permanent); issue credentials with the suspension purpose to suspend and unsuspend them`, { field });
  }
  const ids = ctx.store.get<StoredStatusIds>(STATUS_IDS_NAMESPACE, options.id);
  if (ids === undefined) {
    throw new NotFoundError(`${names(field)}: no credential with a status list entry is known by ${JSON.stringify(options.id.slice(0, 200))} in this wallet (give the credential's id or its credentialStatus id, e.g. ${DEFAULT_ISSUER_URL}${STATUS_LISTS_PATH}/revocation-1#94567)`, { field });
  }
  const entries = ids.entries.map((key) => ctx.store.get<StoredStatusEntry>(STATUS_ENTRIES_NAMESPACE, key)).filter((entry): entry is StoredStatusEntry => entry !== undefined);
  const found = entries.find((entry) => entry.purpose === purpose);
  if (found === undefined) {
    const has = entries.map((entry) => entry.purpose).join(' and ') || 'no';
    throw new UnprocessableError(`${names(field)}: the credential has ${has} status entry, no ${purpose} entry (issue with --status ${purpose} to ${purpose === 'revocation' ? 'revoke' : 'suspend'} it)`, { field });
  }
  const key = entryKey(found.listId, found.index);
  const result = (entry: StoredStatusEntry, list: StoredStatusList, changed: boolean): StatusChangeResult => ({
    message: `${changed ? '' : 'already '}${DONE[purpose][String(set) as 'true' | 'false']}`,
    id: options.id,
    statusPurpose: purpose,
    statusListIndex: String(entry.index),
    statusListCredential: list.url,
    set: entry.set,
    changed,
  });
  return ctx.store.withLock(STATUS_LOCK, async () => {
    const entry = ctx.store.get<StoredStatusEntry>(STATUS_ENTRIES_NAMESPACE, key)!;
    const list = ctx.store.get<StoredStatusList>(STATUS_LISTS_NAMESPACE, entry.listId);
    if (list === undefined) throw new Error(`status list ${entry.listId} of entry ${key} is missing from the wallet`);
    if (entry.set === set) return result(entry, list, false);
    const signer = await statusListSigner(ctx, list.suite);
    if (signer.issuer !== list.issuer) {
      throw new UnprocessableError(
        `${names(field)}: the status list ${list.url} is issued by ${list.issuer}, but this wallet's ${list.suite} key is now ${signer.issuer} (was IDP_BLS_SIGN_SEED_PHRASE changed?): it cannot be re-signed`,
        { field },
      );
    }
    const decoded = await decodeStatusList(list.encodedList);
    if ('problem' in decoded) throw new Error(`status list ${list.id} in the wallet: ${decoded.problem}`);
    decoded.list.setStatus(entry.index, set);
    const encodedList = await encodeStatusList(decoded.list);
    const now = ctx.now();
    const credential = await signer.sign(await unsignedStatusListCredential({ url: list.url, issuer: list.issuer, statusPurpose: list.purpose, list: decoded.list, validFrom: now }));
    crashPoint('status:list-signed');
    const changed = ctx.store.transaction(() => {
      // Re-read: an issuance may have assigned indexes meanwhile (it changes `assigned` only).
      const current = ctx.store.get<StoredStatusList>(STATUS_LISTS_NAMESPACE, list.id)!;
      if (current.version !== list.version) throw new Error(`status list ${list.id} changed while the wallet's status-list lock was held`);
      const updated: StoredStatusList = { ...current, encodedList, credential, version: current.version + 1, updatedAt: now.toISOString() };
      const changedEntry: StoredStatusEntry = { ...entry, set, changedAt: now.toISOString() };
      ctx.store.put(STATUS_LISTS_NAMESPACE, list.id, updated);
      ctx.store.put(STATUS_ENTRIES_NAMESPACE, key, changedEntry);
      return { entry: changedEntry, list: updated };
    });
    return result(changed.entry, changed.list, true);
  });
}

/** The signed status list credential of a local list id (GET /status-lists/:id). */
export function readStatusListCredential(ctx: Context, id: string, names: FieldNamer = plainFieldNames): Record<string, unknown> {
  const list = ctx.store.get<StoredStatusList>(STATUS_LISTS_NAMESPACE, id);
  if (list === undefined) throw new NotFoundError(`${names('id')}: no status list ${JSON.stringify(id.slice(0, 100))} on this issuer`, { field: 'id' });
  return list.credential;
}

/** The characters of a status list id in a URL: one path segment, no dot segments, no query or fragment. */
const LIST_ID = /^(?!\.{1,2}$)[A-Za-z0-9._~-]{1,200}$/;

/**
 * The id of the list `url` names when it is exactly `${base}/status-lists/<id>`, the id one plain
 * path segment (letters, digits, `.`, `_`, `~`, `-`; not `.` or `..`), with nothing after it;
 * else undefined. The only URLs vc fetches status lists from are those of its issuer address.
 */
export function statusListIdAt(url: string, base: string): string | undefined {
  const prefix = `${base}${STATUS_LISTS_PATH}/`;
  if (!url.startsWith(prefix)) return undefined;
  const id = url.slice(prefix.length);
  return LIST_ID.test(id) ? id : undefined;
}

/** The issuer's signed list credential whose URL is `url`, if this wallet has it. */
export function findStatusListByUrl(ctx: Context, url: string): Record<string, unknown> | undefined {
  const id = url.slice(url.lastIndexOf('/') + 1);
  if (!LIST_ID.test(id)) return undefined;
  const list = ctx.store.get<StoredStatusList>(STATUS_LISTS_NAMESPACE, id);
  return list !== undefined && list.url === url ? list.credential : undefined;
}

/**
 * The status assignment of a credential a suite signs (see signBbs2023Credential's `status`): the
 * entries of `purposes` in lists of the suite's issuer, assigned once every check of the
 * credential has passed.
 */
export function credentialStatusAssignment(
  ctx: Context,
  options: Omit<AssignStatusOptions, 'signer'> & { suite: string },
): { entries: number; assign(issuer: string): Promise<StatusListEntryJson | StatusListEntryJson[]>; signed(): void } {
  let assigned: AssignedStatus | undefined;
  return {
    entries: new Set(options.purposes).size,
    assign: async (issuer) => {
      const signer = await statusListSigner(ctx, options.suite);
      // The lists are signed by the credential's issuer, or the verifier's issuer check fails.
      if (signer.issuer !== issuer) throw new Error(`the ${options.suite} status list signer is ${signer.issuer}, not the credential's issuer ${issuer}`);
      assigned = await assignCredentialStatus(ctx, { ...options, signer });
      return assigned.credentialStatus;
    },
    signed: () => assigned?.signed(),
  };
}

/**
 * The status assignment a signer asks for once the credential is complete, or undefined when no
 * purpose is asked for: credentialStatusAssignment for the credential's own id, or `credentialId`
 * when the caller names it (the VC-API's options.credentialId).
 */
export function statusRequest(
  ctx: Context,
  options: { purposes: readonly StatusPurpose[] | undefined; suite: string; names?: FieldNamer | undefined; credentialId?: string | undefined },
): ((completed: Record<string, unknown>) => ReturnType<typeof credentialStatusAssignment>) | undefined {
  const { purposes, suite, names, credentialId } = options;
  if (purposes === undefined || purposes.length === 0) return undefined;
  return (completed) =>
    credentialStatusAssignment(ctx, {
      purposes,
      suite,
      names,
      credentialId: credentialId ?? (typeof completed.id === 'string' ? completed.id : undefined),
      credentialIdField: credentialId === undefined ? 'credential.id' : 'options.credentialId',
    });
}
