/**
 * iden3comm, the holder's side (issue 28): `vc holder respond` answers an
 * `authorization/1.0/request` (a Privado ID / js-sdk verifier's, or `vc verifier auth-request`'s)
 * as a wallet does: for each scope item a held iden3 credential that satisfies it (or the one
 * given) is proved with the js-sdk's ProofService on vc's prover, the answer
 * (`authorization/1.0/response`) is packed as a JWZ whose auth proof is authV2, or authV3-8-32 /
 * authV3 when the request's accept profiles allow no authV2 (vc's circuit files, built on first
 * use), and the token is written or posted to the request's callback.
 *
 * Network rule (vc loads nothing from the network silently): a request_uri, a request URL and a
 * callback are used when they are on this machine (127.0.0.1, localhost, ::1); another host only
 * with `allowRemote` (--allow-remote), and then over https only. Every exchange has a time and a
 * size limit and follows no redirect (src/boundedFetch.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ZeroKnowledgeProofResponse } from '@0xpolygonid/js-sdk';
import type { Context } from '../../context.js';
import { parseJsonText } from '../../jsonInput.js';
import { DataModelError, InputError, NetworkError, NotFoundError, TooLargeError, UnprocessableError, VcError, describeError, isVcError, walkErrorCauses } from '../../errors.js';
import { boundedFetch } from '../../boundedFetch.js';
import { isLoopbackUrl } from '../../status/statusListFetch.js';
import { AUTH_V2_CIRCUIT } from '../../circuits/sources.js';
import { getAuthV3Prover, getIden3, getIden3Prover } from '../../iden3/wallet.js';
import { AuthTreesTooDeepError, authDepthProblem } from '../../iden3/authDepth.js';
import { selectHeldIden3Credential } from '../holder/heldSelection.js';
import { checkCredentialAgainstRequest, checkProofInputs, credentialRevocationStatus, proofFailure } from '../pbq/prove.js';
import { requireWalletIdentity } from '../pbq/identities.js';
import { conditionOperator, queryValueShapeProblem, type CredentialRequest, type PbqCredentialInput } from '../pbq/pbqSchemas.js';
import { parseInput, type FieldNamer } from '../validate.js';
import { pbqCredentialSchema } from '../pbq/pbqSchemas.js';
import { AUTH_SCOPE_CIRCUIT, acceptedAuthCircuits, authAcceptProfile, chooseAuthCircuit, type AuthRequestMessage } from './authRequest.js';
import { AUTH_CIRCUITS, MAX_AUTH_REQUEST_BYTES, MAX_SCOPE_ITEMS, type AuthCircuit } from './authLimits.js';
import { CONTRACT_INVOKE_REQUEST_TYPE } from './contractRequest.js';

/** The message type answered. */
export const AUTH_REQUEST_TYPE = 'https://iden3-communication.io/authorization/1.0/request';
const AUTH_RESPONSE_TYPE = 'https://iden3-communication.io/authorization/1.0/response';
const ZKP_MEDIA_TYPE = 'application/iden3-zkp-json';
/** Time allowed for fetching a request_uri, and for a verifier's answer to a posted token (it verifies the proofs). */
export const REQUEST_FETCH_TIMEOUT_MS = 10_000;
export const CALLBACK_TIMEOUT_MS = 60_000;
/** How much of a verifier's answer to a posted token is kept. */
export const CALLBACK_MAX_ANSWER_BYTES = 64 * 1024;

/** What `vc holder respond` is given. */
export interface RespondInput {
  /** The request: its JSON text or object, an iden3comm:// link, a universal link (https://...#i_m=) or a URL serving it. */
  request: string | Record<string, unknown>;
  credential?: Record<string, unknown> | undefined;
  credentialId?: string | undefined;
  post?: boolean | undefined;
  allowRemote?: boolean | undefined;
}

/** What it did. */
export interface RespondResult {
  /** The JWZ token (the packed authorization response). */
  token: string;
  /** The request answered (its id and thread). */
  request: string;
  thid: string;
  /** The holder DID that answered (the auth proof's identity). */
  from: string;
  /** The verifier (the request's sender). */
  to: string;
  scope: Array<{ id: number; circuitId: string; credential: string }>;
  /** With post: where the token went and what the verifier answered. */
  posted?: { url: string; status: number; body: unknown; truncated?: boolean };
}

/** A request as received: vc's own shape, plus the recipient a request may name. */
export type ReceivedAuthRequest = AuthRequestMessage & { to?: string };

