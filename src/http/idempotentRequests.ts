/**
 * `Idempotency-Key` on the routes that issue a credential or send a transaction (a route declared
 * `idempotent`): a client that lost its connection retries with the same key and gets the first
 * answer instead of a second credential or transaction. The key is scoped to the route and bound
 * to a digest of the request (its JSON input, keys sorted): the same key with another request is
 * refused (422 `idempotency_key_reused`). A retry that arrives while the first request still runs
 * waits for it and gets its answer; one that arrives later gets the answer kept in the wallet
 * store (src/core/idempotency.ts, 24 hours), with `Idempotent-Replayed: true`. Only answers of
 * success are kept: an error means the work did not complete, and a retry runs it again (an
 * issuance interrupted by a crash of the server is then taken up, not issued twice).
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ServiceKey, type Context } from '../context.js';
import { InputError, UnprocessableError } from '../errors.js';
import { idempotencyRecord, saveIdempotentAnswer, type IdempotencyTicket } from '../core/idempotency.js';
import type { HttpRoute } from './route.js';

/** The header, as the IETF draft (draft-ietf-httpapi-idempotency-key-header) and payment APIs name it. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer given again for a key. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** The longest key accepted (a UUID is 36 characters). */
export const MAX_KEY_LENGTH = 255;

/** A key used again with a request that differs from the one it came with first. */
export class IdempotencyKeyReusedError extends UnprocessableError {
  override readonly code: string = 'idempotency_key_reused';
}

/** A malformed Idempotency-Key header. */
export class InvalidIdempotencyKeyError extends InputError {
  override readonly code: string = 'invalid_idempotency_key';
}

export interface Answer {
  status: number;
  body: unknown;
}

/** JSON with object keys sorted, so that the same request always has the same digest. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The ticket of a request to an idempotent route: undefined without the header; an
 * InvalidIdempotencyKeyError for a key that is empty, too long or not visible ASCII. A key may be
 * sent bare or as a quoted string (the IETF draft's structured-field form).
 */
export function idempotencyTicket(route: HttpRoute, request: FastifyRequest, input: unknown): IdempotencyTicket | undefined {
  if (route.idempotent !== true) return undefined;
  const header = request.headers[IDEMPOTENCY_HEADER];
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new InvalidIdempotencyKeyError('the Idempotency-Key header is given more than once');
  const key = /^".*"$/.test(header) ? header.slice(1, -1) : header;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new InvalidIdempotencyKeyError(`the Idempotency-Key header must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID, say)`);
  }
  return {
    slot: `${route.role} ${route.method} ${route.path}\n${key}`,
    fingerprint: createHash('sha256').update(canonicalJson(input)).digest('hex'),
  };
}

/** The requests of one server running under a key (to make a retry wait for the first). */
class IdempotentRequests {
  private readonly running = new Map<string, { fingerprint: string; answer: Promise<Answer> }>();

  constructor(private readonly ctx: Context) {}

  /**
   * The answer for `ticket`: the one kept or being computed for its key, or `compute`'s (kept once
   * it succeeds, even when the client that asked is gone).
   */
  async answer(ticket: IdempotencyTicket, compute: () => Promise<Answer>): Promise<Answer & { replayed: boolean }> {
    const reused = (): IdempotencyKeyReusedError =>
      new IdempotencyKeyReusedError('this Idempotency-Key was used with another request on this route: send a new key with a new request');
    const running = this.running.get(ticket.slot);
    if (running !== undefined) {
      if (running.fingerprint !== ticket.fingerprint) throw reused();
      return { ...(await running.answer), replayed: true };
    }
    const kept = idempotencyRecord(this.ctx, ticket.slot);
    if (kept !== undefined && kept.fingerprint !== ticket.fingerprint) throw reused();
    if (kept?.answer !== undefined) return { ...kept.answer, replayed: true };
    const answer = compute().then((computed) => {
      saveIdempotentAnswer(this.ctx, ticket, computed);
      return computed;
    });
    this.running.set(ticket.slot, { fingerprint: ticket.fingerprint, answer });
    try {
      return { ...(await answer), replayed: false };
    } finally {
      this.running.delete(ticket.slot);
    }
  }
}

const REQUESTS_KEY = new ServiceKey<IdempotentRequests>('http.idempotentRequests');

/** The keyed requests of `ctx`'s server (shared by its roles). */
export function idempotentRequests(ctx: Context): Promise<IdempotentRequests> {
  return ctx.lazy(REQUESTS_KEY, async () => new IdempotentRequests(ctx));
}
