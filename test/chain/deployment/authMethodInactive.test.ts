/**
 * attack-s37b: the UniversalVerifier's owner can disable an auth method (disableAuthMethod: it
 * stays, isActive false, and submitResponse reverts AuthMethodIsNotActive). vc's check before
 * proving (requireAuthVerifier: the method exists, its verifier is the circuit's) reads the
 * method's binding and not whether it is active, so `--auth authV3-8-32` on such a chain proves the
 * query and the auth proof, then the transaction is refused. It should be refused before proving,
 * naming the method and that it is disabled (the way out: embeddedAuth, or the owner's
 * enableAuthMethod).
 */
import { describe, expect, it } from 'vitest';
import { Context } from '../../../src/context.js';
import { iden3Artifact } from '../../../src/chain/artifacts.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { readContract, sendContractTransaction } from '../../../src/chain/transactions.js';
import { proofCircuitsDir, requireAuthVerifier } from '../../../src/iden3/wallet.js';
import { templateChainHome } from './templateChain.js';

const { newContext: contextWith } = templateChainHome('vc-auth-inactive-');
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE };

function newContext(): Context {
  return contextWith(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>);
}

describe('an auth method its owner disabled', () => {
  it('--auth authV3-8-32 is refused before proving, naming the disabled method', async () => {
    const ctx = newContext();
    // As prove-submit does first: the family's circuits, their verifiers aligned on the embedded chain.
    await proofCircuitsDir(ctx, 'v3authV3-8-32');
    await requireAuthVerifier(ctx, 'authV3-8-32');

    const chain = await getChain(ctx);
    const universalVerifier = iden3Artifact('UniversalVerifier').abi as never;
    await sendContractTransaction(ctx, { address: chain.addresses.universalVerifier, abi: universalVerifier, method: 'disableAuthMethod', args: ['authV3-8-32'] }, { description: 'disableAuthMethod(authV3-8-32)' });
    const method = await readContract<{ isActive: boolean }>(ctx, { address: chain.addresses.universalVerifier, abi: universalVerifier, method: 'getAuthMethod', args: ['authV3-8-32'] }, 'getAuthMethod');
    expect(method.isActive).toBe(false);

    // What happens now: it resolves, and the submission after both proofs reverts AuthMethodIsNotActive.
    await expect(requireAuthVerifier(newContext(), 'authV3-8-32')).rejects.toMatchObject({ message: expect.stringMatching(/authV3-8-32.*(disabled|not active)/) });

    // authV2 the same (the check is the method's, whichever circuit): active, it passes; disabled, it is refused (exit 3, the way out named).
    await requireAuthVerifier(newContext(), 'authV2');
    await sendContractTransaction(ctx, { address: chain.addresses.universalVerifier, abi: universalVerifier, method: 'disableAuthMethod', args: ['authV2'] }, { description: 'disableAuthMethod(authV2)' });
    const refused = (await requireAuthVerifier(newContext(), 'authV2').then(
      () => undefined,
      (error: unknown) => error,
    )) as (Error & { exitCode?: number }) | undefined;
    expect(refused?.message).toMatch(/authV2 auth method disabled.*enableAuthMethod.*embeddedAuth/);
    expect(refused?.exitCode).toBe(3);
  }, 300_000);
});
