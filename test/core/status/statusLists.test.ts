/**
 * W3C Bitstring Status Lists in process (src/core/status): the indexes of credentials issued with
 * a status are distinct and carry no trace of the order of issuance; revoke, suspend and unsuspend
 * are seen by the verifier; a list that does not verify (a tampered bit), has another purpose,
 * another issuer or too few entries is refused with a reason; a list vc does not have and may not
 * fetch leaves the credential unverified; and a kill between claiming an index and signing the
 * credential (or between re-signing a list and storing it) neither hands an index out twice nor
 * loses a list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createList } from '@digitalbazaar/vc-bitstring-status-list';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { deriveSelectiveDisclosure, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { issueBbs2023SelectiveDisclosureCredential } from '../../../src/core/sd/sdIssuance.js';
import { assignCredentialStatus, changeCredentialStatus, findStatusListByUrl, readStatusListCredential, statusListIdAt } from '../../../src/core/status/issuerStatusLists.js';
import { addDocument } from '../../../src/core/documentPins.js';
import { bbs2023StatusListSigner } from '../../../src/core/status/statusListSuites.js';
import { STATUS_ENTRIES_NAMESPACE, STATUS_LISTS_NAMESPACE, type StoredStatusEntry, type StoredStatusList } from '../../../src/core/status/statusRecords.js';
import { STATUS_CRASH_POINTS } from '../../../src/faults.js';
import { MIN_STATUS_LIST_LENGTH, unsignedStatusListCredential } from '../../../src/status/bitstringStatusList.js';
import { WalletStore } from '../../../src/store/store.js';
import { runVc, runVcInProcess, tempDir } from '../../helpers.js';

type Json = Record<string, unknown>;
type Entry = { id: string; statusPurpose: string; statusListIndex: string; statusListCredential: string };

const ISSUER_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const OTHER_PHRASE = 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above';
/** Not the loopback: a verifier in another home may not fetch the lists, it must be given them. */
const ISSUER_URL = 'https://issuer.test.example';

const tmp = tempDir('vc-status-lists-');
let issuer: Context;
let verifier: Context;

beforeAll(() => {
  issuer = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: ISSUER_PHRASE, VC_ISSUER_URL: ISSUER_URL }, path.join(tmp.dir, 'issuer')) });
  verifier = new Context({ config: parseConfig({ VC_ISSUER_URL: ISSUER_URL }, path.join(tmp.dir, 'verifier')) });
});
afterAll(async () => {
  await issuer.close();
  await verifier.close();
  tmp.cleanup();
});

async function issue(status: Array<'revocation' | 'suspension'>, holder = 'did:example:alice'): Promise<Json> {
  return (await issueBbs2023SelectiveDisclosureCredential(issuer, { holder, status, store: false })) as Json;
}

async function disclose(credential: Json): Promise<Json> {
  return (await deriveSelectiveDisclosure(issuer, { type: 'PassportCredential', keys: ['nationality'], credential })).vc;
}

function statusCheck(result: { checks: Array<{ id: string; valid: boolean; reason?: string }> }): { valid: boolean; reason?: string } | undefined {
  const check = result.checks.find((candidate) => candidate.id === 'status');
  return check === undefined ? undefined : { valid: check.valid, ...(check.reason === undefined ? {} : { reason: check.reason }) };
}

function entries(credential: Json): Entry[] {
  const status = credential.credentialStatus as Entry | Entry[];
  return Array.isArray(status) ? status : [status];
}

