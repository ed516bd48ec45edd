/**
 * `vc holder fetch --offer FILE|link` (issue 28, holder side): reads a `credentials/1.0/offer`
 * (vc's `vc issuer offer`, or a Privado ID issuer's), and for each credential offered packs a
 * `credentials/1.0/fetch-request` from the offer's recipient as a JWZ (authV2, the same packer as
 * `vc holder respond`), posts it to the offer's agent URL and keeps the credential of the
 * `credentials/1.0/issuance-response` in the holder's store through the import path
 * (`vc holder credentials import`: its proof, status and subject checks). The network rule is
 * respond's: this machine only unless `allowRemote`, and then https only; limits, no redirects.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { parseJsonText } from '../../jsonInput.js';
import { InputError, NetworkError, TooLargeError, UnprocessableError, describeError } from '../../errors.js';
import { boundedFetch } from '../../boundedFetch.js';
import { getIden3 } from '../../iden3/wallet.js';
import { importHeldCredentials, type ImportedCredential } from '../holder/holderImport.js';
import { requireWalletIdentity } from '../pbq/identities.js';
import type { FieldNamer } from '../validate.js';
import { checkReachable, packAuthResponse } from './authRespond.js';
import { CREDENTIAL_OFFER_TYPE, MAX_OFFERED_CREDENTIALS } from './credentialOffer.js';
import { CREDENTIAL_FETCH_REQUEST_TYPE, CREDENTIAL_ISSUANCE_RESPONSE_TYPE } from './credentialFetch.js';

const ZKP_MEDIA_TYPE = 'application/iden3-zkp-json';
/** The largest offer read (a file or a link's message): offers are a few KB. */
export const MAX_OFFER_BYTES = 64 * 1024;
/** Time allowed for the agent's answer, and the largest answer read (one credential with its proofs). */
export const FETCH_TIMEOUT_MS = 60_000;
export const FETCH_MAX_ANSWER_BYTES = 1024 * 1024;

export interface HolderFetchInput {
  offer: string;
  allowRemote?: boolean | undefined;
}

export interface HolderFetchResult {
  offer: string;
  issuer: string;
  holder: string;
  url: string;
  stored: ImportedCredential[];
}

