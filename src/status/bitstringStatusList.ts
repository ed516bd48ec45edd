/**
 * W3C Bitstring Status List v1.0 (https://www.w3.org/TR/vc-bitstring-status-list/), with no
 * cryptosuite in sight: the entries a credential carries (BitstringStatusListEntry), the status
 * list credential an issuer publishes (BitstringStatusListCredential, unsigned here: the caller
 * signs it with the suite of its credentials), and the reading of one status bit from a list whose
 * proof the caller has verified. Digital Bazaar's @digitalbazaar/vc-bitstring-status-list builds
 * the list credential and holds the bits; the decoding of a list that arrives from elsewhere is
 * ours, bounded, since a GZIP bomb of a few KB would otherwise inflate to gigabytes.
 */
import { randomInt } from 'node:crypto';
import { gunzipSync } from 'node:zlib';

/** The purposes vc issues and checks (a 1-bit status each; `message` and `refresh` are not used). */
export const STATUS_PURPOSES = ['revocation', 'suspension'] as const;
export type StatusPurpose = (typeof STATUS_PURPOSES)[number];

/** The smallest list the specification allows: 131,072 entries (16 KB), for group privacy (section 6.1). */
export const MIN_STATUS_LIST_LENGTH = 131_072;

/** The most bytes a decoded list may have (2^27 entries), whatever its compressed size. */
export const MAX_STATUS_LIST_BYTES = 16 * 1024 * 1024;

/** The entry type, the list credential type and the list type. */
export const STATUS_ENTRY_TYPE = 'BitstringStatusListEntry';
export const STATUS_LIST_CREDENTIAL_TYPE = 'BitstringStatusListCredential';
export const STATUS_LIST_TYPE = 'BitstringStatusList';

/** The context a VC 1.1 credential needs for these terms (VC 2.0's base context defines them). */
export const STATUS_LIST_V1_CONTEXT_URL = 'https://www.w3.org/ns/credentials/status/v1';

const libraries = () => import('@digitalbazaar/vc-bitstring-status-list');

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function quoted(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** One BitstringStatusListEntry of a credential, checked. */
export interface StatusEntry {
  id?: string;
  statusPurpose: string;
  statusListIndex: number;
  statusListCredential: string;
}

/** True for an absolute http(s) URL (a statusListCredential vc can name or fetch). */
function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}

/**
 * The BitstringStatusListEntry entries of a credential's credentialStatus (an object or a list;
 * entries of other types are left to whoever knows them), each checked against the
 * specification's statements (section 2.1), or why one is malformed.
 */
export function readStatusEntries(credential: Json): { entries: StatusEntry[]; otherTypes: string[] } | { problem: string } {
  const status = credential.credentialStatus;
  if (status === undefined) return { entries: [], otherTypes: [] };
  const list = Array.isArray(status) ? (status as unknown[]) : [status];
  const entries: StatusEntry[] = [];
  const otherTypes: string[] = [];
  for (const [position, item] of list.entries()) {
    const where = Array.isArray(status) ? `credentialStatus[${position}]` : 'credentialStatus';
    const entry = record(item);
    if (entry === undefined) return { problem: `${where}: expected an object` };
    if (entry.type !== STATUS_ENTRY_TYPE) {
      otherTypes.push(typeof entry.type === 'string' ? entry.type : quoted(entry.type));
      continue;
    }
    const { id, statusPurpose, statusListIndex, statusListCredential, statusSize } = entry;
    if (typeof statusPurpose !== 'string' || statusPurpose === '') return { problem: `${where}.statusPurpose: expected a purpose such as "revocation", got ${quoted(statusPurpose)}` };
    if (typeof statusListIndex !== 'string' || !/^(0|[1-9]\d*)$/.test(statusListIndex) || !Number.isSafeInteger(Number(statusListIndex))) {
      return { problem: `${where}.statusListIndex: expected a non-negative integer written in base 10 as a string, e.g. "94567", got ${quoted(statusListIndex)}` };
    }
    if (typeof statusListCredential !== 'string' || !isHttpUrl(statusListCredential)) {
      return { problem: `${where}.statusListCredential: expected the URL of a BitstringStatusListCredential, got ${quoted(statusListCredential)}` };
    }
    if (id !== undefined && (typeof id !== 'string' || id === statusListCredential)) {
      return { problem: `${where}.id: expected a URL other than the statusListCredential, got ${quoted(id)}` };
    }
    if (statusSize !== undefined && statusSize !== 1) {
      return { problem: `${where}.statusSize: ${quoted(statusSize)} is not supported (revocation and suspension are one bit a credential)` };
    }
    entries.push({ ...(id === undefined ? {} : { id }), statusPurpose, statusListIndex: Number(statusListIndex), statusListCredential });
  }
  return { entries, otherTypes };
}

/** A status list's bits, decoded with a bound, or why they cannot be read. */
export async function decodeStatusList(encodedList: unknown, maxBytes = MAX_STATUS_LIST_BYTES): Promise<{ list: import('@digitalbazaar/vc-bitstring-status-list').BitstringStatusList } | { problem: string }> {
  if (typeof encodedList !== 'string' || !/^u[A-Za-z0-9_-]+$/.test(encodedList)) {
    return { problem: 'encodedList: expected "u" and base64url characters (multibase), the GZIP-compressed bitstring' };
  }
  let bytes: Buffer;
  try {
    bytes = gunzipSync(Buffer.from(encodedList.slice(1), 'base64url'), { maxOutputLength: maxBytes });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') return { problem: `encodedList: the list is longer than ${maxBytes * 8} entries (${maxBytes} bytes), the most vc reads` };
    return { problem: 'encodedList: not a GZIP-compressed bitstring' };
  }
  if (bytes.length === 0) return { problem: 'encodedList: the list is empty' };
  const { BitstringStatusList } = await libraries();
  return { list: new BitstringStatusList({ buffer: new Uint8Array(bytes) }) };
}

