/**
 * Off-chain verification of an iden3comm authorization response (issue 28): `vc verifier verify
 * --jwz FILE --request req.json`. The JWZ is unpacked by the js-sdk's ZKPPacker with vc's
 * verification key of its auth circuit (authV2, or authV3 / authV3-8-32 when the request accepts
 * them, their files built on first use) and a state check of vc's own (the GIST root the auth proof names must be the
 * State contract's current root, or one replaced less than AUTH_GIST_WINDOW_MS ago), then the js-sdk's
 * AuthHandler checks each scope proof against the request vc recorded (ProofService.verifyZKPResponse:
 * the proof with vc's key, the query, the issuer's state and non-revocation state against the
 * chain through vc's chain client). vc adds what the js-sdk leaves to the verifier: the answer's
 * thread is the request's, the request was made by this wallet and has not expired, and a token is
 * accepted once (recorded in the wallet). A refusal is a result with its reason, not an error;
 * input that is no JWZ at all is an InputError.
 */
import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import type { IStateStorage, StateInfo } from '@0xpolygonid/js-sdk';
import { ConflictError, InputError, NotFoundError, TooLargeError, describeError } from '../../errors.js';
import { latestStateOnChain } from '../../iden3/chainState.js';
import { getIden3, type Iden3 } from '../../iden3/wallet.js';
import type { FieldNamer } from '../validate.js';
import type { OnDemandCircuitId } from '../../circuits/sources.js';
import { conditionOperator } from '../pbq/pbqSchemas.js';
import { Refusal, acceptedInWords, authVerificationKey, isAuthCircuit, parseJwz, refusalOf, unpackAuthJwz } from './authJwz.js';
import { AUTH_REQUESTS_NS, acceptedAuthCircuits, type AuthRequestMessage, type StoredAuthRequest } from './authRequest.js';

/** The largest token read: an answer with one V3 proof is under 10 KB, each more proof adds a few KB (16, MAX_SCOPE_ITEMS, stay well under this). */
export const MAX_JWZ_BYTES = 256 * 1024;
/** How long after an issuer's state was replaced a proof naming it is still accepted, and how old a proof may be (the js-sdk's defaults). */
export const PROOF_STATE_WINDOW_MS = 60 * 60 * 1000;
/** Store namespace of the answers accepted, by the SHA-256 of the message hash their auth proof signs. */
export const ACCEPTED_TOKENS_NS = 'iden3comm.acceptedTokens';

/**
 * An accepted answer. `undelivered`: the result of `vc verifier verify --jwz`, kept until it reached
 * its caller (-o written, or stdout): a re-run of that command after a crash before its output gets
 * it again; once delivered, the same token is a replay.
 */
interface AcceptedToken {
  request: string;
  from?: string;
  acceptedAt: string;
  undelivered?: AuthVerifyResult;
}

/** How an answer was given: by `vc verifier verify --jwz` (its result is kept until delivered) or posted to a session's callback. */
type AnswerChannel = 'command' | 'callback';

const ZKP_MEDIA_TYPE = 'application/iden3-zkp-json';
const AUTH_RESPONSE_TYPE = 'https://iden3-communication.io/authorization/1.0/response';

/** One scope proof of a verified answer. */
export interface VerifiedScopeProof {
  id: number;
  circuitId: string;
  issuer: string;
  type: string;
  field: string;
  operator: string;
  /** $sd: the field's value (the proof's operatorOutput, a decimal field element). */
  disclosed?: string;
}

/** The outcome: verified (with the sender and what it disclosed) or refused with the reason. */
export interface AuthVerifyResult {
  verified: boolean;
  /** The request answered (its id and thid). */
  request: string;
  /** The sender's DID (the holder who answered), when the auth proof verified. */
  from?: string;
  reason?: string;
  proofs?: VerifiedScopeProof[];
  /** The disclosed values by field ($sd queries; one key a proof: `Type.field`, `Type.field#scopeId` where the field is not enough, see disclosedByField). */
  disclosed?: Record<string, string>;
}

