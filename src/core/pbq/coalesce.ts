/**
 * Group commit for concurrent issuances (`vc serve`: many POST /generate-pbq-credentials at
 * once). A state transition costs seconds of proving and a block; a claim costs a signature. So
 * issuances that arrive together share one publication: each call is checked at once (a bad DID
 * or type is its own 4xx, immediately), then waits in the group; when it is this process's turn
 * for mutating work (`ctx.exclusive`), the whole group is signed and published with ONE state
 * transition, and every call answers with its own credential and that transaction's Merkle proof.
 * Calls that arrive while the group is being signed join it; one that arrives while a publication
 * runs joins the next one. A credential that cannot be
 * signed (its subject does not fit the schema) fails alone; a publication that fails fails the
 * calls it carried (its journal is recovered by the next one, as for a single issuance). The
 * claims of credentials signed earlier with `--proof both` ride along in the same publication.
 */
import { ServiceKey, type Context } from '../../context.js';
import { getIden3, type Iden3 } from '../../iden3/wallet.js';
import type { W3CCredential } from '@0xpolygonid/js-sdk';
import { crashPoint } from '../../faults.js';
import {
  issuerDidOf,
  issueResult,
  MAX_BATCH_CREDENTIALS,
  prepareItem,
  publishedClaims,
  revocationNonces,
  signItem,
  waitingClaims,
  type IssueItem,
  type IssueResult,
  type PreparedItem,
} from './pbqIssuance.js';
import { isIssued, publishRecoverably, recoverPendingPublication } from './publication.js';
import { idempotencyRecord, noteIdempotentCredentials, type IdempotencyTicket } from '../idempotency.js';

/** How long the first call of an idle coalescer waits for others that arrive with it. */
export const GATHER_MS = 20;

interface Waiting {
  item: PreparedItem;
  /** The request's Idempotency-Key: the credential signed for it is noted there before it is published. */
  ticket: IdempotencyTicket | undefined;
  resolve(result: IssueResult): void;
  reject(error: unknown): void;
}

/** The issuance groups of one context (one process's wallet). */
class IssuanceCoalescer {
  private readonly waiting: Waiting[] = [];
  private draining = false;

  constructor(private readonly ctx: Context) {}

  async issue(item: IssueItem, ticket?: IdempotencyTicket): Promise<IssueResult> {
    const prepared = await prepareItem(this.ctx, await getIden3(this.ctx), item);
    return new Promise<IssueResult>((resolve, reject) => {
      this.waiting.push({ item: prepared, ticket, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        setTimeout(() => void this.drain(), GATHER_MS);
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.ctx.exclusive(() => this.publishWaiting());
    } finally {
      this.draining = false;
    }
  }

  /**
   * One publication: takes the waiting calls when it is this process's turn and the issuer's lock
   * is held, signs them, takes those that arrived meanwhile too (up to MAX_BATCH_CREDENTIALS),
   * then publishes them all with one state transition.
   */
  private async publishWaiting(): Promise<void> {
    const ctx = this.ctx;
    const taken: Waiting[] = [];
    const settled = new Set<Waiting>();
    const settle = (member: Waiting, outcome: { result: IssueResult } | { error: unknown }): void => {
      if (settled.has(member)) return;
      settled.add(member);
      if ('result' in outcome) member.resolve(outcome.result);
      else member.reject(outcome.error);
    };
    try {
      const iden3 = await getIden3(ctx);
      const issuerDid = await issuerDidOf(ctx, iden3);
      await ctx.store.withLock(
        'iden3.issuer',
        async () => {
          await recoverPendingPublication(ctx, issuerDid);
          await this.takeUpRetries(iden3, issuerDid.string(), (member, result) => settle(member, { result }));
          const nextNonce = await revocationNonces(ctx, issuerDid);
          const signed: Array<{ member: Waiting; credential: W3CCredential }> = [];
          while (this.waiting.length > 0 && taken.length < MAX_BATCH_CREDENTIALS) {
            for (const member of this.waiting.splice(0, MAX_BATCH_CREDENTIALS - taken.length)) {
              taken.push(member);
              try {
                signed.push({ member, credential: await signItem(iden3, issuerDid, member.item, nextNonce()) });
              } catch (error) {
                settle(member, { error });
              }
            }
          }
          if (signed.length === 0) return;
          // Noted before the journal: a retry with the same key after a crash gets this credential
          // once the journal is recovered (or, killed before the journal, nothing was kept: a new one).
          for (const { member, credential } of signed) if (member.ticket !== undefined) noteIdempotentCredentials(ctx, member.ticket, [credential.id]);
          crashPoint('issue:signed');
          // The claims of credentials signed earlier with `--proof both` ride along (after the
          // group's own, within the batch limit): they gain their Merkle proof with this publication.
          const queued = (await waitingClaims(ctx, iden3, issuerDid.string())).slice(0, MAX_BATCH_CREDENTIALS - signed.length);
          const published = await publishRecoverably(ctx, issuerDid, { kind: 'issue', credentials: [...signed.map((s) => s.credential), ...queued], revokedNonces: [] });
          publishedClaims(ctx, issuerDid.string(), published.credentials.slice(signed.length));
          published.credentials.slice(0, signed.length).forEach((credential, index) => settle(signed[index]!.member, { result: issueResult(credential) }));
        },
        // The calls are answered once their credentials are published and recorded: a lock lost
        // on the way (another process ran meanwhile) does not undo that.
        { resultStandsIfLost: (message) => ctx.progress.warn?.(message) },
      );
    } catch (error) {
      // Whatever failed (the lock, recovery, the publication) fails every call it had taken; the
      // calls still waiting get the next turn.
      for (const member of taken) settle(member, { error });
      if (taken.length === 0) for (const member of this.waiting.splice(0)) settle(member, { error });
    }
  }

  /**
   * Answers the waiting calls that retry an Idempotency-Key whose credential an earlier server
   * signed and journaled before it died: completed by the recovery that just ran, it is given
   * again instead of a second one. Call with the issuer's lock held, after that recovery.
   */
  private async takeUpRetries(iden3: Iden3, issuer: string, answer: (member: Waiting, result: IssueResult) => void): Promise<void> {
    for (const member of [...this.waiting]) {
      if (member.ticket === undefined) continue;
      const [id] = idempotencyRecord(this.ctx, member.ticket.slot)?.credentialIds ?? [];
      if (id === undefined || !isIssued(this.ctx, issuer, id)) continue;
      const stored = await iden3.dataStorage.credential.findCredentialById(id);
      if (stored === undefined) continue;
      this.waiting.splice(this.waiting.indexOf(member), 1);
      answer(member, issueResult(stored));
    }
  }
}

const COALESCER_KEY = new ServiceKey<IssuanceCoalescer>('pbq.issuanceCoalescer');

/** The coalescer of `ctx`'s issuances. */
export function issuanceCoalescer(ctx: Context): Promise<IssuanceCoalescer> {
  return ctx.lazy(COALESCER_KEY, async () => new IssuanceCoalescer(ctx));
}

/** Issues one credential, sharing the state transition with the issuances running alongside it. */
export async function issueCoalesced(ctx: Context, item: IssueItem, ticket?: IdempotencyTicket): Promise<IssueResult> {
  return (await issuanceCoalescer(ctx)).issue(item, ticket);
}