/** A proof request of a message's scope. */
export type Scope = { id: number; circuitId: string; query: Record<string, unknown>; params?: Record<string, unknown> };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Refuses a URL vc may not reach: not http(s), off this machine without allowRemote, or plain http off this machine. */
export function checkReachable(url: string, allowRemote: boolean, what: string, field: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`${what}: ${JSON.stringify(url.slice(0, 200))} is not a URL`, { field });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InputError(`${what}: expected an http(s) URL, got ${parsed.protocol}`, { field });
  if (isLoopbackUrl(url)) return parsed;
  if (!allowRemote) {
    throw new InputError(`${what}: ${parsed.host} is not this machine; vc reaches no other host unless you say so (--allow-remote, https only)`, { field });
  }
  if (parsed.protocol !== 'https:') throw new InputError(`${what}: ${parsed.host} is not this machine, and vc reaches other hosts over https only`, { field });
  return parsed;
}

/** The value of one parameter of a link's query or fragment, with %-escapes decoded and `+` kept (base64). */
function linkParameter(part: string, name: string): string | undefined {
  for (const pair of part.split('&')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at) !== name) continue;
    try {
      return decodeURIComponent(pair.slice(at + 1));
    } catch {
      return pair.slice(at + 1);
    }
  }
  return undefined;
}

/** The JSON text of a base64 (or base64url) `i_m` parameter. */
function decodeInlineMessage(encoded: string, where: string): string {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(encoded) || encoded === '') throw new InputError(`${where}: its i_m parameter is not base64`, { field: 'request' });
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** GETs a request from a URL (the network rule, limits, no redirect). */
async function fetchRequest(url: string, allowRemote: boolean, where: string): Promise<string> {
  checkReachable(url, allowRemote, `${where} (request_uri ${url.slice(0, 200)})`, 'request');
  const { status, text } = await boundedFetch(url, { headers: { accept: 'application/json' } }, { timeoutMs: REQUEST_FETCH_TIMEOUT_MS, maxBytes: MAX_AUTH_REQUEST_BYTES }, (detail, cause) =>
    new NetworkError(`${where}: fetching ${url}: ${detail}`, cause === undefined ? {} : { cause }),
  );
  if (text === undefined) throw new NetworkError(`${where}: ${url} answered ${status}, not the request`);
  return text;
}

/** The request's text, whatever form it was given in: JSON, a link carrying it, or a URL serving it. */
async function requestText(given: string, allowRemote: boolean, where: string): Promise<string> {
  const text = given.trim();
  if (Buffer.byteLength(text, 'utf8') > MAX_AUTH_REQUEST_BYTES) throw new TooLargeError(`${where}: larger than ${MAX_AUTH_REQUEST_BYTES / 1024} KiB; an authorization request is a few KB`, { field: 'request' });
  if (text.startsWith('{') || text.startsWith('[')) return text;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'iden3comm' || scheme === 'http' || scheme === 'https') {
    const hash = text.indexOf('#');
    const query = text.indexOf('?');
    // A deep link carries its parameters in the query; a universal link in the fragment.
    const parts = [hash >= 0 ? text.slice(hash + 1) : '', query >= 0 ? text.slice(query + 1, hash > query ? hash : undefined) : ''];
    for (const part of parts) {
      const inline = linkParameter(part, 'i_m');
      if (inline !== undefined) return decodeInlineMessage(inline, where);
      const uri = linkParameter(part, 'request_uri');
      if (uri !== undefined) return fetchRequest(uri, allowRemote, where);
    }
    if (scheme === 'iden3comm') throw new InputError(`${where}: the iden3comm link carries neither i_m (the message) nor request_uri (where it is)`, { field: 'request' });
    return fetchRequest(text, allowRemote, where);
  }
  throw new InputError(`${where}: expected an authorization request (JSON), an iden3comm:// link, a universal link (with #i_m= or #request_uri=) or the http(s) URL serving it`, { field: 'request' });
}

/** The largest number of seconds from 1970 a JavaScript date names. */
const MAX_DATE_SECONDS = 8.64e12;