/**
 * The State contract as the js-sdk's verifier reads it, plus the genesis rule the contract leaves
 * to its callers: a state it does not know stands when it is the identity's genesis state (its id
 * derives from it) and the identity has published no state since (then the contract would know it).
 */
function genesisAwareStates(iden3: Iden3): IStateStorage {
  const { core, sdk } = iden3.modules;
  const inner = iden3.states;
  return Object.assign(Object.create(inner) as IStateStorage, {
    async getStateInfoByIdAndState(id: bigint, state: bigint): Promise<StateInfo> {
      try {
        return await inner.getStateInfoByIdAndState(id, state);
      } catch (error) {
        if (!/State does not exist/.test(describeError(error))) throw error;
        const did = core.DID.parseFromId(core.Id.fromBigInt(id));
        if (!sdk.isGenesisState(did, state)) throw new Refusal(`state ${state} of ${did.string()} is not on the State contract, and is not its genesis state`);
        if ((await latestStateOnChain(inner, iden3.modules, did)) !== undefined) throw new Refusal(`the genesis state of ${did.string()} was replaced on the State contract`);
        return { id, state, replacedByState: 0n, createdAtTimestamp: 0n, replacedAtTimestamp: 0n, createdAtBlock: 0n, replacedAtBlock: 0n };
      }
    },
  });
}

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** Checks that `text` is a compact JWZ with a zero-knowledge header; returns the trimmed token. InputError otherwise. */
export function checkJwzShape(text: string, names: FieldNamer): string {
  const where = names('jwz');
  const token = text.trim();
  if (Buffer.byteLength(token, 'utf8') > MAX_JWZ_BYTES) throw new TooLargeError(`${where}: the token is larger than ${MAX_JWZ_BYTES / 1024} KiB`, { field: 'jwz' });
  if (token === '') throw new InputError(`${where}: empty; expected a JWZ token (header.payload.proof)`, { field: 'jwz' });
  if (token.startsWith('{')) throw new InputError(`${where}: is JSON, not a JWZ token (three base64url parts header.payload.proof); a wallet's answer is the token it posts`, { field: 'jwz' });
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => part === '' || !BASE64URL.test(part))) {
    throw new InputError(`${where}: not a JWZ token: expected three base64url parts header.payload.proof, found ${parts.length} part${parts.length === 1 ? '' : 's'}`, { field: 'jwz' });
  }
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
  } catch {
    header = undefined;
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new InputError(`${where}: not a JWZ token: its header is not a JSON object`, { field: 'jwz' });
  const { typ, alg, circuitId, crit } = header as { typ?: unknown; alg?: unknown; circuitId?: unknown; crit?: unknown };
  if (typ !== ZKP_MEDIA_TYPE) throw new InputError(`${where}: header typ is ${JSON.stringify(typ ?? null)}, expected ${ZKP_MEDIA_TYPE} (a JWZ)`, { field: 'jwz' });
  if (typeof alg !== 'string' || typeof circuitId !== 'string') throw new InputError(`${where}: the JWZ header lacks alg or circuitId`, { field: 'jwz' });
  // js-jwz reads crit as the list of header members the proof covers (circuitId among them).
  if (!Array.isArray(crit) || !crit.every((member) => typeof member === 'string') || !crit.includes('circuitId')) {
    throw new InputError(`${where}: the JWZ header's crit must be a list of header member names including circuitId`, { field: 'jwz' });
  }
  return token;
}

/** The request as recorded by `vc verifier auth-request`; the file given must be that request. */
function recordedRequest(ctx: Context, given: AuthRequestMessage, names: FieldNamer): AuthRequestMessage {
  const stored = ctx.store.get<StoredAuthRequest>(AUTH_REQUESTS_NS, given.id);
  if (stored === undefined) {
    throw new NotFoundError(`${names('request')}: request ${given.id} was not made by this wallet (vc verifier auth-request records the requests it makes)`, { field: 'request' });
  }
  if (JSON.stringify(canonical(stored.request)) !== JSON.stringify(canonical(given))) {
    throw new ConflictError(`${names('request')}: differs from request ${given.id} as this wallet made it (the recorded one is what answers are checked against)`, { field: 'request' });
  }
  return stored.request;
}

