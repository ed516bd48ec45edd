/**
 * The embedded chain against a real anvil node and the real iden3 contracts: deployment,
 * reuse, persistence across `down`/up and across a kill -9 of the node, revert decoding,
 * pluggable verifiers and external-chain configuration. Each home is a fresh temp directory and
 * every node started here is stopped in afterAll.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeOperation } from '../../src/core/operation.js';
import { chainEnv } from '../../src/core/operations/chainOperations.js';
import { poseidon } from '@iden3/js-crypto';
import { parseConfig, type RawVariables } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { ConfigError, InputError } from '../../src/errors.js';
import { ensureLocalNode, localNodeStatus, stopLocalNode } from '../../src/chain/node/lifecycle.js';
import { findFreePort } from '../../src/chain/node/ports.js';
import { isProcessAlive } from '../../src/chain/node/process.js';
import { connectChain, forgetConnectionIfNodeFailed, LOCAL_DEV_ACCOUNT_KEY } from '../../src/chain/connection.js';
import { getChain } from '../../src/chain/chainClient.js';
import { readAddressBook, saveAddressBook } from '../../src/chain/addressBook.js';
import { isOwnEmbeddedChain, isSameChain, readChainIdentity, readHomeChainIdentity } from '../../src/chain/chainIdentity.js';
import { deployContracts, ensureDeployed } from '../../src/chain/deployment/deployContracts.js';
import { didTypeFor } from '../../src/chain/didType.js';
import { iden3Artifact } from '../../src/chain/artifacts.js';
import { readContract, sendContractTransaction, TransactionRevertedError } from '../../src/chain/transactions.js';
import { chainReset, chainStatus } from '../../src/chain/manage.js';
import { checkHealth } from '../../src/core/health.js';
import { jsonError, runVcInProcess, templateHome } from '../helpers.js';

const homes: string[] = [];
const contexts: Context[] = [];

function newHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'vc-chain-test-'));
  homes.push(home);
  return home;
}

function newContext(home: string, vars: RawVariables = {}): Context {
  const ctx = new Context({ config: parseConfig(vars, home) });
  contexts.push(ctx);
  return ctx;
}

const abiOf = (name: string): unknown[] => iden3Artifact(name).abi;

async function read<T>(ctx: Context, address: string, contract: string, method: string, args: unknown[] = []): Promise<T> {
  return readContract<T>(ctx, { address, abi: abiOf(contract) as never, method, args }, `${contract}.${method}`);
}

let home: string;

beforeAll(async () => {
  // The run's template home (test/setup/chainTemplate.ts): the contracts vc deploys, in place on
  // its own node; a fresh home's deployment is the concurrency test's.
  home = templateHome(newHome());
  const ctx = newContext(home);
  await getChain(ctx);
  await ctx.close();
}, 120_000);

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  for (const dir of homes) {
    const ctx = new Context({ config: parseConfig({}, dir) });
    try {
      await stopLocalNode(ctx, { persist: false });
    } finally {
      await ctx.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

describe('embedded chain with the iden3 contracts', () => {
  it('State answers getDefaultIdType with the id type of our DID network', async () => {
    const ctx = newContext(home);
    const chain = await getChain(ctx);
    const idType = await read<string>(ctx, chain.addresses.state, 'State', 'getDefaultIdType');
    const expected = await didTypeFor(ctx.config);
    expect(idType).toBe(expected.hex);
    expect(expected.hex).toBe('0x021f'); // polygonid (0x02) + polygon (0x10) | local (0x0f)
    expect(await read<bigint>(ctx, chain.addresses.state, 'State', 'getGISTRoot')).toBe(0n);
  });

  it('UniversalVerifier has the MTP validator whitelisted and the embeddedAuth method', async () => {
    const ctx = newContext(home);
    const { addresses } = await getChain(ctx);
    expect(await read<boolean>(ctx, addresses.universalVerifier, 'UniversalVerifier', 'isWhitelistedValidator', [addresses.mtpValidator])).toBe(true);
    expect(await read<boolean>(ctx, addresses.universalVerifier, 'UniversalVerifier', 'isWhitelistedValidator', [addresses.state])).toBe(false);
    expect(await read<boolean>(ctx, addresses.universalVerifier, 'UniversalVerifier', 'authMethodExists', ['embeddedAuth'])).toBe(true);
    expect(await read<boolean>(ctx, addresses.universalVerifier, 'UniversalVerifier', 'authMethodExists', ['authV2'])).toBe(true);
    expect(await read<string>(ctx, addresses.universalVerifier, 'UniversalVerifier', 'getStateAddress')).toBe(addresses.state);
    const circuits = await read<string[]>(ctx, addresses.mtpValidator, 'CredentialAtomicQueryMTPV2Validator', 'getSupportedCircuitIds');
    expect([...circuits]).toEqual(['credentialAtomicQueryMTPV2OnChain']);
  });

  it('the Poseidon libraries hash like @iden3/js-crypto', async () => {
    const ctx = newContext(home);
    const { addresses } = await getChain(ctx);
    const samples: bigint[][] = [[1n], [1n, 2n], [0n, 0n, 0n], [7n, 11n, 13n, 17n], [1n, 2n, 3n, 4n, 5n], [2n ** 200n, 3n, 5n, 8n, 13n, 21n]];
    for (const inputs of samples) {
      const n = inputs.length;
      const library = addresses.all[`poseidon${n}` as 'poseidon1']!;
      const onChain = await read<bigint>(ctx, library, `PoseidonUnit${n}L`, 'poseidon', [inputs]);
      expect(onChain).toBe(poseidon.hash(inputs));
      const viaFacade = await read<bigint>(ctx, addresses.poseidon!, 'PoseidonFacade', `poseidon${n}`, [inputs]);
      expect(viaFacade).toBe(poseidon.hash(inputs));
    }
  });

  it('a second ensure reuses the node and the deployment', async () => {
    const before = readAddressBook(newContext(home))!;
    const ctx = newContext(home);
    const connection = await connectChain(ctx);
    expect(connection.node?.started).toBe(false);
    const result = await deployContracts(ctx);
    expect(result.deployed).toEqual([]);
    expect(result.configured).toEqual([]);
    expect(result.addresses.all).toEqual(Object.fromEntries(Object.entries(before.contracts).map(([k, v]) => [k, v.address])));
    expect(connection.signer.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(LOCAL_DEV_ACCOUNT_KEY).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('chain env gives what another party sets to use the same contracts with its own key', async () => {
    const env = await invokeOperation(newContext(home), chainEnv, {});
    expect(Object.keys(env)).not.toContain('WALLET_KEY');
    expect(env).toMatchObject({ CHAIN_ID: '152', NETWORK_NAME: 'polygon:local' });
    // Anvil's second development account: another party, with a wallet of its own.
    const other = newContext(newHome(), { ...env, WALLET_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' });
    const chain = await getChain(other);
    expect(chain.embedded).toBe(false);
    expect(chain.signer.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    // The optional contracts too: a party given only these variables can register V3 requests and issue with --status onchain.
    expect(env.V3_ADDRESS).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(env.IDENTITY_TREE_STORE_ADDRESS).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(chain.addresses).toMatchObject({
      state: env.STATE_CONTRACT_ADDRESS,
      universalVerifier: env.BSC_ADDRESS,
      mtpValidator: env.MTP_ADDRESS,
      v3Validator: env.V3_ADDRESS,
      identityTreeStore: env.IDENTITY_TREE_STORE_ADDRESS,
    });
    expect(chain.addresses.source).toBe('config');
    // On the command line: dotenv lines (stdout or -o FILE), the same variables as --json.
    const file = path.join(newHome(), 'party.env');
    const run = await runVcInProcess(['chain', 'env', '-o', file], { home });
    expect(run.status, run.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))).toEqual(env);
    expect((await runVcInProcess(['--json', 'chain', 'env'], { home })).json()).toEqual(env);
  });

  it('decodes a revert by its custom error name', async () => {
    const ctx = newContext(home);
    const { addresses } = await getChain(ctx);
    const attempt = sendContractTransaction(
      ctx,
      {
        address: addresses.universalVerifier,
        abi: abiOf('UniversalVerifier') as never,
        method: 'setAuthMethod',
        args: [{ authMethod: 'embeddedAuth', validator: '0x0000000000000000000000000000000000000000', params: '0x' }],
      },
      { description: 'adding embeddedAuth twice' },
    );
    const error = await attempt.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionRevertedError);
    expect((error as TransactionRevertedError).revertName).toBe('AuthMethodAlreadyExists');
    expect((error as TransactionRevertedError).exitCode).toBe(1);
    expect((error as Error).message).toContain('AuthMethodAlreadyExists(authMethod=embeddedAuth)');
  });

  it('a node killed with SIGKILL is detected and recovered without losing our transactions', async () => {
    const ctx = newContext(home);
    const { addresses } = await getChain(ctx);
    await sendContractTransaction(
      ctx,
      { address: addresses.universalVerifier, abi: abiOf('UniversalVerifier') as never, method: 'setVerifierID', args: [424242n] },
      { description: 'setting the verifier id' },
    );
    const blockBefore = (await chainStatus(ctx)).blockNumber;
    const { record } = await localNodeStatus(ctx);
    process.kill(record!.pid, 'SIGKILL');
    for (let i = 0; i < 100 && isProcessAlive(record!.pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect((await localNodeStatus(ctx)).state).toBe('dead');

    const next = newContext(home);
    const node = await ensureLocalNode(next);
    expect(node.recovered).toBe(true);
    expect(node.pid).not.toBe(record!.pid);
    const status = await chainStatus(next);
    expect(status.blockNumber).toBe(blockBefore);
    expect(status.contracts.state).toBe(addresses.state);
    expect(await read<bigint>(next, addresses.universalVerifier, 'UniversalVerifier', 'getVerifierID')).toBe(424242n);
  });

  it('a long-lived context reconnects after its node is killed, and health reports a node that cannot be restarted', async () => {
    const killAndWait = async (pid: number): Promise<void> => {
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100 && isProcessAlive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    };
    // One context for the whole test, as `vc serve` keeps one for its lifetime.
    const ctx = newContext(home);
    const chain = await getChain(ctx);
    const verifierId = await read<bigint>(ctx, chain.addresses.universalVerifier, 'UniversalVerifier', 'getVerifierID');
    const firstPid = chain.node!.pid;
    await killAndWait(firstPid);

    // The cached client is not reused: the next read restarts the node from its saved state.
    expect(await read<bigint>(ctx, chain.addresses.universalVerifier, 'UniversalVerifier', 'getVerifierID')).toBe(verifierId);
    const restarted = await getChain(ctx);
    expect(restarted.node!.pid).not.toBe(firstPid);
    expect(restarted.node!.recovered).toBe(true);
    expect(restarted.addresses).toEqual(chain.addresses);
    expect((await checkHealth(ctx, 'verifier')).chain).toMatchObject({ state: 'running', reachable: true });

    // After a failed call, a connection is dropped only when its node really stopped answering.
    expect(await forgetConnectionIfNodeFailed(ctx, restarted)).toBe(false);
    expect((await getChain(ctx)).provider).toBe(restarted.provider);

    // A node that cannot be started again (its log path is now a directory): not ready, with the reason.
    await killAndWait(restarted.node!.pid);
    expect(await forgetConnectionIfNodeFailed(ctx, restarted)).toBe(true);
    const logFile = restarted.node!.logFile;
    rmSync(logFile, { force: true });
    mkdirSync(logFile);
    try {
      await expect(read<bigint>(ctx, chain.addresses.universalVerifier, 'UniversalVerifier', 'getVerifierID')).rejects.toThrow(/EISDIR|anvil\.log/);
      const health = await checkHealth(ctx, 'verifier');
      expect(health.status).toBe('degraded');
      expect(health.chain.reachable).toBe(false);
      expect(health.chain.problem).toMatch(/EISDIR|anvil\.log/);
    } finally {
      rmSync(logFile, { recursive: true, force: true });
    }

    // Once the cause is gone, the next request starts the node and health recovers.
    expect(await read<bigint>(ctx, chain.addresses.universalVerifier, 'UniversalVerifier', 'getVerifierID')).toBe(verifierId);
    const health = await checkHealth(ctx, 'verifier');
    expect(health.chain).toMatchObject({ state: 'running', reachable: true });
    expect(health.chain.problem).toBeUndefined();

    // A context that connected without the client (a transaction first), then asks for the client.
    const other = newContext(home);
    const connection = await connectChain(other);
    await killAndWait(connection.node!.pid);
    const rebuilt = await getChain(other);
    expect(rebuilt.node!.pid).not.toBe(connection.node!.pid);
    expect(await read<bigint>(other, rebuilt.addresses.universalVerifier, 'UniversalVerifier', 'getVerifierID')).toBe(verifierId);
  });

  it('transactions sent outside our helper are saved when the command context closes', async () => {
    const ctx = newContext(home);
    const chain = await getChain(ctx);
    // A plain ether transfer through the signer, as another module (the js-sdk) would send it.
    const recipient = '0x000000000000000000000000000000000000bEEF';
    const sent = await chain.signer.sendTransaction({ to: recipient, value: 12345n });
    await sent.wait(1, 10_000);
    await ctx.close();
    const { record } = await localNodeStatus(newContext(home));
    process.kill(record!.pid, 'SIGKILL');
    for (let i = 0; i < 100 && isProcessAlive(record!.pid); i++) await new Promise((r) => setTimeout(r, 20));
    const next = await connectChain(newContext(home));
    expect(next.node?.recovered).toBe(true);
    expect(await next.provider.getBalance(recipient)).toBe(12345n);
  });

  it('down then up keeps the addresses and the chain state', async () => {
    const ctx = newContext(home);
    const before = await chainStatus(ctx);
    await ctx.close();
    const down = await stopLocalNode(newContext(home));
    expect(down.stopped).toBe(true);
    expect(isProcessAlive(down.pid!)).toBe(false);
    expect((await localNodeStatus(newContext(home))).state).toBe('stopped');

    const after = await chainStatus(newContext(home));
    expect(after.node?.started).toBe(true);
    expect(after.contracts).toEqual(before.contracts);
    expect(after.blockNumber).toBe(before.blockNumber);
    expect(after.rpcUrl).toBe(before.rpcUrl); // the port is kept when free
    expect(await read<bigint>(newContext(home), after.contracts.universalVerifier, 'UniversalVerifier', 'getVerifierID')).toBe(424242n);
  });

  it('swaps a changed verifier: State keeps its address, the validator is redeployed and whitelisted', async () => {
    const ctx = newContext(home);
    const { addresses } = await getChain(ctx);
    const official = iden3Artifact('Groth16VerifierStateTransition');
    const officialMtp = iden3Artifact('Groth16VerifierMTPWrapper');
    // Trailing bytes after creation code are ignored by a constructor without arguments: same
    // runtime code, different bytecode hash — what a rebuilt dev verifier looks like to us.
    const result = await deployContracts(ctx, {
      verifiers: {
        stateTransition: { abi: official.abi, bytecode: `${official.bytecode}00` },
        credentialAtomicQueryMTPV2OnChain: { abi: officialMtp.abi, bytecode: `${officialMtp.bytecode}00` },
      },
    });
    expect(result.deployed).toEqual(['stateTransitionVerifier', 'mtpVerifier', 'mtpValidator']);
    expect(result.addresses.state).toBe(addresses.state);
    expect(result.book.verifiers.stateTransition?.source).toBe('dev');
    expect(await read<string>(ctx, addresses.state, 'State', 'getVerifier')).toBe(result.addresses.all.stateTransitionVerifier);
    expect(result.addresses.mtpValidator).not.toBe(addresses.mtpValidator);
    expect(await read<boolean>(ctx, addresses.universalVerifier, 'UniversalVerifier', 'isWhitelistedValidator', [result.addresses.mtpValidator])).toBe(true);

    // ensureDeployed keeps the remembered dev verifiers; officialVerifiers goes back.
    expect((await ensureDeployed(newContext(home))).mtpValidator).toBe(result.addresses.mtpValidator);
    const back = await deployContracts(newContext(home), { officialVerifiers: true });
    expect(back.book.verifiers.credentialAtomicQueryMTPV2OnChain?.source).toBe('official');
    expect(back.addresses.state).toBe(addresses.state);
  });

  it('rejects a dev verifier without the interface its caller uses', async () => {
    const ctx = newContext(home);
    const snarkjsStyle = iden3Artifact('Groth16VerifierMTP'); // verifyProof(...uint[11]) only, no verify()
    const error = await deployContracts(ctx, { verifiers: { credentialAtomicQueryMTPV2OnChain: { abi: snarkjsStyle.abi, bytecode: snarkjsStyle.bytecode } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain('verify(uint256[2],uint256[2][2],uint256[2],uint256[])');
  });

  it('redeploys contracts missing from the chain even though the address book lists them', async () => {
    const ctx = newContext(home);
    const before = readAddressBook(ctx)!;
    const stopped = await stopLocalNode(ctx, { persist: false });
    expect(stopped.stopped).toBe(true);
    // Simulate a lost chain (snapshots deleted) behind an intact address book.
    const stateDir = path.join(home, 'chain', '152');
    // Every snapshot: ours, the last complete one of anvil, and anvil's own dump file.
    for (const file of ['state.json', 'autosave.json', 'autosave.anvil.json']) rmSync(path.join(stateDir, file), { force: true });
    const next = newContext(home);
    const addresses = await ensureDeployed(next);
    const after = readAddressBook(next)!;
    expect(after.complete).toBe(true);
    expect(Object.keys(after.contracts).sort()).toEqual(Object.keys(before.contracts).sort());
    expect(await read<boolean>(next, addresses.universalVerifier, 'UniversalVerifier', 'isWhitelistedValidator', [addresses.mtpValidator])).toBe(true);
    expect(after.contracts.state!.blockNumber).toBeLessThan(30);
  });

  it('a home deployed by an earlier vc (its book without the EthIdentityValidator) gets it at its next chain command; the rest is kept', async () => {
    const ctx = newContext(home);
    const before = readAddressBook(ctx)!;
    const older = structuredClone(before);
    delete older.contracts.ethIdentityValidator;
    delete older.contracts.ethIdentityValidatorImplementation;
    saveAddressBook(ctx, older);
    const next = newContext(home);
    await ensureDeployed(next);
    const after = readAddressBook(next)!;
    expect(after.complete).toBe(true);
    expect(after.contracts.ethIdentityValidator).toBeDefined();
    expect(after.contracts.ethIdentityValidator!.address).not.toBe(before.contracts.ethIdentityValidator!.address);
    for (const key of Object.keys(older.contracts) as Array<keyof typeof older.contracts>) expect(after.contracts[key], key).toEqual(older.contracts[key]);
    expect((await getChain(next)).addresses.all.ethIdentityValidator).toBe(after.contracts.ethIdentityValidator!.address);
    // Current now: the next command deploys nothing.
    await ensureDeployed(newContext(home));
    expect(readAddressBook(newContext(home))!.contracts).toEqual(after.contracts);
  });
});

describe('concurrency and external chains', () => {
  it('two contexts starting the chain at once share one node and one deployment', async () => {
    const fresh = newHome();
    const [a, b] = await Promise.all([getChain(newContext(fresh)), getChain(newContext(fresh))]);
    expect(a.rpcUrl).toBe(b.rpcUrl);
    expect(a.node?.pid).toBe(b.node?.pid);
    expect(a.addresses).toEqual(b.addresses);
    expect([a.node?.started, b.node?.started].filter(Boolean)).toHaveLength(1);
    const reset = await chainReset(newContext(fresh), { confirm: true });
    expect(reset.removedAddressBooks).toEqual([152]);
    expect(isProcessAlive(a.node!.pid)).toBe(false);
    await expect(chainReset(newContext(fresh), { confirm: false })).rejects.toBeInstanceOf(InputError);
  }, 120_000);

  it('with RPC_URL the addresses come from configuration, and a missing one is named', async () => {
    const local = await getChain(newContext(home));
    const external = { RPC_URL: local.rpcUrl, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY, CHAIN_ID: '152' };
    const externalHome = newHome();
    const missing = await ensureDeployed(newContext(externalHome, external)).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as ConfigError).exitCode).toBe(3);
    expect((missing as Error).message).toContain('STATE_CONTRACT_ADDRESS');

    const configured = await ensureDeployed(
      newContext(externalHome, {
        ...external,
        STATE_CONTRACT_ADDRESS: local.addresses.state,
        BSC_ADDRESS: local.addresses.universalVerifier,
        MTP_ADDRESS: local.addresses.mtpValidator,
      }),
    );
    expect(configured.source).toBe('config');
    expect(configured.state).toBe(local.addresses.state);

    const noCode = await ensureDeployed(
      newContext(externalHome, { ...external, STATE_CONTRACT_ADDRESS: '0x000000000000000000000000000000000000dEaD', BSC_ADDRESS: local.addresses.universalVerifier, MTP_ADDRESS: local.addresses.mtpValidator }),
    ).catch((e: unknown) => e);
    expect(noCode).toBeInstanceOf(ConfigError);
    expect((noCode as Error).message).toContain('has no contract code');
    // An optional contract's variable is checked the same way, and named.
    const noV3Code = await ensureDeployed(
      newContext(externalHome, { ...external, STATE_CONTRACT_ADDRESS: local.addresses.state, BSC_ADDRESS: local.addresses.universalVerifier, MTP_ADDRESS: local.addresses.mtpValidator, V3_ADDRESS: '0x000000000000000000000000000000000000dEaD' }),
    ).catch((e: unknown) => e);
    expect(noV3Code).toBeInstanceOf(ConfigError);
    expect((noV3Code as Error).message).toMatch(/^V3_ADDRESS=0x0+dEaD has no contract code/);
    expect(configured.v3Validator).toBeUndefined();

    const wrongChain = await connectChain(newContext(externalHome, { ...external, CHAIN_ID: '80002' })).catch((e: unknown) => e);
    expect(wrongChain).toBeInstanceOf(ConfigError);
  });

  // attack-s35: V3_ADDRESS / IDENTITY_TREE_STORE_ADDRESS naming a contract that has code but is
  // another one (the State contract, the UniversalVerifier: a copy-paste slip) is a configuration
  // error naming the variable (exit 3), not "transaction_reverted: require(false)" with exit 1
  // (verification failed), which names nothing the user can fix.
  it('V3_ADDRESS or IDENTITY_TREE_STORE_ADDRESS at another contract is a configuration error naming the variable (exit 3)', async () => {
    // A deployer's home (the run's template: vc's deployment, its circuits and verifiers agree), up
    // with `vc chain up`, and a party configured from its `vc chain env`.
    const deployerHome = templateHome(newHome());
    expect((await runVcInProcess(['--json', 'chain', 'up'], { home: deployerHome })).status).toBe(0);
    const deployed = (await runVcInProcess(['--json', 'chain', 'env'], { home: deployerHome })).json<Record<string, string>>();
    const env = { ...deployed, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY };
    const request = await runVcInProcess(['--json', 'verifier', 'request', '--circuit', 'credentialAtomicQueryV3OnChain', '--op', '$sd'], { home: newHome(), env: { ...env, V3_ADDRESS: deployed.STATE_CONTRACT_ADDRESS! } });
    expect(request.status, request.stderr).toBe(3);
    expect(request.stderr).toContain('V3_ADDRESS');
    expect(jsonError(request.stderr).message).toMatch(/^V3_ADDRESS=0x[0-9a-fA-F]{40} is not a CredentialAtomicQueryV3StableValidator .*it is the State contract \(STATE_CONTRACT_ADDRESS\)/);
    // The MTP validator answers the same read (getSupportedCircuitIds), with no V3 circuit among its ids.
    const mtp = await runVcInProcess(['--json', 'verifier', 'request', '--circuit', 'credentialAtomicQueryV3OnChain', '--op', '$sd'], { home: newHome(), env: { ...env, V3_ADDRESS: deployed.MTP_ADDRESS! } });
    expect(mtp.status, mtp.stderr).toBe(3);
    expect(jsonError(mtp.stderr).message).toMatch(/^V3_ADDRESS=.* is not a CredentialAtomicQueryV3StableValidator .*the MTP validator \(MTP_ADDRESS\)/);
    // The deployer's own V3_ADDRESS passes the same check.
    const right = await runVcInProcess(['--json', 'verifier', 'request', '--circuit', 'credentialAtomicQueryV3OnChain', '--op', '$sd'], { home: newHome(), env });
    expect(right.status, right.stderr).toBe(0);

    const issuerHome = newHome();
    const holder = (await runVcInProcess(['--json', 'holder', 'did', 'create'], { home: newHome() })).json<{ did_String: string }>().did_String;
    const issued = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holder, '--status', 'onchain'], { home: issuerHome, env: { ...env, IDENTITY_TREE_STORE_ADDRESS: deployed.STATE_CONTRACT_ADDRESS! } });
    expect(issued.status, issued.stderr).toBe(3);
    expect(issued.stderr).toContain('IDENTITY_TREE_STORE_ADDRESS');
    expect(jsonError(issued.stderr).message).toMatch(/^IDENTITY_TREE_STORE_ADDRESS=.* is not an IdentityTreeStore .*the State contract/);
    expect(issued.stderr).not.toMatch(/require\(false\)|\n\s+at /);
  }, 300_000);

  it('an unreachable RPC_URL is a NetworkError (exit 4) naming the URL', async () => {
    const closedPort = await findFreePort(); // nothing listens there
    const url = `http://127.0.0.1:${closedPort}`;
    const error = await connectChain(newContext(newHome(), { RPC_URL: url, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY })).catch((e: unknown) => e);
    expect((error as { exitCode?: number }).exitCode).toBe(4);
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toMatch(/ECONNREFUSED|refused/i);
  }, 20_000);

  it('refuses dev verifiers on a chain that is not a development chain', async () => {
    const nonDevHome = newHome();
    const node = await ensureLocalNode(newContext(nonDevHome, { CHAIN_ID: '777', NETWORK_NAME: 'test:net777' }));
    const official = iden3Artifact('Groth16VerifierStateTransition');
    const ctx = newContext(newHome(), { RPC_URL: node.rpcUrl, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY, CHAIN_ID: '777', NETWORK_NAME: 'test:net777' });
    const error = await deployContracts(ctx, { verifiers: { stateTransition: { abi: official.abi, bytecode: official.bytecode } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/not a development chain/);
  }, 60_000);
});

describe("the identity of a home's embedded chain", () => {
  it('a marker of its own, kept across restarts, and a new one in a copied home (the old one remembered as its past)', { timeout: 120_000 }, async () => {
    const first = newHome();
    const ctx = newContext(first);
    const node = await ensureLocalNode(ctx);
    const recorded = readHomeChainIdentity(ctx, 152)!;
    expect(recorded.marker).toMatch(/^0x[0-9a-f]{64}$/);
    const onChain = await readChainIdentity(node.rpcUrl, 152);
    expect(onChain).toEqual({ chainId: 152, genesisHash: recorded.genesisHash, marker: recorded.marker });

    // Restarted from its snapshot, again and again: the same chain, the same marker. (anvil adds a
    // genesis of its own at every start and dumps both block 0s in no fixed order; before vc kept
    // only the chain's own when loading, the second restart or a copy answered another block 0 in
    // about one run in three.)
    await stopLocalNode(ctx);
    for (let restart = 0; restart < 4; restart++) {
      const again = await ensureLocalNode(newContext(first));
      expect(isSameChain(await readChainIdentity(again.rpcUrl, 152), onChain), `restart ${restart + 1}`).toBe(true);
      expect(readHomeChainIdentity(newContext(first), 152)).toEqual(recorded);
      await stopLocalNode(newContext(first));
    }

    // A copy of the home (same snapshot, same block 0) gets a marker of its own: another chain.
    // The home is copied as a user would, with nothing using it: every context on it closed (an
    // open wallet keeps recent writes in its WAL file, which a copy taken meanwhile may split).
    for (const open of contexts.filter((c) => c.config.home === first)) await open.close();
    const copy = newHome();
    cpSync(first, copy, { recursive: true });
    const copied = newContext(copy);
    const copyNode = await ensureLocalNode(copied);
    const copyIdentity = await readChainIdentity(copyNode.rpcUrl, 152);
    expect(copyIdentity.genesisHash).toBe(onChain.genesisHash);
    expect(isSameChain(copyIdentity, onChain)).toBe(false);
    expect(readHomeChainIdentity(copied, 152)).toMatchObject({ marker: copyIdentity.marker, previous: [recorded.marker], stateDir: path.join(copy, 'chain', '152') });
    expect(isOwnEmbeddedChain(copied, onChain)).toBe(true);
    expect(isOwnEmbeddedChain(ctx, copyIdentity)).toBe(false);
  });
});