/** Checks the message is an authorization request vc can read (one line naming what is wrong). */
function checkRequestMessage(value: unknown, where: string): ReceivedAuthRequest {
  if (!isObject(value)) throw new InputError(`${where}: expected a JSON object (an iden3comm message)`, { field: 'request' });
  const type = value.type;
  if (type !== AUTH_REQUEST_TYPE) {
    // Message types are the protocol's public names: shown whole.
    const shown = typeof type === 'string' ? type.slice(0, 200) : undefined;
    throw new InputError(`${where}: ${shown !== undefined ? `is a ${shown} message` : 'has no message type'}, not an authorization request (${AUTH_REQUEST_TYPE}) nor a contract-invoke-request (${CONTRACT_INVOKE_REQUEST_TYPE})`, {
      field: 'request',
      publicUrls: [AUTH_REQUEST_TYPE, CONTRACT_INVOKE_REQUEST_TYPE, ...(shown !== undefined && shown.startsWith('https://iden3-communication.io/') ? [shown] : [])],
    });
  }
  for (const field of ['id', 'from'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '' || value[field].length > 512) throw new InputError(`${where}: field ${field}: expected a non-empty string`, { field: 'request' });
  }
  if (value.thid !== undefined && (typeof value.thid !== 'string' || value.thid.length > 512)) throw new InputError(`${where}: field thid: expected a string`, { field: 'request' });
  if (value.to !== undefined && typeof value.to !== 'string') throw new InputError(`${where}: field to: expected a DID`, { field: 'request' });
  // Seconds a JavaScript date can name (±8.64e15 ms): another number is no time the request could expire at.
  if (value.expires_time !== undefined && (typeof value.expires_time !== 'number' || !Number.isSafeInteger(value.expires_time) || Math.abs(value.expires_time) > MAX_DATE_SECONDS)) {
    throw new InputError(`${where}: field expires_time: expected seconds since 1970 (an integer within ±${MAX_DATE_SECONDS})`, { field: 'request' });
  }
  const body = value.body;
  if (!isObject(body)) throw new InputError(`${where}: field body: expected an object`, { field: 'request' });
  if (body.callbackUrl !== undefined && typeof body.callbackUrl !== 'string') throw new InputError(`${where}: field body.callbackUrl: expected a URL`, { field: 'request' });
  if (body.message !== undefined && typeof body.message !== 'string') throw new InputError(`${where}: field body.message: expected a string`, { field: 'request' });
  if (body.accept !== undefined && !(Array.isArray(body.accept) && body.accept.every((item) => typeof item === 'string'))) throw new InputError(`${where}: field body.accept: expected a list of accept profiles`, { field: 'request' });
  const scope = body.scope ?? [];
  if (!Array.isArray(scope)) throw new InputError(`${where}: field body.scope: expected a list of proof requests`, { field: 'request' });
  if (scope.length > MAX_SCOPE_ITEMS) throw new InputError(`${where}: field body.scope: ${scope.length} proof requests, vc answers at most ${MAX_SCOPE_ITEMS}`, { field: 'request' });
  scope.forEach((item: unknown, index) => {
    const at = `${where}: field body.scope[${index}]`;
    if (!isObject(item)) throw new InputError(`${at}: expected a proof request object`, { field: 'request' });
    if (typeof item.id !== 'number' || !Number.isSafeInteger(item.id) || item.id <= 0) throw new InputError(`${at}.id: expected a positive safe integer (the proof's challenge)`, { field: 'request' });
    if (typeof item.circuitId !== 'string') throw new InputError(`${at}.circuitId: expected a circuit id`, { field: 'request' });
    if (!isObject(item.query)) throw new InputError(`${at}.query: expected an object`, { field: 'request' });
    // The id is the proof's challenge and how the verifier finds each proof in the answer.
    const first = scope.findIndex((other: unknown) => isObject(other) && other.id === item.id);
    if (first < index) throw new InputError(`${at}.id: ${item.id} is the id of body.scope[${first}] too; each proof request needs its own id`, { field: 'request' });
  });
  return { ...(value as unknown as ReceivedAuthRequest), body: { ...(body as unknown as AuthRequestMessage['body']), scope: scope as Scope[] } };
}

/** The message, given in any form (its JSON or object, a link carrying it, a URL serving it), read as JSON, not yet checked. */
export async function readRequestMessage(given: RespondInput['request'], options: { allowRemote: boolean; names: FieldNamer }): Promise<unknown> {
  if (typeof given !== 'string') return given;
  const where = options.names('request');
  const text = await requestText(given, options.allowRemote, where);
  try {
    // The strict parser of user input: a repeated key or a `__proto__` key (which a schema would
    // drop, turning a comparison into a disclosure) is refused, not read one way or another.
    return parseJsonText(text, where);
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.message, { field: 'request', cause: error });
    throw new InputError(`${where}: not JSON: ${describeError(error).split('\n')[0]}`, { field: 'request' });
  }
}

