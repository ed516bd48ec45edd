/**
 * The issuer's W3C status lists in the wallet store. Every write is one SQLite transaction (the
 * store's atomic write), so a kill at any point leaves either the state before or the state after:
 * an index is claimed (its entry written) before the credential that carries it is signed, so a
 * credential never gets an index another credential has, even when the issuance that claimed it
 * died; and a list is stored together with its signed credential, so it never exists unsigned.
 */
import type { StatusPurpose } from '../../status/bitstringStatusList.js';

/** The lists, by their local id (the last segment of their URL). */
export const STATUS_LISTS_NAMESPACE = 'status.lists';
/** The assigned indexes, by `${listId}#${index}`. */
export const STATUS_ENTRIES_NAMESPACE = 'status.entries';
/** What names a credential's entries: its credentialStatus id(s), and its own id when it has one. */
export const STATUS_IDS_NAMESPACE = 'status.ids';

export interface StoredStatusList {
  /** Local id: the last path segment of `url` (`revocation-1`). */
  id: string;
  /** The list credential's URL (its id, every entry's statusListCredential). */
  url: string;
  /** The issuer base URL the list was named under (VC_ISSUER_URL or the served address). */
  baseUrl: string;
  purpose: StatusPurpose;
  /** The DID the list is issued by: the issuer of the credentials it is about. */
  issuer: string;
  /** The cryptosuite the list is signed with (that of the issuer's key). */
  suite: string;
  /** Entries (bits). */
  length: number;
  /** How many indexes were handed out. */
  assigned: number;
  /** The current bits (the encodedList of the current credential). */
  encodedList: string;
  /** The current signed BitstringStatusListCredential, as served. */
  credential: Record<string, unknown>;
  /** Incremented at every re-signing. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface StoredStatusEntry {
  listId: string;
  index: number;
  purpose: StatusPurpose;
  /** The credentialStatus id the credential carries: `${list url}#${index}`. */
  statusId: string;
  /** The credential's own id, when it has one. */
  credentialId?: string;
  assignedAt: string;
  /** The entry's bit: revoked or suspended when set. */
  set: boolean;
  changedAt?: string;
}

/** The entries one id names (a credential with both purposes has two). */
export interface StoredStatusIds {
  entries: string[];
}

/** The key of an entry. */
export function entryKey(listId: string, index: number): string {
  return `${listId}#${index}`;
}