/** Spearman's rank correlation of two equally long lists of distinct numbers. */
function spearman(a: number[], b: number[]): number {
  const ranks = (values: number[]): number[] => {
    const order = values.map((value, index) => ({ value, index })).sort((x, y) => x.value - y.value);
    const rank: number[] = [];
    order.forEach((item, position) => (rank[item.index] = position));
    return rank;
  };
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const d2 = ra.reduce((sum, r, i) => sum + (r - rb[i]!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

describe('the indexes of issued credentials', () => {
  // 50 indexes in one list: 5 from issued (signed) credentials, 45 from the assignment the issuance
  // makes (assignCredentialStatus with the issuer's bbs-2023 list signer, the same call, the same
  // list), which draws the index without signing a credential around it: the statistics need 50
  // draws, the signing path needs a few.
  it('are distinct, in one list of 131,072 entries, and not in the order of issuance (50 credentials)', async () => {
    const issuedEntries: Entry[] = [];
    for (let i = 0; i < 5; i++) issuedEntries.push(...entries(await issue(['revocation'], `did:example:holder-${i}`)));
    const signer = await bbs2023StatusListSigner(issuer);
    const assignedEntries: Entry[] = [];
    for (let i = 5; i < 50; i++) {
      const { credentialStatus } = await assignCredentialStatus(issuer, { purposes: ['revocation'], signer });
      assignedEntries.push(...(Array.isArray(credentialStatus) ? credentialStatus : [credentialStatus]));
    }
    expect(issuedEntries).toHaveLength(5);
    expect(assignedEntries).toHaveLength(45);
    const indexes: number[] = [];
    for (const entry of [...issuedEntries, ...assignedEntries]) {
      expect(entry).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListCredential: `${ISSUER_URL}/status-lists/revocation-1` });
      expect(entry.id).toBe(`${entry.statusListCredential}#${entry.statusListIndex}`);
      indexes.push(Number(entry.statusListIndex));
    }
    expect(new Set(indexes).size).toBe(50);
    for (const index of indexes) expect(index >= 0 && index < MIN_STATUS_LIST_LENGTH).toBe(true);
    // Neither sorted nor correlated with the order: |rho| above 0.6 has a chance of about 3e-5 for random indexes.
    expect(indexes).not.toEqual([...indexes].sort((a, b) => a - b));
    expect(indexes).not.toEqual([...indexes].sort((a, b) => b - a));
    expect(Math.abs(spearman(indexes, indexes.map((_, i) => i)))).toBeLessThan(0.6);
    // Spread over the list, not packed at its start: the largest is past the first quarter (chance 0.25^50 otherwise).
    expect(Math.max(...indexes)).toBeGreaterThan(MIN_STATUS_LIST_LENGTH / 4);
    const list = issuer.store.get<StoredStatusList>(STATUS_LISTS_NAMESPACE, 'revocation-1')!;
    expect(list).toMatchObject({ length: MIN_STATUS_LIST_LENGTH, assigned: 50, purpose: 'revocation', url: `${ISSUER_URL}/status-lists/revocation-1` });
    expect(issuer.store.list(STATUS_ENTRIES_NAMESPACE, 'revocation-1#')).toHaveLength(50);
  }, 120_000);
});

describe('revoke, suspend and unsuspend, seen by the verifier', () => {
  let credential: Json;
  let disclosed: Json;
  const verify = async (ctx: Context, statusLists?: Json[]) => verifySelectiveDisclosure(ctx, { vc: disclosed, statusLists });
  const currentLists = (): Json[] => entries(credential).map((entry) => readStatusListCredential(issuer, entry.statusListCredential.split('/').pop()!));

  beforeAll(async () => {
    credential = await issue(['revocation', 'suspension']);
    disclosed = await disclose(credential);
  });

  it('discloses the status always, and verifies it, in the issuer\'s wallet and elsewhere with the lists given', async () => {
    expect(disclosed.credentialStatus).toEqual(credential.credentialStatus);
    expect(statusCheck(await verify(issuer))).toEqual({ valid: true });
    expect((await verify(verifier, currentLists())).verified).toBe(true);
  });

  it('suspend, then unsuspend, then revoke (for good)', async () => {
    const [revocation, suspension] = entries(credential) as [Entry, Entry];
    const suspended = await changeCredentialStatus(issuer, { id: suspension.id, purpose: 'suspension', set: true });
    expect(suspended).toMatchObject({ message: 'suspended', set: true, changed: true, statusListIndex: suspension.statusListIndex });
    const refused = await verify(issuer);
    expect(refused.verified).toBe(false);
    expect(statusCheck(refused)).toEqual({ valid: false, reason: `suspended: index ${suspension.statusListIndex} of status list ${suspension.statusListCredential} is set (suspension)` });
    expect(statusCheck(await verify(verifier, currentLists()))?.reason).toMatch(/^suspended/);

    // Either of its ids names the credential; the same change twice re-signs nothing.
    const again = await changeCredentialStatus(issuer, { id: revocation.id, purpose: 'suspension', set: true });
    expect(again).toMatchObject({ message: 'already suspended', changed: false });
    const unsuspended = await changeCredentialStatus(issuer, { id: suspension.id, purpose: 'suspension', set: false });
    expect(unsuspended).toMatchObject({ message: 'unsuspended', set: false, changed: true });
    expect((await verify(issuer)).verified).toBe(true);
    expect((await verify(verifier, currentLists())).verified).toBe(true);

    const before = readStatusListCredential(issuer, 'revocation-1');
    await changeCredentialStatus(issuer, { id: revocation.id, purpose: 'revocation', set: true });
    expect(statusCheck(await verify(issuer))?.reason).toBe(`revoked: index ${revocation.statusListIndex} of status list ${revocation.statusListCredential} is set (revocation)`);
    expect(statusCheck(await verify(verifier, currentLists()))?.reason).toMatch(/^revoked/);
    // The list before the revocation still verifies: an old list given shows the old state (its validFrom tells when).
    expect((await verify(verifier, [before, currentLists()[1]!])).verified).toBe(true);
    await expect(changeCredentialStatus(issuer, { id: revocation.id, purpose: 'revocation', set: false })).rejects.toMatchObject({ httpStatus: 422, message: expect.stringMatching(/a revocation cannot be undone/) });
  });

  it('refuses unknown ids and purposes the credential has no entry for', async () => {
    await expect(changeCredentialStatus(issuer, { id: 'urn:uuid:nope', purpose: 'revocation', set: true })).rejects.toMatchObject({ httpStatus: 404, field: 'id' });
    const revocable = await issue(['revocation']);
    await expect(changeCredentialStatus(issuer, { id: entries(revocable)[0]!.id, purpose: 'suspension', set: true })).rejects.toMatchObject({
      httpStatus: 422,
      message: 'id: the credential has revocation status entry, no suspension entry (issue with --status suspension to suspend it)',
    });
  });
});

describe('the VC-API issuer and verifier', () => {
  it('a VC 1.1 credential gets the Bitstring Status List context with its entry; its credentialId revokes it; the verifier sees it', async () => {
    const { vcApiDerive, vcApiIssue, vcApiVerify } = await import('../../../src/core/sd/vcApiCredentials.js');
    const credential = {
      '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vdl/v1'],
      type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
      issuanceDate: '2024-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:bob', type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '542426814' } },
    };
    const { verifiableCredential: signed } = await vcApiIssue(issuer, { credential, status: ['revocation'], credentialId: 'urn:example:licence-1' });
    expect(signed['@context']).toEqual([...credential['@context'], 'https://w3id.org/security/data-integrity/v2', 'https://www.w3.org/ns/credentials/status/v1']);
    expect(signed.credentialStatus).toMatchObject({ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' });
    const { verifiableCredential: derived } = await vcApiDerive(issuer, { credential: signed, selectivePointers: ['/credentialSubject/driversLicense/document_number'] });
    expect(derived.credentialStatus).toEqual(signed.credentialStatus);
    expect(await vcApiVerify(issuer, { credential: derived })).toEqual({ verified: true, checks: ['data-model', 'proof', 'status'], warnings: [], errors: [] });
    await changeCredentialStatus(issuer, { id: 'urn:example:licence-1', purpose: 'revocation', set: true });
    const refused = await vcApiVerify(issuer, { credential: derived });
    expect(refused).toMatchObject({ verified: false, checks: ['data-model', 'proof', 'status'], errors: [{ name: 'StatusError', message: expect.stringMatching(/^status: revoked: index \d+ of status list/) }] });
    // Without a status, the VC-API verifier answers as before.
    const { verifiableCredential: plain } = await vcApiIssue(issuer, { credential });
    expect(plain.credentialStatus).toBeUndefined();
    expect(plain['@context']).not.toContain('https://www.w3.org/ns/credentials/status/v1');
    expect((await vcApiVerify(issuer, { credential: plain })).checks).toEqual(['data-model', 'proof']);
    await expect(vcApiIssue(issuer, { credential, status: ['revocation'], credentialId: 'urn:example:licence-1' })).rejects.toMatchObject({ httpStatus: 409, field: 'options.credentialId' });
  });
});

