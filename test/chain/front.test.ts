/**
 * The embedded node's front (src/chain/node/front.ts): what any party of a `vc chain up --port P`
 * node is told survives a kill -9 of the node. Another party sends transactions through the
 * public address (as through RPC_URL); the node is killed right after a receipt is served, right
 * after a racing reader saw a new block number, and right after the send was answered; after the
 * restart every transaction or block any party was shown is on chain. A node killed while its
 * state is saved is a NetworkError with the reason (exit 4), never an internal error, and the next
 * command restarts it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract, HDNodeWallet, JsonRpcProvider, Network } from 'ethers';
import { universalVerifierAbi } from '../../src/chain/universalVerifier.js';
import { findFreePort } from '../../src/chain/node/ports.js';
import { fetchStateDump } from '../../src/chain/node/snapshots.js';
import { isMutatingMethod, startFront } from '../../src/chain/node/front.js';
import { NetworkError, asConnectionFailure } from '../../src/errors.js';
import { jsonError, runVcAsync, runVcInProcess, tempDir, templateHome, type VcRun } from '../helpers.js';

const LONG = 300_000;
const tmp = tempDir('vc-front-');
const home = path.join(tmp.dir, 'owner');
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
const network = Network.from(152);
let port: number;
let url: string;

/** `vc --json ARGS` in this process (runVcInProcess): what the command does and says. */
function vc(args: string[], extraEnv: Record<string, string> = {}): Promise<VcRun> {
  return runVcInProcess(['--json', ...args], { home, env: { ...env, ...extraEnv } });
}

/** The running node's pid, from `vc chain status`. */
async function nodePid(): Promise<number> {
  const status = await vc(['chain', 'status']);
  expect(status.status, status.stderr).toBe(0);
  return status.json<{ node: { pid: number } }>().node.pid;
}

function killNode(pid: number): void {
  process.kill(pid, 'SIGKILL');
}

/** Another party: anvil's dev account #3, through the public address. */
function party(): { provider: JsonRpcProvider; wallet: HDNodeWallet } {
  const provider = new JsonRpcProvider(url, network, { staticNetwork: network, pollingInterval: 10, cacheTimeout: -1 });
  const wallet = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'/0/3").connect(provider);
  return { provider, wallet };
}

beforeAll(async () => {
  templateHome(home);
  port = await findFreePort();
  url = `http://127.0.0.1:${port}`;
  const up = await vc(['chain', 'up', '--port', String(port)]);
  expect(up.status, up.stderr).toBe(0);
}, LONG);

afterAll(async () => {
  await runVcInProcess(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('the front of a chain up node', () => {
  it('classifies the methods that change the chain', () => {
    for (const method of ['eth_sendRawTransaction', 'eth_sendTransaction', 'anvil_setStorageAt', 'evm_mine', 'evm_revert', 'hardhat_setBalance']) expect(isMutatingMethod(method), method).toBe(true);
    for (const method of ['eth_call', 'eth_blockNumber', 'eth_getTransactionReceipt', 'eth_getLogs', 'anvil_dumpState', 'anvil_nodeInfo', undefined]) expect(isMutatingMethod(method), String(method)).toBe(false);
  });

  it('every receipt, block number and send answer another party saw survives a kill -9 of the node', async () => {
    for (const offset of ['receipt', 'block number seen', 'send answered'] as const) {
      const pid = await nodePid();
      const { provider, wallet } = party();
      let shown: { hash: string; block: number };
      if (offset === 'receipt') {
        const receipt = (await (await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n })).wait())!;
        killNode(pid);
        shown = { hash: receipt.hash, block: receipt.blockNumber };
      } else if (offset === 'block number seen') {
        // A reader racing the send: the node dies the moment any read shows the new block.
        const before = await provider.getBlockNumber();
        const sending = wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n }).catch(() => undefined);
        let seen = before;
        while (seen === before) seen = await provider.getBlockNumber();
        killNode(pid);
        const sent = await sending;
        shown = { hash: sent?.hash ?? '', block: seen };
      } else {
        const sent = await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 1n });
        killNode(pid);
        shown = { hash: sent.hash, block: -1 };
      }
      provider.destroy();
      expect(await nodePid(), offset).not.toBe(pid); // restarted from its saved state
      const after = party();
      try {
        if (shown.block >= 0) expect(await after.provider.getBlockNumber(), offset).toBeGreaterThanOrEqual(shown.block);
        if (shown.hash !== '') expect(await after.provider.getTransactionReceipt(shown.hash), offset).not.toBeNull();
      } finally {
        after.provider.destroy();
      }
    }
  }, LONG);

  it('the front goes with its node, and the next command restarts both on the same address', async () => {
    const pid = await nodePid();
    killNode(pid);
    const again = await vc(['chain', 'status']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.json<{ rpcUrl: string }>().rpcUrl).toBe(url);
  }, LONG);
});

