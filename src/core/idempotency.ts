/**
 * What `vc serve` keeps for an `Idempotency-Key` (src/http/routeRegistration.ts): per route and
 * key, a digest of the request it came with and, once there is one, the answer (status and body),
 * so that a retry with the same key gets that answer instead of a second credential or
 * transaction. An operation that cannot finish within one store write notes what it began under
 * the key (an issuance: the id of the credential it signed), so that a retry after a crash of the
 * server takes up that very credential (completed by the journal's recovery) instead of issuing
 * another. Records live in the wallet store for IDEMPOTENCY_RETENTION_MS, at most
 * IDEMPOTENCY_MAX_RECORDS of them (the oldest go first).
 */
import type { Context } from '../context.js';

/** Store namespace: `<role> <METHOD> <path>\n<key>`. */
export const IDEMPOTENCY_NS = 'http.idempotency';
/** How long an answer is kept for its key (24 h, as payment APIs keep theirs). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** The most keys kept at once; beyond that the oldest are dropped. */
export const IDEMPOTENCY_MAX_RECORDS = 10_000;

/** A key of one route with the digest of its request: what an operation is given to note its work under. */
export interface IdempotencyTicket {
  /** The record's key in IDEMPOTENCY_NS. */
  slot: string;
  fingerprint: string;
}

export interface IdempotencyRecord {
  /** sha256 of the request (its JSON input, keys sorted): the same key with another request is refused. */
  fingerprint: string;
  createdAt: string;
  expiresAt: string;
  /** The first answer, once the request completed. */
  answer?: { status: number; body: unknown };
  /** The credentials an issuance signed under this key and journaled (to take up after a crash). */
  credentialIds?: string[];
}

/** The record of `slot`, unless it expired. */
export function idempotencyRecord(ctx: Context, slot: string): IdempotencyRecord | undefined {
  const record = ctx.store.get<IdempotencyRecord>(IDEMPOTENCY_NS, slot);
  if (record === undefined || Date.parse(record.expiresAt) <= ctx.now().getTime()) return undefined;
  return record;
}

/** Writes what is known for `ticket` (the answer, or what an operation began), keeping its creation time. */
function update(ctx: Context, ticket: IdempotencyTicket, change: Pick<IdempotencyRecord, 'answer' | 'credentialIds'>): void {
  const now = ctx.now();
  ctx.store.transaction(() => {
    const existing = idempotencyRecord(ctx, ticket.slot);
    const base = existing?.fingerprint === ticket.fingerprint ? existing : undefined;
    const createdAt = base?.createdAt ?? now.toISOString();
    ctx.store.put<IdempotencyRecord>(IDEMPOTENCY_NS, ticket.slot, {
      ...base,
      ...change,
      fingerprint: ticket.fingerprint,
      createdAt,
      expiresAt: new Date(Date.parse(createdAt) + IDEMPOTENCY_RETENTION_MS).toISOString(),
    });
  });
  prune(ctx);
}

/** Keeps the answer of a request for its key. */
export function saveIdempotentAnswer(ctx: Context, ticket: IdempotencyTicket, answer: { status: number; body: unknown }): void {
  update(ctx, ticket, { answer });
}

/** Notes the credentials an issuance signed under `ticket` before it publishes them. */
export function noteIdempotentCredentials(ctx: Context, ticket: IdempotencyTicket, credentialIds: string[]): void {
  update(ctx, ticket, { credentialIds });
}

/** Drops expired records, then the oldest beyond IDEMPOTENCY_MAX_RECORDS. */
function prune(ctx: Context): void {
  ctx.store.deleteWhereTimestampBefore(IDEMPOTENCY_NS, 'expiresAt', ctx.now());
  const excess = ctx.store.count(IDEMPOTENCY_NS) - IDEMPOTENCY_MAX_RECORDS;
  if (excess <= 0) return;
  const oldest = ctx.store
    .list<IdempotencyRecord>(IDEMPOTENCY_NS)
    .sort((a, b) => a.value.createdAt.localeCompare(b.value.createdAt))
    .slice(0, excess);
  ctx.store.transaction(() => {
    for (const { key } of oldest) ctx.store.delete(IDEMPOTENCY_NS, key);
  });
}
