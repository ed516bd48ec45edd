/**
 * The authV2 verifier's deployment steps on a real anvil node (a copy of the template home, its
 * contracts deployed): the verifier behind a proxy of its own, upgraded in place when it changes,
 * so the AuthV2Validator and the UniversalVerifier's `authV2` auth method (which UniversalVerifier
 * 2.3.0 binds once) stay; a re-run after either crash window (the new implementation recorded,
 * its upgrade sent or not) does the missing work once; and a home deployed before the proxy
 * existed keeps its UniversalVerifier, whose `authV2` method stays bound to the earlier validator
 * (vc refuses authV2 there, naming it, when its verifier is not the circuits' one), to its owner and
 * to another party using that deployment from its own home alike (attack-s36b).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Context } from '../../../src/context.js';
import { readAddressBook, saveAddressBook } from '../../../src/chain/addressBook.js';
import { bytecodeHash, iden3Artifact, openZeppelinArtifact } from '../../../src/chain/artifacts.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { LOCAL_DEV_ACCOUNT_KEY } from '../../../src/chain/connection.js';
import { deployContracts, ensureDeployed } from '../../../src/chain/deployment/deployContracts.js';
import { EIP1967_ADMIN_SLOT, EIP1967_IMPLEMENTATION_SLOT, readProxySlot } from '../../../src/chain/proxySlots.js';
import { readContract, sendContractTransaction, sendTransaction } from '../../../src/chain/transactions.js';
import { requireAuthVerifier } from '../../../src/iden3/wallet.js';
const requireAuthV2Verifier = (ctx: Context): Promise<void> => requireAuthVerifier(ctx, 'authV2');
import { templateChainHome } from './templateChain.js';

const { dir, newContext } = templateChainHome('vc-authv2-verifier-');
const UPGRADE = 'authV2 verifier proxy upgraded (authV2 verifier changed)';

const official = iden3Artifact('Groth16VerifierAuthV2Wrapper');
/** Another creation bytecode of the same verifier (trailing bytes a constructor without arguments ignores): what a rebuilt dev verifier looks like. */
const variant = (n: number): { abi: unknown[]; bytecode: string } => ({ abi: official.abi, bytecode: `${official.bytecode}${'00'.repeat(n)}` });

/** What submitResponse runs for `authV2`: the UniversalVerifier's validator, its verifier, and the code behind that proxy. */
async function authV2Chain(ctx: Context): Promise<{ universalVerifier: string; validator: string; verifier: string; implementation: string }> {
  const chain = await getChain(ctx);
  const universalVerifier = chain.addresses.universalVerifier;
  const method = await readContract<{ validator: string; isActive: boolean }>(
    ctx,
    { address: universalVerifier, abi: iden3Artifact('UniversalVerifier').abi as never, method: 'getAuthMethod', args: ['authV2'] },
    'getAuthMethod',
  );
  expect(method.isActive).toBe(true);
  const verifier = await readContract<string>(ctx, { address: method.validator, abi: iden3Artifact('AuthV2Validator').abi as never, method: 'getVerifierByCircuitId', args: ['authV2'] }, 'getVerifierByCircuitId');
  const implementation = await readProxySlot(chain.provider, verifier, EIP1967_IMPLEMENTATION_SLOT, 'test');
  return { universalVerifier, validator: method.validator, verifier, implementation };
}