/** A JSON value with its object keys sorted, for comparing documents. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([key, item]) => [key, canonical(item)]));
  return value;
}

/** The circuit files of iden3comm verification (authV2, the off-chain V3 query circuit), built on first use. */
async function verificationCircuitsDir(ctx: Context): Promise<string> {
  const { AUTH_V2_CIRCUIT, V3_CIRCUIT, V3_SMALL_CIRCUIT } = await import('../../circuits/sources.js');
  const { availableOnDemandCircuits, ensureCircuits } = await import('../../circuits/build.js');
  const available = await availableOnDemandCircuits(ctx);
  const extra: OnDemandCircuitId[] = [AUTH_V2_CIRCUIT, V3_SMALL_CIRCUIT, ...available.filter((id) => id === V3_CIRCUIT)];
  const info = await ensureCircuits(ctx, { extra });
  return info.dir;
}

/**
 * `vc verifier verify --jwz FILE --request FILE` (and POST /callback): verified, or refused with
 * the reason; the request's session keeps the outcome (GET /auth-requests/:id/status), wherever
 * the token came from.
 */
export async function verifyAuthResponse(ctx: Context, input: { jwz: string; request: AuthRequestMessage }, names: FieldNamer, channel: AnswerChannel = 'command'): Promise<AuthVerifyResult> {
  const token = checkJwzShape(input.jwz, names);
  const request = recordedRequest(ctx, input.request, names);
  const result = await verifyRecordedRequestAnswer(ctx, token, request, names, channel);
  // Only an answer whose auth proof verified speaks for the session: a token anyone can post (the
  // callback is open) that no identity's proof backs must not turn a pending session refused.
  if (result.verified || result.from !== undefined) recordSessionOutcome(ctx, request.id, result);
  return result;
}

/** The key an answer is known by: what its auth proof signs (the header and the message), not the token's text. */
async function answerKey(token: string): Promise<string | undefined> {
  try {
    const jwz = await import('@iden3/js-jwz');
    return createHash('sha256').update(await (await jwz.Token.parse(token)).getMessageHash()).digest('hex');
  } catch {
    return undefined;
  }
}

/** `vc verifier verify --jwz` delivered its result: the same token is a replay from now on. */
export async function authVerifyDelivered(ctx: Context, jwzText: string): Promise<void> {
  const key = await answerKey(jwzText.trim());
  if (key === undefined) return;
  ctx.store.transaction(() => {
    const record = ctx.store.get<AcceptedToken>(ACCEPTED_TOKENS_NS, key);
    if (record?.undelivered === undefined) return;
    const { undelivered: _kept, ...rest } = record;
    ctx.store.put<AcceptedToken>(ACCEPTED_TOKENS_NS, key, rest);
  });
}

