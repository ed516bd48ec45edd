/**
 * Iden3commRevocationStatusV1.0 when things go wrong around the truth (the well-behaved exchange
 * and the js-sdk's side: agentStatus.test.ts):
 * - `vc issuer issue --status agent` killed once its state transition is mined (VC_CRASH_AT=
 *   issue:receipt): the served agent still answers, at the state the chain now holds (the one the
 *   completed credential names), not with a 409 "never published" until the next command
 *   reconciles the journal; the same window opens on every publication between its receipt and
 *   its record;
 * - a holder in another wallet (sharing the chain) asks through an agent that lies "revoked" of a
 *   credential that is not: refused, since its proof does not lead to the revocation root;
 * - once the issuer's chain is replaced (`vc chain reset`), the chain holds no state for an issuer
 *   that published: its genesis state would say "not revoked" of everything revoked since, so the
 *   answer is a refusal naming the replaced chain.
 * One state transition (the killed issuance); the recovery and the replaced chain prove nothing.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { W3CCredential } from '@0xpolygonid/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { VerificationError } from '../../src/errors.js';
import { getIden3 } from '../../src/iden3/wallet.js';
import { jsonError, runVc, runVcInProcess, startVcServe, tempDir, templateHome, type VcRun, type VcServer } from '../helpers.js';

type Json = Record<string, unknown>;
const LONG = 600_000;
const REQUEST_STATUS = 'https://iden3-communication.io/revocation/1.0/request-status';
/** anvil's second development account: the other wallet's signer (it sends nothing here). */
const OTHER_ACCOUNT_KEY = '0x59c6995e998f97a5a0044966f0945389dc9c86dae88c7a8412f4603b6b78690d';

const tmp = tempDir('vc-agent-attack-');
const home = templateHome(path.join(tmp.dir, 'home'));
const otherHome = templateHome(path.join(tmp.dir, 'other'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
/** In this process (no node start-up), but for a run that a crash point kills (a child process). */
const vc = (args: string[], extra: Record<string, string> = {}): Promise<VcRun> =>
  extra.VC_CRASH_AT === undefined ? runVcInProcess(['--json', ...args], { home, env: { ...env, ...extra } }) : Promise.resolve(runVc(['--json', ...args], { home, env: { ...env, ...extra } }));
const ok = (run: VcRun): VcRun => {
  expect(run.status, run.stderr).toBe(0);
  return run;
};

let server: VcServer | undefined;
let proxy: Server;
let proxyUrl: string;
let otherCtx: Context | undefined;
/** How the agent in front of vc's lies: not at all, or "revoked" of whatever it is asked. */
let lie: 'no' | 'revoked' = 'no';
let issuerDid: string;
let holderDid: string;
let chain: { rpcUrl: string; chainId: number };

beforeAll(async () => {
  chain = ok(await vc(['chain', 'up'])).json<typeof chain>();
  holderDid = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  issuerDid = ok(await vc(['issuer', 'did', 'create'])).json<{ did_String: string }>().did_String;
  server = await startVcServe(home, ['--role', 'issuer'], { env });
  // An agent in front of vc's: it passes the request on and the answer back, lying when told.
  proxy = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      void (async () => {
        const answer = await fetch(`${server!.urls.issuer!}/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        const message = (await answer.json()) as { body?: { mtp?: { existence: boolean } } };
        if (lie === 'revoked' && message.body?.mtp !== undefined) message.body.mtp.existence = true;
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(message));
      })().catch((error: unknown) => {
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: String(error) }));
      });
    });
  });
  proxyUrl = await new Promise<string>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`)));
}, LONG);

afterAll(async () => {
  await otherCtx?.close();
  await server?.stop();
  proxy?.closeAllConnections();
  proxy?.close();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

async function askAgent(nonce: number): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${server!.urls.issuer!}/agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'a1', type: REQUEST_STATUS, from: holderDid, to: issuerDid, body: { revocation_nonce: nonce } }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

describe('the agent around a publication, a lying agent, a replaced chain', () => {
  let credential: Json;

  it('answers at the state the chain holds after an issuance was killed once its transaction was mined, before anything reconciled it', async () => {
    const killed = await vc(['issuer', 'issue', '--holder', holderDid, '--status', 'agent'], { VC_CRASH_AT: 'issue:receipt', VC_ISSUER_URL: proxyUrl });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const during = await askAgent(1);
    expect(during.status, JSON.stringify(during.body)).toBe(200);

    // The next command completes the credential: the agent's answer was at the state it names.
    const { recovered } = ok(await vc(['issuer', 'credentials'])).json<{ recovered: { kind: string; credentials: string[] } }>();
    expect(recovered).toMatchObject({ kind: 'issue', credentials: [expect.any(String)] });
    credential = ok(await vc(['issuer', 'credentials', '--id', recovered.credentials[0]!])).json<Json>();
    expect(credential.credentialStatus).toMatchObject({ id: `${proxyUrl}/agent`, type: 'Iden3commRevocationStatusV1.0' });
    const mtp = (credential.proof as Json[]).find((proof) => proof.type === 'Iden3SparseMerkleTreeProof') as { issuerData: { state: { value: string } } };
    expect((during.body.body as { issuer: { state: string } }).issuer.state).toBe(mtp.issuerData.state.value);
  }, LONG);

  it("a holder of another wallet reads it as not revoked, and refuses an agent's untrue \"revoked\" with the reason", async () => {
    otherCtx = new Context({ config: parseConfig({ RPC_URL: chain.rpcUrl, CHAIN_ID: String(chain.chainId), WALLET_KEY: OTHER_ACCOUNT_KEY }, otherHome) });
    const { credentialWallet } = await getIden3(otherCtx);
    const held = W3CCredential.fromJSON(credential as never);
    // Not held by this wallet's issuers: asked over HTTP, through the agent in front of vc's.
    const status = await credentialWallet.getRevocationStatusFromCredential(held);
    expect(status.mtp.existence).toBe(false);
    lie = 'revoked';
    const refused = await credentialWallet.getRevocationStatusFromCredential(held).catch((error: unknown) => error);
    lie = 'no';
    expect(refused).toBeInstanceOf(VerificationError);
    const nonce = (credential.credentialStatus as { revocationNonce: number }).revocationNonce;
    expect((refused as Error).message).toMatch(new RegExp(`does not hold: its proof that nonce ${nonce} is revoked does not lead to the revocation root of the state$`));
  }, LONG);

  it('refuses to answer from the genesis state once the chain that held its states is replaced', async () => {
    await server!.stop();
    server = undefined;
    ok(await vc(['chain', 'reset', '--yes']));
    ok(await vc(['chain', 'up']));
    // The holder sharing the issuer's wallet answers itself, as the agent would (409). Its signature
    // proof holds whatever the chain (the genesis state suffices), so only the status can refuse it.
    ok(await vc(['holder', 'credentials', 'delete', String(credential.id)]));
    const file = path.join(tmp.dir, 'signature-only.json');
    writeFileSync(file, JSON.stringify({ ...credential, proof: (credential.proof as Json[]).filter((proof) => proof.type === 'BJJSignature2021') }));
    const refused = await vc(['holder', 'credentials', 'import', file]);
    expect(refused.status, refused.stderr).not.toBe(0);
    expect(jsonError(refused.stderr).message).toBe(`the State contract holds no state for ${issuerDid}, though this wallet published 1 (was the chain replaced?)`);
  }, LONG);
});
