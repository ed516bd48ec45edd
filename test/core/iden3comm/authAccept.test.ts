/**
 * Which auth circuit a JWZ answer is proved with (issue 28, authV3): the request's accept profiles
 * read as the js-sdk reads them (its parseAcceptProfile, used directly), and the holder's choice
 * among what they allow: authV2 whenever allowed (the default, as before), else the small authV3
 * (8, 32) before the full one, one vc has built before one it would build; inputs whose Merkle
 * proofs are deeper than the chosen circuit holds are told apart (the holder then falls back from
 * authV3-8-32 to authV3 when allowed). No circuit is built.
 */
import { parseAcceptProfile } from '@0xpolygonid/js-sdk';
import { describe, expect, it } from 'vitest';
import { AUTH_CIRCUITS } from '../../../src/core/iden3comm/authLimits.js';
import { AUTH_ACCEPT_PROFILE, acceptedAuthCircuits, authAcceptProfile, chooseAuthCircuit } from '../../../src/core/iden3comm/authRequest.js';
import { authDepthProblem } from '../../../src/iden3/authDepth.js';
import { iden3commAuthRequest } from '../../../src/core/operations/iden3commOperations.js';

const parse = (profile: string): ReturnType<typeof parseAcceptProfile> => parseAcceptProfile(profile);
const ZKP = 'iden3comm/v1;env=application/iden3-zkp-json';

describe('the auth circuits a request accepts', () => {
  it('are the zero-knowledge Groth16 profiles\' circuits, as the js-sdk parses them; none named is every one, no accept profile is authV2', () => {
    expect(acceptedAuthCircuits([AUTH_ACCEPT_PROFILE], parse)).toEqual(['authV2']);
    expect(acceptedAuthCircuits([`${ZKP};circuitId=authV3;alg=groth16`], parse)).toEqual(['authV3']);
    expect(acceptedAuthCircuits([`${ZKP};circuitId=authV3-8-32,authV3;alg=groth16`], parse)).toEqual(['authV3', 'authV3-8-32']);
    expect(acceptedAuthCircuits([`${ZKP};circuitId=authV3`, `${ZKP};circuitId=authV2;alg=groth16`], parse)).toEqual(['authV2', 'authV3']);
    expect(acceptedAuthCircuits([ZKP], parse)).toEqual([...AUTH_CIRCUITS]);
    expect(acceptedAuthCircuits(undefined, parse)).toEqual(['authV2']);
    expect(acceptedAuthCircuits([], parse)).toEqual(['authV2']);
  });

  it('are none for profiles of another envelope, another algorithm, or that do not parse', () => {
    expect(acceptedAuthCircuits(['iden3comm/v1;env=application/iden3comm-plain-json'], parse)).toEqual([]);
    expect(acceptedAuthCircuits(['iden3comm/v1;env=application/iden3comm-signed-json;alg=ES256K-R'], parse)).toEqual([]);
    // Not a profile the js-sdk reads (an unknown circuit, protocol version or algorithm): it allows nothing.
    expect(() => parse(`${ZKP};circuitId=authV4;alg=groth16`)).toThrow();
    expect(acceptedAuthCircuits([`${ZKP};circuitId=authV4;alg=groth16`, 'iden3comm/v2;env=application/iden3-zkp-json', `${ZKP};alg=plonk`, 'nonsense'], parse)).toEqual([]);
  });

  it("vc verifier auth-request's profile is the js-sdk's buildAccept form, read back to the circuits asked", () => {
    expect(AUTH_ACCEPT_PROFILE).toBe(`${ZKP};circuitId=authV2;alg=groth16`);
    expect(authAcceptProfile(['authV3', 'authV3-8-32'])).toBe(`${ZKP};circuitId=authV3,authV3-8-32;alg=groth16`);
    for (const circuits of [['authV2'], ['authV3'], ['authV3-8-32'], ['authV2', 'authV3'], [...AUTH_CIRCUITS]] as const) {
      const profile = authAcceptProfile(circuits);
      expect(parse(profile)).toEqual({ protocolVersion: 'iden3comm/v1', env: 'application/iden3-zkp-json', circuits: [...circuits], alg: ['groth16'] });
      expect(acceptedAuthCircuits([profile], parse)).toEqual(AUTH_CIRCUITS.filter((circuit) => (circuits as readonly string[]).includes(circuit)));
    }
  });

  it('--accept takes the auth circuits vc knows, each once', () => {
    expect(iden3commAuthRequest.input.safeParse({ accept: [...AUTH_CIRCUITS] }).success).toBe(true);
    expect(iden3commAuthRequest.input.safeParse({ accept: ['authV4'] }).success).toBe(false);
    expect(iden3commAuthRequest.input.safeParse({ accept: ['authV3', 'authV3'] }).success).toBe(false);
    expect(iden3commAuthRequest.input.safeParse({ accept: [] }).success).toBe(false);
  });
});