interface OfferMessage {
  id: string;
  thid?: string;
  from: string;
  to: string;
  body: { url: string; credentials: Array<{ id: string; description?: string }> };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The offer's JSON text: the text itself, or the message an iden3comm:// or universal link carries (i_m=). */
function offerText(given: string, where: string): string {
  const text = given.trim();
  if (Buffer.byteLength(text, 'utf8') > MAX_OFFER_BYTES) throw new TooLargeError(`${where}: larger than ${MAX_OFFER_BYTES / 1024} KiB; a credential offer is a few KB`, { field: 'offer' });
  if (text.startsWith('{')) return text;
  const match = /[?#&]i_m=([^&#]*)/.exec(text);
  if (/^(iden3comm|https?):/i.test(text) && match !== null) {
    let encoded = match[1]!;
    try {
      encoded = decodeURIComponent(encoded);
    } catch {
      // kept as given
    }
    if (encoded === '' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(encoded)) throw new InputError(`${where}: its i_m parameter is not base64`, { field: 'offer' });
    return Buffer.from(encoded, 'base64').toString('utf8');
  }
  throw new InputError(`${where}: expected a credential offer (a file holding its JSON), or an iden3comm://?i_m= or universal link (https://...#i_m=) carrying it`, { field: 'offer' });
}

/** Checks the message is a credential offer vc can fetch (one line naming what is wrong). */
function checkOffer(value: unknown, where: string): OfferMessage {
  if (!isObject(value)) throw new InputError(`${where}: expected a JSON object (an iden3comm message)`, { field: 'offer' });
  if (value.type !== CREDENTIAL_OFFER_TYPE) {
    // Message types are the protocol's public names: shown whole.
    const type = typeof value.type === 'string' ? value.type.slice(0, 200) : undefined;
    const shown = type !== undefined ? `is a ${type} message` : 'has no message type';
    throw new InputError(`${where}: ${shown}, not a credential offer (${CREDENTIAL_OFFER_TYPE})`, {
      field: 'offer',
      publicUrls: [CREDENTIAL_OFFER_TYPE, ...(type !== undefined && type.startsWith('https://iden3-communication.io/') ? [type] : [])],
    });
  }
  for (const field of ['id', 'from', 'to'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '' || value[field].length > 512) throw new InputError(`${where}: field ${field}: expected a non-empty string`, { field: 'offer' });
  }
  if (value.thid !== undefined && (typeof value.thid !== 'string' || value.thid.length > 512)) throw new InputError(`${where}: field thid: expected a string`, { field: 'offer' });
  const body = value.body;
  if (!isObject(body)) throw new InputError(`${where}: field body: expected an object`, { field: 'offer' });
  if (typeof body.url !== 'string' || body.url === '') throw new InputError(`${where}: field body.url: expected the issuer agent's URL`, { field: 'offer' });
  const credentials = body.credentials;
  if (!Array.isArray(credentials) || credentials.length === 0) throw new InputError(`${where}: field body.credentials: expected a non-empty list of {id, description}`, { field: 'offer' });
  if (credentials.length > MAX_OFFERED_CREDENTIALS) throw new InputError(`${where}: field body.credentials: ${credentials.length} credentials, vc fetches at most ${MAX_OFFERED_CREDENTIALS} from one offer`, { field: 'offer' });
  credentials.forEach((item: unknown, index) => {
    if (!isObject(item) || typeof item.id !== 'string' || item.id === '' || item.id.length > 256) throw new InputError(`${where}: field body.credentials[${index}].id: expected the credential's id`, { field: 'offer' });
  });
  return value as unknown as OfferMessage;
}

/** The reason an agent gives for a refusal: vc's JSON error message, or the start of its body on one line. */
function refusalReason(text: string | undefined): string {
  if (text === undefined || text === '') return '';
  let reason: unknown;
  try {
    reason = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
  } catch {
    // not JSON: the text itself
  }
  return `: ${(typeof reason === 'string' ? reason : text).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 300)}`;
}

/** `vc holder fetch`: fetches the offered credentials and keeps them. */
export async function fetchOfferedCredentials(ctx: Context, input: HolderFetchInput, names: FieldNamer): Promise<HolderFetchResult> {
  const where = names('offer');
  let value: unknown;
  try {
    value = parseJsonText(offerText(input.offer, where), where);
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.message, { field: 'offer', cause: error });
    throw new InputError(`${where}: not JSON: ${describeError(error).split('\n')[0]}`, { field: 'offer' });
  }
  const offer = checkOffer(value, where);
  const url = checkReachable(offer.body.url, input.allowRemote === true, `${where}: body.url`, 'offer').toString();
  const { core } = (await getIden3(ctx)).modules;
  let holder;
  try {
    holder = core.DID.parse(offer.to);
    core.DID.idFromDID(holder);
    core.DID.idFromDID(core.DID.parse(offer.from));
  } catch (error) {
    throw new InputError(`${where}: its from and to must be iden3 DIDs (${describeError(error)})`, { field: 'offer' });
  }
  requireWalletIdentity(ctx, holder.string(), `${where}: the offer is for`);

  const credentials: Record<string, unknown>[] = [];
  for (const offered of offer.body.credentials) {
    const fetchRequest = {
      id: randomUUID(),
      typ: ZKP_MEDIA_TYPE,
      type: CREDENTIAL_FETCH_REQUEST_TYPE,
      thid: offer.thid ?? offer.id,
      body: { id: offered.id },
      from: holder.string(),
      to: offer.from,
    };
    const token = await packAuthResponse(ctx, fetchRequest, holder);
    const { status, text, errorText } = await boundedFetch(
      url,
      { method: 'POST', headers: { 'content-type': ZKP_MEDIA_TYPE, accept: 'application/json' }, body: token },
      { timeoutMs: FETCH_TIMEOUT_MS, maxBytes: FETCH_MAX_ANSWER_BYTES },
      (detail, cause) => new NetworkError(`the issuer's agent ${url}: ${detail}`, cause === undefined ? {} : { cause }),
    );
    if (text === undefined) throw new NetworkError(`the issuer's agent ${url} answered HTTP ${status} to the fetch-request for ${offered.id}${refusalReason(errorText)}`);
    let answer: unknown;
    try {
      answer = parseJsonText(text, `the issuer's agent ${url}'s answer`);
    } catch (error) {
      // Not JSON, or JSON that readers would read differently (a repeated or `__proto__` key).
      throw new UnprocessableError(`the issuer's agent ${url} answered the fetch-request for ${offered.id} with no usable JSON message: ${describeError(error).split('\n')[0]}`, { cause: error });
    }
    const message = isObject(answer) ? answer : {};
    if (message.type !== CREDENTIAL_ISSUANCE_RESPONSE_TYPE || !isObject(message.body) || !isObject(message.body.credential)) {
      throw new UnprocessableError(`the issuer's agent ${url} answered the fetch-request for ${offered.id} with ${typeof message.type === 'string' ? message.type.slice(0, 200) : 'no message type'}, not an issuance-response carrying a credential`);
    }
    const credential = message.body.credential;
    if (credential.id !== offered.id) throw new UnprocessableError(`the issuer's agent ${url} answered the fetch-request for ${offered.id} with another credential (${String(credential.id).slice(0, 200)})`);
    credentials.push(credential);
  }
  // Checked whole (proof, status, subject), then kept in one transaction: all of them or none.
  const { imported } = await importHeldCredentials(ctx, { credential: credentials, names: (path) => `the credentials the agent gave: ${path}` });
  return { offer: offer.id, issuer: offer.from, holder: holder.string(), url, stored: imported };
}