describe('a node killed while its state is saved', () => {
  it('is a NetworkError naming the reason (exit 4), through the cause chain too', async () => {
    // A node that dies in the middle of its answer to anvil_dumpState.
    const server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      response.write('{"jsonrpc":"2.0","id":1,"result":"0x1f8b');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    try {
      const failure = await fetchStateDump(`http://127.0.0.1:${address.port}`, '/h/state.json').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(NetworkError);
      expect((failure as NetworkError).exitCode).toBe(4);
      expect((failure as Error).message).toMatch(/the local chain node's state could not be saved: .*\/h\/state.json is unchanged/);
      const refused = await fetchStateDump(`http://127.0.0.1:${await findFreePort()}`, '/h/state.json').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(NetworkError);
      // The library error underneath keeps its cause: an entry point walking it sees a lost connection.
      expect(asConnectionFailure((refused as NetworkError).cause)).toBeInstanceOf(NetworkError);
    } finally {
      server.close();
    }
  });

  it("the front answers the send it could not save with the reason (the node killed), not a dropped connection", async () => {
    // A node that mines the transaction and dies while it dumps its state; a live process stands
    // for its pid (the front kills it, fail-stop).
    const hash = `0x${'ab'.repeat(32)}`;
    const node = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        if (method === 'anvil_dumpState') {
          response.socket?.destroy();
          return;
        }
        const result = method === 'eth_getTransactionReceipt' ? { transactionHash: hash, status: '0x1', blockNumber: '0x2' } : hash;
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    const stand = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const standExit = new Promise<NodeJS.Signals | null>((resolve) => stand.once('exit', (_code, signal) => resolve(signal)));
    const snapshotFile = path.join(tmp.dir, 'front-unit-served.json');
    const port = await findFreePort();
    const { stopped } = await startFront({ host: '127.0.0.1', port, nodeUrl: `http://127.0.0.1:${(node.address() as { port: number }).port}`, nodePid: stand.pid!, snapshotFile });
    try {
      const response = await fetch(`http://127.0.0.1:${port}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransaction', params: ['0x00'] }),
      });
      const reply = (await response.json()) as { id: number; result?: unknown; error?: { message: string } };
      expect(reply.id).toBe(7);
      expect(reply.result).toBeUndefined();
      expect(reply.error?.message).toMatch(/the chain node's state could not be saved \(.*anvil_dumpState.*\); the change is not kept: send it again once the node is restarted/);
      expect(await standExit).toBe('SIGKILL');
      await stopped;
      expect(existsSync(snapshotFile)).toBe(false);
    } finally {
      stand.kill('SIGKILL');
      node.close();
    }
  });

  it('end to end: vc exits 4 naming the reason, without a stack, and the next command restarts the node and succeeds', async () => {
    const pid = await nodePid();
    const status = await vc(['chain', 'status']);
    const address = status.json<{ contracts: { universalVerifier: string } }>().contracts.universalVerifier;
    /** The UniversalVerifier's request count, read by another party. */
    const requests = async (): Promise<number> => {
      const { provider } = party();
      try {
        return Number(await new Contract(address, universalVerifierAbi(), provider).getFunction('getRequestsCount')());
      } finally {
        provider.destroy();
      }
    };
    const requestsBefore = await requests();
    // A command that changed the chain: vc saves the node's state after its transaction, and the
    // node is killed as that save asks it for its state (src/faults.ts).
    const killedOutput = path.join(tmp.dir, 'request-killed.json');
    // Through the binary: its exit code and stderr as the process ends them (no stack).
    const killed = await runVcAsync(['--json', 'verifier', 'request', '-o', killedOutput], { home, env: { ...env, VC_KILL_NODE_AT: 'checkpoint:dumping' } });
    expect(killed.status, killed.stderr).toBe(4);
    const error = jsonError(killed.stderr);
    expect(error.message).toMatch(/the local chain node's state could not be saved: anvil_dumpState .*failed.*state\.json is unchanged/);
    expect(killed.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(existsSync(killedOutput)).toBe(false);

    const next = await vc(['verifier', 'request', '-o', path.join(tmp.dir, 'request-next.json')]);
    expect(next.status, next.stderr).toBe(0);
    expect(await nodePid(), 'the node was not killed and restarted').not.toBe(pid);
    // The killed command's transaction was answered only once the front had saved it: both requests are on chain.
    expect(await requests()).toBe(requestsBefore + 2);
  }, LONG);
});
