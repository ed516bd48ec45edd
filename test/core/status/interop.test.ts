/**
 * Bitstring Status Lists both ways with Digital Bazaar's libraries used directly (their
 * checkStatus of @digitalbazaar/vc-bitstring-status-list, their @digitalbazaar/vc and bbs-2023
 * cryptosuite, a document loader of their context packages, their Multikey for the did:key):
 * - their checkStatus reads vc's served list (GET /status-lists/:id of a real issuer service)
 *   and sees vc's revoked and suspended credentials as such, and an untouched one as valid; their
 *   verifyCredential with that checkStatus refuses the revoked disclosure and accepts the other;
 * - a list built with their createList/createCredential and signed by their bbs-2023 suite, about
 *   a credential they issued and derived, is accepted by vc's verifier, which sees its bit.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as multikey from '@digitalbazaar/bls12-381-multikey';
import { createDiscloseCryptosuite, createSignCryptosuite, createVerifyCryptosuite } from '@digitalbazaar/bbs-2023-cryptosuite';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context';
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context';
import * as vcjs from '@digitalbazaar/vc';
import { checkStatus, createCredential, createList } from '@digitalbazaar/vc-bitstring-status-list';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { createVerifierNonce, deriveSelectiveDisclosure, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { issueBbs2023SelectiveDisclosureCredential } from '../../../src/core/sd/sdIssuance.js';
import { changeCredentialStatus } from '../../../src/core/status/issuerStatusLists.js';
import { startServer, type RunningServer } from '../../../src/http/server.js';
import { ROOT, tempDir } from '../../helpers.js';

type Json = Record<string, unknown>;
type Entry = { id: string; statusPurpose: string; statusListIndex: string; statusListCredential: string };

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const SD_PASSPORT_V2 = 'https://vc.example/contexts/sd-passport/v2';

const tmp = tempDir('vc-status-interop-');
let ctx: Context;
let server: RunningServer;

/** Digital Bazaar's side: its context packages, the passport context (a fixture), did:key documents of BLS12-381 Multikeys, and the status lists it is given. */
function dbLoader(lists: Map<string, Json> = new Map()): (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }> {
  const documents = new Map<string, unknown>([...credentialsContexts, ...dataIntegrityContexts, ...multikeyContexts]);
  documents.set(SD_PASSPORT_V2, JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'sd-passport-v2.json'), 'utf8')));
  documents.set('https://www.w3.org/ns/did/v1', JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'did-v1.json'), 'utf8')));
  return async (url) => {
    const listed = lists.get(url);
    if (listed !== undefined) return { contextUrl: null, documentUrl: url, document: structuredClone(listed) };
    if (url.startsWith('did:key:')) {
      const [did, fragment] = url.split('#') as [string, string | undefined];
      const key = await multikey.from({ '@context': 'https://w3id.org/security/multikey/v1', type: 'Multikey', publicKeyMultibase: did.slice('did:key:'.length) });
      const method = { ...(await key.export({ publicKey: true, includeContext: true })), id: `${did}#${did.slice('did:key:'.length)}`, controller: did };
      const document = fragment === undefined ? { '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'], id: did, verificationMethod: [method], assertionMethod: [method.id] } : method;
      return { contextUrl: null, documentUrl: url, document };
    }
    const document = documents.get(url);
    if (document === undefined) throw new Error(`the test's loader has no ${url}`);
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };
}

/** Their bbs-2023 verifier suite. */
function dbVerifySuite(): unknown {
  return new DataIntegrityProof({ cryptosuite: createVerifyCryptosuite() });
}

async function fetchList(url: string): Promise<Json> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return (await response.json()) as Json;
}

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_WORKERS: '0' }, path.join(tmp.dir, 'home')) });
  server = await startServer(ctx, { roles: ['issuer'], port: 0, host: '127.0.0.1' });
}, 60_000);
afterAll(async () => {
  await server.close();
  await ctx.close();
  tmp.cleanup();
});

