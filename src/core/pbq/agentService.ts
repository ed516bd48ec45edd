/**
 * The issuer service's iden3comm agent (POST /agent): it reads plain iden3comm messages and, for
 * now, answers `revocation/1.0/request-status` for credentials with an Iden3commRevocationStatusV1.0
 * status, from this wallet's issuer trees at the state the chain holds (src/iden3/agentStatus.ts).
 * Other message types are refused with the list of those it answers.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { ConflictError, InputError, NotFoundError, UnprocessableError, describeError } from '../../errors.js';
import { PLAIN_MEDIA_TYPE, REVOCATION_STATUS_REQUEST_TYPE, REVOCATION_STATUS_RESPONSE_TYPE, answerRevocationStatus, type PlainMessage } from '../../iden3/agentStatus.js';
import { getIden3 } from '../../iden3/wallet.js';
import { defaultDid } from './identities.js';
import { hasIssued, pendingPublication } from './publication.js';

/** Answers one plain iden3comm message sent to this wallet's agent. */
export async function answerAgentMessage(ctx: Context, message: PlainMessage): Promise<PlainMessage> {
  if (message.typ !== undefined && message.typ !== PLAIN_MEDIA_TYPE) {
    throw new UnprocessableError(`typ ${JSON.stringify(message.typ)}: vc's agent reads plain messages (${PLAIN_MEDIA_TYPE}) only`, { field: 'typ' });
  }
  if (message.type !== REVOCATION_STATUS_REQUEST_TYPE) {
    // A fetch-request comes as a JWZ (the holder's auth proof): src/core/iden3comm/credentialFetch.ts.
    throw new UnprocessableError(`type ${JSON.stringify(message.type)}: vc's agent answers ${REVOCATION_STATUS_REQUEST_TYPE} only in a plain message (a credentials/1.0/fetch-request comes as a JWZ, application/iden3-zkp-json)`, { field: 'type' });
  }
  const nonce = (message.body as { revocation_nonce?: unknown } | null | undefined)?.revocation_nonce;
  if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce) || nonce < 0) {
    throw new InputError(`body.revocation_nonce: expected the credential's revocation nonce (a whole number), got ${JSON.stringify(nonce) ?? 'nothing'}`, { field: 'body.revocation_nonce' });
  }
  const iden3 = await getIden3(ctx);
  let issuer;
  try {
    issuer = iden3.modules.core.DID.parse(String(message.to));
  } catch (error) {
    throw new InputError(`to: expected the issuer's iden3 DID, got ${JSON.stringify(message.to)} (${describeError(error)})`, { field: 'to' });
  }
  // Only for this wallet's issuers (its issuer identity, or one that issued here): a holder's trees are not the agent's to show.
  if (defaultDid(ctx, 'issuer') !== issuer.string() && !hasIssued(ctx, issuer.string())) {
    throw new NotFoundError(`${issuer.string()} is not an issuer of this wallet`, { field: 'to' });
  }
  let body;
  try {
    body = await answerRevocationStatus({ ctx, modules: iden3.modules, identityWallet: iden3.identityWallet, dataStorage: iden3.dataStorage }, issuer, BigInt(nonce));
  } catch (error) {
    // The chain already holds a state whose publication is still being recorded (in progress, or
    // interrupted: the issuer's next command completes it). Said so, not as a replaced chain.
    if (error instanceof ConflictError && pendingPublication(ctx, issuer.string()) !== undefined) {
      throw new ConflictError(`the last publication of ${issuer.string()} is not complete yet (the issuer's next command completes it): ask again then`, { field: 'to', cause: error });
    }
    throw error;
  }
  return {
    id: randomUUID(),
    typ: PLAIN_MEDIA_TYPE,
    type: REVOCATION_STATUS_RESPONSE_TYPE,
    thid: message.thid ?? message.id,
    from: issuer.string(),
    ...(message.from === undefined ? {} : { to: message.from }),
    body,
  };
}
