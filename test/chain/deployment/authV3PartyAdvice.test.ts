/**
 * attack-s37b: another party's wallet on a chain whose deployer (vc, official verifiers) gave the
 * authV3-8-32 method its own AuthV3_8_32Validator, whose verifier sits behind a proxy the deployer
 * upgrades in place; the party's circuits are vc's development ones. vc refuses before proving
 * (held), but its way out says the UniversalVerifier "cannot repoint" the method and the deployer
 * must deploy new contracts with `vc chain deploy --force` (abandoning the UniversalVerifier and
 * its requests). For the authV3 methods (bound only by a vc that puts their verifier behind a
 * proxy) the deployer's `vc chain deploy` with development verifiers upgrades that proxy in place,
 * the binding and the requests kept; or the party uses the official circuits. The advice should
 * say so, as it does for the V3 validator, and not send the deployer to --force.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAddressBook } from '../../../src/chain/addressBook.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { LOCAL_DEV_ACCOUNT_KEY } from '../../../src/chain/connection.js';
import { ensureDeployed } from '../../../src/chain/deployment/deployContracts.js';
import { EIP1967_IMPLEMENTATION_SLOT, readProxySlot } from '../../../src/chain/proxySlots.js';
import { requireAuthVerifier } from '../../../src/iden3/wallet.js';
import { templateChainHome } from './templateChain.js';

const { dir, newContext } = templateChainHome('vc-authv3-party-');

describe("a party's wallet on a deployment with the official authV3-8-32 verifier", () => {
  it('is refused before proving, told that the deployer upgrades the proxied verifier in place (or official circuits), not to deploy new contracts', async () => {
    const deployer = newContext();
    await ensureDeployed(deployer);
    const book = readAddressBook(deployer)!;
    // The deployment as the template has it: the official authV3-8-32 verifier behind its proxy.
    expect(book.verifiers['authV3-8-32']?.source).toBe('official');
    const chain = await getChain(deployer);
    const proxied = await readProxySlot(chain.provider, book.contracts.authV3_8_32Verifier!.address, EIP1967_IMPLEMENTATION_SLOT, 'test');
    expect(proxied.toLowerCase()).toBe(book.contracts.authV3_8_32VerifierImplementation!.address.toLowerCase());

    const partyHome = path.join(dir, 'party');
    mkdirSync(partyHome, { recursive: true });
    const party = newContext(
      { RPC_URL: chain.rpcUrl, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY, CHAIN_ID: String(chain.chainId), STATE_CONTRACT_ADDRESS: chain.addresses.state, BSC_ADDRESS: chain.addresses.universalVerifier, MTP_ADDRESS: chain.addresses.mtpValidator },
      partyHome,
    );
    const refused = (await requireAuthVerifier(party, 'authV3-8-32').then(
      () => undefined,
      (error: unknown) => error,
    )) as (Error & { exitCode?: number }) | undefined;
    expect(refused).toBeInstanceOf(Error);
    expect(refused!.exitCode).toBe(3);
    expect(refused!.message).toMatch(/authV3-8-32/);
    // What happens now: "... which UniversalVerifier 2.3.0 cannot repoint: ... or whoever deployed these contracts deploys new ones with `vc chain deploy --force` ...".
    expect(refused!.message).not.toMatch(/--force/);
    expect(refused!.message).toMatch(/upgraded in place/);
  }, 300_000);
});