/** A fresh list of `length` entries, all 0 (Digital Bazaar's createList). */
export async function createStatusList(length = MIN_STATUS_LIST_LENGTH): Promise<import('@digitalbazaar/vc-bitstring-status-list').BitstringStatusList> {
  if (!Number.isSafeInteger(length) || length < MIN_STATUS_LIST_LENGTH || length % 8 !== 0) {
    throw new RangeError(`a status list has a multiple of 8 entries, at least ${MIN_STATUS_LIST_LENGTH}; got ${length}`);
  }
  return (await libraries()).createList({ length });
}

/** The encodedList of a list (Digital Bazaar's encoding: "u" + base64url of its GZIP). */
export async function encodeStatusList(list: import('@digitalbazaar/vc-bitstring-status-list').BitstringStatusList): Promise<string> {
  return list.encode();
}

export interface StatusListCredentialOptions {
  /** The list's URL: the credential's id and every entry's statusListCredential. */
  url: string;
  /** The issuer (the same as that of the credentials the list is about). */
  issuer: string;
  statusPurpose: StatusPurpose;
  list: import('@digitalbazaar/vc-bitstring-status-list').BitstringStatusList;
  /** This version's time. */
  validFrom: Date;
}

/**
 * The BitstringStatusListCredential of a list, unsigned (VC 2.0): Digital Bazaar's createCredential,
 * with the issuer and the time of this version added.
 */
export async function unsignedStatusListCredential(options: StatusListCredentialOptions): Promise<Json> {
  const { createCredential, VC_BSL_VC_V2_CONTEXT } = await libraries();
  const credential = await createCredential({ id: options.url, list: options.list, statusPurpose: options.statusPurpose, context: [...VC_BSL_VC_V2_CONTEXT] });
  const { credentialSubject, ...rest } = credential;
  return { ...rest, issuer: options.issuer, validFrom: options.validFrom.toISOString().replace(/\.\d{3}Z$/, 'Z'), credentialSubject };
}

/** The issuer of a credential (a string, or the id of an object), if any. */
export function issuerOf(credential: Json): string | undefined {
  if (typeof credential.issuer === 'string') return credential.issuer;
  const id = record(credential.issuer)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The status bit of `entry` in a status list credential whose proof the caller has verified: the
 * list must be what the entry names (its id, type, purpose), at least MIN_STATUS_LIST_LENGTH
 * entries long (section 3.2, STATUS_LIST_LENGTH_ERROR) and reach the index (RANGE_ERROR).
 */
export async function readStatusBit(entry: StatusEntry, listCredential: Json, options: { maxBytes?: number } = {}): Promise<{ set: boolean; length: number } | { problem: string }> {
  const types = Array.isArray(listCredential.type) ? (listCredential.type as unknown[]) : [listCredential.type];
  if (!types.includes(STATUS_LIST_CREDENTIAL_TYPE)) return { problem: `it is not a ${STATUS_LIST_CREDENTIAL_TYPE} (type ${quoted(listCredential.type)})` };
  if (listCredential.id !== entry.statusListCredential) return { problem: `its id ${quoted(listCredential.id, 100)} is not the statusListCredential the credential names` };
  const subject = record(listCredential.credentialSubject);
  if (subject === undefined || subject.type !== STATUS_LIST_TYPE) return { problem: `its credentialSubject is not a ${STATUS_LIST_TYPE}` };
  const purposes = Array.isArray(subject.statusPurpose) ? (subject.statusPurpose as unknown[]) : [subject.statusPurpose];
  if (!purposes.includes(entry.statusPurpose)) {
    return { problem: `its statusPurpose is ${quoted(subject.statusPurpose)}, not the credential's "${entry.statusPurpose}"` };
  }
  const decoded = await decodeStatusList(subject.encodedList, options.maxBytes);
  if ('problem' in decoded) return decoded;
  const { list } = decoded;
  if (list.length < MIN_STATUS_LIST_LENGTH) {
    return { problem: `it has ${list.length} entries, fewer than the ${MIN_STATUS_LIST_LENGTH} (16 KB) a Bitstring Status List must have for group privacy` };
  }
  if (entry.statusListIndex >= list.length) return { problem: `statusListIndex ${entry.statusListIndex} is beyond its ${list.length} entries` };
  return { set: list.getStatus(entry.statusListIndex), length: list.length };
}

/**
 * A uniformly random index of a list of `length` entries that `taken` does not claim, from the
 * operating system's randomness (so no index tells the order of issuance), by rejection: the
 * caller keeps lists at most half full, so a draw succeeds within a few tries.
 */
export function drawFreeIndex(length: number, taken: (index: number) => boolean, maxTries = 256): number | undefined {
  for (let attempt = 0; attempt < maxTries; attempt++) {
    const index = randomInt(0, length);
    if (!taken(index)) return index;
  }
  return undefined;
}