describe('a status list that cannot be trusted is refused with a reason', () => {
  let credential: Json;
  let disclosed: Json;
  let entry: Entry;
  const verifyWith = async (list: Json) => verifySelectiveDisclosure(verifier, { vc: disclosed, statusLists: [list] });

  beforeAll(async () => {
    credential = await issue(['suspension']);
    disclosed = await disclose(credential);
    entry = entries(credential)[0]!;
  });

  /** A list at the entry's URL, signed by `ctx`'s issuer key, with the given purpose and length (valid from now, or the given dates). */
  async function signedList(ctx: Context, statusPurpose: 'revocation' | 'suspension', length: number, set: number[] = [], dates: { validFrom?: Date; validUntil?: Date } = {}): Promise<Json> {
    const list = await createList({ length });
    for (const index of set) list.setStatus(index, true);
    const signer = await bbs2023StatusListSigner(ctx);
    const unsigned = await unsignedStatusListCredential({ url: entry.statusListCredential, issuer: signer.issuer, statusPurpose, list, validFrom: dates.validFrom ?? new Date() });
    return signer.sign(dates.validUntil === undefined ? unsigned : { ...unsigned, validUntil: dates.validUntil.toISOString().replace(/\.\d{3}Z$/, 'Z') });
  }

  // A verifier checks the proof of an unchanged list once (src/core/status/statusListSuites.ts keeps
  // the lists whose proof held): what it keeps must never let a list through that a fresh check refuses.
  it('a list whose proof held once: refused when a bit changes, checked again at an earlier instant, and refused once its validUntil passed', async () => {
    const { checkCredentialStatus } = await import('../../../src/core/status/credentialStatusCheck.js');
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    let clock = new Date(start.getTime() + 3_600_000);
    const clocked = new Context({ config: parseConfig({ VC_ISSUER_URL: ISSUER_URL }, path.join(tmp.dir, 'clocked')), now: () => clock });
    const check = (list: Json) => checkCredentialStatus(clocked, disclosed, { statusLists: [list] });
    try {
      const open = await signedList(issuer, 'suspension', MIN_STATUS_LIST_LENGTH, [], { validFrom: start });
      expect(await check(open)).toEqual({ id: 'status', valid: true });
      expect(await check(open)).toEqual({ id: 'status', valid: true });
      // The same list with the credential's bit set, its proof kept: the bits are no longer what was signed.
      const setBit = await createList({ length: MIN_STATUS_LIST_LENGTH });
      setBit.setStatus(Number(entry.statusListIndex), true);
      const tampered = { ...open, credentialSubject: { ...(open.credentialSubject as Json), encodedList: await setBit.encode() } };
      expect((await check(tampered))?.reason).toMatch(/the list \(given\) does not verify: its bbs-2023 proof does not verify/);
      // Before its validFrom the list checked a moment ago is not valid yet.
      clock = new Date(start.getTime() - 3_600_000);
      const early = await check(open);
      expect(early?.valid).toBe(false);
      expect(early?.reason).toMatch(/the list \(given\) does not verify/);
      // A list with an end: valid within it, refused after it, though it held before.
      clock = new Date(start.getTime() + 3_600_000);
      const ending = await signedList(issuer, 'suspension', MIN_STATUS_LIST_LENGTH, [], { validFrom: start, validUntil: new Date(start.getTime() + 7_200_000) });
      expect(await check(ending)).toEqual({ id: 'status', valid: true });
      clock = new Date(start.getTime() + 10_800_000);
      const expired = await check(ending);
      expect(expired?.valid).toBe(false);
      expect(expired?.reason).toMatch(/the list \(given\) does not verify/);
      expect(await check(open)).toEqual({ id: 'status', valid: true });
    } finally {
      await clocked.close();
    }
  });

  it('a list nobody gave and vc may not fetch: the credential is not verified', async () => {
    const result = await verifySelectiveDisclosure(verifier, { vc: disclosed });
    expect(result.verified).toBe(false);
    expect(statusCheck(result)?.reason).toBe(
      `status list ${entry.statusListCredential}: not at hand: give it (vc verifier verify --status-list FILE, from \`vc issuer status-list\`), pin it (vc documents add URL FILE) or verify in the issuer's wallet; ` +
        `vc fetches status lists only from the issuer service on this machine (VC_ISSUER_URL on 127.0.0.1, localhost or ::1, now ${ISSUER_URL})`,
    );
  });

  it('pinned in the documents store: used when none is given, and a list of this wallet by another issuer at the same URL does not hide it', async () => {
    // Another issuer whose lists are named under the same address: its revocation-1 is the URL of the issuer's own revocation-1.
    const other = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: OTHER_PHRASE, VC_ISSUER_URL: ISSUER_URL }, path.join(tmp.dir, 'other-pinned')) });
    try {
      const theirs = (await issueBbs2023SelectiveDisclosureCredential(other, { holder: 'did:example:pinned', status: ['revocation'], store: false })) as Json;
      const [theirEntry] = entries(theirs) as [Entry];
      expect(findStatusListByUrl(issuer, theirEntry.statusListCredential)).toBeDefined();
      const theirDisclosure = (await deriveSelectiveDisclosure(other, { type: 'PassportCredential', keys: ['nationality'], credential: theirs })).vc;
      const before = statusCheck(await verifySelectiveDisclosure(issuer, { vc: theirDisclosure }));
      expect(before?.reason).toMatch(new RegExp(`^status list ${theirEntry.statusListCredential}: not at hand: `));
      await addDocument(issuer, { url: theirEntry.statusListCredential, document: readStatusListCredential(other, 'revocation-1') });
      expect(statusCheck(await verifySelectiveDisclosure(issuer, { vc: theirDisclosure }))).toEqual({ valid: true });
      // The issuer's own credentials on its own revocation-1 still read the wallet's list.
      const own = await issue(['revocation'], 'did:example:own');
      expect(entries(own)[0]!.statusListCredential).toBe(theirEntry.statusListCredential);
      expect(statusCheck(await verifySelectiveDisclosure(issuer, { vc: await disclose(own) }))).toEqual({ valid: true });
    } finally {
      await other.close();
    }
  });

  it('only a list URL exactly under the issuer address is ever fetched: one plain id, no dot segments, query or fragment', () => {
    const base = 'http://127.0.0.1:3000';
    expect(statusListIdAt(`${base}/status-lists/revocation-1`, base)).toBe('revocation-1');
    expect(statusListIdAt(`${base}/status-lists/a.b_c~d-9`, base)).toBe('a.b_c~d-9');
    for (const url of [
      `${base}/status-lists/../admin`,
      `${base}/status-lists/..`,
      `${base}/status-lists/.`,
      `${base}/status-lists/%2e%2e`,
      `${base}/status-lists/a/b`,
      `${base}/status-lists/a?delete=1`,
      `${base}/status-lists/a#b`,
      `${base}/status-lists/`,
      `${base}/status-listsx/a`,
      `${base}0/status-lists/a`,
      `http://127.0.0.1:3001/status-lists/a`,
      `${base}/status-lists/${'a'.repeat(201)}`,
    ]) {
      expect(statusListIdAt(url, base), url).toBeUndefined();
    }
  });

  it('a tampered bit: the proof of the list does not verify', async () => {
    await changeCredentialStatus(issuer, { id: entry.id, purpose: 'suspension', set: true });
    const served = readStatusListCredential(issuer, entry.statusListCredential.split('/').pop()!);
    expect(statusCheck(await verifyWith(served))?.reason).toMatch(/^suspended/);
    // Clear the bit in the signed list: the holder's forgery of an unsuspended list.
    const unsuspended = await createList({ length: MIN_STATUS_LIST_LENGTH });
    const tampered = structuredClone(served);
    (tampered.credentialSubject as Json).encodedList = await unsuspended.encode();
    const result = await verifyWith(tampered);
    expect(result.verified).toBe(false);
    expect(statusCheck(result)?.reason).toMatch(new RegExp(`^status list ${entry.statusListCredential}: the list \\(given\\) does not verify: its bbs-2023 proof does not verify: the bbs-2023 proof does not match`));
    await changeCredentialStatus(issuer, { id: entry.id, purpose: 'suspension', set: false });
  });

  it('another purpose, too few entries, another issuer, a proof vc cannot check', async () => {
    expect((await verifyWith(await signedList(issuer, 'suspension', MIN_STATUS_LIST_LENGTH))).verified).toBe(true);
    const revocation = await verifyWith(await signedList(issuer, 'revocation', MIN_STATUS_LIST_LENGTH));
    expect(statusCheck(revocation)?.reason).toBe(`status list ${entry.statusListCredential} (given) is refused: its statusPurpose is "revocation", not the credential's "suspension"`);
    const short = await verifyWith(await signedList(issuer, 'suspension', 16_384));
    expect(statusCheck(short)?.reason).toBe(`status list ${entry.statusListCredential} (given) is refused: it has 16384 entries, fewer than the 131072 (16 KB) a Bitstring Status List must have for group privacy`);
    const other = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: OTHER_PHRASE }, path.join(tmp.dir, 'other')) });
    try {
      const foreign = await verifyWith(await signedList(other, 'suspension', MIN_STATUS_LIST_LENGTH));
      expect(statusCheck(foreign)?.reason).toMatch(new RegExp(`^status list ${entry.statusListCredential} \\(given\\) is issued by did:key:zUC7\\S+, not by the credential's issuer ${credential.issuer as string}$`));
    } finally {
      await other.close();
    }
    const { proof: _proof, ...unsigned } = await signedList(issuer, 'suspension', MIN_STATUS_LIST_LENGTH);
    expect(statusCheck(await verifyWith(unsigned))?.reason).toMatch(/does not verify: it has no proof object/);
    const sd = { ...unsigned, proof: { type: 'DataIntegrityProof', cryptosuite: 'ecdsa-sd-2023', proofValue: 'u3' } };
    expect(statusCheck(await verifyWith(sd))?.reason).toMatch(/its proof \("DataIntegrityProof", cryptosuite "ecdsa-sd-2023"\) is not of a suite vc checks status lists with \(bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019\)/);
    // A suite vc checks lists with, but a proof that is no proof: refused by that suite's checks.
    const ed25519 = { ...unsigned, proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofValue: 'z3' } };
    expect(statusCheck(await verifyWith(ed25519))?.reason).toMatch(/^status list \S+: the list \(given\) does not verify: proofPurpose: expected assertionMethod, got nothing$/);
  });

  it('a status of a type or purpose vc does not check: not verified', async () => {
    // The verifier's checks before the status (the proof) are those of vc; these documents fail there first, so the status check is called directly.
    const { checkCredentialStatus } = await import('../../../src/core/status/credentialStatusCheck.js');
    expect(await checkCredentialStatus(verifier, { credentialStatus: { type: 'StatusList2021Entry', statusPurpose: 'revocation' } })).toEqual({
      id: 'status',
      valid: false,
      reason: 'credentialStatus of type "StatusList2021Entry" cannot be checked (vc checks BitstringStatusListEntry)',
    });
    expect(await checkCredentialStatus(verifier, { credentialStatus: { ...entry, statusPurpose: 'message' } })).toEqual({ id: 'status', valid: false, reason: 'statusPurpose "message" is not one vc checks (revocation, suspension)' });
    expect(await checkCredentialStatus(verifier, {})).toBeUndefined();
  });
});

