/**
 * The JWZ check shared by every iden3comm receiver of vc (the verifier's callback and
 * `vc verifier verify --jwz`, the issuer agent's fetch-request): the token's auth proof (authV2,
 * authV3 or authV3-8-32, as the caller accepts) verifies with vc's verification key of its
 * circuit, the js-sdk's ZKPPacker unpacks it (the proof again, the sender is the proof's
 * identity) and the GIST root the proof names is the State contract's current root,
 * or one replaced less than AUTH_GIST_WINDOW_MS ago. A token that does not verify is a refusal with
 * its reason; an operational failure (the chain unreachable, the store) stays an error.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../../context.js';
import { InputError, VcError, VerificationError, describeError } from '../../errors.js';
import { getIden3 } from '../../iden3/wallet.js';
import type { FieldNamer } from '../validate.js';
import { AUTH_CIRCUITS, type AuthCircuit } from './authLimits.js';

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

/** True for the auth circuits vc verifies JWZ tokens of. */
export function isAuthCircuit(circuitId: string): circuitId is AuthCircuit {
  return (AUTH_CIRCUITS as readonly string[]).includes(circuitId);
}

/**
 * vc's verification key of an auth circuit (authV2 in `circuitsDir` when given, else each in the
 * wallet's circuit files, built on first use).
 */
export async function authVerificationKey(ctx: Context, circuitId: AuthCircuit = 'authV2', circuitsDir?: string): Promise<Uint8Array> {
  let dir = circuitId === 'authV2' ? circuitsDir : undefined;
  if (dir === undefined) {
    const { ensureCircuits } = await import('../../circuits/build.js');
    dir = (await ensureCircuits(ctx, { extra: [circuitId] })).dir;
  }
  return new Uint8Array(await readFile(path.join(dir, circuitId, 'verification_key.json')));
}

/** The circuits `accepted` names, in words: `groth16:authV2`, `groth16:authV2 or groth16:authV3`. */
export function acceptedInWords(accepted: readonly AuthCircuit[]): string {
  return accepted.map((circuit) => `groth16:${circuit}`).join(' or ');
}

/** What the check gives: the unpacked message (its sender the proof's identity), or the reason it is refused. */
export type AuthJwzOutcome = { ok: true; message: Record<string, unknown> & { type?: unknown; from?: unknown; to?: unknown; thid?: unknown; body?: unknown } } | { ok: false; reason: string };

/**
 * Checks a parsed token's auth proof (Groth16; its circuit one of `accepted`, the key vc's of that
 * circuit), its GIST root on vc's chain and that its message's sender is the proof's identity;
 * returns the message. authV3's public signals are authV2's (userID, challenge, gistRoot).
 */
export async function unpackAuthJwz(ctx: Context, parsed: ParsedJwz, accepted: readonly AuthCircuit[], verificationKey: (circuitId: AuthCircuit) => Promise<Uint8Array>): Promise<AuthJwzOutcome> {
  const circuitId = parsed.circuitId;
  if (parsed.alg !== 'groth16' || !isAuthCircuit(circuitId) || !accepted.includes(circuitId)) {
    return { ok: false, reason: `the token is proved with ${parsed.alg.slice(0, 40)}:${parsed.circuitId.slice(0, 40)}; ${acceptedInWords(accepted)} only is accepted` };
  }
  const key = await verificationKey(circuitId);
  const iden3 = await getIden3(ctx);
  const { sdk } = iden3.modules;
  const jwz = await import('@iden3/js-jwz');
  const now = ctx.now();
  // The auth proof's GIST root, judged on vc's chain: current, or replaced within the window.
  const checkGistRoot = async (signalsCircuit: string, signals: string[]): Promise<boolean> => {
    if (signalsCircuit !== circuitId) throw new Refusal(`unexpected auth circuit ${signalsCircuit}`);
    const auth = new (circuitId === 'authV2' ? sdk.AuthV2PubSignals : sdk.AuthV3PubSignals)().pubSignalsUnmarshal(new TextEncoder().encode(JSON.stringify(signals)));
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
  const authAlg = new jwz.ProvingMethodAlg(jwz.proving.provingMethodGroth16AuthV2Instance.methodAlg.alg, circuitId);
  const packer = new sdk.ZKPPacker(new Map(), new Map([[authAlg.toString(), { key, verificationFn: new sdk.VerificationHandlerFunc(checkGistRoot) }]]), {
    acceptedStateTransitionDelay: AUTH_GIST_WINDOW_MS,
  });
  // The proof first, for a reason of its own (the packer below checks it again, then the sender and the GIST root).
  let proofVerifies: boolean;
  try {
    proofVerifies = await parsed.verify(key);
  } catch (error) {
    if (isOperationalError(error)) throw error;
    proofVerifies = false;
  }
  if (!proofVerifies) return { ok: false, reason: `the auth proof (${circuitId}) does not verify against the token` };
  try {
    const message = (await packer.unpack(new TextEncoder().encode(parsed.token))) as unknown as Extract<AuthJwzOutcome, { ok: true }>['message'];
    return { ok: true, message };
  } catch (error) {
    const reason = describeError(error);
    if (error instanceof Refusal) return { ok: false, reason: error.message };
    if (isOperationalError(error)) throw error;
    if (reason === 'message proof is invalid') return { ok: false, reason: `the auth proof (${circuitId}) does not verify against the token` };
    if (reason === 'sender of message is not used for jwz token creation') return { ok: false, reason: "the message's sender (from) is not the identity whose auth proof signs the token" };
    return { ok: false, reason: `the token does not unpack: ${reason}` };
  }
}
