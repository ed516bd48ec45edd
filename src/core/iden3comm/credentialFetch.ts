/**
 * The issuer agent's answer to `credentials/1.0/fetch-request` (issue 28): a holder's wallet (the
 * js-sdk's FetchHandler, or `vc holder fetch`) posts the request packed as a JWZ whose auth proof
 * (authV2, or an authV3 circuit this machine has built) is the holder's; the agent checks the token as vc's verifier does (src/core/iden3comm/authJwz.ts:
 * the proof, the sender is the proof's identity, the GIST root on vc's chain), that the credential
 * was issued by the addressed issuer from this wallet and that its subject is the sender, and
 * answers a plain `credentials/1.0/issuance-response` carrying the credential (what the FetchHandler
 * unpacks).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError, VerificationError, describeError } from '../../errors.js';
import { PLAIN_MEDIA_TYPE, type PlainMessage } from '../../iden3/agentStatus.js';
import { getIden3 } from '../../iden3/wallet.js';
import { defaultDid } from '../pbq/identities.js';
import { hasIssued } from '../pbq/publication.js';
import type { FieldNamer } from '../validate.js';
import { authVerificationKey, isAuthCircuit, parseJwz, unpackAuthJwz } from './authJwz.js';
import { AUTH_CIRCUITS } from './authLimits.js';
import { checkJwzShape } from './authVerify.js';
import { credentialSubjectId, issuedCredential } from './credentialOffer.js';

export const CREDENTIAL_FETCH_REQUEST_TYPE = 'https://iden3-communication.io/credentials/1.0/fetch-request';
export const CREDENTIAL_ISSUANCE_RESPONSE_TYPE = 'https://iden3-communication.io/credentials/1.0/issuance-response';

/** POST /agent with a JWZ body: the fetch-request's credential, in an issuance-response. */
export async function answerFetchRequest(ctx: Context, jwzText: string, names: FieldNamer): Promise<PlainMessage> {
  const token = checkJwzShape(jwzText, names);
  const parsed = await parseJwz(token, names);
  const where = names('jwz');
  // Before the circuit files are read (built on first use): a token of another proof is refused at once.
  // authV2, and the authV3 circuits this machine has built already: a token posted to the open agent
  // route never makes the server build a circuit other than authV2 (the agent's own default).
  const { availableOnDemandCircuits } = await import('../../circuits/build.js');
  const built = await availableOnDemandCircuits(ctx);
  const accepted = AUTH_CIRCUITS.filter((circuit) => circuit === 'authV2' || built.includes(circuit));
  if (parsed.alg !== 'groth16' || !isAuthCircuit(parsed.circuitId) || !accepted.includes(parsed.circuitId)) {
    throw new VerificationError(
      `${where}: refused: the token is proved with ${parsed.alg.slice(0, 40)}:${parsed.circuitId.slice(0, 40)}; vc's agent accepts groth16:authV2, and groth16:authV3 or groth16:authV3-8-32 once built on its machine (vc circuits build --circuit ID)`,
      { field: 'jwz' },
    );
  }
  const unpacked = await unpackAuthJwz(ctx, parsed, accepted, (circuitId) => authVerificationKey(ctx, circuitId));
  if (!unpacked.ok) throw new VerificationError(`${where}: refused: ${unpacked.reason}`, { field: 'jwz' });
  const message = unpacked.message;
  if (message.type !== CREDENTIAL_FETCH_REQUEST_TYPE) {
    const shown = typeof message.type === 'string' ? message.type.slice(0, 200) : 'no message type';
    throw new UnprocessableError(`${where}: the token carries ${shown}; vc's agent answers ${CREDENTIAL_FETCH_REQUEST_TYPE} in a JWZ (and plain revocation/1.0/request-status)`, { field: 'jwz' });
  }
  const expires = (message as { expires_time?: unknown }).expires_time;
  if (typeof expires === 'number' && expires * 1000 < ctx.now().getTime()) {
    throw new UnprocessableError(`${where}: the fetch-request expired at ${new Date(expires * 1000).toISOString()}`, { field: 'jwz' });
  }
  // The packer checked that `from` is the identity whose auth proof signs the token.
  const from = String(message.from);
  const { core } = (await getIden3(ctx)).modules;
  let issuer: string;
  try {
    issuer = core.DID.parse(String(message.to)).string();
  } catch (error) {
    throw new InputError(`${where}: the message's to: expected the issuer's iden3 DID, got ${JSON.stringify(message.to)?.slice(0, 200)} (${describeError(error)})`, { field: 'jwz' });
  }
  if (defaultDid(ctx, 'issuer') !== issuer && !hasIssued(ctx, issuer)) {
    throw new NotFoundError(`${where}: ${issuer} is not an issuer of this wallet`, { field: 'jwz' });
  }
  const id = (message.body as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== 'string' || id === '' || id.length > 256) throw new InputError(`${where}: the message's body.id: expected the id of the credential offered`, { field: 'jwz' });
  const credential = await issuedCredential(ctx, issuer, id);
  if (credential === undefined) throw new NotFoundError(`${where}: issuer ${issuer} issued no credential ${id} from this wallet`, { field: 'jwz' });
  if (credentialSubjectId(credential) !== from) {
    throw new UnprocessableError(`${where}: credential ${id} was not issued to the sender ${from}; an issuer gives a credential to its subject only`, { field: 'jwz' });
  }
  return {
    id: randomUUID(),
    typ: PLAIN_MEDIA_TYPE,
    type: CREDENTIAL_ISSUANCE_RESPONSE_TYPE,
    thid: typeof message.thid === 'string' ? message.thid : typeof message.id === 'string' ? message.id : randomUUID(),
    from: issuer,
    to: from,
    body: { credential },
  };
}
