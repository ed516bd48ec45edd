/**
 * attack-s37b: a `vc chain deploy` killed (SIGKILL) while one of its deployment transactions is
 * sent but its receipt not yet read. The node (detached, shared by every command) mines it all the
 * same; the re-run must not send a second transaction for that step (a second contract: here a
 * second AuthV3_8_32Validator proxy, gas spent twice on an external chain). The step is one of the
 * authV3 methods' new steps (the validator proxy, the last contract step of the recipe); the
 * engine is the same for every step.
 *
 * The kill is made deterministic by turning the node's automine off (through its front, as any
 * RPC client can) before the child deploys: its transaction waits in the mempool, the child is
 * killed while it waits for the receipt, then the block is mined.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readAddressBook, saveAddressBook } from '../../../src/chain/addressBook.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { ensureDeployed } from '../../../src/chain/deployment/deployContracts.js';
import { jsonRpcCall } from '../../../src/chain/jsonRpc.js';
import { ROOT, VC_BIN, childEnv, runVcAsync } from '../../helpers.js';
import { templateChainHome } from './templateChain.js';

const { home, newContext } = templateChainHome('vc-deploy-kill-');

describe('a deployment killed while a step waits for its receipt', () => {
  it('the re-run sends no second transaction for that step (one AuthV3_8_32Validator proxy, the one mined)', async () => {
    const ctx = newContext();
    await ensureDeployed(ctx);
    const chain = await getChain(ctx);
    const rpcUrl = chain.rpcUrl;
    const deployer = chain.signer.address;

    // The deployment `vc chain deploy` makes here (the verifiers of the circuits built), complete.
    const aligned = await runVcAsync(['--json', 'chain', 'deploy'], { home });
    expect(aligned.status, aligned.stderr).toBe(0);
    // The state a killed deployment of a home without the authV3-8-32 validator proxy leaves.
    const book = readAddressBook(ctx)!;
    const recorded = book.contracts.authV3_8_32Validator!.address;
    delete book.contracts.authV3_8_32Validator;
    saveAddressBook(ctx, { ...book, complete: false });

    await jsonRpcCall(rpcUrl, 'evm_setAutomine', [false], 30_000);
    const child = spawn(process.execPath, [VC_BIN, '--home', home, '--json', 'chain', 'deploy'], { cwd: ROOT, env: childEnv(), stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      let pending = 0;
      for (let i = 0; i < 600 && pending === 0; i++) {
        await sleep(100);
        pending = Number(await jsonRpcCall<string>(rpcUrl, 'eth_getTransactionCount', [deployer, 'pending'], 30_000)) - Number(await jsonRpcCall<string>(rpcUrl, 'eth_getTransactionCount', [deployer, 'latest'], 30_000));
      }
      expect(pending, 'the child sent the proxy deployment').toBe(1);
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await jsonRpcCall(rpcUrl, 'evm_setAutomine', [true], 30_000);
      await jsonRpcCall(rpcUrl, 'evm_mine', [], 30_000);
    }
    // Re-enabling automine mines the waiting transaction (evm_mine may add an empty block after it).
    const latest = Number(await jsonRpcCall<string>(rpcUrl, 'eth_blockNumber', [], 30_000));
    const hashes: string[] = [];
    for (const n of [latest - 1, latest]) hashes.push(...(await jsonRpcCall<{ transactions: string[] }>(rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false], 30_000)).transactions);
    expect(hashes).toHaveLength(1);
    const mined = await jsonRpcCall<{ contractAddress: string; status: string }>(rpcUrl, 'eth_getTransactionReceipt', [hashes[0]], 30_000);
    expect(mined.status).toBe('0x1');
    expect(mined.contractAddress.toLowerCase()).not.toBe(recorded.toLowerCase());

    const nonceBefore = Number(await jsonRpcCall<string>(rpcUrl, 'eth_getTransactionCount', [deployer, 'latest'], 30_000));
    // The re-run, as the user runs it (the same command, environment and home as the killed one).
    const rerun = await runVcAsync(['--json', 'chain', 'deploy'], { home });
    expect(rerun.status, rerun.stderr).toBe(0);
    const nonceAfter = Number(await jsonRpcCall<string>(rpcUrl, 'eth_getTransactionCount', [deployer, 'latest'], 30_000));
    // The step's mined contract is recorded (this run completes the killed run's deployment: it is
    // reported deployed), and no transaction is sent again.
    expect({ deployed: rerun.json<{ deployed: string[] }>().deployed, transactions: nonceAfter - nonceBefore }).toEqual({ deployed: ['authV3_8_32Validator'], transactions: 0 });
    expect(readAddressBook(newContext())!.contracts.authV3_8_32Validator!.address.toLowerCase()).toBe(mined.contractAddress.toLowerCase());
  }, 120_000);
});