/** The request, given in any form, read and checked. */
export async function readAuthRequest(ctx: Context, given: RespondInput['request'], options: { allowRemote: boolean; names: FieldNamer }): Promise<ReceivedAuthRequest> {
  const where = options.names('request');
  const value = await readRequestMessage(given, options);
  const request = checkRequestMessage(value, where);
  if (request.expires_time !== undefined && request.expires_time * 1000 <= ctx.now().getTime()) {
    throw new InputError(`${where}: the request expired at ${new Date(request.expires_time * 1000).toISOString()}`, { field: 'request' });
  }
  return request;
}

/**
 * The auth circuit the answer is proved with, as the request's accept profiles allow
 * (chooseAuthCircuit: authV2 when allowed, else authV3-8-32 or authV3); a request that allows none
 * is refused before any proof.
 */
export async function authCircuitFor(ctx: Context, request: ReceivedAuthRequest, where: string): Promise<{ circuit: AuthCircuit; allowed: AuthCircuit[] }> {
  const accept = request.body.accept ?? [];
  const { sdk } = (await getIden3(ctx)).modules;
  const allowed = acceptedAuthCircuits(accept, (profile) => sdk.parseAcceptProfile(profile));
  const { availableOnDemandCircuits } = await import('../../circuits/build.js');
  const chosen = chooseAuthCircuit(allowed, allowed.includes('authV2') ? [] : await availableOnDemandCircuits(ctx));
  if (chosen === undefined) {
    throw new UnprocessableError(`${where}: the request accepts ${accept.map((profile) => profile.slice(0, 200)).join(', ')}; vc answers only ${authAcceptProfile(AUTH_CIRCUITS)}`, { field: 'request' });
  }
  return { circuit: chosen, allowed };
}

/** A scope item in words, for messages: `scope 123 (KYCAgeCredential birthday $sd)`. */
export function scopeLabel(scope: Scope): string {
  const query = scope.query as { type?: unknown; credentialSubject?: unknown };
  const subject = isObject(query.credentialSubject) ? Object.entries(query.credentialSubject)[0] : undefined;
  const condition = subject === undefined ? '' : ` ${subject[0]} ${isObject(subject[1]) ? (Object.keys(subject[1])[0] ?? '$sd') : ''}`;
  return `scope ${scope.id} (${String(query.type ?? 'no type')}${condition.trimEnd()})`;
}

/** The input that named the credential proved: --credential, --id, or the request (a held credential chosen for it). */
const credentialField = (input: RespondInput): string => (input.credential !== undefined ? 'credential' : input.credentialId !== undefined ? 'credentialId' : 'request');

/** An error about one scope item: the same class, its message prefixed with the item. */
export function aboutScope(error: unknown, scope: Scope, input: RespondInput): unknown {
  if (!(error instanceof VcError)) return error;
  const message = `${scopeLabel(scope)}: ${error.message}`;
  // The checks shared with vc holder prove name prove's inputs (credentialRequest..., verifiableCredential..., auth): here they are this command's
  // (holder respond has no auth flag: the request's accept profiles choose the auth).
  const field = error.field === undefined ? undefined : error.field.startsWith('credentialRequest') || error.field === 'auth' ? 'request' : error.field.startsWith('verifiableCredential') ? credentialField(input) : error.field;
  const options = { ...(field === undefined ? {} : { field }), ...(error.publicUrls === undefined ? {} : { publicUrls: error.publicUrls }), cause: error };
  // A data model error names its check too (DataModelError(message, check, options)).
  if (error instanceof DataModelError) return new DataModelError(message, error.check, options);
  const Constructor = error.constructor as new (message: string, options: { field?: string; cause?: unknown }) => VcError;
  return new Constructor(message, options);
}

/** A query operand vc passes on to the js-sdk: a string, a boolean, or a number it can read exactly. */
function operandProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 1024 ? 'a value longer than 1024 characters' : undefined;
  if (typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return `${value} is beyond the integers JSON numbers hold exactly (give a large integer as a decimal string)`;
    return undefined;
  }
  return `${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value} is not a value (expected a number, a string or a boolean)`;
}

