/**
 * The contract-invoke answer's pure parts: which auth methods a request's accept profiles allow
 * (any alg a signed-json profile lists counts), the auth chosen from them, and (attack-s36b) the
 * documented result of `vc holder respond` / POST /auth-responses (the operation's
 * result schema, which the OpenAPI document is made from) against what the code returns for a
 * contract-invoke-request answered with an authV2 auth proof (989db87: a request accepting only an
 * authV2 JWZ, or naming no profile, the js-sdk's default).
 */
import { parseAcceptProfile } from '@0xpolygonid/js-sdk';
import { describe, expect, it } from 'vitest';
import type { ContractAuthProof, ContractInvokeResponseMessage } from '../../../src/core/iden3comm/contractRespond.js';
import { iden3commRespond } from '../../../src/core/operations/iden3commOperations.js';
import { acceptedAuth, chooseContractAuth, fittingAuthMethod } from '../../../src/core/iden3comm/contractRespond.js';
import { authDepthProblem } from '../../../src/iden3/authDepth.js';

/** Profiles read as the js-sdk reads them (its parseAcceptProfile, used directly). */
const parse = (profile: string): ReturnType<typeof parseAcceptProfile> => parseAcceptProfile(profile);

describe('acceptedAuth and chooseContractAuth', () => {
  const signed = 'iden3comm/v1;env=application/iden3comm-signed-json';
  it('counts ES256K-R wherever a signed-json profile lists it (found: only the first alg was read)', () => {
    expect(acceptedAuth(parse as never, [`${signed};alg=ES256K-R`]).ethIdentity).toBe(true);
    expect(acceptedAuth(parse as never, [`${signed};alg=ES256K,ES256K-R`]).ethIdentity).toBe(true);
    expect(acceptedAuth(parse as never, [`${signed};alg=ES256K`]).ethIdentity).toBe(false);
    expect(acceptedAuth(parse as never, [signed]).ethIdentity).toBe(false);
  });
  it('reads plain-json as embedded auth, an authV2 zkp profile or none as authV2 (an authV3 one as authV3), and chooses embedded first for a BJJ holder', () => {
    expect(acceptedAuth(parse as never, [])).toEqual({ embedded: false, authV2: true, authV3: [], ethIdentity: false });
    expect(acceptedAuth(parse as never, ['iden3comm/v1;env=application/iden3comm-plain-json'])).toEqual({ embedded: true, authV2: false, authV3: [], ethIdentity: false });
    expect(acceptedAuth(parse as never, ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3;alg=groth16'])).toEqual({ embedded: false, authV2: false, authV3: ['authV3'], ethIdentity: false });
    expect(acceptedAuth(parse as never, ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3,authV2;alg=groth16']).authV2).toBe(true);
    expect(acceptedAuth(parse as never, ['iden3comm/v2;env=application/iden3comm-plain-json', 'junk']).embedded).toBe(false);
    // Read as an authorization response's auth is (acceptedAuthCircuits): a zkp profile naming no circuit allows each, one whose algs leave out groth16 none.
    expect(acceptedAuth(parse as never, ['iden3comm/v1;env=application/iden3-zkp-json']).authV2).toBe(true);
    expect(acceptedAuth(parse as never, ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=plonk']).authV2).toBe(false);
    expect(chooseContractAuth({ embedded: true, authV2: true, authV3: ['authV3'], ethIdentity: true }, false)).toBe('embeddedAuth');
    expect(chooseContractAuth({ embedded: false, authV2: true, authV3: ['authV3', 'authV3-8-32'], ethIdentity: true }, false)).toBe('authV2');
    expect(chooseContractAuth({ embedded: true, authV2: true, authV3: [], ethIdentity: false }, true)).toBeUndefined();
    expect(chooseContractAuth({ embedded: false, authV2: false, authV3: ['authV3'], ethIdentity: true }, true)).toBe('ethIdentity');
  });
  it('answers a request accepting only authV3 circuits with an authV3 auth method, the small one unless only the full one is built', () => {
    const only = (circuits: string): ReturnType<typeof acceptedAuth> => acceptedAuth(parse as never, [`iden3comm/v1;env=application/iden3-zkp-json;circuitId=${circuits};alg=groth16`]);
    expect(only('authV3,authV3-8-32').authV3).toEqual(['authV3', 'authV3-8-32']);
    expect(chooseContractAuth(only('authV3,authV3-8-32'), false)).toBe('authV3-8-32');
    expect(chooseContractAuth(only('authV3,authV3-8-32'), false, ['authV3'])).toBe('authV3');
    expect(chooseContractAuth(only('authV3'), false)).toBe('authV3');
    expect(chooseContractAuth(only('authV3-8-32'), false, ['authV3'])).toBe('authV3-8-32');
    // An Ethereum identity has no BJJ key for an auth proof.
    expect(chooseContractAuth(only('authV3'), true)).toBeUndefined();
  });
  it('answers with authV3, not authV3-8-32, for a holder whose auth claim is deeper than 8 levels when the request allows both (authV3-8-32 kept, to be refused, when it allows only that)', async () => {
    const only = (circuits: string): ReturnType<typeof acceptedAuth> => acceptedAuth(parse as never, [`iden3comm/v1;env=application/iden3-zkp-json;circuitId=${circuits};alg=groth16`]);
    // The auth inputs of a holder whose claims tree gives its auth claim 13 siblings, measured as vc measures them.
    const measured = (claims: number) => async (circuit: 'authV3-8-32') =>
      authDepthProblem(new TextEncoder().encode(JSON.stringify({ authClaimIncMtp: [...new Array<string>(claims).fill('5'), ...new Array<string>(Math.max(0, 8 - claims)).fill('0')], authClaimNonRevMtp: [], gistMtp: new Array<string>(20).fill('5') })), circuit);
    const notes: string[] = [];
    const note = (text: string): number => notes.push(text);
    const both = only('authV3,authV3-8-32');
    expect(await fittingAuthMethod(both, chooseContractAuth(both, false), measured(13), note)).toBe('authV3');
    expect(notes).toEqual(["the holder's claims tree needs 14 levels, authV3-8-32 holds 8; proving with authV3 instead"]);
    expect(await fittingAuthMethod(both, chooseContractAuth(both, false), measured(7), note)).toBe('authV3-8-32');
    expect(await fittingAuthMethod(only('authV3-8-32'), 'authV3-8-32', measured(13), note)).toBe('authV3-8-32');
    // Other choices are not measured.
    const unmeasured = async (): Promise<never> => {
      throw new Error('measured');
    };
    expect(await fittingAuthMethod(both, 'authV3', unmeasured, note)).toBe('authV3');
    expect(await fittingAuthMethod({ ...both, embedded: true }, 'embeddedAuth', unmeasured, note)).toBe('embeddedAuth');
    expect(notes).toHaveLength(1);
  });
});

describe('the contract-invoke-response, as documented', () => {
  it('allows every auth method respondToContractInvoke answers with (authV2, authV3 and authV3-8-32 too)', () => {
    const response = (authProof: ContractAuthProof): ContractInvokeResponseMessage => ({
      id: '3f0e9a52-1c7b-4d8e-a6f3-5b2c9d0e1f47',
      thid: '3f0e9a52-1c7b-4d8e-a6f3-5b2c9d0e1f47',
      typ: 'application/iden3comm-plain-json',
      type: 'https://iden3-communication.io/proofs/1.0/contract-invoke-response',
      from: 'did:iden3:polygon:local:x',
      to: 'did:iden3:privado:main:y',
      body: {
        transaction_data: { contract_address: '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707', method_id: '06c86a91', chain_id: 152, network: 'polygon-local', txHash: `0x${'ab'.repeat(32)}` },
        scope: [{ id: 7, circuitId: 'credentialAtomicQueryV3OnChain-16-16-64-16-32', proof: { pi_a: [], pi_b: [], pi_c: [], protocol: 'groth16' }, pub_signals: ['1'], txHash: `0x${'ab'.repeat(32)}` }],
        authProof,
      },
      created_time: 1_764_000_000,
    });
    const schema = iden3commRespond.result!;
    expect(schema.safeParse(response({ authMethod: 'embeddedAuth' })).success).toBe(true);
    expect(schema.safeParse(response({ authMethod: 'ethIdentity', userDid: 'did:iden3:polygon:local:x' })).success).toBe(true);
    // Found: the result schema (and so the OpenAPI document) names embeddedAuth and ethIdentity only.
    expect(schema.safeParse(response({ authMethod: 'authV2' })).success).toBe(true);
    for (const authMethod of ['authV3', 'authV3-8-32'] as const) expect(schema.safeParse(response({ authMethod })).success, authMethod).toBe(true);
  });
});
