/**
 * Bad input of `vc issuer offer` and `vc holder fetch` (issue 28): no chain, no proof. Each is
 * refused before anything is made, proved or sent, with one line naming the flag and what was
 * expected, exit 2 and nothing on stdout; the offer and fetch themselves are tested in
 * test/e2e/iden3commIssuer.test.ts.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVcInProcess, tempDir, type VcRun } from '../../helpers.js';

const tmp = tempDir('vc-iden3comm-offer-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home });
const OFFER_TYPE = 'https://iden3-communication.io/credentials/1.0/offer';
/** A holder DID of this wallet, and one of another wallet (valid DIDs, not this wallet's identities). */
let DID: string;
let OTHER_DID: string;

beforeAll(async () => {
  const made = await vc(['holder', 'did', 'create']);
  expect(made.status, made.stderr).toBe(0);
  DID = made.json<{ did_String: string }>().did_String;
  const other = await runVcInProcess(['--json', 'holder', 'did', 'create'], { home: path.join(tmp.dir, 'other-home') });
  expect(other.status, other.stderr).toBe(0);
  OTHER_DID = other.json<{ did_String: string }>().did_String;
}, 120_000);

afterAll(() => tmp.cleanup());

/** The command with these arguments: exit 2, nothing on stdout, one JSON error line; its message and field. */
async function refused(args: string[]): Promise<{ message: string; field?: string }> {
  const run = await vc(args);
  expect(run.status, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return jsonError(run.stderr) as { message: string; field?: string };
}

/** An offer file: a well-formed offer with one change. */
function offerFile(change: (offer: Record<string, unknown> & { body: Record<string, unknown> }) => void = () => undefined, raw?: string): string {
  const offer = { id: 'o-1', thid: 'o-1', typ: 'application/iden3comm-plain-json', type: OFFER_TYPE, from: OTHER_DID, to: DID, body: { url: 'http://127.0.0.1:9/agent', credentials: [{ id: 'urn:uuid:1', description: 'KYCAgeCredential' }] } };
  change(offer);
  const name = file(`offer-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(name, raw ?? JSON.stringify(offer));
  return name;
}

describe('vc issuer offer: bad input', () => {
  it('names --holder when it is missing or no iden3 DID', async () => {
    expect((await refused(['issuer', 'offer', '--id', 'urn:uuid:1'])).message).toMatch(/--holder/);
    const notDid = await refused(['issuer', 'offer', '--holder', 'did:example:123', '--id', 'urn:uuid:1']);
    expect(notDid.message).toMatch(/^--holder: expected the holder's iden3 DID/);
  });

  it('names --id when none is given, and --url when it is no http(s) URL', async () => {
    expect((await refused(['issuer', 'offer', '--holder', DID])).message).toMatch(/--id/);
    expect((await refused(['issuer', 'offer', '--holder', DID, '--id', 'urn:uuid:1', '--url', 'ftp://issuer.example/agent'])).message).toMatch(/^--url: expected the absolute http\(s\) URL of the issuer's agent/);
  });

  it('refuses a credential the issuer did not issue, naming --id', async () => {
    const unknown = await refused(['issuer', 'offer', '--holder', DID, '--id', 'urn:uuid:not-issued']);
    expect(unknown.message).toMatch(/^--id: issuer did:\S+ issued no credential urn:uuid:not-issued from this wallet/);
    // --id takes several, comma-separated: each is checked.
    const second = await refused(['issuer', 'offer', '--holder', DID, '--id', 'urn:uuid:not-issued-1, urn:uuid:not-issued-2']);
    expect(second.message).toMatch(/^--id: issuer did:\S+ issued no credential urn:uuid:not-issued-1 from this wallet/);
  });
});

describe('vc holder fetch: bad input', () => {
  it('names --offer when it is missing, not JSON, or not a credential offer', async () => {
    expect((await refused(['holder', 'fetch'])).message).toMatch(/--offer/);
    expect((await refused(['holder', 'fetch', '--offer', offerFile(undefined, '{"id": ')])).message).toMatch(/--offer.*not valid JSON/);
    const wrongType = await refused(['holder', 'fetch', '--offer', offerFile((offer) => (offer.type = 'https://iden3-communication.io/authorization/1.0/request'))]);
    expect(wrongType.message).toMatch(/--offer.*is a https:\/\/iden3-communication.io\/authorization\/1.0\/request message, not a credential offer/);
    expect((await refused(['holder', 'fetch', '--offer', offerFile((offer) => (offer.body.credentials = []))])).message).toMatch(/--offer.*body\.credentials: expected a non-empty list/);
    expect((await refused(['holder', 'fetch', '--offer', 'iden3comm://?request_uri=http://127.0.0.1:9/x'])).message).toMatch(/^--offer: expected a credential offer/);
  });

  it('refuses an agent on another host without --allow-remote, and over http with it', async () => {
    const remote = offerFile((offer) => (offer.body.url = 'http://issuer.example/agent'));
    expect((await refused(['holder', 'fetch', '--offer', remote])).message).toMatch(/issuer\.example is not this machine; vc reaches no other host unless you say so \(--allow-remote, https only\)/);
    expect((await refused(['holder', 'fetch', '--offer', remote, '--allow-remote'])).message).toMatch(/issuer\.example is not this machine, and vc reaches other hosts over https only/);
  });

  it('refuses an offer for a DID that is not an identity of this wallet (before any proof)', async () => {
    const notMine = await refused(['holder', 'fetch', '--offer', offerFile((offer) => (offer.to = OTHER_DID))]);
    expect(notMine.message).toMatch(new RegExp(`the offer is for ${OTHER_DID} is not an identity of the wallet`));
  });

  it('takes the offer from an iden3comm:// link (i_m=): the same checks', async () => {
    const link = `iden3comm://?i_m=${Buffer.from(JSON.stringify({ type: 'x' })).toString('base64')}`;
    expect((await refused(['holder', 'fetch', '--offer', link])).message).toMatch(/^--offer: is a x message, not a credential offer/);
  });
});