describe('the authV2 verifier behind its proxy', () => {
  it("a changed verifier upgrades the proxy in place: validator, UniversalVerifier and its authV2 method stay; a re-run does nothing", async () => {
    const ctx = newContext();
    const before = await authV2Chain(ctx);
    const book = readAddressBook(ctx)!;
    // The template's deployment: the proxy runs the recorded implementation, the validator uses the proxy.
    expect(before.verifier.toLowerCase()).toBe(book.contracts.authV2Verifier!.address.toLowerCase());
    expect(before.implementation.toLowerCase()).toBe(book.contracts.authV2VerifierImplementation!.address.toLowerCase());
    expect(before.validator.toLowerCase()).toBe(book.contracts.authV2Validator!.address.toLowerCase());

    const changed = await deployContracts(ctx, { verifiers: { authV2: variant(1) } });
    expect(changed.deployed).toEqual(['authV2VerifierImplementation']);
    expect(changed.configured).toEqual([UPGRADE]);
    expect(changed.book.verifiers.authV2).toMatchObject({ source: 'dev', codeHash: bytecodeHash(variant(1).bytecode) });
    const after = await authV2Chain(newContext());
    expect({ ...after, implementation: undefined }).toEqual({ ...before, implementation: undefined });
    expect(after.implementation.toLowerCase()).toBe(changed.book.contracts.authV2VerifierImplementation!.address.toLowerCase());
    expect(after.implementation).not.toBe(before.implementation);

    const again = await deployContracts(newContext());
    expect({ deployed: again.deployed, configured: again.configured }).toEqual({ deployed: [], configured: [] });
  });

  it('a deployment killed after the new implementation was recorded completes the upgrade once, whether it was sent or not', async () => {
    const ctx = newContext();
    const chain = await getChain(ctx);
    const proxy = readAddressBook(ctx)!.contracts.authV2Verifier!.address;
    const done = await deployContracts(ctx, { verifiers: { authV2: variant(2) } });
    expect(done.configured).toEqual([UPGRADE]);
    const newImplementation = done.book.contracts.authV2VerifierImplementation!.address;

    // Killed after the upgrade was mined, before the book was complete: nothing is sent again.
    saveAddressBook(ctx, { ...readAddressBook(ctx)!, complete: false });
    const rerun = await deployContracts(newContext());
    expect({ deployed: rerun.deployed, configured: rerun.configured }).toEqual({ deployed: [], configured: [] });

    // Killed before the upgrade was sent (the proxy still runs an older implementation): the re-run sends it, once.
    const older = await sendTransaction(ctx, { data: official.bytecode }, { description: 'an older implementation', checkpoint: false });
    const admin = await readProxySlot(chain.provider, proxy, EIP1967_ADMIN_SLOT, 'test');
    await sendContractTransaction(ctx, { address: admin, abi: openZeppelinArtifact('ProxyAdmin').abi as never, method: 'upgradeAndCall', args: [proxy, older.contractAddress!, '0x'] }, { description: 'back', checkpoint: false });
    saveAddressBook(ctx, { ...readAddressBook(ctx)!, complete: false });
    const resumed = await deployContracts(newContext());
    expect({ deployed: resumed.deployed, configured: resumed.configured }).toEqual({ deployed: [], configured: [UPGRADE] });
    expect((await readProxySlot(chain.provider, proxy, EIP1967_IMPLEMENTATION_SLOT, 'test')).toLowerCase()).toBe(newImplementation.toLowerCase());
    expect((await deployContracts(newContext())).configured).toEqual([]);
  });

  it('a home deployed before the authV3 methods gains their verifiers and validators on its next chain command, every other contract (its UniversalVerifier too) kept', async () => {
    const ctx = newContext();
    const before = readAddressBook(ctx)!;
    const added = ['authV3VerifierImplementation', 'authV3Verifier', 'authV3ValidatorImplementation', 'authV3Validator', 'authV3_8_32VerifierImplementation', 'authV3_8_32Verifier', 'authV3_8_32ValidatorImplementation', 'authV3_8_32Validator'] as const;
    const earlier = structuredClone(before);
    for (const key of added) delete earlier.contracts[key];
    delete earlier.verifiers.authV3;
    delete earlier.verifiers['authV3-8-32'];
    saveAddressBook(ctx, earlier);

    const next = newContext();
    await ensureDeployed(next);
    const after = readAddressBook(next)!;
    expect(after.complete).toBe(true);
    for (const key of added) expect(after.contracts[key]?.address, key).toMatch(/^0x[0-9a-fA-F]{40}$/);
    for (const key of Object.keys(before.contracts) as Array<keyof typeof before.contracts>) if (!(added as readonly string[]).includes(key)) expect(after.contracts[key], key).toEqual(before.contracts[key]);
    expect(after.verifiers['authV3-8-32']?.codeHash).toBe(before.verifiers['authV3-8-32']?.codeHash);
    // The methods this chain has stay bound as they were (setAuthMethod only where one is missing).
    const universalVerifier = iden3Artifact('UniversalVerifier').abi as never;
    for (const method of ['authV3', 'authV3-8-32']) {
      expect(await readContract<boolean>(next, { address: after.contracts.universalVerifier!.address, abi: universalVerifier, method: 'authMethodExists', args: [method] }, method)).toBe(true);
    }
    expect((await deployContracts(newContext())).deployed).toEqual([]);
  });

  it("a home deployed before the proxy keeps its UniversalVerifier (and its requests) and gets a validator behind the proxy; the UniversalVerifier's authV2 method stays bound to the earlier validator, and authV2 is refused naming it when that validator's verifier is not the circuits' one", async () => {
    const ctx = newContext();
    const before = readAddressBook(ctx)!;
    const bound = await authV2Chain(ctx);
    // The earlier recipe: `authV2Verifier` a plain verifier contract, no implementation step, the
    // validator recorded with the fingerprint of its creation data (which named that verifier).
    const plain = await sendTransaction(ctx, { data: official.bytecode }, { description: 'the earlier plain authV2 verifier', checkpoint: false });
    const older = structuredClone(before);
    delete older.contracts.authV2VerifierImplementation;
    older.contracts.authV2Verifier = { address: plain.contractAddress!, fingerprint: bytecodeHash(official.bytecode), txHash: plain.hash, blockNumber: plain.blockNumber };
    older.contracts.authV2Validator!.fingerprint = 'creation data of the earlier validator';
    delete older.verifiers.authV2;
    saveAddressBook(ctx, older);

    const next = newContext();
    await ensureDeployed(next);
    const after = readAddressBook(next)!;
    expect(after.complete).toBe(true);
    for (const key of ['authV2Verifier', 'authV2Validator'] as const) expect(after.contracts[key]!.address, key).not.toBe(older.contracts[key]!.address);
    for (const key of ['universalVerifier', 'state', 'mtpValidator', 'v3Validator', 'identityTreeStore', 'ethIdentityValidator'] as const) expect(after.contracts[key], key).toEqual(before.contracts[key]);
    // UniversalVerifier 2.3.0 cannot repoint an auth method: authV2 stays bound to the earlier validator.
    const chain = await authV2Chain(next);
    expect(chain.universalVerifier.toLowerCase()).toBe(before.contracts.universalVerifier!.address.toLowerCase());
    expect(chain.validator.toLowerCase()).toBe(bound.validator.toLowerCase());
    expect(chain.validator.toLowerCase()).not.toBe(after.contracts.authV2Validator!.address.toLowerCase());
    // Behind it, the official verifier (what an earlier vc gave its validator): vc refuses authV2
    // before proving, naming the validator it is bound to and the way out.
    const officialImplementation = await sendTransaction(next, { data: official.bytecode }, { description: 'the official authV2 verifier', checkpoint: false });
    const admin = await readProxySlot((await getChain(next)).provider, chain.verifier, EIP1967_ADMIN_SLOT, 'test');
    await sendContractTransaction(next, { address: admin, abi: openZeppelinArtifact('ProxyAdmin').abi as never, method: 'upgradeAndCall', args: [chain.verifier, officialImplementation.contractAddress!, '0x'] }, { description: 'official', checkpoint: false });
    await expect(requireAuthV2Verifier(newContext())).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringContaining(`binds its authV2 method to the validator ${chain.validator} (deployed by an earlier vc), which UniversalVerifier 2.3.0 cannot repoint: submit with embeddedAuth instead (\`vc holder prove-submit\`'s default; for a contract-invoke-request \`vc holder respond\` answers, the request's accept profiles decide`),
    });
    await expect(requireAuthV2Verifier(newContext())).rejects.toMatchObject({ message: expect.stringContaining('or deploy new contracts with `vc chain deploy --force`') });
    expect((await deployContracts(newContext())).deployed).toEqual([]);

    // attack-s36b: another party's wallet on the same chain (its own home, no address book, the
    // deployer's addresses): told the binding and the ways out that work (embedded auth, new
    // contracts), not that the deployer's \`vc chain deploy\` and a fresh \`vc chain env\` fix it.
    const partyHome = path.join(dir, 'party');
    mkdirSync(partyHome, { recursive: true });
    const deployed = await getChain(next);
    const party = newContext(
      { RPC_URL: deployed.rpcUrl, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY, CHAIN_ID: String(deployed.chainId), STATE_CONTRACT_ADDRESS: deployed.addresses.state, BSC_ADDRESS: chain.universalVerifier, MTP_ADDRESS: deployed.addresses.mtpValidator },
      partyHome,
    );
    const refused = (await requireAuthV2Verifier(party).then(
      () => undefined,
      (error: unknown) => error,
    )) as Error & { exitCode?: number };
    expect(refused).toBeInstanceOf(Error);
    expect(refused.exitCode).toBe(3);
    expect(refused.message).not.toMatch(/hands out a fresh `vc chain env`/);
    expect(refused.message).toContain(`binds its authV2 method to the validator ${chain.validator} (its verifier ${chain.verifier}`);
    expect(refused.message).toMatch(/submit with embeddedAuth instead/);
    expect(refused.message).toContain('whoever deployed these contracts deploys new ones with `vc chain deploy --force`');
  });
});
