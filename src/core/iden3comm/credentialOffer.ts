/**
 * iden3comm credential offers (issue 28, issuer side): `vc issuer offer --holder DID --id ...`
 * makes a `credentials/1.0/offer` message, the js-sdk's CredentialsOfferMessage (js-sdk 1.45 has no
 * helper that builds one: its FetchHandler reads it), from this wallet's issuer DID to the holder,
 * naming credentials this issuer issued to that holder and the agent (`POST /agent` of `vc serve
 * --role issuer`) where a wallet fetches them with a JWZ-authenticated fetch-request
 * (src/core/iden3comm/credentialFetch.ts).
 */
import { randomUUID } from 'node:crypto';
import type { CredentialsOfferMessage } from '@0xpolygonid/js-sdk';
import { httpUrl } from '../../boundedFetch.js';
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError, describeError } from '../../errors.js';
import { AGENT_PATH, PLAIN_MEDIA_TYPE } from '../../iden3/agentStatus.js';
import { getIden3 } from '../../iden3/wallet.js';
import { resolveIssuerDid } from '../pbq/identities.js';
import { isIssued } from '../pbq/publication.js';
import { issuerBaseUrl } from '../status/issuerStatusLists.js';
import type { FieldNamer } from '../validate.js';

export const CREDENTIAL_OFFER_TYPE = 'https://iden3-communication.io/credentials/1.0/offer';
/** The most credentials one offer names. */
export const MAX_OFFERED_CREDENTIALS = 32;

/** Options of `vc issuer offer`. */
export interface CredentialOfferOptions {
  holder: string;
  id: string[];
  url?: string | undefined;
}

/** A credential this wallet's issuer `issuer` issued (completed publications only), as stored; undefined when it issued none with that id. */
export async function issuedCredential(ctx: Context, issuer: string, id: string): Promise<Record<string, unknown> | undefined> {
  if (!isIssued(ctx, issuer, id)) return undefined;
  const stored = await (await getIden3(ctx)).dataStorage.credential.findCredentialById(id);
  return stored === undefined ? undefined : (JSON.parse(JSON.stringify(stored)) as Record<string, unknown>);
}

/** The subject DID of a credential (credentialSubject.id), if any. */
export function credentialSubjectId(credential: Record<string, unknown>): string | undefined {
  const subject = credential.credentialSubject as { id?: unknown } | undefined;
  return typeof subject?.id === 'string' ? subject.id : undefined;
}

/** Refuses an agent URL that is not an absolute http(s) URL. */
function checkAgentUrl(url: string, names: FieldNamer): void {
  if (httpUrl(url) === undefined) {
    throw new InputError(`${names('url')}: expected the absolute http(s) URL of the issuer's agent, got ${JSON.stringify(url.slice(0, 200))}`, { field: 'url' });
  }
}

/** `vc issuer offer`: the offer message for credentials this issuer issued to the holder. */
export async function createCredentialOffer(ctx: Context, options: CredentialOfferOptions, names: FieldNamer): Promise<CredentialsOfferMessage> {
  const { core } = (await getIden3(ctx)).modules;
  let holder: string;
  try {
    // An iden3 DID (did:example:... parses too, and js-iden3-core makes an id of any DID's hash).
    if (!/^did:(polygonid|iden3):/.test(options.holder)) throw new Error('not a did:polygonid or did:iden3 DID');
    const parsed = core.DID.parse(options.holder);
    core.DID.idFromDID(parsed);
    holder = parsed.string();
  } catch (error) {
    throw new InputError(`${names('holder')}: expected the holder's iden3 DID (did:polygonid:... or did:iden3:...), got ${JSON.stringify(options.holder.slice(0, 200))} (${describeError(error)})`, { field: 'holder' });
  }
  const ids = [...new Set(options.id)];
  if (ids.length === 0) throw new InputError(`${names('id')}: give at least one credential id (vc issuer credentials lists them)`, { field: 'id' });
  if (ids.length > MAX_OFFERED_CREDENTIALS) throw new InputError(`${names('id')}: ${ids.length} credentials, an offer names at most ${MAX_OFFERED_CREDENTIALS}`, { field: 'id' });
  if (options.url !== undefined) checkAgentUrl(options.url, names);
  const issuer = await resolveIssuerDid(ctx);
  const credentials = [];
  for (const id of ids) {
    const credential = await issuedCredential(ctx, issuer, id);
    if (credential === undefined) throw new NotFoundError(`${names('id')}: issuer ${issuer} issued no credential ${id.slice(0, 200)} from this wallet (vc issuer credentials lists those it did)`, { field: 'id' });
    const subject = credentialSubjectId(credential);
    if (subject !== holder) throw new UnprocessableError(`${names('id')}: credential ${id} was issued to ${subject ?? 'no subject DID'}, not to ${holder}; an offer names only the holder's own credentials`, { field: 'id' });
    const types = Array.isArray(credential.type) ? credential.type.filter((type): type is string => typeof type === 'string') : [];
    credentials.push({ id, description: types.find((type) => type !== 'VerifiableCredential') ?? 'VerifiableCredential' });
  }
  const id = randomUUID();
  return {
    id,
    typ: PLAIN_MEDIA_TYPE as never,
    type: CREDENTIAL_OFFER_TYPE as never,
    thid: id,
    body: { url: options.url ?? `${await issuerBaseUrl(ctx)}${AGENT_PATH}`, credentials },
    from: issuer,
    to: holder,
  };
}
