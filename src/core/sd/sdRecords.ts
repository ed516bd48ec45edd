/**
 * The verifier's nonces and secrets in the wallet store. (The holder's BBS+ credentials are in
 * the holder's credential store, src/core/holder/holderStore.ts, with every other kind.)
 */

/**
 * Verifier nonces, keyed by the nonce (canonical base64): the used self-authenticating nonces
 * until they expire, and the records of nonces of the older stored format (32 random bytes).
 */
export const SD_NONCES_NAMESPACE = 'sd.nonces';
/** The verifier's secrets (the MAC key of its nonces); never printed. */
export const SD_VERIFIER_NAMESPACE = 'sd.verifier';

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