/** Why a scope item's query cannot be proved with credentialAtomicQueryV3 as given, or undefined (its shape only; credentials come later). */
export function scopeQueryProblem(query: Record<string, unknown>, circuitId: string = AUTH_SCOPE_CIRCUIT): string | undefined {
  for (const date of ['expirationDate', 'issuanceDate'] as const) {
    const value = query[date];
    if (value !== undefined && (typeof value !== 'string' || value.length > 64 || Number.isNaN(Date.parse(value)))) return `${date}: expected a date (ISO 8601), got ${JSON.stringify(value)?.slice(0, 80)}`;
  }
  const subject = query.credentialSubject;
  if (!isObject(subject)) return 'credentialSubject: expected an object';
  const fields = Object.keys(subject);
  if (fields.length > 1) return `credentialSubject asks ${fields.length} fields (${fields.slice(0, 4).join(', ')}); a ${circuitId} proof answers one`;
  for (const field of fields) {
    if (field === '' || field.length > 256 || field in Object.prototype) return `credentialSubject: ${JSON.stringify(field.slice(0, 80))} is not a field name`;
    const condition = subject[field];
    if (!isObject(condition)) return `credentialSubject.${field}: expected {} (disclose the value) or one operator with its value, e.g. {"$lt": 20010101}; got ${condition === null ? 'null' : Array.isArray(condition) ? 'a list' : JSON.stringify(condition).slice(0, 80)}`;
    const operators = Object.keys(condition);
    if (operators.length > 1) return `credentialSubject.${field}: one operator per field, not ${operators.length} (${operators.slice(0, 4).join(', ')})`;
    const { op, value } = conditionOperator(condition);
    const shape = queryValueShapeProblem(op, value);
    if (shape !== undefined) return `credentialSubject.${field}: ${shape}`;
    for (const operand of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      const problem = operandProblem(operand);
      if (problem !== undefined) return `credentialSubject.${field}.${op}: ${problem}`;
    }
  }
  return undefined;
}

/** The credential a scope item is proved with (by the circuit named, by default the off-chain V3 one): the one given, or the newest held one that satisfies it. */
export async function credentialForScope(ctx: Context, scope: Scope, input: RespondInput, names: FieldNamer, circuitId: string = AUTH_SCOPE_CIRCUIT): Promise<{ credential: PbqCredentialInput; id: string }> {
  const request = { id: scope.id, circuitId, query: scope.query, ...(scope.params === undefined ? {} : { params: scope.params }) } as unknown as CredentialRequest;
  const query = request.query as Partial<CredentialRequest['query']>;
  if (typeof query.type !== 'string' || typeof query.context !== 'string' || !Array.isArray(query.allowedIssuers) || !isObject(query.credentialSubject)) {
    throw new InputError(`${names('request')}: ${scopeLabel(scope)}: its query needs type, context, allowedIssuers and credentialSubject`, { field: 'request' });
  }
  if ((scope.query as { groupId?: unknown }).groupId !== undefined) throw new UnprocessableError(`${names('request')}: ${scopeLabel(scope)}: linked queries (groupId) are not answered by vc`, { field: 'request' });
  // How selection and the checks name what they look at: the flags of this command.
  const scopeNames: FieldNamer = (field) =>
    field.startsWith('verifiableCredential') ? `${names('credential')}${field.slice('verifiableCredential'.length)}` : field.startsWith('credentialRequest') ? `${names('request')} ${scopeLabel(scope)}${field.slice('credentialRequest'.length)}` : names(field);
  let credential: PbqCredentialInput;
  let id: string;
  if (input.credential !== undefined) {
    credential = parseInput(pbqCredentialSchema, input.credential, names('credential'));
    id = credential.id;
  } else {
    const { sdk } = (await getIden3(ctx)).modules;
    // Among the held credentials of the item's type, context and issuers, the newest whose values satisfy its query.
    const satisfies = (candidate: Record<string, unknown>): boolean => {
      try {
        checkCredentialAgainstRequest(sdk.W3CCredential.fromJSON(candidate as never), request);
        return true;
      } catch {
        return false;
      }
    };
    try {
      credential = selectHeldIden3Credential(ctx, { credentialId: input.credentialId, request, names: scopeNames, satisfies: input.credentialId === undefined ? satisfies : undefined });
    } catch (error) {
      if (error instanceof NotFoundError && input.credentialId === undefined) {
        // None satisfies it: the newest that would, but for its values, says why.
        let why = error.message.replace(/^[^:]*: missing, and /, '');
        try {
          const newest = selectHeldIden3Credential(ctx, { request, names: scopeNames });
          checkCredentialAgainstRequest(sdk.W3CCredential.fromJSON(newest as never), request);
        } catch (reason) {
          if (!(reason instanceof NotFoundError)) why = describeError(reason);
        }
        throw new NotFoundError(`${scopeLabel(scope)}: no held credential satisfies it: ${why}`, { field: 'credential', cause: error });
      }
      throw aboutScope(error, scope, input);
    }
    id = credential.id;
  }
  try {
    await checkProofInputs(ctx, { credential, request, names: scopeNames });
    const { sdk } = (await getIden3(ctx)).modules;
    checkCredentialAgainstRequest(sdk.W3CCredential.fromJSON(credential as never), request);
  } catch (error) {
    throw aboutScope(error, scope, input);
  }
  return { credential, id };
}