/** Verifies a token (of a checked shape) against a request the wallet recorded. */
async function verifyRecordedRequestAnswer(ctx: Context, token: string, request: AuthRequestMessage, names: FieldNamer, channel: AnswerChannel): Promise<AuthVerifyResult> {
  const refused = (reason: string, from?: string): AuthVerifyResult => ({ verified: false, request: request.id, ...(from === undefined ? {} : { from }), reason });
  const iden3 = await getIden3(ctx);
  const { sdk } = iden3.modules;
  const parsed = await parseJwz(token, names);
  // Replays are known by what the auth proof signs (the header and the message), not by the
  // token's text: the same message with its proof re-encoded or re-randomised is the same answer.
  const tokenKey = createHash('sha256').update(parsed.messageHash).digest('hex');
  const seen = ctx.store.get<AcceptedToken>(ACCEPTED_TOKENS_NS, tokenKey);
  // The command's own result, not delivered (killed before its output): given again.
  if (seen?.undelivered !== undefined && channel === 'command' && seen.request === request.id) return seen.undelivered;
  if (seen !== undefined) return refused(`replayed: this token was accepted already, at ${seen.acceptedAt}`);
  const now = ctx.now();
  if (request.expires_time !== undefined && request.expires_time * 1000 < now.getTime()) {
    return refused(`request ${request.id} expired at ${new Date(request.expires_time * 1000).toISOString()}`);
  }
  // The auth circuits the request accepts (authV2 for one made before vc made others): a token of another is refused before any key is read or built.
  const accepted = acceptedAuthCircuits(request.body.accept, (profile) => sdk.parseAcceptProfile(profile));
  if (parsed.alg !== 'groth16' || !isAuthCircuit(parsed.circuitId) || !accepted.includes(parsed.circuitId)) {
    return refused(`the token is proved with ${parsed.alg.slice(0, 40)}:${parsed.circuitId.slice(0, 40)}; the request accepts ${acceptedInWords(accepted)} only`);
  }
  // The open route (POST /callback) never starts the build of an auth circuit a token is labelled
  // with (authV3 is a full-size build; a junk token costs its poster nothing): as vc's agent does,
  // it takes authV2 and the authV3 circuits already built on this machine, and refuses the others
  // before any key is read. `vc verifier verify --jwz` (the verifier's own command) builds the
  // circuit of an accepted one on first use, after the checks above.
  if (channel === 'callback' && parsed.circuitId !== 'authV2') {
    const { availableOnDemandCircuits } = await import('../../circuits/build.js');
    if (!(await availableOnDemandCircuits(ctx)).includes(parsed.circuitId)) {
      return refused(`the token is proved with groth16:${parsed.circuitId}, whose circuit files this verifier has not built; the callback never starts a build (the verifier builds them with \`vc circuits build --circuit ${parsed.circuitId}\`)`);
    }
  }
  const circuitsDir = await verificationCircuitsDir(ctx);
  const unpacked = await unpackAuthJwz(ctx, parsed, accepted, (circuitId) => authVerificationKey(ctx, circuitId, circuitsDir));
  if (!unpacked.ok) return refused(unpacked.reason);
  const message = unpacked.message as { type?: string; thid?: string; from?: string; to?: string; body?: { scope?: Array<{ id: number | string; circuitId: string; pub_signals: string[] }> } };
  const from = typeof message.from === 'string' ? message.from : undefined;
  if (message.type !== AUTH_RESPONSE_TYPE) return refused(`the token carries a ${String(message.type)} message, not an authorization response`, from);
  if (message.thid !== request.thid) return refused(`the token answers request ${String(message.thid)}, not ${request.thid}`, from);
  const scopeProblem = answeredScopeProblem(request, message.body?.scope);
  if (scopeProblem !== undefined) return refused(scopeProblem, from);

  const proofService = new sdk.ProofService(iden3.identityWallet, iden3.credentialWallet, new sdk.FSCircuitStorage({ dirname: circuitsDir }), genesisAwareStates(iden3), {
    documentLoader: iden3.documents.loader() as never,
  });
  const handler = new sdk.AuthHandler(new sdk.PackageManager(), proofService);
  try {
    await handler.handleAuthorizationResponse(message as never, request as never, { acceptedStateTransitionDelay: PROOF_STATE_WINDOW_MS, acceptedProofGenerationDelay: PROOF_STATE_WINDOW_MS });
  } catch (error) {
    return refused(refusalOf(error, 'a scope proof is refused: ').message, from);
  }

  const proofs = request.body.scope.map((scope): VerifiedScopeProof => {
    const answer = message.body!.scope!.find((item) => String(item.id) === String(scope.id))!;
    const small = /-16-16-64$/.test(answer.circuitId);
    const signals = new sdk.AtomicQueryV3PubSignals(small ? { mtLevel: 16, mtLevelClaim: 16 } : undefined).pubSignalsUnmarshal(new TextEncoder().encode(JSON.stringify(answer.pub_signals)));
    const query = scope.query as { type: string; credentialSubject: Record<string, Record<string, unknown>> };
    const [field, condition] = Object.entries(query.credentialSubject)[0]!;
    const { op } = conditionOperator(condition);
    return {
      id: scope.id,
      circuitId: answer.circuitId,
      issuer: iden3.modules.core.DID.parseFromId(signals.issuerID).string(),
      type: query.type,
      field,
      operator: op,
      ...(op === '$sd' ? { disclosed: signals.operatorOutput.toString() } : {}),
    };
  });
  const acceptedAt = ctx.now().toISOString();
  const disclosed = disclosedByField(proofs);
  const result: AuthVerifyResult = { verified: true, request: request.id, ...(from === undefined ? {} : { from }), proofs, ...(Object.keys(disclosed).length === 0 ? {} : { disclosed }) };
  const firstTime = ctx.store.transaction(() => {
    const again = ctx.store.get<AcceptedToken>(ACCEPTED_TOKENS_NS, tokenKey);
    if (again !== undefined) return again;
    ctx.store.put<AcceptedToken>(ACCEPTED_TOKENS_NS, tokenKey, { request: request.id, ...(from === undefined ? {} : { from }), acceptedAt, ...(channel === 'command' ? { undelivered: result } : {}) });
    return undefined;
  });
  if (firstTime !== undefined) return refused(`replayed: this token was accepted already, at ${firstTime.acceptedAt}`, from);
  return result;
}

