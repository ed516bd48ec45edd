/**
 * A wallet only ever uses its own chain node. The sequence of the README (its Chain section's
 * `vc chain up --port P`, then another home on the same port, as in Three services), which used to
 * let the first wallet adopt the second one's node (its own anvil could not bind, but the other
 * answered the readiness probe) and complete an interrupted issuance against that foreign chain:
 *
 *   A: chain up --port P; an issuance killed after its transaction was sent (a journal left);
 *      chain down
 *   B: chain up --port P
 *   A: every command that needs its node is refused, naming B's node (pid, home): its port is
 *      fixed, other wallets reach it there, so starting elsewhere would hand them another chain;
 *      `chain up --port P` is refused the same way; the journal stays pending
 *   A with RPC_URL at B's node: the journal is refused, naming both chains (never completed there)
 *   B: chain down; A: its own node starts on P again and completes its own journal.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { LOCAL_DEV_ACCOUNT_KEY } from '../../src/chain/connection.js';
import { readHomeChainIdentity } from '../../src/chain/chainIdentity.js';
import { findFreePort } from '../../src/chain/node/ports.js';
import { pendingPublication, type PendingPublication } from '../../src/core/pbq/publication.js';
import { runVcAsync, runVcInProcess, templateHome, tempDir, type VcRun } from '../helpers.js';

const LONG = 600_000;
const tmp = tempDir('vc-foreign-node-');
const homeA = path.join(tmp.dir, 'a');
const homeB = path.join(tmp.dir, 'b');
const env: Record<string, string | undefined> = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
let port: number;
let issuerDid: string;

/** `vc --json ARGS` in this process (the refusals are the commands', not the process'). */
function vc(home: string, args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<VcRun> {
  return runVcInProcess(['--json', ...args], { home, env: { ...env, ...extraEnv } });
}

function errorOf(run: VcRun): { message: string } {
  return (JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { error: { message: string } }).error;
}

/** A's journal, read without the issuer's lock (any vc command would try to reconcile it). */
async function journalOfA(): Promise<PendingPublication | undefined> {
  const ctx = new Context({ config: parseConfig({}, homeA) });
  try {
    return pendingPublication(ctx, issuerDid);
  } finally {
    await ctx.close();
  }
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeAll(async () => {
  // Two copies of the run's template home (contracts deployed on a stopped chain): each a chain of
  // its own (a copy gets a marker of its own when its node first starts), no deployment here.
  templateHome(homeA);
  templateHome(homeB);
  const circuits = await runVcInProcess(['circuits', 'build'], { home: homeA, env });
  expect(circuits.status, circuits.stderr).toBe(0);
  port = await findFreePort();
}, LONG);

afterAll(async () => {
  for (const home of [homeA, homeB]) await runVcInProcess(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('two homes on one port', () => {
  it('A on its fixed port: an issuance killed after sending its transaction leaves a journal naming A\'s chain', async () => {
    const up = await vc(homeA, ['chain', 'up', '--port', String(port)]);
    expect(up.status, up.stderr).toBe(0);
    const holder = await vc(homeA, ['holder', 'did', 'create']);
    expect(holder.status, holder.stderr).toBe(0);
    const issuer = await vc(homeA, ['issuer', 'did', 'create']);
    expect(issuer.status, issuer.stderr).toBe(0);
    const { payload } = issuer.json<{ payload: { method: string; id: string } }>();
    issuerDid = `did:${payload.method}:${payload.id}`;
    // The kill is the process': the built binary, spawned.
    const crashed = await runVcAsync(['--json', 'issuer', 'issue', '--holder', holder.json<{ did_String: string }>().did_String, '-o', path.join(tmp.dir, 'crashed.json')], {
      home: homeA,
      env: { ...env, VC_CRASH_AT: 'issue:tx-sent' },
    });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const journal = await journalOfA();
    expect(journal?.stage).toBe('sent');
    const ctx = new Context({ config: parseConfig({}, homeA) });
    try {
      // The journal names A's own chain: its chain id, block 0 and the marker A wrote into it.
      expect(journal?.chain).toMatchObject({ chainId: 152, marker: readHomeChainIdentity(ctx, 152)!.marker });
    } finally {
      await ctx.close();
    }
    expect((await vc(homeA, ['chain', 'down'])).status).toBe(0);
  }, LONG);

  it('B takes the port; A never adopts B\'s node: refused with the reason, its journal left pending', async () => {
    const upB = await vc(homeB, ['chain', 'up', '--port', String(port)]);
    expect(upB.status, upB.stderr).toBe(0);
    const held = new RegExp(`port ${port} is held by another node \\(pid ${upB.json<{ node: { pid: number } }>().node.pid}, home ${escape(homeB)}\\)`);

    const status = await vc(homeA, ['chain', 'status']);
    expect(status.status, status.stderr).toBe(4);
    expect(errorOf(status).message).toMatch(held);
    const listing = await vc(homeA, ['issuer', 'credentials']);
    expect(listing.status, listing.stderr).toBe(4);
    expect(errorOf(listing).message).toMatch(held);
    expect(listing.stderr).not.toMatch(/completing the interrupted/);
    const upA = await vc(homeA, ['chain', 'up', '--port', String(port)]);
    expect(upA.status, upA.stderr).toBe(4);
    expect(errorOf(upA).message).toMatch(held);
    expect((await journalOfA())?.stage).toBe('sent');
    // B's node is untouched and still B's.
    const statusB = await vc(homeB, ['chain', 'status']);
    expect(statusB.status, statusB.stderr).toBe(0);
    expect(statusB.json<{ node: { started: boolean } }>().node.started).toBe(false);
  }, LONG);

  it('A pointed at B\'s node through RPC_URL: the journal is refused, naming both chains, never completed there', async () => {
    const viaRpc = await vc(homeA, ['issuer', 'credentials'], { RPC_URL: `http://127.0.0.1:${port}`, WALLET_KEY: LOCAL_DEV_ACCOUNT_KEY });
    expect(viaRpc.status, viaRpc.stderr).toBe(3);
    expect(errorOf(viaRpc).message).toMatch(/journaled against chain 152 \(genesis 0x[0-9a-f]+…, marker 0x[0-9a-f]+…\), but this wallet is connected to chain 152 \(genesis 0x[0-9a-f]+…, marker 0x[0-9a-f]+…\)/);
    expect(viaRpc.stderr).not.toMatch(/completing the interrupted/);
    expect((await journalOfA())?.stage).toBe('sent');
  }, LONG);

  it('B gone: A\'s own node starts on its port again and completes its own journal', async () => {
    expect((await vc(homeB, ['chain', 'down'])).status).toBe(0);
    const listing = await vc(homeA, ['issuer', 'credentials']);
    expect(listing.status, listing.stderr).toBe(0);
    const { recovered, credentials } = listing.json<{ recovered?: { kind: string; credentials: string[] }; credentials: Array<{ id: string }> }>();
    expect(recovered?.kind).toBe('issue');
    expect(credentials.map((c) => c.id)).toEqual(recovered!.credentials);
    expect(await journalOfA()).toBeUndefined();
    const status = await vc(homeA, ['chain', 'status']);
    expect(status.json<{ rpcUrl: string }>().rpcUrl).toBe(`http://127.0.0.1:${port}`);
  }, LONG);
});