describe("Digital Bazaar's checkStatus on vc's credentials and served lists", () => {
  it('sees the revoked one as revoked, the suspended one as suspended, the untouched one as valid', async () => {
    const revoked = (await issueBbs2023SelectiveDisclosureCredential(ctx, { holder: 'did:example:rev', status: ['revocation'], store: false })) as Json;
    const suspended = (await issueBbs2023SelectiveDisclosureCredential(ctx, { holder: 'did:example:sus', status: ['suspension'], store: false })) as Json;
    const untouched = (await issueBbs2023SelectiveDisclosureCredential(ctx, { holder: 'did:example:ok', status: ['revocation', 'suspension'], store: false })) as Json;
    const revokedEntry = revoked.credentialStatus as Entry;
    // The lists are named where the served issuer listens.
    expect(revokedEntry.statusListCredential).toBe(`${server.urls.issuer}/status-lists/revocation-1`);
    await changeCredentialStatus(ctx, { id: revokedEntry.id, purpose: 'revocation', set: true });
    await changeCredentialStatus(ctx, { id: (suspended.credentialStatus as Entry).id, purpose: 'suspension', set: true });

    // Their loader gets the lists as a verifier does: from GET /status-lists/:id of the issuer service.
    const lists = new Map<string, Json>();
    for (const name of ['revocation-1', 'suspension-1']) lists.set(`${server.urls.issuer}/status-lists/${name}`, await fetchList(`${server.urls.issuer}/status-lists/${name}`));
    const documentLoader = dbLoader(lists);
    const check = (credential: Json) => checkStatus({ credential, documentLoader, suite: dbVerifySuite(), verifyBitstringStatusListCredential: true, verifyMatchingIssuers: true });

    const onRevoked = await check(revoked);
    expect(onRevoked.error).toBeUndefined();
    expect(onRevoked).toMatchObject({ verified: true, results: [{ verified: true, status: true }] });
    expect(await check(suspended)).toMatchObject({ verified: true, results: [{ verified: true, status: true }] });
    const onUntouched = await check(untouched);
    expect(onUntouched).toMatchObject({ verified: true, results: [{ status: false }, { status: false }] });

    // Their verifyCredential with their checkStatus, on vc's disclosures: the revoked one is refused, the untouched one holds.
    const verify = async (credential: Json) => {
      const vc = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['nationality'], credential })).vc;
      const result = await vcjs.verifyCredential({
        credential: vc,
        suite: dbVerifySuite(),
        documentLoader,
        checkStatus: async (options: { credential: object }) => {
          const status = await check(options.credential as Json);
          return { verified: status.verified && status.results!.every((entry) => !entry.status) };
        },
      });
      return result.verified;
    };
    expect(await verify(untouched)).toBe(true);
    expect(await verify(revoked)).toBe(false);
    expect(await verify(suspended)).toBe(false);
  });

  it("refuses vc's list once a bit is tampered with (its bbs-2023 proof no longer holds)", async () => {
    const credential = (await issueBbs2023SelectiveDisclosureCredential(ctx, { holder: 'did:example:t', status: ['revocation'], store: false })) as Json;
    const entry = credential.credentialStatus as Entry;
    const list = await fetchList(entry.statusListCredential);
    const cleared = await createList({ length: 131_072 });
    cleared.setStatus(Number(entry.statusListIndex), true);
    (list.credentialSubject as Json).encodedList = await cleared.encode();
    const result = await checkStatus({ credential, documentLoader: dbLoader(new Map([[entry.statusListCredential, list]])), suite: dbVerifySuite() });
    expect(result.verified).toBe(false);
    expect(result.error?.message).toMatch(/"BitstringStatusListCredential" not verified/);
  });
});

