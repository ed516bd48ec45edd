/**
 * The holder's BBS+ credentials and the verifier's nonces in the wallet store.
 */
import type { Context } from '../../context.js';
import type { BbsCredential } from './sdSchemas.js';

/** Holder credentials, keyed by credential type (the latest one of a type wins, spec rule 3). */
export const SD_CREDENTIALS_NAMESPACE = 'sd.credentials';
/**
 * Verifier nonces, keyed by the nonce (canonical base64): the used self-authenticating nonces
 * until they expire, and the records of nonces of the older stored format (32 random bytes).
 */
export const SD_NONCES_NAMESPACE = 'sd.nonces';
/** The verifier's secrets (the MAC key of its nonces); never printed. */
export const SD_VERIFIER_NAMESPACE = 'sd.verifier';

export interface StoredSdCredential {
  credential: BbsCredential;
  storedAt: string;
}

/**
 * A nonce record. Records of the older format were written at issuance and carry `createdAt`;
 * a self-authenticating nonce is recorded only once used, without `createdAt` (which is how the
 * cleanup tells the two apart: only records of the newer format may go once expired).
 */
export interface StoredNonce {
  createdAt?: string;
  expiresAt: string;
  usedAt?: string;
}

/** Keeps `credential` as the holder's credential of `type`, replacing an older one. */
export function storeHolderCredential(ctx: Context, type: string, credential: BbsCredential): void {
  ctx.store.put<StoredSdCredential>(SD_CREDENTIALS_NAMESPACE, type, { credential, storedAt: ctx.now().toISOString() });
}

/** The holder's credential of `type`, if any. */
export function readHolderCredential(ctx: Context, type: string): BbsCredential | undefined {
  return ctx.store.get<StoredSdCredential>(SD_CREDENTIALS_NAMESPACE, type)?.credential;
}