/** A proof request in words, for reasons: `scope 123 (KYCAgeCredential birthday $sd)`. */
function scopeLabel(scope: AuthRequestMessage['body']['scope'][number]): string {
  const query = scope.query as { type?: unknown; credentialSubject?: Record<string, Record<string, unknown>> };
  const [field, condition] = Object.entries(query.credentialSubject ?? {})[0] ?? [];
  return `scope ${scope.id} (${String(query.type)}${field === undefined ? '' : ` ${field} ${conditionOperator(condition ?? {}).op}`})`;
}

/**
 * Why the answer's proofs are not one for each of the request's proof requests, or undefined: a
 * request is answered whole (a wallet answering some of its items is refused, naming the first
 * missing), with no proof twice and none for an item the request does not have.
 */
export function answeredScopeProblem(request: AuthRequestMessage, answered: unknown): string | undefined {
  const asked = request.body.scope;
  if (!Array.isArray(answered)) return `the token carries no scope proofs; the request asks for ${asked.length}`;
  const ids = answered.map((item) => String((item as { id?: unknown } | null)?.id));
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) return `the token carries two proofs for scope ${id.slice(0, 40)}`;
    seen.add(id);
    if (!asked.some((scope) => String(scope.id) === id)) return `the token carries a proof for scope ${id.slice(0, 40)}, which request ${request.id} does not ask for`;
  }
  const missing = asked.filter((scope) => !seen.has(String(scope.id)));
  if (missing.length > 0) {
    return `the token answers ${asked.length - missing.length} of the ${asked.length} proof requests of request ${request.id}: no proof for ${missing.map(scopeLabel).join(', ')}`;
  }
  return undefined;
}

/**
 * The disclosed values by field, one key a proof: its field (`birthday`) when no other proof
 * discloses that field; else its type and field (`KYCAgeCredential.birthday`) when no other proof
 * of that type discloses it too and no field is named so (a nested field `KYCAgeCredential.birthday`
 * of another type); else that and its scope id (`KYCAgeCredential.birthday#17`), unique as scope ids
 * are (with `#id` again in the unlikely case a field is named so). No value is lost: each proof's own
 * value is in `proofs` too.
 */