describe('the command line with eddsa-rdfc-2022 and ecdsa-rdfc-2019 (P-384)', () => {
  const home = path.join(tmp.dir, 'rdfc-cli');
  const elsewhere = path.join(tmp.dir, 'rdfc-verifier');
  const env = { IDP_BLS_SIGN_SEED_PHRASE: ISSUER_PHRASE, VC_ISSUER_URL: ISSUER_URL, VC_TRUSTED_ISSUERS: '*' };
  const vc = (args: string[], where = home) => runVcInProcess(['--json', ...args], { home: where, env });

  it('issues with --status (a passport, or --credential FILE), revokes by --id, and a verifier elsewhere given the list sees it', async () => {
    const passport = await vc(['issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--status', 'revocation', '-o', path.join(tmp.dir, 'eddsa.json')]);
    expect(passport.status, passport.stderr).toBe(0);
    writeFileSync(path.join(tmp.dir, 'given.json'), JSON.stringify({
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://vc.example/contexts/sd-passport/v2'],
      id: 'urn:uuid:5e3b1c9a-8f2d-4c61-9a57-0d8e2f4b7c13',
      type: ['VerifiableCredential', 'PassportCredential'],
      // The holder of this wallet's did:key: the subject who may present it.
      credentialSubject: { id: (await vc(['holder', 'did-key'])).json<{ did: string }>().did, name: 'Given Example', nationality: 'NLD' },
    }));
    const given = await vc(['issuer', 'issue', '--format', 'ecdsa-rdfc-2019', '--curve', 'P-384', '--credential', path.join(tmp.dir, 'given.json'), '--status', 'revocation,suspension', '-o', path.join(tmp.dir, 'p384.json')]);
    expect(given.status, given.stderr).toBe(0);
    const eddsa = JSON.parse(readFileSync(path.join(tmp.dir, 'eddsa.json'), 'utf8')) as Json;
    const p384 = JSON.parse(readFileSync(path.join(tmp.dir, 'p384.json'), 'utf8')) as Json;
    expect((eddsa.proof as Json).cryptosuite).toBe('eddsa-rdfc-2022');
    expect((p384.proof as Json).cryptosuite).toBe('ecdsa-rdfc-2019');
    // Lists of their own suite and key: the ed25519 list, and the P-384 ones.
    const [eddsaEntry] = entries(eddsa) as [Entry];
    const [p384Revocation, p384Suspension] = entries(p384) as [Entry, Entry];
    expect(eddsaEntry.statusListCredential).toBe(`${ISSUER_URL}/status-lists/revocation-1`);
    expect(p384Revocation.statusListCredential).toBe(`${ISSUER_URL}/status-lists/revocation-2`);
    expect(p384Suspension.statusListCredential).toBe(`${ISSUER_URL}/status-lists/suspension-1`);

    // Revoked by the credential's own id (the --credential's), suspended by its entry's id.
    const revoked = await vc(['issuer', 'revoke', '--id', 'urn:uuid:5e3b1c9a-8f2d-4c61-9a57-0d8e2f4b7c13']);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.json()).toMatchObject({ message: 'revoked', changed: true, statusListCredential: p384Revocation.statusListCredential });
    const lists: Record<string, string> = {};
    for (const id of ['revocation-1', 'revocation-2']) {
      const list = await vc(['issuer', 'status-list', '--id', id, '-o', path.join(tmp.dir, `${id}.json`)]);
      expect(list.status, list.stderr).toBe(0);
      lists[id] = path.join(tmp.dir, `${id}.json`);
    }
    expect((JSON.parse(readFileSync(lists['revocation-2']!, 'utf8')) as { proof: Json }).proof.cryptosuite).toBe('ecdsa-rdfc-2019');

    const verifyElsewhere = (file: string, list: string) => vc(['verifier', 'verify', '--credential', path.join(tmp.dir, file), '--status-list', list], elsewhere);
    const fine = await verifyElsewhere('eddsa.json', lists['revocation-1']!);
    expect(fine.status, fine.stderr).toBe(0);
    expect(fine.json<{ checks: Array<{ id: string; valid: boolean }> }>().checks).toContainEqual({ id: 'status', valid: true });
    const refused = await verifyElsewhere('p384.json', lists['revocation-2']!);
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.json<{ checks: Array<{ id: string; valid: boolean; reason?: string }> }>().checks).toContainEqual({
      id: 'status',
      valid: false,
      reason: `revoked: index ${p384Revocation.statusListIndex} of status list ${p384Revocation.statusListCredential} is set (revocation)`,
    });

    // In a presentation, verified elsewhere with both lists in one file (a JSON array).
    const bothLists = path.join(tmp.dir, 'both-lists.json');
    writeFileSync(bothLists, JSON.stringify([lists['revocation-1'], lists['revocation-2']].map((file) => JSON.parse(readFileSync(file!, 'utf8')) as Json)));
    const present = async (files: string[], out: string) => {
      const made = await vc(['holder', 'present', '--credential', files.map((name) => path.join(tmp.dir, name)).join(','), '--challenge', 'c-status', '--domain', 'verifier.example', '-o', path.join(tmp.dir, out)]);
      expect(made.status, made.stderr).toBe(0);
      return vc(['verifier', 'verify', '--vp', path.join(tmp.dir, out), '--challenge', 'c-status', '--domain', 'verifier.example', '--status-list', bothLists], elsewhere);
    };
    const clear = await present(['eddsa.json'], 'vp-clear.json');
    expect(clear.status, clear.stderr).toBe(0);
    const withRevoked = await present(['eddsa.json', 'p384.json'], 'vp-revoked.json');
    expect(withRevoked.status, withRevoked.stderr).toBe(1);
    expect(withRevoked.json<{ message: string }>().message).toBe(
      `verification failed: credential 1: revoked: index ${p384Revocation.statusListIndex} of status list ${p384Revocation.statusListCredential} is set (revocation)`,
    );
  });
});

