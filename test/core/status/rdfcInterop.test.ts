/**
 * Bitstring Status Lists on eddsa-rdfc-2022 and ecdsa-rdfc-2019 credentials (Ed25519, P-256,
 * P-384), both ways with Digital Bazaar's libraries used directly (their vc.issue, verifyCredential
 * and cryptosuites, their checkStatus / createList / createCredential of
 * @digitalbazaar/vc-bitstring-status-list, their multikey libraries for did:key; see
 * test/sd/suites/rdfc/digitalBazaarSide.ts, which imports nothing of vc):
 * - vc's credentials issued with a status (the VC-API route and the issuance function), their lists
 *   signed with the credential's own suite and key and served at GET /status-lists/:id: their
 *   checkStatus (the list's proof and issuer checked) sees revoked, suspended, unsuspended and
 *   untouched as such, and their verifyCredential refuses the revoked and suspended ones;
 * - their credentials with a status, their list signed by their suite: vc's verifier accepts the
 *   clear bit, refuses the set one with the reason, and refuses a list whose bits were changed
 *   after signing or that another key signed;
 * - presentations both ways: their presentation of their credential, its list served on this
 *   machine, verifies in vc until the bit is set; vc's presentation of vc's credential verifies in
 *   their vc.verify (with their checkStatus) until vc revokes it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { cryptosuite as ecdsaCryptosuite } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import { cryptosuite as eddsaCryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as vcjs from '@digitalbazaar/vc';
import { checkStatus, createCredential, createList } from '@digitalbazaar/vc-bitstring-status-list';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { createHolderPresentation, describeHolderKey, verifyPresentation } from '../../../src/core/sd/presentations.js';
import { vcApiIssue } from '../../../src/core/sd/vcApiCredentials.js';
import { changeCredentialStatus } from '../../../src/core/status/issuerStatusLists.js';
import { startServer, type RunningServer } from '../../../src/http/server.js';
import { tempDir } from '../../helpers.js';
import { digitalBazaarIssue, digitalBazaarKey, digitalBazaarLoader, digitalBazaarPresent, type DigitalBazaarKey } from '../../sd/suites/rdfc/digitalBazaarSide.js';

type Json = Record<string, unknown>;
type Entry = { id: string; statusPurpose: string; statusListIndex: string; statusListCredential: string };
type KeyType = 'Ed25519' | 'P-256' | 'P-384';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const SD_PASSPORT_V2 = 'https://vc.example/contexts/sd-passport/v2';
const KEY_TYPES: readonly KeyType[] = ['Ed25519', 'P-256', 'P-384'];

const tmp = tempDir('vc-status-rdfc-interop-');
let ctx: Context;
let server: RunningServer;

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_WORKERS: '0' }, path.join(tmp.dir, 'home')) });
  server = await startServer(ctx, { roles: ['issuer'], port: 0, host: '127.0.0.1' });
}, 60_000);
afterAll(async () => {
  await server.close();
  await ctx.close();
  tmp.cleanup();
});

/** Their loader, serving the status lists given as well. */
async function loaderWith(lists: Map<string, Json>): Promise<(url: string) => Promise<unknown>> {
  const base = await digitalBazaarLoader();
  return async (url: string) => {
    const list = lists.get(url);
    return list === undefined ? base(url) : { contextUrl: null, documentUrl: url, document: structuredClone(list) };
  };
}

/** Their verifying suite of `keyType`'s cryptosuite. */
function theirVerifySuite(keyType: KeyType): unknown {
  return new DataIntegrityProof({ cryptosuite: keyType === 'Ed25519' ? eddsaCryptosuite : ecdsaCryptosuite });
}

function cryptosuiteOf(keyType: KeyType): 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019' {
  return keyType === 'Ed25519' ? 'eddsa-rdfc-2022' : 'ecdsa-rdfc-2019';
}

/** A VC 2.0 licence of vc's passport type, unsigned and without an issuer (the issuer fills in its DID of the suite). */
function licence(subject: string): Json {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', SD_PASSPORT_V2],
    type: ['VerifiableCredential', 'PassportCredential'],
    validFrom: '2025-01-01T00:00:00Z',
    credentialSubject: { id: subject, name: 'Ada Example', nationality: 'NLD' },
  };
}

async function fetchList(url: string): Promise<Json> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as Json;
}

function entries(credential: Json): Entry[] {
  const status = credential.credentialStatus as Entry | Entry[];
  return Array.isArray(status) ? status : [status];
}

