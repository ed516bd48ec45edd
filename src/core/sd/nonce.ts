/**
 * The verifier's self-authenticating nonces. A nonce is base64 of
 *   version (1 byte) || expiresAt (u64 big-endian, ms since epoch) || 16 random bytes || MAC (16 bytes)
 * where the MAC is HMAC-SHA256 over the preceding bytes under the wallet's verifier secret,
 * truncated to 16 bytes. The verifier recognises its own nonces, and their expiry, from the nonce
 * alone: issuing one writes nothing (anyone may ask for nonces without growing the store), and an
 * expired one is refused forever without any record of it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from '../../context.js';
import { StoreError } from '../../errors.js';
import { SD_VERIFIER_NAMESPACE } from './sdRecords.js';

/** The longest validity a nonce may be given (one day); the one limit for the CLI, HTTP and core. */
export const MAX_NONCE_TTL_SECONDS = 86_400;

const NONCE_VERSION = 1;
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
/** version + expiresAt + random: the bytes the MAC covers. */
const BODY_BYTES = 1 + 8 + RANDOM_BYTES;
/** Length in bytes of a nonce of the current format. */
export const VERIFIER_NONCE_BYTES = BODY_BYTES + MAC_BYTES;

const SECRET_KEY = 'nonceSecret';
const SECRET_BYTES = 32;

interface StoredVerifierSecret {
  /** base64 of 32 random bytes; a secret: never printed. */
  secret: string;
  createdAt: string;
}

function decodeSecret(ctx: Context, stored: StoredVerifierSecret): Buffer {
  const secret = Buffer.from(typeof stored.secret === 'string' ? stored.secret : '', 'base64');
  if (secret.length !== SECRET_BYTES) {
    throw new StoreError(`the verifier's nonce secret in wallet ${ctx.config.home} is damaged (expected ${SECRET_BYTES} bytes)`);
  }
  return secret;
}

/** The wallet's nonce MAC key if it has one; reading creates nothing (a verifier that issued no nonce has none). */
export function existingVerifierNonceSecret(ctx: Context): Buffer | undefined {
  const stored = ctx.store.get<StoredVerifierSecret>(SD_VERIFIER_NAMESPACE, SECRET_KEY);
  return stored === undefined ? undefined : decodeSecret(ctx, stored);
}

/**
 * The wallet's nonce MAC key, generated on first use inside a transaction so concurrent processes
 * agree on one (a nonce minted under a key another process replaced would never be recognised).
 */
export function verifierNonceSecret(ctx: Context): Buffer {
  const existing = existingVerifierNonceSecret(ctx);
  if (existing !== undefined) return existing;
  const stored = ctx.store.getOrCreate<StoredVerifierSecret>(SD_VERIFIER_NAMESPACE, SECRET_KEY, () => ({
    secret: randomBytes(SECRET_BYTES).toString('base64'),
    createdAt: ctx.now().toISOString(),
  }));
  return decodeSecret(ctx, stored);
}

function mac(secret: Buffer, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(body).digest().subarray(0, MAC_BYTES);
}

/** Mints a nonce that expires at `expiresAtMs` (ms since epoch) under `secret`. */
export function mintVerifierNonce(secret: Buffer, expiresAtMs: number): string {
  const body = Buffer.alloc(BODY_BYTES);
  body.writeUInt8(NONCE_VERSION, 0);
  body.writeBigUInt64BE(BigInt(expiresAtMs), 1);
  randomBytes(RANDOM_BYTES).copy(body, 9);
  return Buffer.concat([body, mac(secret, body)]).toString('base64');
}

/**
 * A nonce as the verifier reads it. `key` is its canonical base64: records are keyed by it, so a
 * re-encoding of the same bytes (which the proof check decodes alike) cannot dodge a replay check.
 */
export type OpenedVerifierNonce = { ours: true; key: string; expiresAt: Date } | { ours: false; key: string; reason: string };

/** Recognises a nonce this verifier issued (constant-time MAC compare) and reads its expiry. */
export function openVerifierNonce(secret: Buffer | undefined, nonce: string): OpenedVerifierNonce {
  const bytes = Buffer.from(nonce, 'base64');
  const key = bytes.toString('base64');
  if (bytes.length !== VERIFIER_NONCE_BYTES || bytes[0] !== NONCE_VERSION) {
    return { ours: false, key, reason: "it is not in the format of this verifier's nonces" };
  }
  if (secret === undefined) return { ours: false, key, reason: 'this verifier has not issued any nonce' };
  if (!timingSafeEqual(mac(secret, bytes.subarray(0, BODY_BYTES)), bytes.subarray(BODY_BYTES))) {
    return { ours: false, key, reason: 'its authentication code does not match: it was altered or issued by another verifier' };
  }
  return { ours: true, key, expiresAt: new Date(Number(bytes.readBigUInt64BE(1))) };
}
