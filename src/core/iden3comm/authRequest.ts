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
import { httpUrl } from '../../boundedFetch.js';
import { InputError, TooLargeError, VcError } from '../../errors.js';
import { getIden3 } from '../../iden3/wallet.js';
import { PROOF_TYPES, V3_ON_CHAIN_REQUEST_CIRCUIT, conditionOperator, type CredentialRequest } from '../pbq/pbqSchemas.js';
import { buildRequestQuery, checkQueryValue, encodeRequestParams, type RequestQueryOptions } from '../pbq/request.js';
import { ensureRoleIdentity } from '../pbq/identities.js';
import { letEventLoopRun } from '../../eventLoop.js';
import type { FieldNamer } from '../validate.js';
import { AUTH_CIRCUITS, MAX_AUTH_REQUEST_BYTES, MAX_SCOPE_ITEMS, type AuthCircuit } from './authLimits.js';

/** The circuit a scope proof request names: js-sdk 1.45 answers it with its 16-16-64 size or the full one. */
export const AUTH_SCOPE_CIRCUIT = 'credentialAtomicQueryV3';
/** The accept profile of a request whose JWZ answers may be proved with any of `circuits` (the js-sdk's buildAccept form: one profile, the circuits comma-separated). */
export function authAcceptProfile(circuits: readonly AuthCircuit[]): string {
  return `iden3comm/v1;env=application/iden3-zkp-json;circuitId=${circuits.join(',')};alg=groth16`;
}
/** How an accept profile reads (the js-sdk's parseAcceptProfile, passed in so that this module loads nothing). */
export type AcceptProfileParser = (profile: string) => { protocolVersion: unknown; env: unknown; circuits?: unknown[] | undefined; alg?: unknown[] | undefined };

/** The accept profiles that parse and are of iden3comm/v1 (the version vc speaks), parsed; the others allow nothing. */
export function iden3commV1Profiles(accept: readonly string[], parse: AcceptProfileParser): Array<ReturnType<AcceptProfileParser>> {
  const profiles: Array<ReturnType<AcceptProfileParser>> = [];
  for (const profile of accept) {
    try {
      const parsed = parse(profile);
      if (String(parsed.protocolVersion) === 'iden3comm/v1') profiles.push(parsed);
    } catch {
      // A profile that does not parse allows nothing.
    }
  }
  return profiles;
}

/**
 * The auth circuits vc knows that a request's accept profiles allow a JWZ answer to be proved with:
 * the iden3comm/v1 zero-knowledge profiles (env application/iden3-zkp-json) whose algorithms
 * include groth16 (or name none), each the circuits it names (all when it names none). No accept
 * profile at all is the js-sdk's default: authV2. A profile that does not parse allows nothing.
 */
export function acceptedAuthCircuits(accept: readonly string[] | undefined, parse: AcceptProfileParser): AuthCircuit[] {
  if (accept === undefined || accept.length === 0) return ['authV2'];
  const allowed = new Set<string>();
  for (const parsed of iden3commV1Profiles(accept, parse)) {
    if (String(parsed.env) !== 'application/iden3-zkp-json') continue;
    if (parsed.alg !== undefined && parsed.alg.length > 0 && !parsed.alg.map(String).includes('groth16')) continue;
    const circuits = parsed.circuits === undefined || parsed.circuits.length === 0 ? AUTH_CIRCUITS : parsed.circuits.map(String);
    for (const circuit of circuits) allowed.add(circuit);
  }
  return AUTH_CIRCUITS.filter((circuit) => allowed.has(circuit));
}

/**
 * The auth circuit a holder proves its answer with, among those the request allows: authV2 (the
 * default, as before), else authV3: the small size (8, 32) before the full one, and one vc has
 * built already before one it would build first. Undefined when the request allows none.
 */
export function chooseAuthCircuit(allowed: readonly AuthCircuit[], built: readonly string[]): AuthCircuit | undefined {
  if (allowed.includes('authV2')) return 'authV2';
  const v3 = (['authV3-8-32', 'authV3'] as const).filter((circuit) => allowed.includes(circuit));
  return v3.find((circuit) => built.includes(circuit)) ?? v3[0];
}

/** The default: a JWZ whose auth proof is authV2 (Groth16). */
export const AUTH_ACCEPT_PROFILE = authAcceptProfile(['authV2']);
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
  /** The auth circuits the answer may be proved with (default authV2 only). */
  accept?: AuthCircuit[] | undefined;
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
  if (httpUrl(callback) === undefined) {
    throw new InputError(`${names('callback')}: expected an absolute http(s) URL where wallets post their answer, got ${JSON.stringify(callback.slice(0, 200))}`, { field: 'callback' });
  }
}

/**
 * `vc verifier auth-request`: the request (the js-sdk's createAuthorizationRequest, from the
 * wallet's verifier DID, accepting JWZ answers proved with the auth circuits asked, authV2 by
 * default), recorded in the wallet.
 */
export async function createAuthRequest(ctx: Context, options: AuthRequestOptions, names: FieldNamer): Promise<AuthRequestMessage> {
  const callback = options.callback ?? '';
  if (callback !== '') checkCallback(callback, names);
  const expires = options.expires ?? DEFAULT_EXPIRES_SECONDS;
  if (!Number.isSafeInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    throw new InputError(`${names('expires')}: expected seconds from 1 to ${MAX_EXPIRES_SECONDS} (30 days), got ${String(expires)}`, { field: 'expires' });
  }
  const accept = options.accept ?? ['authV2'];
  if (accept.length === 0 || new Set(accept).size !== accept.length || accept.some((circuit) => !(AUTH_CIRCUITS as readonly string[]).includes(circuit))) {
    throw new InputError(`${names('accept')}: expected one or more distinct auth circuits of ${AUTH_CIRCUITS.join(', ')}, got ${JSON.stringify(accept.join(',').slice(0, 200))}`, { field: 'accept' });
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
    accept: [authAcceptProfile(accept)],
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
