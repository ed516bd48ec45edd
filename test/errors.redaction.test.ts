/**
 * An API key in RPC_URL or RHS_URL (path, query or user info) is never printed: not by
 * `vc config show`, not in error messages, not in the server's log. The origin stays visible.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { runVc, runVcAsync, startVcServe, tempDir, type VcServer } from './helpers.js';

const SECRET = 'SECRETKEY123';
const ORIGIN = 'https://rpc.example.invalid';
const WALLET_KEY = `0x${'ab'.repeat(32)}`;
const RPC_URLS = {
  path: `${ORIGIN}/v3/${SECRET}`,
  userInfo: `https://user:${SECRET}@rpc.example.invalid`,
  query: `${ORIGIN}/?apikey=${SECRET}`,
};
const RHS_URL = `https://rhs.example.invalid/node/${SECRET}?token=${SECRET}`;

const work = tempDir('vc-redact-');
afterAll(() => work.cleanup());

function env(rpcUrl: string): Record<string, string> {
  // CHAIN_ID of a real network, so the commands go to RPC_URL (which does not resolve: fast failure).
  return { RPC_URL: rpcUrl, WALLET_KEY, RHS_URL, CHAIN_ID: '80002' };
}

function expectNoSecret(run: { stdout: string; stderr: string }): void {
  expect(run.stdout).not.toContain(SECRET);
  expect(run.stderr).not.toContain(SECRET);
}

describe('URLs with API keys are masked', () => {
  for (const [form, rpcUrl] of Object.entries(RPC_URLS)) {
    it(`vc config show and --json show the origin of RPC_URL and RHS_URL, never the key (${form})`, () => {
      const home = `${work.dir}/config-${form}`;
      for (const json of [false, true]) {
        const run = runVc([...(json ? ['--json'] : []), 'config', 'show'], { home, env: env(rpcUrl) });
        expect(run.status, run.stderr).toBe(0);
        expectNoSecret(run);
        const config = run.json<{ chain: { rpcUrl: string }; rhsUrl: string }>();
        expect(config.chain.rpcUrl).toBe(`${ORIGIN}/…`);
        expect(config.rhsUrl).toBe('https://rhs.example.invalid/…');
      }
    });
  }

  it('errors reaching the RPC endpoint exit 4 and name its origin only (chain status, verifier request)', async () => {
    const runs = await Promise.all([
      ...Object.entries(RPC_URLS).map(([form, rpcUrl]) => runVcAsync(['chain', 'status'], { home: `${work.dir}/chain-${form}`, env: env(rpcUrl) })),
      runVcAsync(['verifier', 'request'], { home: `${work.dir}/request`, env: env(RPC_URLS.path) }),
    ]);
    for (const run of runs) {
      expect(run.status, run.stderr).toBe(ExitCode.network);
      expectNoSecret(run);
      expect(run.stderr).toContain(ORIGIN);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('the server log (request lines and error messages) and its 502 answers never show the key', async () => {
    let server: VcServer | undefined;
    try {
      server = await startVcServe(`${work.dir}/serve`, ['--role', 'verifier'], { env: env(RPC_URLS.path) });
      const response = await fetch(`${server.urls.verifier}/credential-requests?apikey=${SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const body = await response.text();
      expect(response.status, body).toBe(502);
      expect(body).not.toContain(SECRET);
      expect(body).toContain(ORIGIN);
      // The request line is logged when the response is sent.
      const deadline = Date.now() + 5_000;
      while (!server.stderr().includes('"status":502') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const log = server.stderr();
      expect(log).toContain('"status":502');
      expect(log).toMatch(/NetworkError: .*https:\/\/rpc\.example\.invalid\/…/);
      expect(log).not.toContain(SECRET);
    } finally {
      await server?.stop();
    }
  });
});