describe("vc's verifier on a list Digital Bazaar built and signed", () => {
  const LIST_URL = 'https://issuer.example/status/7';
  let issuerDid: string;
  let keyPair: Awaited<ReturnType<typeof multikey.generateBbsKeyPair>>;
  let signed: Json;
  const INDEX = 70_001;
  /** Their disclosure of their credential, bound to a nonce of vc's verifier (each verification uses one up). */
  const derive = async (): Promise<Json> => {
    const { nonce } = createVerifierNonce(ctx);
    const suite = new DataIntegrityProof({ cryptosuite: createDiscloseCryptosuite({ selectivePointers: ['/credentialSubject/nationality'], presentationHeader: new Uint8Array(Buffer.from(nonce, 'base64')) }) });
    return vcjs.derive({ verifiableCredential: structuredClone(signed), suite, documentLoader: dbLoader() });
  };

  beforeAll(async () => {
    keyPair = await multikey.generateBbsKeyPair({ algorithm: multikey.ALGORITHMS.BBS_BLS12381_SHA256 });
    const { publicKeyMultibase } = await keyPair.export({ publicKey: true });
    issuerDid = `did:key:${publicKeyMultibase}`;
    keyPair.id = `${issuerDid}#${publicKeyMultibase}`;
    keyPair.controller = issuerDid;
    const credential = {
      '@context': ['https://www.w3.org/ns/credentials/v2', SD_PASSPORT_V2],
      type: ['VerifiableCredential', 'PassportCredential'],
      issuer: issuerDid,
      validFrom: '2025-01-01T00:00:00Z',
      credentialStatus: { id: `${LIST_URL}#${INDEX}`, type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: String(INDEX), statusListCredential: LIST_URL },
      credentialSubject: { id: 'did:example:dora', name: 'Dora Example', nationality: 'BEL' },
    };
    const documentLoader = dbLoader();
    const signSuite = new DataIntegrityProof({ signer: keyPair.signer(), cryptosuite: createSignCryptosuite({ mandatoryPointers: ['/issuer', '/validFrom', '/credentialStatus'] }) });
    signed = await vcjs.issue({ credential, suite: signSuite, documentLoader });
    expect((await derive()).credentialStatus).toEqual(credential.credentialStatus);
  });

  /** Their list with the entry's bit as given, signed by their bbs-2023 suite (a base proof) with their issuer key. */
  async function theirList(revoked: boolean): Promise<Json> {
    const list = await createList({ length: 131_072 });
    if (revoked) list.setStatus(INDEX, true);
    const unsigned = { ...(await createCredential({ id: LIST_URL, list, statusPurpose: 'revocation' })), issuer: issuerDid, validFrom: '2025-01-01T00:00:00Z' };
    const suite = new DataIntegrityProof({ signer: keyPair.signer(), cryptosuite: createSignCryptosuite() });
    return vcjs.issue({ credential: unsigned, suite, documentLoader: dbLoader() });
  }

  it('accepts the list and the credential whose bit is clear, refuses the revoked one with its reason', async () => {
    const clear = await verifySelectiveDisclosure(ctx, { vc: await derive(), statusLists: [await theirList(false)], requireNonce: true });
    expect(clear.checks.filter((check) => !check.valid)).toEqual([]);
    expect(clear.checks.find((check) => check.id === 'status')).toEqual({ id: 'status', valid: true });
    const revoked = await verifySelectiveDisclosure(ctx, { vc: await derive(), statusLists: [await theirList(true)], requireNonce: true });
    expect(revoked.verified).toBe(false);
    expect(revoked.checks.find((check) => check.id === 'status')).toEqual({ id: 'status', valid: false, reason: `revoked: index ${INDEX} of status list ${LIST_URL} is set (revocation)` });
    // Their own checkStatus reads the same bits; it cannot verify their base proof itself (the
    // specification verifies derived bbs-2023 proofs only): why vc publishes its lists with a
    // derived proof disclosing everything, and verifies a base proof by deriving one.
    for (const [isRevoked, expected] of [[false, false], [true, true]] as const) {
      const documentLoader = dbLoader(new Map([[LIST_URL, await theirList(isRevoked)]]));
      const bits = await checkStatus({ credential: await derive(), documentLoader, suite: dbVerifySuite(), verifyBitstringStatusListCredential: false });
      expect(bits.results?.[0]?.status, String(isRevoked)).toBe(expected);
      const proofChecked = await checkStatus({ credential: await derive(), documentLoader, suite: dbVerifySuite() });
      expect(proofChecked.verified).toBe(false);
      expect(proofChecked.error?.message).toMatch(/"BitstringStatusListCredential" not verified/);
    }
  });
});