describe.each(KEY_TYPES.map((keyType) => [keyType] as const))("%s: vc's credentials and lists, checked by Digital Bazaar's checkStatus and verifyCredential", (keyType) => {
  it('sees revoked, suspended, unsuspended and untouched as such; the lists are signed with the credential\'s suite and key', async () => {
    const issue = async (subject: string, purposes: Array<'revocation' | 'suspension'>): Promise<Json> =>
      (await vcApiIssue(ctx, { credential: licence(subject), cryptosuite: cryptosuiteOf(keyType), ...(keyType === 'Ed25519' ? {} : { curve: keyType }), status: purposes })).verifiableCredential;
    const revoked = await issue('did:example:rev', ['revocation']);
    const suspended = await issue('did:example:sus', ['suspension']);
    const untouched = await issue('did:example:ok', ['revocation', 'suspension']);
    // Over the VC-API route too (POST /credentials/issue with options.credentialStatus).
    const response = await fetch(`${server.urls.issuer}/credentials/issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        credential: licence('did:example:http'),
        options: { cryptosuite: cryptosuiteOf(keyType), ...(keyType === 'Ed25519' ? {} : { curve: keyType }), credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' } },
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    const served = ((await response.json()) as { verifiableCredential: Json }).verifiableCredential;

    const issuer = revoked.issuer as string;
    for (const credential of [revoked, suspended, untouched, served]) {
      expect((credential.proof as Json).cryptosuite).toBe(cryptosuiteOf(keyType));
      expect(credential.issuer).toBe(issuer);
    }
    // Each suite and curve has lists of its own, served by the issuer service.
    const urls = new Set([...entries(revoked), ...entries(suspended), ...entries(untouched), ...entries(served)].map((entry) => entry.statusListCredential));
    expect(urls.size).toBe(2);
    const lists = new Map<string, Json>();
    for (const url of urls) {
      expect(url.startsWith(`${server.urls.issuer}/status-lists/`), url).toBe(true);
      const list = await fetchList(url);
      expect(list.issuer).toBe(issuer);
      expect((list.proof as Json).cryptosuite).toBe(cryptosuiteOf(keyType));
      lists.set(url, list);
    }

    await changeCredentialStatus(ctx, { id: entries(revoked)[0]!.id, purpose: 'revocation', set: true });
    await changeCredentialStatus(ctx, { id: entries(suspended)[0]!.id, purpose: 'suspension', set: true });
    await changeCredentialStatus(ctx, { id: entries(served)[0]!.id, purpose: 'suspension', set: true });
    await changeCredentialStatus(ctx, { id: entries(served)[0]!.id, purpose: 'suspension', set: false });
    for (const url of urls) lists.set(url, await fetchList(url));

    const documentLoader = await loaderWith(lists);
    const check = (credential: Json) =>
      checkStatus({ credential, documentLoader, suite: theirVerifySuite(keyType), verifyBitstringStatusListCredential: true, verifyMatchingIssuers: true });
    const onRevoked = await check(revoked);
    expect(onRevoked.error).toBeUndefined();
    expect(onRevoked).toMatchObject({ verified: true, results: [{ verified: true, status: true }] });
    expect(await check(suspended)).toMatchObject({ verified: true, results: [{ verified: true, status: true }] });
    expect(await check(served)).toMatchObject({ verified: true, results: [{ verified: true, status: false }] });
    expect(await check(untouched)).toMatchObject({ verified: true, results: [{ status: false }, { status: false }] });

    // Their verifyCredential with their checkStatus: the revoked and suspended ones are refused.
    const theirVerdict = async (credential: Json): Promise<boolean> =>
      (
        await vcjs.verifyCredential({
          credential,
          suite: theirVerifySuite(keyType),
          documentLoader,
          checkStatus: async (options: { credential: object }) => {
            const status = await check(options.credential as Json);
            return { verified: status.verified && status.results!.every((result) => !result.status) };
          },
        })
      ).verified;
    expect(await theirVerdict(untouched)).toBe(true);
    expect(await theirVerdict(served)).toBe(true);
    expect(await theirVerdict(revoked)).toBe(false);
    expect(await theirVerdict(suspended)).toBe(false);

    // vc's own verifier, the lists fetched from the issuer service: the same verdicts, with reasons.
    const ours = async (credential: Json) => (await verifySelectiveDisclosure(ctx, { vc: credential })).checks.find((c) => c.id === 'status');
    expect(await ours(untouched)).toEqual({ id: 'status', valid: true });
    expect(await ours(served)).toEqual({ id: 'status', valid: true });
    expect(await ours(revoked)).toEqual({ id: 'status', valid: false, reason: `revoked: index ${entries(revoked)[0]!.statusListIndex} of status list ${entries(revoked)[0]!.statusListCredential} is set (revocation)` });
    expect((await ours(suspended))?.reason).toMatch(/^suspended: index \d+ of status list \S+ is set \(suspension\)$/);
  });
});

describe.each(KEY_TYPES.map((keyType) => [keyType] as const))("%s: vc's verifier on Digital Bazaar's credential and list", (keyType) => {
  const LIST_URL = `https://issuer.example/status/${keyType}`;
  const INDEX = 90_017;
  let key: DigitalBazaarKey;
  let credential: Json;

  beforeAll(async () => {
    key = await digitalBazaarKey(keyType);
    credential = await digitalBazaarIssue(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2', SD_PASSPORT_V2],
        type: ['VerifiableCredential', 'PassportCredential'],
        issuer: key.did,
        validFrom: '2025-01-01T00:00:00Z',
        credentialStatus: { id: `${LIST_URL}#${INDEX}`, type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: String(INDEX), statusListCredential: LIST_URL },
        credentialSubject: { id: 'did:example:dora', name: 'Dora Example', nationality: 'BEL' },
      },
      key,
    );
  });

  /** Their list with the entry's bit as given, signed by their suite with `signer`'s key (the credential's issuer by default). */
  async function theirList(revoked: boolean, signer: DigitalBazaarKey = key): Promise<Json> {
    const list = await createList({ length: 131_072 });
    if (revoked) list.setStatus(INDEX, true);
    const unsigned = { ...(await createCredential({ id: LIST_URL, list, statusPurpose: 'revocation' })), issuer: signer.did, validFrom: '2025-01-01T00:00:00Z' };
    return digitalBazaarIssue(unsigned, signer);
  }

  const status = async (lists: Json[]) => (await verifySelectiveDisclosure(ctx, { vc: credential, statusLists: lists })).checks.find((check) => check.id === 'status');

  it('accepts the clear bit, refuses the set one with its reason (and their checkStatus agrees)', async () => {
    const clear = await verifySelectiveDisclosure(ctx, { vc: credential, statusLists: [await theirList(false)] });
    expect(clear.checks.filter((check) => !check.valid)).toEqual([]);
    expect(clear.checks.find((check) => check.id === 'status')).toEqual({ id: 'status', valid: true });
    expect(await status([await theirList(true)])).toEqual({ id: 'status', valid: false, reason: `revoked: index ${INDEX} of status list ${LIST_URL} is set (revocation)` });
    for (const revoked of [false, true]) {
      const theirs = await checkStatus({ credential, documentLoader: await loaderWith(new Map([[LIST_URL, await theirList(revoked)]])), suite: theirVerifySuite(keyType), verifyMatchingIssuers: true });
      expect(theirs, String(revoked)).toMatchObject({ verified: true, results: [{ verified: true, status: revoked }] });
    }
  });

  it('refuses a list whose bits changed after it was signed, and one another key signed', async () => {
    const tampered = await theirList(true);
    const cleared = await createList({ length: 131_072 });
    (tampered.credentialSubject as Json).encodedList = await cleared.encode();
    const onTampered = await status([tampered]);
    expect(onTampered?.valid).toBe(false);
    expect(onTampered?.reason).toMatch(new RegExp(`^status list ${LIST_URL}: the list \\(given\\) does not verify: its ${cryptosuiteOf(keyType)} proof does not verify`));

    const stranger = await digitalBazaarKey(keyType);
    const onStranger = await status([await theirList(false, stranger)]);
    expect(onStranger).toEqual({ id: 'status', valid: false, reason: `status list ${LIST_URL} (given) is issued by ${stranger.did}, not by the credential's issuer ${key.did}` });
  });
});

describe('presentations with a status, both ways', () => {
  const CHALLENGE = 'challenge-status';
  const DOMAIN = 'verifier.example';
  /** What their issuer publishes, on this machine (path -> list credential). */
  const published = new Map<string, Json>();
  /** Every path their server was asked for. */
  const asked: string[] = [];
  let theirServer: Server;
  let base: string;
  let verifier: Context;

  beforeAll(async () => {
    theirServer = createServer((request, response) => {
      asked.push(request.url ?? '');
      const list = published.get(request.url ?? '');
      response.writeHead(list === undefined ? 404 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(list ?? { error: 'not found' }));
    });
    await new Promise<void>((resolve) => theirServer.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(theirServer.address() as AddressInfo).port}`;
    // A verifier whose issuer address is theirs (so it may fetch their lists), trusting every issuer.
    verifier = new Context({ config: parseConfig({ VC_ISSUER_URL: base, VC_TRUSTED_ISSUERS: '*', VC_WORKERS: '0' }, path.join(tmp.dir, 'verifier')) });
  });
  afterAll(async () => {
    await verifier.close();
    await new Promise((resolve) => theirServer.close(resolve));
  });

  it.each(KEY_TYPES.map((keyType) => [keyType] as const))("%s: their presentation of their credential verifies in vc until their list sets the bit", async (keyType) => {
    const issuer = await digitalBazaarKey(keyType);
    const holder = await digitalBazaarKey(keyType);
    const listPath = `/status-lists/their-${keyType}`;
    const INDEX = 4_242;
    const credential = await digitalBazaarIssue(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2', SD_PASSPORT_V2],
        type: ['VerifiableCredential', 'PassportCredential'],
        issuer: issuer.did,
        validFrom: '2025-01-01T00:00:00Z',
        credentialStatus: { id: `${base}${listPath}#${INDEX}`, type: 'BitstringStatusListEntry', statusPurpose: 'suspension', statusListIndex: String(INDEX), statusListCredential: `${base}${listPath}` },
        credentialSubject: { id: holder.did, name: 'Hana Example', nationality: 'JPN' },
      },
      issuer,
    );
    const publish = async (set: boolean): Promise<void> => {
      const list = await createList({ length: 131_072 });
      if (set) list.setStatus(INDEX, true);
      const unsigned = { ...(await createCredential({ id: `${base}${listPath}`, list, statusPurpose: 'suspension' })), issuer: issuer.did, validFrom: '2025-01-01T00:00:00Z' };
      published.set(listPath, await digitalBazaarIssue(unsigned, issuer));
    };
    const presentation = await digitalBazaarPresent([credential], holder, CHALLENGE, DOMAIN);
    await publish(false);
    const clear = await verifyPresentation(verifier, { presentation, challenge: CHALLENGE, domain: DOMAIN });
    expect(clear.message).toMatch(/^presentation verified: 1 credential presented by /);
    expect(clear.credentials[0]!.checks).toContainEqual({ id: 'status', valid: true });
    await publish(true);
    const suspended = await verifyPresentation(verifier, { presentation, challenge: CHALLENGE, domain: DOMAIN });
    expect(suspended.verified).toBe(false);
    expect(suspended.message).toBe(`verification failed: credential 0: suspended: index ${INDEX} of status list ${base}${listPath} is set (suspension)`);
  });

  it.each(KEY_TYPES.map((keyType) => [keyType] as const))("%s: vc's presentation of vc's credential verifies in their vc.verify until vc revokes it", async (keyType) => {
    const holder = describeHolderKey(ctx, keyType).did;
    const credential = (await vcApiIssue(ctx, { credential: licence(holder), cryptosuite: cryptosuiteOf(keyType), ...(keyType === 'Ed25519' ? {} : { curve: keyType }), status: ['revocation'] })).verifiableCredential;
    const [entry] = entries(credential) as [Entry];
    const presentation = await createHolderPresentation(ctx, { credentials: [credential], challenge: CHALLENGE, domain: DOMAIN, keyType });
    const theirVerdict = async (): Promise<boolean> => {
      const documentLoader = await loaderWith(new Map([[entry.statusListCredential, await fetchList(entry.statusListCredential)]]));
      const result = await vcjs.verify({
        presentation,
        challenge: CHALLENGE,
        domain: DOMAIN,
        suite: [theirVerifySuite('Ed25519'), theirVerifySuite('P-256')],
        documentLoader,
        checkStatus: async (options: { credential: object }) => {
          const status = await checkStatus({ credential: options.credential as Json, documentLoader, suite: theirVerifySuite(keyType), verifyBitstringStatusListCredential: true, verifyMatchingIssuers: true });
          return { verified: status.verified && status.results!.every((result) => !result.status) };
        },
      });
      return result.verified;
    };
    expect(await theirVerdict()).toBe(true);
    await changeCredentialStatus(ctx, { id: entry.id, purpose: 'revocation', set: true });
    expect(await theirVerdict()).toBe(false);
  });

  it('a credential naming any other path on the issuer address gets no request sent there: its status is not at hand', async () => {
    const issuer = await digitalBazaarKey('Ed25519');
    for (const crafted of [`${base}/status-lists/../admin/delete-everything?confirm=1`, `${base}/status-lists/x?delete=1`, `${base}/admin`]) {
      const credential = await digitalBazaarIssue(
        {
          '@context': ['https://www.w3.org/ns/credentials/v2', SD_PASSPORT_V2],
          type: ['VerifiableCredential', 'PassportCredential'],
          issuer: issuer.did,
          validFrom: '2025-01-01T00:00:00Z',
          credentialStatus: { id: `${crafted}#1`, type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '1', statusListCredential: crafted },
          credentialSubject: { id: 'did:example:ssrf', name: 'Sam Example', nationality: 'NLD' },
        },
        issuer,
      );
      const before = asked.length;
      const result = await verifySelectiveDisclosure(verifier, { vc: credential });
      const check = result.checks.find((candidate) => candidate.id === 'status');
      expect(check?.valid, crafted).toBe(false);
      expect(check?.reason, crafted).toContain(': not at hand: ');
      expect(asked.slice(before), crafted).toEqual([]);
    }
  });
});