export function disclosedByField(proofs: VerifiedScopeProof[]): Record<string, string> {
  const disclosing = proofs.filter((proof) => proof.disclosed !== undefined);
  const keys = new Map<VerifiedScopeProof, string>();
  const taken = new Set<string>();
  const unique = <T>(items: T[], key: (item: T) => string): Set<string> => {
    const counts = new Map<string, number>();
    for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
    return new Set([...counts].filter(([, count]) => count === 1).map(([name]) => name));
  };
  // Each rule in turn, over the proofs the rules before it left: a key is never one already given.
  const byField = (proof: VerifiedScopeProof): string => proof.field;
  const byType = (proof: VerifiedScopeProof): string => `${proof.type}.${proof.field}`;
  for (const rule of [byField, byType]) {
    const left = disclosing.filter((proof) => !keys.has(proof));
    const once = unique(left, rule);
    for (const proof of left) {
      const key = rule(proof);
      if (once.has(key) && !taken.has(key)) keys.set(proof, key);
    }
    for (const proof of left) if (keys.has(proof)) taken.add(keys.get(proof)!);
  }
  for (const proof of disclosing.filter((other) => !keys.has(other))) {
    let key = `${byType(proof)}#${proof.id}`;
    while (taken.has(key)) key = `${key}#${proof.id}`;
    keys.set(proof, key);
    taken.add(key);
  }
  return Object.fromEntries(disclosing.map((proof) => [keys.get(proof)!, proof.disclosed!]));
}

/** Store namespace of the sessions' outcomes (`vc serve --role verifier`), by request id. */
export const AUTH_SESSIONS_NS = 'iden3comm.authSessions';

/** A session's outcome: what GET /auth-requests/:id/status tells. */
export interface AuthSessionStatus {
  id: string;
  status: 'pending' | 'verified' | 'refused';
  from?: string;
  disclosed?: Record<string, string>;
  /** Verified: each proof request's proof (its type, field, operator, and the value it disclosed). */
  proofs?: VerifiedScopeProof[];
  reason?: string;
  updatedAt?: string;
}

/** The request of a session, as the wallet made it (GET /auth-requests/:id, what a request_uri names). */
export function authRequestOfSession(ctx: Context, id: string, names: FieldNamer): AuthRequestMessage {
  const stored = ctx.store.get<StoredAuthRequest>(AUTH_REQUESTS_NS, id);
  if (stored === undefined) throw new NotFoundError(`${names('id')}: no authorization request ${id} (POST /auth-requests makes one)`, { field: 'id' });
  return stored.request;
}

/** POST /callback?sessionId=: the wallet's token for the session's request, verified as `vc verifier verify --jwz` does. */
export async function answerAuthSession(ctx: Context, input: { sessionId: string; jwz: string }, names: FieldNamer): Promise<AuthVerifyResult> {
  const stored = ctx.store.get<StoredAuthRequest>(AUTH_REQUESTS_NS, input.sessionId);
  if (stored === undefined) throw new NotFoundError(`${names('sessionId')}: no session ${input.sessionId} (POST /auth-requests makes one; its id is the session id)`, { field: 'sessionId' });
  return verifyAuthResponse(ctx, { jwz: input.jwz, request: stored.request }, names, 'callback');
}

/** Keeps a session's outcome: a verified session stays verified (a later refused token, a replay of the same one included, does not undo it). */
function recordSessionOutcome(ctx: Context, id: string, result: AuthVerifyResult): void {
  ctx.store.transaction(() => {
    const before = ctx.store.get<AuthSessionStatus>(AUTH_SESSIONS_NS, id);
    if (before?.status === 'verified') return;
    const from = result.from === undefined ? {} : { from: result.from };
    const status: AuthSessionStatus = result.verified
      ? {
          id,
          status: 'verified',
          ...from,
          ...(result.disclosed === undefined ? {} : { disclosed: result.disclosed }),
          ...(result.proofs === undefined ? {} : { proofs: result.proofs }),
          updatedAt: ctx.now().toISOString(),
        }
      : { id, status: 'refused', ...from, reason: result.reason ?? 'not verified', updatedAt: ctx.now().toISOString() };
    ctx.store.put(AUTH_SESSIONS_NS, id, status);
  });
}

/** GET /auth-requests/:id/status: pending, verified (sender and disclosed values) or refused (the reason). */
export function authSessionStatus(ctx: Context, id: string, names: FieldNamer): AuthSessionStatus {
  authRequestOfSession(ctx, id, names);
  return ctx.store.get<AuthSessionStatus>(AUTH_SESSIONS_NS, id) ?? { id, status: 'pending' };
}
