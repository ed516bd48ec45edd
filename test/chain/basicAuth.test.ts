/**
 * An RPC_URL with `user:password@` (basic authentication, as some node providers use): the
 * credentials travel as an Authorization header, through vc's own JSON-RPC client and through
 * ethers, and the password appears in no output, error included.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_DEV_ACCOUNT_KEY } from '../../src/chain/connection.js';
import { rpcEndpoint } from '../../src/chain/jsonRpc.js';
import { runVc, runVcAsync, tempDir, templateHome } from '../helpers.js';

const USER = 'alice';
const PASSWORD = 'pw-Zq81x-never-printed';
const tmp = tempDir('vc-basic-auth-');
const home = templateHome(path.join(tmp.dir, 'node'));
const client = path.join(tmp.dir, 'client');
let proxy: Server;
let proxyUrl: string;
let chainEnv: Record<string, string>;
const seen = { authorized: 0, refused: 0 };

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

beforeAll(async () => {
  const env = runVc(['--json', 'chain', 'env'], { home });
  expect(env.status, env.stderr).toBe(0);
  chainEnv = env.json<Record<string, string>>();
  const upstream = chainEnv.RPC_URL!;
  const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  // A node provider's front: every request needs the credentials.
  proxy = createServer((request, response) => {
    void (async () => {
      const text = await body(request);
      if (request.headers.authorization !== expected) {
        seen.refused += 1;
        response.writeHead(401, { 'www-authenticate': 'Basic realm="rpc"' }).end('unauthorized');
        return;
      }
      seen.authorized += 1;
      const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    })();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 120_000);

afterAll(() => {
  proxy?.close();
  runVc(['--json', 'chain', 'down'], { home });
  tmp.cleanup();
});

function clientEnv(password: string): Record<string, string> {
  const { RPC_URL: _unused, ...rest } = chainEnv;
  return { ...rest, RPC_URL: proxyUrl.replace('http://', `http://${USER}:${password}@`), WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY };
}

describe('basic-auth RPC URLs', () => {
  it('splits the credentials off the URL', () => {
    expect(rpcEndpoint('https://u%40x:p%3Aw@rpc.example/v1?k=1')).toEqual({ url: 'https://rpc.example/v1?k=1', credentials: { username: 'u@x', password: 'p:w' } });
    expect(rpcEndpoint('http://a:b@127.0.0.1:8545')).toEqual({ url: 'http://127.0.0.1:8545', credentials: { username: 'a', password: 'b' } });
    expect(rpcEndpoint('http://127.0.0.1:8545')).toEqual({ url: 'http://127.0.0.1:8545', credentials: undefined });
  });

  it('reaches the chain with the credentials as an Authorization header, never printing the password', async () => {
    const status = await runVcAsync(['--home', client, '--json', 'chain', 'status'], { env: clientEnv(PASSWORD) });
    expect(status.status, status.stderr).toBe(0);
    const result = status.json<{ rpcUrl: string; embedded: boolean; blockNumber: number; contracts: { state: string } }>();
    expect(result.embedded).toBe(false);
    expect(result.contracts.state).toBe(chainEnv.STATE_CONTRACT_ADDRESS);
    expect(result.rpcUrl).toBe(`${proxyUrl}/…`);
    expect(seen.authorized).toBeGreaterThan(1);
    expect(seen.refused).toBe(0);
    // The human form too (summary on stderr).
    const human = await runVcAsync(['--home', client, 'chain', 'status'], { env: clientEnv(PASSWORD) });
    expect(human.status, human.stderr).toBe(0);
    const shown = await runVcAsync(['--home', client, '--json', 'config', 'show'], { env: clientEnv(PASSWORD) });
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.json<{ chain: { rpcUrl: string } }>().chain.rpcUrl).toBe(`${proxyUrl}/…`);
    for (const run of [status, human, shown]) expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    expect(human.stdout + human.stderr).not.toContain(USER);
  }, 120_000);

  it('reports a refused password as such (HTTP 401), without printing it', async () => {
    const wrong = `${PASSWORD}-wrong`;
    for (const args of [['--json', 'chain', 'status'], ['chain', 'status']]) {
      const run = await runVcAsync(['--home', client, ...args], { env: clientEnv(wrong) });
      expect(run.status).toBe(4);
      expect(run.stderr).toMatch(/HTTP 401/);
      expect(run.stderr).not.toMatch(/fetch failed|unreachable/i);
      expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    }
    expect(seen.refused).toBeGreaterThan(0);
  }, 120_000);
});
