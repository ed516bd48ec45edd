/**
 * The authV2 JWZ check shared by every iden3comm receiver of vc (the verifier's callback and
 * `vc verifier verify --jwz`, the issuer agent's fetch-request): the token's auth proof verifies
 * with vc's authV2 verification key, the js-sdk's ZKPPacker unpacks it (the proof again, the sender
 * is the proof's identity) and the GIST root the proof names is the State contract's current root,
 * or one replaced less than AUTH_GIST_WINDOW_MS ago. A token that does not verify is a refusal with
 * its reason; an operational failure (the chain unreachable, the store) stays an error.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../../context.js';
import { InputError, VcError, VerificationError, describeError } from '../../errors.js';
import { getIden3 } from '../../iden3/wallet.js';
import type { FieldNamer } from '../validate.js';

/** How long after the State contract replaced a GIST root an auth proof naming it is still accepted (the js-sdk's default). */
export const AUTH_GIST_WINDOW_MS = 5 * 60 * 1000;

/** A refusal: a token that is a JWZ but does not verify. */
export class Refusal extends Error {}

/** True for vc's errors that are no verdict on the token (the chain unreachable, the configuration, the store): they stay errors. */
export function isOperationalError(error: unknown): boolean {
  return error instanceof VcError && !(error instanceof InputError) && !(error instanceof VerificationError);
}

/** Library errors and the contract's refusals become refusals; operational errors are thrown. */
export function refusalOf(error: unknown, prefix: string): Refusal {
  if (error instanceof Refusal) return error;
  if (isOperationalError(error)) throw error;
  return new Refusal(`${prefix}${describeError(error)}`);
}

/** A parsed JWZ token and the hash its auth proof signs. */
export interface ParsedJwz {
  token: string;
  alg: string;
  circuitId: string;
  messageHash: Uint8Array;
  verify(verificationKey: Uint8Array): Promise<boolean>;
}

/** Parses a token of a checked shape (checkJwzShape); InputError when it is no JWZ. */
export async function parseJwz(token: string, names: FieldNamer, field = 'jwz'): Promise<ParsedJwz> {
  const jwz = await import('@iden3/js-jwz');
  try {
    const parsed = await jwz.Token.parse(token);
    const messageHash = await parsed.getMessageHash();
    return { token, alg: parsed.alg, circuitId: parsed.circuitId, messageHash, verify: (key) => parsed.verify(key) };
  } catch (error) {
    throw new InputError(`${names(field)}: not a JWZ token: ${describeError(error)}`, { field, cause: error });
  }
}

/** The authV2 verification key of the wallet's circuit files (built on first use). */
export async function authV2VerificationKey(ctx: Context, circuitsDir?: string): Promise<Uint8Array> {
  let dir = circuitsDir;
  if (dir === undefined) {
    const { AUTH_V2_CIRCUIT } = await import('../../circuits/sources.js');
    const { ensureCircuits } = await import('../../circuits/build.js');
    dir = (await ensureCircuits(ctx, { extra: [AUTH_V2_CIRCUIT] })).dir;
  }
  return new Uint8Array(await readFile(path.join(dir, 'authV2', 'verification_key.json')));
}

/** What the check gives: the unpacked message (its sender the proof's identity), or the reason it is refused. */
export type AuthJwzOutcome = { ok: true; message: Record<string, unknown> & { type?: unknown; from?: unknown; to?: unknown; thid?: unknown; body?: unknown } } | { ok: false; reason: string };

/**
 * Checks a parsed token's authV2 proof (Groth16), its GIST root on vc's chain and that its
 * message's sender is the proof's identity; returns the message.
 */
export async function unpackAuthV2Jwz(ctx: Context, parsed: ParsedJwz, verificationKey: Uint8Array): Promise<AuthJwzOutcome> {
  if (parsed.circuitId !== 'authV2' || parsed.alg !== 'groth16') {
    return { ok: false, reason: `the token is proved with ${parsed.alg}:${parsed.circuitId}; vc accepts groth16:authV2 only` };
  }
  const iden3 = await getIden3(ctx);
  const { sdk } = iden3.modules;
  const jwz = await import('@iden3/js-jwz');
  const now = ctx.now();
  // The auth proof's GIST root, judged on vc's chain: current, or replaced within the window.
  const checkGistRoot = async (circuitId: string, signals: string[]): Promise<boolean> => {
    if (circuitId !== 'authV2') throw new Refusal(`unexpected auth circuit ${circuitId}`);
    const auth = new sdk.AuthV2PubSignals().pubSignalsUnmarshal(new TextEncoder().encode(JSON.stringify(signals)));
    let info;
    try {
      info = await iden3.states.getGISTRootInfo(auth.GISTRoot.bigInt(), auth.userID.bigInt());
    } catch (error) {
      throw refusalOf(error, `the auth proof's GIST root ${auth.GISTRoot.bigInt()} is not one of the State contract's: `);
    }
    if (info.root !== auth.GISTRoot.bigInt()) throw new Refusal(`the State contract knows no GIST root ${auth.GISTRoot.bigInt()} (it answered for ${info.root})`);
    if (info.replacedByRoot !== 0n) {
      const replacedMs = Number(info.replacedAtTimestamp) * 1000;
      if (now.getTime() - replacedMs > AUTH_GIST_WINDOW_MS) {
        throw new Refusal(`the auth proof's GIST root was replaced on the State contract at ${new Date(replacedMs).toISOString()}, more than ${AUTH_GIST_WINDOW_MS / 60000} minutes ago`);
      }
    }
    return true;
  };
  const authAlg = new jwz.ProvingMethodAlg(jwz.proving.provingMethodGroth16AuthV2Instance.methodAlg.alg, 'authV2');
  const packer = new sdk.ZKPPacker(new Map(), new Map([[authAlg.toString(), { key: verificationKey, verificationFn: new sdk.VerificationHandlerFunc(checkGistRoot) }]]), {
    acceptedStateTransitionDelay: AUTH_GIST_WINDOW_MS,
  });
  // The proof first, for a reason of its own (the packer below checks it again, then the sender and the GIST root).
  let proofVerifies: boolean;
  try {
    proofVerifies = await parsed.verify(verificationKey);
  } catch (error) {
    if (isOperationalError(error)) throw error;
    proofVerifies = false;
  }
  if (!proofVerifies) return { ok: false, reason: 'the auth proof (authV2) does not verify against the token' };
  try {
    const message = (await packer.unpack(new TextEncoder().encode(parsed.token))) as unknown as Extract<AuthJwzOutcome, { ok: true }>['message'];
    return { ok: true, message };
  } catch (error) {
    const reason = describeError(error);
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    if (isOperationalError(error)) throw error;
    if (reason === 'message proof is invalid') return { ok: false, reason: 'the auth proof (authV2) does not verify against the token' };
    if (reason === 'sender of message is not used for jwz token creation') return { ok: false, reason: "the message's sender (from) is not the identity whose auth proof signs the token" };
    return { ok: false, reason: `the token does not unpack: ${reason}` };
  }
}