/** `vc holder respond`: the answer to an authorization request, as a JWZ token, written or posted. */
export async function respondToAuthRequest(ctx: Context, input: RespondInput, names: FieldNamer): Promise<RespondResult> {
  if (input.credential !== undefined && input.credentialId !== undefined) {
    throw new InputError(`${names('credential')} and ${names('credentialId')} both name a credential: give one of them`, { field: 'credentialId' });
  }
  const allowRemote = input.allowRemote === true;
  const request = await readAuthRequest(ctx, input.request, { allowRemote, names });
  const where = names('request');
  const callback = request.body.callbackUrl ?? '';
  if (input.post === true) {
    if (callback === '') throw new InputError(`${names('post')}: the request names no callbackUrl to post to; write the token (-o FILE) and give it to the verifier`, { field: 'post' });
    checkReachable(callback, allowRemote, `${names('post')} (the request's callbackUrl)`, 'post');
  }
  const auth = await authCircuitFor(ctx, request, where);
  const scopes = request.body.scope as Scope[];
  for (const scope of scopes) {
    if (scope.circuitId !== AUTH_SCOPE_CIRCUIT) {
      throw new UnprocessableError(`${where}: ${scopeLabel(scope)} asks for a ${scope.circuitId.slice(0, 100)} proof; vc answers ${AUTH_SCOPE_CIRCUIT} proof requests only`, { field: 'request' });
    }
    const problem = scopeQueryProblem(scope.query);
    if (problem !== undefined) throw new InputError(`${where}: scope ${scope.id}: query.${problem}`, { field: 'request' });
  }
  const { core } = (await getIden3(ctx)).modules;
  let verifier;
  try {
    verifier = core.DID.parse(request.from);
  } catch (error) {
    throw new InputError(`${where}: field from: ${JSON.stringify(request.from.slice(0, 200))} is not a DID vc can read (${describeError(error)})`, { field: 'request' });
  }

  // The proofs hold the server's exclusive turn (they share the prover and read the trees); the post
  // to the callback waits for the verifier outside it, never blocking the other mutating routes.
  const { result, kept } = await ctx.exclusive(() => proveAnswer(ctx, request, input, names, verifier, auth));
  // Posted already by a run that never delivered its output (killed before it): that answer, not a second one.
  if (kept) return result;
  if (input.post === true) {
    result.posted = await postToken(callback, result.token, names);
    // Only an answer the verifier took is kept: after a refusal or its failure (non-2xx), a retry
    // (a re-run, or a client posting the request again) must be free to answer anew.
    if (result.posted.status >= 200 && result.posted.status < 300) keepPostedAnswer(ctx, result);
  }
  return result;
}

/** Where a posted answer is kept until its output is delivered (a re-run gets it instead of posting again). */
const POSTED_ANSWERS_NS = 'iden3comm.postedAnswers';
/** How long a posted answer whose output was never delivered (an HTTP caller's, a killed command's) is kept. */
const POSTED_ANSWER_KEEP_MS = 7 * 24 * 3600 * 1000;
type PostedAnswer = { result: RespondResult; postedAt: string };
const postedAnswerKey = (requestId: string, holder: string): string => JSON.stringify([requestId, holder]);

function keepPostedAnswer(ctx: Context, result: RespondResult): void {
  ctx.store.transaction(() => {
    ctx.store.deleteWhereTimestampBefore(POSTED_ANSWERS_NS, 'postedAt', new Date(ctx.now().getTime() - POSTED_ANSWER_KEEP_MS));
    ctx.store.put<PostedAnswer>(POSTED_ANSWERS_NS, postedAnswerKey(result.request, result.from), { result, postedAt: ctx.now().toISOString() });
  });
}

/** `vc holder respond` delivered its result: a re-run of the same request answers it anew. */
export function authRespondDelivered(ctx: Context, result: RespondResult): void {
  if (result.posted === undefined) return;
  ctx.store.delete(POSTED_ANSWERS_NS, postedAnswerKey(result.request, result.from));
}

