/**
 * iden3comm authorization requests (issue 28, verifier side, off chain): `vc verifier
 * auth-request` builds an `authorization/1.0/request` with the js-sdk's own
 * createAuthorizationRequest, so it is the message a js-sdk verifier makes, whose scope holds one
 * `credentialAtomicQueryV3` proof request; it comes from the wallet's verifier DID and is recorded
 * in the wallet, so that `vc verifier verify --jwz` checks an answer against the request as it
 * was made (its thread id, its scope id, which is the proofs' challenge, and its expiry), whatever
 * the file given back says.
 */
import { randomInt } from 'node:crypto';
import type { Context } from '../../context.js';
import { InputError } from '../../errors.js';
import { getIden3 } from '../../iden3/wallet.js';
import { V3_ON_CHAIN_REQUEST_CIRCUIT, type CredentialRequest } from '../pbq/pbqSchemas.js';
import { buildRequestQuery, checkQueryValue, encodeRequestParams, type RequestQueryOptions } from '../pbq/request.js';
import { ensureRoleIdentity } from '../pbq/identities.js';
import type { FieldNamer } from '../validate.js';

/** The circuit a scope proof request names: js-sdk 1.45 answers it with its 16-16-64 size or the full one. */
export const AUTH_SCOPE_CIRCUIT = 'credentialAtomicQueryV3';
/** The only answer vc verifies: a JWZ whose auth proof is authV2 (Groth16). */
export const AUTH_ACCEPT_PROFILE = 'iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16';
/** The universal link's domain (docs.privado.id, Universal Links): the web wallet, or the mobile app that claims it. */
export const UNIVERSAL_LINK_BASE = 'https://wallet.privado.id/';
/** Store namespace of the requests made, by their id (= thid). */
export const AUTH_REQUESTS_NS = 'iden3comm.authRequests';
/** Default lifetime of a request. */
export const DEFAULT_EXPIRES_SECONDS = 3600;
/** The longest lifetime a request may have (30 days). */
export const MAX_EXPIRES_SECONDS = 30 * 24 * 3600;

/** An iden3comm authorization request as vc makes it (the js-sdk's AuthorizationRequestMessage). */
export interface AuthRequestMessage {
  id: string;
  thid: string;
  from: string;
  typ: string;
  type: string;
  body: {
    accept?: string[];
    reason: string;
    message?: string;
    callbackUrl: string;
    scope: Array<{ id: number; circuitId: string; query: Record<string, unknown>; params?: Record<string, unknown> }>;
  };
  created_time?: number;
  expires_time?: number;
}

/** What the wallet keeps of a request it made. */
export interface StoredAuthRequest {
  request: AuthRequestMessage;
  createdAt: string;
}

/** Options of `vc verifier auth-request` (the query as `vc verifier request` takes it). */
export interface AuthRequestOptions extends RequestQueryOptions {
  reason?: string | undefined;
  callback?: string | undefined;
  expires?: number | undefined;
}

/** The deep link (`iden3comm://?i_m=`) and the universal link (`https://wallet.privado.id/#i_m=`) of a message: its JSON in base64. */
export function messageLinks(message: unknown): { deepLink: string; universalLink: string } {
  const encoded = Buffer.from(JSON.stringify(message), 'utf8').toString('base64');
  return { deepLink: `iden3comm://?i_m=${encoded}`, universalLink: `${UNIVERSAL_LINK_BASE}#i_m=${encoded}` };
}

/** The query of the scope: as `vc verifier request` builds and checks it (its defaults, its checks), without registering anything. */
async function buildScopeQuery(ctx: Context, options: AuthRequestOptions, names: FieldNamer): Promise<CredentialRequest['query']> {
  const query = await buildRequestQuery(ctx, options, names);
  await checkQueryValue(ctx, query, { names, value: 'value' });
  // The V3 encoding is the off-chain circuit's too (same query hash): a query it cannot encode is refused here.
  await encodeRequestParams(ctx, { id: 1, circuitId: V3_ON_CHAIN_REQUEST_CIRCUIT, query }, { names, allowedIssuers: 'allowedIssuers', query: '' });
  return query;
}

/** Refuses a callback that is not an absolute http(s) URL. */
function checkCallback(callback: string, names: FieldNamer): void {
  let url: URL | undefined;
  try {
    url = new URL(callback);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new InputError(`${names('callback')}: expected an absolute http(s) URL where wallets post their answer, got ${JSON.stringify(callback.slice(0, 200))}`, { field: 'callback' });
  }
}

/**
 * `vc verifier auth-request`: the request (the js-sdk's createAuthorizationRequest, from the
 * wallet's verifier DID, accepting authV2 JWZ answers), recorded in the wallet.
 */
export async function createAuthRequest(ctx: Context, options: AuthRequestOptions, names: FieldNamer): Promise<AuthRequestMessage> {
  const callback = options.callback ?? '';
  if (callback !== '') checkCallback(callback, names);
  const expires = options.expires ?? DEFAULT_EXPIRES_SECONDS;
  if (!Number.isSafeInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    throw new InputError(`${names('expires')}: expected seconds from 1 to ${MAX_EXPIRES_SECONDS} (30 days), got ${String(expires)}`, { field: 'expires' });
  }
  const query = await buildScopeQuery(ctx, options, names);
  const { did: verifier } = await ensureRoleIdentity(ctx, 'verifier');
  const { sdk } = (await getIden3(ctx)).modules;
  // The scope id is the scope proof's challenge (its requestID signal): random, a JSON safe integer.
  const scope = [{ id: randomInt(1, 2 ** 48), circuitId: AUTH_SCOPE_CIRCUIT, query }];
  const expiresAt = new Date(ctx.now().getTime() + expires * 1000);
  const message = sdk.createAuthorizationRequest(options.reason ?? 'vc verifier auth-request', verifier, callback, {
    scope: scope as never,
    expires_time: expiresAt,
    accept: [AUTH_ACCEPT_PROFILE],
  }) as unknown as AuthRequestMessage;
  // The session is the request: a callback naming none gets the request's id (what POST /callback reads).
  if (callback !== '') {
    const url = new URL(callback);
    if (!url.searchParams.has('sessionId')) {
      url.searchParams.set('sessionId', message.id);
      message.body.callbackUrl = url.toString();
    }
  }
  // The js-sdk stamps created_time with its own clock; vc's clock (injected in tests) is the one expiry is judged by.
  message.created_time = Math.floor(ctx.now().getTime() / 1000);
  const request = JSON.parse(JSON.stringify(message)) as AuthRequestMessage;
  ctx.store.put<StoredAuthRequest>(AUTH_REQUESTS_NS, request.id, { request, createdAt: ctx.now().toISOString() });
  return request;
}