describe('a kill at each status crash point', () => {
  const home = path.join(tmp.dir, 'crash');
  const env = { IDP_BLS_SIGN_SEED_PHRASE: ISSUER_PHRASE, VC_ISSUER_URL: ISSUER_URL };
  // The killed commands through the binary (a crash point kills the process); what runs after them in process.
  const vc = (args: string[], extra: Record<string, string> = {}) => runVc(['--json', ...args], { home, env: { ...env, ...extra } });
  const vcInProcess = (args: string[]) => runVcInProcess(['--json', ...args], { home, env });
  const read = <T>(ns: string, key?: string): T => {
    const store = WalletStore.open(home);
    try {
      return (key === undefined ? store.list(ns) : store.get(ns, key)) as T;
    } finally {
      store.close();
    }
  };
  const killedAt = new Set<string>();

  it('status:assigned (index claimed, credential not signed): the index is never handed out again, the list is kept', async () => {
    const crashed = vc(['issuer', 'issue', '--format', 'bbs-2023', '--status', 'revocation'], { VC_CRASH_AT: 'status:assigned' });
    expect(crashed.signal).toBe('SIGKILL');
    killedAt.add('status:assigned');
    expect(crashed.stdout).toBe('');
    const claimed = read<Array<{ value: StoredStatusEntry }>>(STATUS_ENTRIES_NAMESPACE);
    expect(claimed).toHaveLength(1);
    const list = read<StoredStatusList>(STATUS_LISTS_NAMESPACE, 'revocation-1');
    expect(list).toMatchObject({ assigned: 1, version: 1 });
    const issued = await vcInProcess(['issuer', 'issue', '--format', 'bbs-2023', '--status', 'revocation']);
    expect(issued.status, issued.stderr).toBe(0);
    const status = issued.json<{ credentialStatus: Entry }>().credentialStatus;
    expect(status.statusListCredential).toBe(`${ISSUER_URL}/status-lists/revocation-1`);
    expect(Number(status.statusListIndex)).not.toBe(claimed[0]!.value.index);
    expect(read<StoredStatusList>(STATUS_LISTS_NAMESPACE, 'revocation-1')).toMatchObject({ assigned: 2 });
    const served = await vcInProcess(['issuer', 'status-list', '--id', 'revocation-1']);
    expect(served.status, served.stderr).toBe(0);
    expect(served.json()).toEqual(list.credential);
  });

  it('status:list-signed (list re-signed, not stored): nothing changed, and the revocation completes when run again', async () => {
    const [{ value: entry }] = read<Array<{ value: StoredStatusEntry }>>(STATUS_ENTRIES_NAMESPACE).filter((record) => record.value.index !== undefined).slice(-1) as [{ value: StoredStatusEntry }];
    const before = read<StoredStatusList>(STATUS_LISTS_NAMESPACE, 'revocation-1');
    const crashed = vc(['issuer', 'revoke', '--id', entry.statusId], { VC_CRASH_AT: 'status:list-signed' });
    expect(crashed.signal).toBe('SIGKILL');
    killedAt.add('status:list-signed');
    expect(read<StoredStatusList>(STATUS_LISTS_NAMESPACE, 'revocation-1')).toEqual(before);
    expect(read<StoredStatusEntry>(STATUS_ENTRIES_NAMESPACE, `revocation-1#${entry.index}`).set).toBe(false);
    const revoked = await vcInProcess(['issuer', 'revoke', '--id', entry.statusId]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.json()).toMatchObject({ message: 'revoked', changed: true, set: true });
    expect(read<StoredStatusList>(STATUS_LISTS_NAMESPACE, 'revocation-1')).toMatchObject({ version: before.version + 1, assigned: before.assigned });
  });

  it('status:assigned with a credential id of its own: the retry is not refused for that id, and the id names the retry\'s entry', async () => {
    const file = path.join(tmp.dir, 'with-id.json');
    const id = 'urn:uuid:0c2f3a54-7d8e-4b1a-9f60-3e5d2c1b0a97';
    writeFileSync(file, JSON.stringify({
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://vc.example/contexts/sd-passport/v2'],
      id,
      type: ['VerifiableCredential', 'PassportCredential'],
      credentialSubject: { id: 'did:example:retry', name: 'Retry Example', nationality: 'NLD' },
    }));
    const args = ['issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--credential', file, '--status', 'revocation'];
    const crashed = vc(args, { VC_CRASH_AT: 'status:assigned' });
    expect(crashed.signal).toBe('SIGKILL');
    killedAt.add('status:assigned');
    // Nothing was signed: the id names nothing yet.
    const unknown = await vcInProcess(['issuer', 'revoke', '--id', id]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/no credential with a status list entry is known by/);
    const retried = await vcInProcess(args);
    expect(retried.status, retried.stderr).toBe(0);
    const [entry] = entries(retried.json<Json>()) as [Entry];
    // Once signed, the id is taken: a second credential under it is refused.
    const again = await vcInProcess(args);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(new RegExp(`${id} already names a credential with a status entry`));
    const revoked = await vcInProcess(['issuer', 'revoke', '--id', id]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.json()).toMatchObject({ message: 'revoked', statusListIndex: entry.statusListIndex, statusListCredential: entry.statusListCredential });
  });

  it('covers every status crash point of src/faults.ts', () => {
    expect([...killedAt].sort()).toEqual([...STATUS_CRASH_POINTS].sort());
  });
});
