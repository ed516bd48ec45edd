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
import { InputError, TooLargeError, VcError } from '../../errors.js';
import { getIden3 } from '../../iden3/wallet.js';
import { PROOF_TYPES, V3_ON_CHAIN_REQUEST_CIRCUIT, conditionOperator, type CredentialRequest } from '../pbq/pbqSchemas.js';
import { buildRequestQuery, checkQueryValue, encodeRequestParams, type RequestQueryOptions } from '../pbq/request.js';
import { ensureRoleIdentity } from '../pbq/identities.js';
import { letEventLoopRun } from '../pbq/publication.js';
import type { FieldNamer } from '../validate.js';
import { MAX_AUTH_REQUEST_BYTES, MAX_SCOPE_ITEMS } from './authLimits.js';

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

/**
 * A query in the iden3 query language, as Privado ID verifiers write a scope item's query: one
 * credentialSubject field with one operator and its value, or `{}` to disclose it ($sd).
 */
export interface AuthScopeQuery {
  type: string;
  context?: string | undefined;
  allowedIssuers?: string[] | undefined;
  credentialSubject: Record<string, Record<string, unknown>>;
  proofType?: (typeof PROOF_TYPES)[keyof typeof PROOF_TYPES] | undefined;
  skipClaimRevocationCheck?: boolean | undefined;
}

/** Options of `vc verifier auth-request`: one query as `vc verifier request` takes it, or several in the iden3 query language. */
export interface AuthRequestOptions extends RequestQueryOptions {
  queries?: AuthScopeQuery[] | undefined;
  reason?: string | undefined;
  callback?: string | undefined;
  expires?: number | undefined;
}

/** The query flags, which `queries` replaces. */
const QUERY_FLAG_FIELDS = ['type', 'context', 'field', 'op', 'value', 'allowedIssuers', 'proofType'] as const;

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

/**
 * The query of the scope item `index` given in the iden3 query language: the same defaults and
 * checks as the flags' (buildScopeQuery), each refusal naming the query (its file on the command
 * line, `queries[i]` over HTTP) and the member at fault.
 */
async function scopeQueryOf(ctx: Context, given: AuthScopeQuery, index: number, names: FieldNamer): Promise<CredentialRequest['query']> {
  const base = `queries[${index}]`;
  const path = (member: string): string => (member === '' ? base : `${base}.${member}`);
  // The input schema let one field through, with one operator (or {}) of a value of its shape.
  const [field, condition] = Object.entries(given.credentialSubject)[0]!;
  const { op, value } = conditionOperator(condition);
  const members: Record<string, string> = {
    type: 'type',
    context: 'context',
    field: 'credentialSubject',
    op: `credentialSubject.${field}`,
    value: op === '$sd' ? `credentialSubject.${field}` : `credentialSubject.${field}.${op}`,
    allowedIssuers: 'allowedIssuers',
    proofType: 'proofType',
  };
  const queryNames: FieldNamer = (name) => names(path(members[name] ?? name));
  const proofType = given.proofType === undefined ? undefined : given.proofType === PROOF_TYPES.sig ? 'sig' : 'mtp';
  let query: CredentialRequest['query'];
  try {
    query = await buildScopeQuery(ctx, { type: given.type, context: given.context, field, op, value, allowedIssuers: given.allowedIssuers, proofType }, queryNames);
  } catch (error) {
    if (!(error instanceof VcError)) throw error;
    // Every refusal names this query: the flag's own names are this query's members, and one that names none gets the query's.
    const at = names(base);
    const message = error.message.startsWith(at) ? error.message : `${at}: ${error.message}`;
    const field = error.field === undefined ? base : path(members[error.field] ?? error.field);
    const Constructor = error.constructor as new (message: string, options: { field?: string; publicUrls?: readonly string[]; cause?: unknown }) => VcError;
    throw new Constructor(message, { field, ...(error.publicUrls === undefined ? {} : { publicUrls: error.publicUrls }), cause: error });
  }
  return given.skipClaimRevocationCheck === true ? { ...query, skipClaimRevocationCheck: true } as CredentialRequest['query'] : query;
}

/** The queries of the scope: the flags' one, or each of `queries`. */
async function scopeQueries(ctx: Context, options: AuthRequestOptions, names: FieldNamer): Promise<Array<CredentialRequest['query']>> {
  if (options.queries === undefined) return [await buildScopeQuery(ctx, options, names)];
  const flag = QUERY_FLAG_FIELDS.find((field) => options[field] !== undefined);
  if (flag !== undefined) {
    throw new InputError(`${names(flag)} and ${names('queries')} both describe the query: give the query flags for one query, or every query as JSON (${names('queries')})`, { field: flag });
  }
  if (options.queries.length === 0 || options.queries.length > MAX_SCOPE_ITEMS) {
    throw new InputError(`${names('queries')}: expected 1 to ${MAX_SCOPE_ITEMS} queries (one proof request each), got ${options.queries.length}`, { field: 'queries' });
  }
  const queries: Array<CredentialRequest['query']> = [];
  for (const [index, given] of options.queries.entries()) {
    // Each query parses the type's context and hashes its values: a server answers between them.
    if (index > 0) await letEventLoopRun();
    queries.push(await scopeQueryOf(ctx, given, index, names));
  }
  return queries;
}

/** Distinct random scope ids: each is its proof's challenge (the requestID signal), a JSON safe integer. */
function scopeIds(count: number): number[] {
  const ids = new Set<number>();
  while (ids.size < count) ids.add(randomInt(1, 2 ** 48));
  return [...ids];
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
  const queries = await scopeQueries(ctx, options, names);
  const { did: verifier } = await ensureRoleIdentity(ctx, 'verifier');
  const { sdk } = (await getIden3(ctx)).modules;
  const ids = scopeIds(queries.length);
  const scope = queries.map((query, index) => ({ id: ids[index]!, circuitId: AUTH_SCOPE_CIRCUIT, query }));
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
  // A request no wallet of vc would read is refused, not recorded.
  const size = Buffer.byteLength(JSON.stringify(request), 'utf8');
  if (size > MAX_AUTH_REQUEST_BYTES) {
    throw new TooLargeError(`${names(options.queries === undefined ? 'allowedIssuers' : 'queries')}: the request would be ${size} bytes; a wallet (vc holder respond) reads at most ${MAX_AUTH_REQUEST_BYTES / 1024} KiB: ask fewer queries, or fewer allowed issuers`, {
      field: options.queries === undefined ? 'allowedIssuers' : 'queries',
    });
  }
  ctx.store.put<StoredAuthRequest>(AUTH_REQUESTS_NS, request.id, { request, createdAt: ctx.now().toISOString() });
  return request;
}
