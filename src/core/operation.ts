/**
 * The shape of an operation: everything a user can do with `vc` is one declaration (name, input
 * schema, result schema, whether it mutates, `run`), listed in src/core/operations. The CLI, the
 * HTTP server, the OpenAPI document, the command help, the README table and the behavioural tests
 * are all derived from these declarations, so they cannot disagree.
 */
import type { z } from 'zod';
import type { Context } from '../context.js';
import type { IdempotencyTicket } from './idempotency.js';
import { parseInput, plainFieldNames, type FieldNamer } from './validate.js';

/** What an adapter tells an operation about the call: how to name input fields in messages. */
export interface OperationCall {
  names: FieldNamer;
  /**
   * The request's Idempotency-Key (HTTP), for operations that note under it what they began, so
   * that a retry after a crash takes it up (an issuance: its credential) instead of doing it again.
   */
  idempotency?: IdempotencyTicket;
}

export interface Operation<S extends z.ZodType = z.ZodType, R = unknown> {
  /** Stable name, `group.action` (e.g. `sd.disclose`). */
  readonly name: string;
  /** One line: the command's description and the route's summary. */
  readonly summary: string;
  /** The input, validated before `run`: its fields are the HTTP body and the CLI flags. */
  readonly input: S;
  /** The result's shape (OpenAPI). */
  readonly result?: z.ZodType;
  /**
   * Mutating operations write the wallet or send transactions: a server runs them one at a time
   * (`ctx.exclusive`). Reads run in parallel. `'coalesced'`: mutating, but the operation orders
   * its own writes: it takes the exclusive section itself, so concurrent calls can share one step
   * (issuances one state transition), or it writes only in store transactions and under the
   * wallet's locks (a status list index); a server calls it as it comes. `'atomic'`: writes the wallet store in one SQLite
   * transaction and touches nothing else (no signer, prover or trees): a server runs it as it comes
   * too, since SQLite orders the write, and so a request that holds the exclusive section may wait
   * on it (an issuer publishing tree nodes to its own reverse hash service, RHS_URL).
   */
  readonly mutates: boolean | 'coalesced' | 'atomic';
  /**
   * For operations whose result can be a negative outcome that is not an error (a verification
   * that fails): its message, or undefined when the result is a success. The CLI exits 1 on it.
   */
  readonly failure?: (result: NoInfer<R>) => string | undefined;
  /**
   * Called once the caller holds the result for good (the CLI: `-o FILE` written and synced, or
   * the JSON on stdout): what the operation kept so that a re-run of the same input gets this very
   * result instead of doing the work again (a completed batch) may go now. A crash before this
   * call leaves it kept: the re-run gets the result again, never a second one.
   */
  readonly delivered?: (ctx: Context, input: z.output<S>, result: NoInfer<R>) => Promise<void>;
  run(ctx: Context, input: z.output<S>, call: OperationCall): Promise<R>;
}

/** Any operation, for tables. */
export type AnyOperation = Operation<z.ZodType, any>;

/** Declares an operation with its input type inferred from the schema. */
export function defineOperation<S extends z.ZodType, R>(operation: Operation<S, R>): Operation<S, R> {
  return operation;
}

/** Tells the operation that its result for `input` (as given to invokeOperation) reached its caller (Operation.delivered). */
export async function confirmDelivery<S extends z.ZodType, R>(ctx: Context, operation: Operation<S, R>, input: unknown, result: R, call: OperationCall = { names: plainFieldNames }): Promise<void> {
  if (operation.delivered === undefined) return;
  await operation.delivered(ctx, parseInput(operation.input, input, call.names), result);
}

/** Validates `input` against the operation's schema and runs it: the one way adapters call core. */
export async function invokeOperation<S extends z.ZodType, R>(ctx: Context, operation: Operation<S, R>, input: unknown, call: OperationCall = { names: plainFieldNames }): Promise<R> {
  const parsed = parseInput(operation.input, input, call.names);
  return operation.run(ctx, parsed, call);
}
