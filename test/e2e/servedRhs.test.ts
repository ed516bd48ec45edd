/**
 * The reverse hash service a served issuer's credentials name is where that issuer listens: a
 * holder elsewhere can reach it (issue 14). `vc serve` says which URL on start. An issuer whose
 * RHS_URL is its own address issues (it posts its tree nodes to itself while it issues), and an
 * issuance retried with the same Idempotency-Key (after a dropped connection, or a server killed
 * mid-publication) gives one credential.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { resolveIssuerDid } from '../../src/core/pbq/identities.js';
import { pendingPublication } from '../../src/core/pbq/publication.js';
import { runVcInProcess, startVcServe, tempDir, templateHome, type VcServer } from '../helpers.js';

const tmp = tempDir('vc-served-rhs-');
const issuerHome = templateHome(path.join(tmp.dir, 'issuer'));
const holderHome = templateHome(path.join(tmp.dir, 'holder'));

afterAll(async () => {
  await runVcInProcess(['--json', 'chain', 'down'], { home: issuerHome });
  tmp.cleanup();
});

describe('an issuer served on a port of its own', () => {
  it('issues credentials naming its own address as their reverse hash service, which serves the status', async () => {
    const server = await startVcServe(issuerHome, ['--role', 'issuer']);
    try {
      const issuerUrl = server.urls.issuer!;
      expect(issuerUrl).not.toBe('http://127.0.0.1:3000');
      // Said on start (stderr follows the listening line on stdout).
      for (let waited = 0; waited < 5_000 && !server.stderr().includes('reverse hash service'); waited += 100) await new Promise((r) => setTimeout(r, 100));
      // Every URL in the server log shows its origin only (an RHS_URL may carry a key in its path).
      expect(server.stderr()).toContain(`issued credentials name the reverse hash service at ${issuerUrl}/…`);
      const holder = await runVcInProcess(['--json', 'holder', 'did', 'create'], { home: holderHome });
      expect(holder.status, holder.stderr).toBe(0);
      const response = await fetch(`${issuerUrl}/generate-pbq-credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ did: holder.json<{ did_String: string }>().did_String }),
      });
      expect(response.status).toBe(200);
      const { credential } = (await response.json()) as { credential: { credentialStatus: { id: string; revocationNonce: number } } };
      expect(credential.credentialStatus.id.startsWith(issuerUrl)).toBe(true);
      // The service named there answers the RHS API: the issuer's state root is a node it serves.
      const status = new URL(credential.credentialStatus.id);
      const state = status.searchParams.get('state');
      expect(state).toMatch(/^[0-9a-f]{64}$/);
      const node = await fetch(`${status.origin}${status.pathname}/${state}`);
      expect(node.status).toBe(200);
      expect(((await node.json()) as { node: { children: string[] } }).node.children).toHaveLength(3);
    } finally {
      await server.stop();
    }
  }, 900_000);
});

const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };

/** A port nothing listens on (the kernel's choice, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

type Issued = { status: number; credential: { id: string; credentialStatus: { id: string } } | undefined; replayed: string | null };

async function issue(base: string, did: string, key?: string): Promise<Issued> {
  const response = await fetch(`${base}/generate-pbq-credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify({ did }),
  });
  const body = (await response.json()) as { credential?: Issued['credential'] };
  return { status: response.status, credential: body.credential, replayed: response.headers.get('idempotent-replayed') };
}

/** Sends an issuance and drops the connection once the request is sent, reading no answer. */
function issueAndDrop(base: string, did: string, key: string): Promise<void> {
  const json = JSON.stringify({ did });
  const { port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST /generate-pbq-credentials HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', () => resolve());
  });
}

async function issuedCount(base: string): Promise<number> {
  const response = await fetch(`${base}/issued-credentials`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { credentials: unknown[] }).credentials.length;
}

describe('an issuer whose RHS_URL is its own address', () => {
  let port: number;
  let base: string;
  let server: VcServer | undefined;
  let holderDid: string;
  const start = async (extra: Record<string, string> = {}): Promise<VcServer> => {
    server = await startVcServe(issuerHome, ['--role', 'issuer'], { port, env: { ...env, RHS_URL: base, ...extra } });
    return server;
  };

  afterAll(async () => {
    await server?.stop();
  });

  it('issues over HTTP: it posts its tree nodes to its own POST /node while it issues', async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await start();
    holderDid = (await runVcInProcess(['--json', 'holder', 'did', 'create'], { home: holderHome })).json<{ did_String: string }>().did_String;
    const issued = await issue(base, holderDid);
    expect(issued.status).toBe(200);
    expect(issued.credential!.credentialStatus.id.startsWith(`${base}/node`)).toBe(true);
    // Its own POST /node answered while the issuance held the exclusive section.
    const nodePosts = server!.stderr().split('\n').filter((line) => line.includes('"route":"/node"') && line.includes('"method":"POST"'));
    expect(nodePosts.length).toBeGreaterThan(0);
    expect(nodePosts.every((line) => line.includes('"status":200'))).toBe(true);
  }, 900_000);

  it('an issuance retried with the same Idempotency-Key after a dropped connection gives one credential', async () => {
    const before = await issuedCount(base);
    await issueAndDrop(base, holderDid, 'dropped-1');
    // The retry comes while the first still runs (its state transition takes seconds): it waits for it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const retry = await issue(base, holderDid, 'dropped-1');
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe('true');
    const again = await issue(base, holderDid, '"dropped-1"');
    expect(again.replayed).toBe('true');
    expect(again.credential!.id).toBe(retry.credential!.id);
    expect(await issuedCount(base)).toBe(before + 1);
  }, 900_000);

  it('a server killed after sending the state transition: the retry with the same key gets the credential it journaled', async () => {
    const before = await issuedCount(base);
    await server!.stop();
    await start({ VC_CRASH_AT: 'issue:tx-sent' });
    const crashed = server!;
    const lost = await issue(base, holderDid, 'crashed-1').catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(Error);
    await crashed.stop();
    expect(crashed.child.signalCode).toBe('SIGKILL');
    // What the killed server left: a journal naming one credential.
    const ctx = new Context({ config: parseConfig({}, issuerHome) });
    let journaled: string;
    try {
      journaled = String(pendingPublication(ctx, await resolveIssuerDid(ctx))!.credentials[0]!.id);
    } finally {
      await ctx.close();
    }
    await start();
    const retry = await issue(base, holderDid, 'crashed-1');
    expect(retry.status).toBe(200);
    expect(retry.credential!.id).toBe(journaled);
    expect(await issuedCount(base)).toBe(before + 1);
  }, 900_000);
});