/** The answer to a checked request: every scope item proved and the response packed as a JWZ. */
async function proveAnswer(ctx: Context, request: ReceivedAuthRequest, input: RespondInput, names: FieldNamer, verifier: import('@iden3/js-iden3-core').DID, auth: { circuit: AuthCircuit; allowed: AuthCircuit[] }): Promise<{ result: RespondResult; kept: boolean }> {
  const where = names('request');
  const scopes = request.body.scope as Scope[];
  const { sdk, core } = (await getIden3(ctx)).modules;
  // Every credential first (the refusals come before any proof: each names its scope item), then one holder for them all.
  const chosen: Array<{ scope: Scope; credential: PbqCredentialInput; id: string }> = [];
  for (const scope of scopes) chosen.push({ scope, ...(await credentialForScope(ctx, scope, input, names)) });
  const subjects = [...new Set(chosen.map((item) => String(item.credential.credentialSubject.id)))];
  if (subjects.length > 1) {
    const bySubject = subjects.map((subject) => `${subject} for ${chosen.filter((item) => String(item.credential.credentialSubject.id) === subject).map((item) => scopeLabel(item.scope)).join(', ')}`);
    throw new UnprocessableError(`${where}: the credentials that satisfy its scope are for different DIDs (${bySubject.join('; ')}); one answer is signed by one identity`, { field: 'request' });
  }
  let holder = subjects[0];
  if (holder === undefined) {
    const { ensureRoleIdentity } = await import('../pbq/identities.js');
    holder = (await ensureRoleIdentity(ctx, 'holder')).did;
  }
  requireWalletIdentity(ctx, holder, 'the credential subject');
  if (request.to !== undefined && request.to !== holder) {
    throw new UnprocessableError(`${where}: the request is addressed to ${request.to.slice(0, 200)}, and the credentials that satisfy it are for ${holder}`, { field: 'request' });
  }
  const kept = ctx.store.get<PostedAnswer>(POSTED_ANSWERS_NS, postedAnswerKey(request.id, holder));
  if (kept !== undefined) return { result: kept.result, kept: true };
  const holderDid = core.DID.parse(holder);

  // Every credential's revocation status before any proof too (once for a credential that answers several items).
  const statuses = new Map<string, Awaited<ReturnType<typeof credentialRevocationStatus>>>();
  for (const { scope, credential } of chosen) {
    let revocation = statuses.get(credential.id);
    if (revocation === undefined) {
      try {
        revocation = await credentialRevocationStatus(ctx, sdk.W3CCredential.fromJSON(credential as never), undefined);
      } catch (error) {
        throw aboutScope(error, scope, input);
      }
      statuses.set(credential.id, revocation);
    }
    if (revocation.mtp.existence) throw aboutScope(new UnprocessableError(`the credential ${credential.id} is revoked (its revocation nonce is in the issuer's revocation tree)`), scope, input);
  }

  const { proofService } = await getIden3Prover(ctx, 'iden3comm');
  const responses: ZeroKnowledgeProofResponse[] = [];
  for (const { scope, credential } of chosen) {
    const w3c = sdk.W3CCredential.fromJSON(credential as never);
    const revocation = statuses.get(credential.id)!;
    const step = ctx.progress.start(`generating the ${AUTH_SCOPE_CIRCUIT} proof for scope ${scope.id}`);
    try {
      responses.push(
        await proofService.generateProof({ id: scope.id, circuitId: sdk.CircuitId.AtomicQueryV3Stable, query: scope.query as never, ...(scope.params === undefined ? {} : { params: scope.params }) }, holderDid, {
          credential: w3c,
          credentialRevocationStatus: revocation,
          skipRevocation: false,
          challenge: BigInt(scope.id),
          verifierDid: verifier,
        }),
      );
      step.succeed('proof generated');
    } catch (error) {
      step.fail();
      throw aboutScope(proofFailure(sdk, error, w3c, undefined, 'credentialAtomicQueryV3'), scope, input);
    }
  }

  const thid = request.thid ?? request.id;
  const response = {
    id: randomUUID(),
    typ: ZKP_MEDIA_TYPE,
    type: AUTH_RESPONSE_TYPE,
    thid,
    body: { ...(request.body.message === undefined ? {} : { message: request.body.message }), scope: responses },
    created_time: Math.floor(ctx.now().getTime() / 1000),
    from: holder,
    to: request.from,
  };
  let token: string;
  try {
    token = await packAuthResponse(ctx, response, holderDid, auth.circuit);
  } catch (error) {
    // The small authV3's trees too shallow for this holder or this chain's GIST: the full one, when the request allows it.
    if (!(error instanceof AuthTreesTooDeepError) || auth.circuit !== 'authV3-8-32' || !auth.allowed.includes('authV3')) throw error;
    ctx.progress.info(`${error.message}; proving with authV3 instead`);
    token = await packAuthResponse(ctx, response, holderDid, 'authV3');
  }
  const result: RespondResult = {
    token,
    request: request.id,
    thid,
    from: holder,
    to: request.from,
    scope: chosen.map(({ scope, id }, index) => ({ id: scope.id, circuitId: responses[index]!.circuitId, credential: id })),
  };
  return { result, kept: false };
}

