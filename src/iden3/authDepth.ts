/**
 * Whether an auth circuit (authV2, authV3, authV3-8-32) holds a holder's Merkle proofs: a proof
 * of n levels fits a circuit of more than n (circomlib's SMTVerifier(levels) requires its last
 * sibling to be zero, as the js-sdk's own circuit choice counts). The js-sdk pads
 * a shorter proof and leaves a longer one to fail in the witness ("could not be made", after the
 * query proof of an on-chain submission); vc reads the depths from the auth inputs (the holder's
 * own trees, one GIST read) before any proof. Shared by the JWZ answers (core/iden3comm/authRespond)
 * and the on-chain auth methods (core/pbq/prove, contract-invoke answers), below both.
 */
import type { DID } from '@iden3/js-iden3-core';
import type { ProofService } from '@0xpolygonid/js-sdk';
import { UnprocessableError } from '../errors.js';
import type { AuthVerifierCircuit } from '../chain/verifiers.js';

/** The Merkle proof depths an auth circuit holds: the identity's trees, and the GIST. */
export const AUTH_LEVELS: Record<AuthVerifierCircuit, { identity: number; gist: number }> = {
  authV2: { identity: 40, gist: 64 },
  authV3: { identity: 40, gist: 64 },
  'authV3-8-32': { identity: 8, gist: 32 },
};

/** The holder's trees or the GIST are deeper than the auth circuit holds. */
export class AuthTreesTooDeepError extends UnprocessableError {}

/**
 * Why an auth circuit's inputs (the js-sdk's, as JSON, siblings padded with zeros) do not fit it,
 * or undefined: a Merkle proof whose siblings (up to the last non-zero one) reach the circuit's
 * last level or beyond.
 */
export function authDepthProblem(inputs: Uint8Array, circuitId: AuthVerifierCircuit): string | undefined {
  const levels = AUTH_LEVELS[circuitId];
  const parsed = JSON.parse(new TextDecoder().decode(inputs)) as Record<string, unknown>;
  const depth = (name: string): number => {
    const siblings = Array.isArray(parsed[name]) ? (parsed[name] as unknown[]) : [];
    let last = siblings.length - 1;
    while (last >= 0 && String(siblings[last]) === '0') last -= 1;
    return last + 1;
  };
  for (const [name, what] of [['authClaimIncMtp', "the holder's claims tree"], ['authClaimNonRevMtp', "the holder's revocation tree"]] as const) {
    if (depth(name) >= levels.identity) return `${what} needs ${depth(name) + 1} levels, ${circuitId} holds ${levels.identity}`;
  }
  if (depth('gistMtp') >= levels.gist) return `the chain's GIST needs ${depth('gistMtp') + 1} levels, ${circuitId} holds ${levels.gist}`;
  return undefined;
}

/**
 * Why `holder`'s auth proof of `circuitId` cannot be made, or undefined: its auth inputs (over a
 * dummy challenge) measured against the circuit, no proof made.
 */
export async function holderAuthDepthProblem(proofService: ProofService, holder: DID, circuitId: AuthVerifierCircuit): Promise<string | undefined> {
  // The js-sdk refuses a zero challenge: any other does (the depths do not depend on it).
  const challenge = new Uint8Array(32);
  challenge[0] = 1;
  const inputs = await proofService.generateAuthInputs(challenge, holder, circuitId as never);
  return authDepthProblem(inputs, circuitId);
}
