/**
 * attack-s36b: the authV2 verifier check as another party sees it. A home deployed by an earlier
 * vc keeps its UniversalVerifier, whose `authV2` method stays bound to the earlier validator
 * (UniversalVerifier 2.3.0 cannot repoint it; `vc chain deploy` changes nothing for it). Its owner
 * is told so (authV2Verifier.test.ts); a wallet using that deployment from its own home (RPC_URL
 * and the addresses of `vc chain env`) is told instead that the deployer's `vc chain deploy` and a
 * fresh `vc chain env` fix it ("the authV2 verifier, upgraded in place, changes"): they do not.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { readAddressBook, saveAddressBook } from '../../../src/chain/addressBook.js';
import { bytecodeHash, iden3Artifact, openZeppelinArtifact } from '../../../src/chain/artifacts.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { LOCAL_DEV_ACCOUNT_KEY } from '../../../src/chain/connection.js';
import { deployContracts, ensureDeployed } from '../../../src/chain/deployment/deployContracts.js';
import { stopLocalNode } from '../../../src/chain/node/lifecycle.js';
import { EIP1967_ADMIN_SLOT, readProxySlot } from '../../../src/chain/proxySlots.js';
import { readContract, sendContractTransaction, sendTransaction } from '../../../src/chain/transactions.js';
import { requireAuthV2Verifier } from '../../../src/iden3/wallet.js';
import { tempDir, templateHome } from '../../helpers.js';

const tmp = tempDir('vc-authv2-attack-');
const home = templateHome(path.join(tmp.dir, 'home'));
const contexts: Context[] = [];

function newContext(vars: Record<string, string> = {}, at = home): Context {
  const ctx = new Context({ config: parseConfig(vars, at) });
  contexts.push(ctx);
  return ctx;
}

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  const ctx = new Context({ config: parseConfig({}, home) });
  try {
    await stopLocalNode(ctx, { persist: false });
  } finally {
    await ctx.close();
  }
  tmp.cleanup();
}, 60_000);

const official = iden3Artifact('Groth16VerifierAuthV2Wrapper');

describe("an earlier vc's home used by another party", () => {
  it('the authV2 refusal of a wallet on that deployment names the binding that no redeployment changes, not a redeployment', async () => {
    const ctx = newContext();
    const before = readAddressBook(ctx)!;
    const chain = await getChain(ctx);
    const universalVerifier = chain.addresses.universalVerifier;
    const bound = await readContract<{ validator: string }>(ctx, { address: universalVerifier, abi: iden3Artifact('UniversalVerifier').abi as never, method: 'getAuthMethod', args: ['authV2'] }, 'getAuthMethod');
    // The earlier recipe (as authV2Verifier.test.ts makes it): a plain authV2 verifier, the validator of another creation.
    const plain = await sendTransaction(ctx, { data: official.bytecode }, { description: 'the earlier plain authV2 verifier', checkpoint: false });
    const older = structuredClone(before);
    delete older.contracts.authV2VerifierImplementation;
    older.contracts.authV2Verifier = { address: plain.contractAddress!, fingerprint: bytecodeHash(official.bytecode), txHash: plain.hash, blockNumber: plain.blockNumber };
    older.contracts.authV2Validator!.fingerprint = 'creation data of the earlier validator';
    delete older.verifiers.authV2;
    saveAddressBook(ctx, older);
    await ensureDeployed(newContext());
    // The validator the method stays bound to runs the official verifier (what an earlier vc gave it); vc's circuits are development builds.
    const boundVerifier = await readContract<string>(ctx, { address: bound.validator, abi: iden3Artifact('AuthV2Validator').abi as never, method: 'getVerifierByCircuitId', args: ['authV2'] }, 'getVerifierByCircuitId');
    const officialImplementation = await sendTransaction(ctx, { data: official.bytecode }, { description: 'the official authV2 verifier', checkpoint: false });
    const admin = await readProxySlot(chain.provider, boundVerifier, EIP1967_ADMIN_SLOT, 'test');
    await sendContractTransaction(ctx, { address: admin, abi: openZeppelinArtifact('ProxyAdmin').abi as never, method: 'upgradeAndCall', args: [boundVerifier, officialImplementation.contractAddress!, '0x'] }, { description: 'official', checkpoint: false });
    // Its owner: told the way out. Deploying again changes nothing.
    await expect(requireAuthV2Verifier(newContext())).rejects.toMatchObject({ exitCode: 3, message: expect.stringContaining('cannot repoint') });
    expect((await deployContracts(newContext())).deployed).toEqual([]);

    // Another party's wallet on the same chain (its own home, the deployer's addresses).
    const partyHome = path.join(tmp.dir, 'party');
    mkdirSync(partyHome, { recursive: true });
    const party = newContext(
      { RPC_URL: chain.rpcUrl, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY, CHAIN_ID: String(chain.chainId), STATE_CONTRACT_ADDRESS: chain.addresses.state, BSC_ADDRESS: universalVerifier, MTP_ADDRESS: chain.addresses.mtpValidator },
      partyHome,
    );
    const refused = (await requireAuthV2Verifier(party).then(
      () => undefined,
      (error: unknown) => error,
    )) as Error & { exitCode?: number };
    expect(refused).toBeInstanceOf(Error);
    expect(refused.exitCode).toBe(3);
    // Found: "... whoever deployed these contracts runs `vc chain deploy` (...) and hands out a fresh
    // `vc chain env` (the authV2 verifier, upgraded in place, changes)": that redeployment was just shown to change nothing.
    expect(refused.message).not.toMatch(/hands out a fresh `vc chain env`/);
    expect(refused.message).toMatch(/embeddedAuth/);
  }, 300_000);
});