describe("the holder's auth circuit", () => {
  it('is authV2 whenever the request allows it, whatever is built', () => {
    expect(chooseAuthCircuit(['authV2'], [])).toBe('authV2');
    expect(chooseAuthCircuit([...AUTH_CIRCUITS], ['authV3', 'authV3-8-32'])).toBe('authV2');
  });

  it('is else the authV3 circuit allowed: the one built already, else the small one', () => {
    expect(chooseAuthCircuit(['authV3', 'authV3-8-32'], [])).toBe('authV3-8-32');
    expect(chooseAuthCircuit(['authV3', 'authV3-8-32'], ['authV3-8-32'])).toBe('authV3-8-32');
    expect(chooseAuthCircuit(['authV3', 'authV3-8-32'], ['authV3'])).toBe('authV3');
    expect(chooseAuthCircuit(['authV3', 'authV3-8-32'], ['authV3', 'authV3-8-32'])).toBe('authV3-8-32');
    expect(chooseAuthCircuit(['authV3'], [])).toBe('authV3');
    expect(chooseAuthCircuit(['authV3-8-32'], ['authV3'])).toBe('authV3-8-32');
  });

  it('is none when the request allows no auth circuit vc proves with', () => {
    expect(chooseAuthCircuit([], ['authV3', 'authV3-8-32'])).toBeUndefined();
  });
});

describe("the auth inputs' depths", () => {
  /** A proof of `real` siblings (non-zero) padded with zeros to `levels`, as the js-sdk gives it for a circuit of that many levels. */
  const siblings = (real: number, levels: number): string[] => [...new Array<string>(real).fill('5'), ...new Array<string>(Math.max(0, levels - real)).fill('0')];
  const inputs = (levels: { identity: number; gist: number }, identity: number, gist: number, nonRev = identity): Uint8Array =>
    new TextEncoder().encode(JSON.stringify({ authClaimIncMtp: siblings(identity, levels.identity), authClaimNonRevMtp: siblings(nonRev, levels.identity), gistMtp: siblings(gist, levels.gist), challenge: '1' }));
  const small = { identity: 8, gist: 32 };
  const full = { identity: 40, gist: 64 };

  it('fit a circuit with more levels than their siblings (its last sibling must be zero, as circomlib\'s SMTVerifier requires)', () => {
    expect(authDepthProblem(inputs(small, 7, 31), 'authV3-8-32')).toBeUndefined();
    expect(authDepthProblem(inputs(small, 0, 0), 'authV3-8-32')).toBeUndefined();
    expect(authDepthProblem(inputs(full, 39, 63), 'authV3')).toBeUndefined();
    expect(authDepthProblem(inputs(full, 39, 63), 'authV2')).toBeUndefined();
  });

  it('are too deep from as many siblings as the circuit has levels, naming the tree and the levels it needs', () => {
    expect(authDepthProblem(inputs(small, 8, 31), 'authV3-8-32')).toBe("the holder's claims tree needs 9 levels, authV3-8-32 holds 8");
    expect(authDepthProblem(inputs(small, 7, 31, 8), 'authV3-8-32')).toBe("the holder's revocation tree needs 9 levels, authV3-8-32 holds 8");
    expect(authDepthProblem(inputs(small, 7, 32), 'authV3-8-32')).toBe("the chain's GIST needs 33 levels, authV3-8-32 holds 32");
    expect(authDepthProblem(inputs(small, 13, 20), 'authV3-8-32')).toBe("the holder's claims tree needs 14 levels, authV3-8-32 holds 8");
    expect(authDepthProblem(inputs(full, 40, 63), 'authV3')).toBe("the holder's claims tree needs 41 levels, authV3 holds 40");
    expect(authDepthProblem(inputs(full, 39, 64), 'authV2')).toBe("the chain's GIST needs 65 levels, authV2 holds 64");
  });
});