/**
 * Packs the response (or another iden3comm message from the holder, a fetch-request) as a JWZ (a
 * js-jwz Token, as the js-sdk's ZKPPacker makes it: the same headers, message hash and
 * serialisation), its auth circuit's inputs (authV2 by default, or authV3 / authV3-8-32) from the
 * js-sdk's ProofService and its proof by vc's prover (the native one: a fraction of snarkjs's time,
 * which the ZKPPacker would use through js-jwz's registry, shared by the whole process).
 */
export async function packAuthResponse(ctx: Context, response: Record<string, unknown>, holder: import('@iden3/js-iden3-core').DID, circuitId: AuthCircuit = AUTH_V2_CIRCUIT): Promise<string> {
  const { proofService, prover: authV2Prover } = await getIden3Prover(ctx, 'iden3comm');
  const prover = circuitId === AUTH_V2_CIRCUIT ? authV2Prover : (await getAuthV3Prover(ctx, circuitId)).prover;
  const jwz = await import('@iden3/js-jwz');
  const registered = await jwz.proving.getProvingMethod(new jwz.ProvingMethodAlg(jwz.proving.provingMethodGroth16AuthV2Instance.methodAlg.alg, circuitId));
  // The registered method's identity and verification; its proof from vc's prover.
  const method: import('@iden3/js-jwz').ProvingMethod = {
    methodAlg: registered.methodAlg,
    alg: registered.alg,
    circuitId: registered.circuitId,
    verify: (messageHash, proof, verificationKey) => registered.verify(messageHash, proof, verificationKey),
    prove: async (inputs) => (await prover.generate(inputs, circuitId)) as unknown as import('@iden3/js-jwz').ZKProof,
  };
  const token = new jwz.Token(method, JSON.stringify(response), async (hash, circuit) => {
    const inputs = await proofService.generateAuthInputs(hash, holder, circuit as never);
    const problem = authDepthProblem(inputs, circuitId);
    if (problem !== undefined) throw new AuthTreesTooDeepError(`the ${circuitId} proof of the answer cannot be made: ${problem}`);
    return inputs;
  });
  token.setHeader('typ', ZKP_MEDIA_TYPE);
  const step = ctx.progress.start(`generating the ${circuitId} proof (the JWZ token)`);
  try {
    const packed = await token.prove(new Uint8Array(), new Uint8Array());
    step.succeed('token packed');
    return packed;
  } catch (error) {
    step.fail();
    const ours = walkErrorCauses(error, isVcError);
    throw ours ?? new UnprocessableError(`the ${circuitId} proof of the answer could not be made: ${describeError(error)}`, { cause: error });
  }
}

/** POSTs the token to the callback (checked reachable already) and reports the verifier's answer. */
export async function postToken(url: string, token: string, names: FieldNamer): Promise<NonNullable<RespondResult['posted']>> {
  // The verifier has the token once it answers: a longer answer than vc keeps is cut (and said so), not an error that loses the token.
  const { status, text, errorText, truncated } = await boundedFetch(
    url,
    { method: 'POST', headers: { 'content-type': 'text/plain', accept: 'application/json' }, body: token },
    { timeoutMs: CALLBACK_TIMEOUT_MS, maxBytes: CALLBACK_MAX_ANSWER_BYTES, cutLonger: true },
    (detail, cause) => new NetworkError(`${names('post')}: posting to ${url}: ${detail}`, cause === undefined ? {} : { cause }),
  );
  const raw = text ?? errorText ?? '';
  if (truncated === true) return { url, status, body: raw, truncated };
  let body: unknown = raw;
  try {
    body = raw === '' ? null : JSON.parse(raw);
  } catch {
    body = raw;
  }
  return { url, status, body };
}
