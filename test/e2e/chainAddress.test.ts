/**
 * `vc chain up --port N [--host H]`: the embedded node keeps a fixed address other wallets can
 * use through RPC_URL, across restarts, with its state.
 */
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/chain/node/ports.js';
import { runVcInProcess, tempDir, templateHome } from '../helpers.js';

const tmp = tempDir('vc-chain-address-');
const home = templateHome(path.join(tmp.dir, 'home'));
const busyHome = templateHome(path.join(tmp.dir, 'busy'));
let busy: Server | undefined;

afterAll(async () => {
  busy?.close();
  for (const dir of [home, busyHome]) await runVcInProcess(['--json', 'chain', 'down'], { home: dir });
  tmp.cleanup();
});

interface Status {
  rpcUrl: string;
  blockNumber: number;
}

// The commands run in this process (runVcInProcess): what is checked is what they do and say.
describe('a fixed address for the embedded node', () => {
  it('moves a running node to the port asked for, keeps it there across restarts, with its state', async () => {
    const first = await runVcInProcess(['--json', 'chain', 'up'], { home });
    expect(first.status, first.stderr).toBe(0);
    const port = await findFreePort();
    const moved = await runVcInProcess(['--json', 'chain', 'up', '--port', String(port)], { home });
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.json<Status>().rpcUrl).toBe(`http://127.0.0.1:${port}`);
    expect(moved.json<Status>().blockNumber).toBe(first.json<Status>().blockNumber);
    expect((await runVcInProcess(['--json', 'chain', 'down'], { home })).status).toBe(0);
    const again = await runVcInProcess(['--json', 'chain', 'status'], { home });
    expect(again.json<Status>().rpcUrl).toBe(`http://127.0.0.1:${port}`);
    const env = await runVcInProcess(['chain', 'env'], { home });
    expect(env.stdout).toContain(`RPC_URL=http://127.0.0.1:${port}\n`);
    // Every interface, same port: our own node holds the port, so it is moved, not refused.
    const everywhere = await runVcInProcess(['--json', 'chain', 'up', '--host', '0.0.0.0'], { home });
    expect(everywhere.status, everywhere.stderr).toBe(0);
    expect(everywhere.json<Status>().rpcUrl).toBe(`http://127.0.0.1:${port}`);
    expect(everywhere.json<{ node: { started: boolean } }>().node.started).toBe(true);
  }, 300_000);

  it('refuses a port in use or a host that is not an IP address before changing anything', async () => {
    const before = await runVcInProcess(['--json', 'chain', 'up'], { home: busyHome });
    expect(before.status, before.stderr).toBe(0);
    // `up` gave the embedded node the verifiers of the (development) circuits, before anyone uses it:
    // the two of the default set; a V3 verifier is dev only once its on-demand circuit was built
    // in this cache (by another test or not), official until then.
    const verifiers = (await runVcInProcess(['--json', 'chain', 'status'], { home: busyHome })).json<{ verifiers: Record<string, { source: string }> }>().verifiers;
    expect(verifiers.stateTransition?.source).toBe('dev');
    expect(verifiers.credentialAtomicQueryMTPV2OnChain?.source).toBe('dev');
    for (const [circuit, verifier] of Object.entries(verifiers)) expect(['dev', 'official'], circuit).toContain(verifier.source);
    const port = await findFreePort();
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(port, '127.0.0.1', resolve));
    const taken = await runVcInProcess(['--json', 'chain', 'up', '--port', String(port)], { home: busyHome });
    expect(taken.status).toBe(4);
    expect(JSON.parse(taken.stderr.trim().split('\n').at(-1)!).error.message).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
    const badHost = await runVcInProcess(['--json', 'chain', 'up', '--host', 'localhost'], { home: busyHome });
    expect(badHost.status).toBe(2);
    expect(JSON.parse(badHost.stderr.trim()).error).toMatchObject({ field: '--host', message: expect.stringMatching(/expected an IP address/) });
    // The node kept running where it was, and the next command uses it there.
    const after = await runVcInProcess(['--json', 'chain', 'status'], { home: busyHome });
    expect(after.status, after.stderr).toBe(0);
    expect(after.json<Status>().rpcUrl).toBe(before.json<Status>().rpcUrl);
    expect(after.json<{ node: { started: boolean } }>().node.started).toBe(false);
    const external = await runVcInProcess(['--json', 'chain', 'up', '--port', '9999'], { home: busyHome, env: { RPC_URL: 'http://127.0.0.1:9', WALLET_KEY: `0x${'11'.repeat(32)}` } });
    expect(external.status).toBe(2);
    expect(JSON.parse(external.stderr.trim()).error).toMatchObject({ field: '--port', message: expect.stringMatching(/applies to the embedded node/) });
  }, 300_000);
});
