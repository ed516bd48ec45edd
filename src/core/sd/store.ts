/**
 * The holder's BBS+ credentials and the verifier's nonces in the wallet store.
 */
import type { Context } from '../context.js';
import type { BbsCredential } from './schemas.js';

/** Holder credentials, keyed by credential type (the latest one of a type wins, spec rule 3). */
export const SD_CREDENTIALS_NAMESPACE = 'sd.credentials';
/** Verifier nonces, keyed by the nonce (base64). */
export const SD_NONCES_NAMESPACE = 'sd.nonces';

export interface StoredSdCredential {
  credential: BbsCredential;
  storedAt: string;
}

export interface StoredNonce {
  createdAt: string;
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
