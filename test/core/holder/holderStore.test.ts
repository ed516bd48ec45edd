/**
 * The holder's credential store with the BBS+ kinds (real signatures, in process; the iden3 kind,
 * which needs a chain, is in test/e2e/holderStore.test.ts): each kind imported, listed, shown,
 * deleted; two of a type kept apart; what this wallet issues for another holder never kept; what
 * an import refuses (a changed credential, someone else's, a disclosure, a list with one bad
 * entry) leaves the store as it was; the records of the former one-per-type store all move in.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { invokeOperation } from '../../../src/core/operation.js';
import { holderDelete, holderExport, holderImport, holderList, holderShow } from '../../../src/core/operations/holderOperations.js';
import { sdDisclose } from '../../../src/core/operations/sdOperations.js';
import { HELD_CREDENTIALS_NAMESPACE, LEGACY_SD_CREDENTIALS_NAMESPACE, listHeldCredentials } from '../../../src/core/holder/holderStore.js';
import { createHolderIdentity } from '../../../src/core/pbq/identities.js';
import { issueBbs2023SelectiveDisclosureCredential, issueSelectiveDisclosureCredential } from '../../../src/core/sd/sdIssuance.js';
import { verifySelectiveDisclosure } from '../../../src/core/sd/verify.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../../src/errors.js';
import { changeCredentialStatus } from '../../../src/core/status/issuerStatusLists.js';
import { startServer } from '../../../src/http/server.js';
import { tempDir } from '../../helpers.js';

type Json = Record<string, unknown>;

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const tmp = tempDir('vc-holder-store-');
const contexts: Context[] = [];
/** The issuing wallet: its own holder is someone else than the wallets under test. */
let issuer: Context;
/** The wallet under test, with a holder DID of its own. */
let holder: Context;
let holderDid: string;

function wallet(name: string): Context {
  // VC_WORKERS=0: the issuer service started below runs its BBS+ calls on the main thread, no worker threads to start.
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_WORKERS: '0' }, path.join(tmp.dir, name)) });
  contexts.push(ctx);
  return ctx;
}

async function refusal(promise: Promise<unknown>): Promise<Error & { field?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { field?: string };
  }
  throw new Error('expected a refusal');
}

const importing = (ctx: Context, credential: unknown) => invokeOperation(ctx, holderImport, { credential });
const heldIds = (ctx: Context): string[] => listHeldCredentials(ctx).map((record) => record.id);

beforeAll(async () => {
  issuer = wallet('issuer');
  holder = wallet('holder');
  holderDid = (await createHolderIdentity(holder)).did_String;
}, 120_000);

afterAll(async () => {
  for (const ctx of contexts) await ctx.close();
  tmp.cleanup();
});

describe('each BBS+ kind: imported, listed, shown, deleted', () => {
  it.each([
    ['bbs2020', (subject: Json) => issueSelectiveDisclosureCredential(issuer, { subject, store: false })],
    ['bbs2023', (subject: Json) => issueBbs2023SelectiveDisclosureCredential(issuer, { subject, store: false })],
  ] as const)('%s', async (kind, issue) => {
    const ctx = wallet(`each-${kind}`);
    const did = (await createHolderIdentity(ctx)).did_String;
    const credential = (await issue({ ...(await import('../../../src/core/sd/sdIssuance.js')).samplePassportSubject(), id: did })) as Json;

    const { imported } = await importing(ctx, credential);
    expect(imported).toHaveLength(1);
    const [entry] = imported;
    expect(entry).toMatchObject({ kind, type: 'PassportCredential', subject: did, source: 'imported', alreadyHeld: false, issuer: credential.issuer });
    // vc's bbs-2023 credentials carry no id: the store names them by their content.
    if (kind === 'bbs2023') expect(entry!.id).toMatch(/^urn:sha256:[0-9a-f]{64}$/);
    else expect(entry!.id).toBe(credential.id);

    const listed = await invokeOperation(ctx, holderList, { type: 'PassportCredential' });
    expect(listed.credentials.map((held) => held.id)).toEqual([entry!.id]);
    expect(await invokeOperation(ctx, holderList, { issuer: 'did:example:nobody' })).toEqual({ credentials: [] });
    expect(await invokeOperation(ctx, holderList, { kind: kind === 'bbs2020' ? 'bbs2023' : 'bbs2020' })).toEqual({ credentials: [] });

    const shown = await invokeOperation(ctx, holderShow, { id: entry!.id });
    expect(shown.credential).toEqual(credential);
    expect(await invokeOperation(ctx, holderExport, { id: entry!.id })).toEqual(credential);
    // A second import of the same credential keeps it once.
    expect((await importing(ctx, credential)).imported[0]).toMatchObject({ id: entry!.id, alreadyHeld: true });

    // Held, it discloses by its id and the disclosure verifies.
    const { vc } = await invokeOperation(ctx, sdDisclose, { credentialId: entry!.id, selectiveDisclosureKeys: ['id', 'nationality'] });
    expect(vc.credentialSubject).toEqual({ id: did, nationality: 'NLD' });
    expect((await verifySelectiveDisclosure(ctx, { vc })).verified).toBe(true);

    expect(await invokeOperation(ctx, holderDelete, { id: entry!.id })).toMatchObject({ deleted: true, id: entry!.id, kind });
    expect(heldIds(ctx)).toEqual([]);
    const gone = await refusal(invokeOperation(ctx, holderShow, { id: entry!.id }));
    expect(gone).toBeInstanceOf(NotFoundError);
    expect(gone.message).toMatch(/^id: the holder has no credential/);
    expect(await refusal(invokeOperation(ctx, holderDelete, { id: entry!.id }))).toBeInstanceOf(NotFoundError);
  });
});

describe('several credentials of a type', () => {
  it('are kept apart, each by its id; the type alone discloses the newest, the id any', async () => {
    const first = await issueSelectiveDisclosureCredential(issuer, { subject: { name: 'Ada', passportNumber: 'P1', nationality: 'GBR', birthDate: 19851210, customerReference: '0b8f6c2e-5a3d-4e71-9c20-6f1e2d3c4b5a', expiryDate: 20350101, publicAddress: '0x01' }, holder: holderDid, store: false });
    const second = await issueSelectiveDisclosureCredential(issuer, { subject: { name: 'Ada King', passportNumber: 'P2', nationality: 'GBR', birthDate: 19851210, customerReference: '0b8f6c2e-5a3d-4e71-9c20-6f1e2d3c4b5b', expiryDate: 20350101, publicAddress: '0x02' }, holder: holderDid, store: false });
    await importing(holder, first);
    await importing(holder, second);
    expect(heldIds(holder)).toEqual([second.id, first.id]);

    const notes: string[] = [];
    const noted = new Context({ config: holder.config, progress: { start: () => ({ update: () => undefined, succeed: () => undefined, fail: () => undefined }), info: (text) => notes.push(text) } });
    contexts.push(noted);
    const newest = await invokeOperation(noted, sdDisclose, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name'] });
    expect(newest.vc.credentialSubject).toEqual({ id: holderDid, name: 'Ada King' });
    expect(notes.join('\n')).toMatch(new RegExp(`the holder has 2 BBS\\+ PassportCredential credentials; using the newest, ${second.id}`));
    const byId = await invokeOperation(holder, sdDisclose, { credentialId: first.id!, selectiveDisclosureKeys: ['name'] });
    expect(byId.vc.credentialSubject).toEqual({ id: holderDid, name: 'Ada' });
    // The type given with an id must be the credential's.
    const mismatch = await refusal(invokeOperation(holder, sdDisclose, { credentialType: 'DriversLicenceCredential', credentialId: first.id!, selectiveDisclosureKeys: ['name'] }));
    expect(mismatch.message).toMatch(/credentialId: is a VerifiableCredential\/PassportCredential credential, not DriversLicenceCredential/);
    const both = await refusal(invokeOperation(holder, sdDisclose, { credentialId: first.id!, credential: first, selectiveDisclosureKeys: ['name'] }));
    expect(both.message).toMatch(/credential and credentialId both name a credential/);

    expect(heldIds(holder)).toEqual([second.id, first.id]);
  });
});

describe('what this wallet issues', () => {
  it('is kept by its holder when it is for one of the holder\'s DIDs (or names no subject), never when it is for another holder', async () => {
    const ctx = wallet('issues');
    const did = (await createHolderIdentity(ctx)).did_String;
    const own = await issueSelectiveDisclosureCredential(ctx, { holder: did });
    const bearer = await issueBbs2023SelectiveDisclosureCredential(ctx, {});
    const before = listHeldCredentials(ctx);
    expect(before.map((record) => [record.credentialId ?? 'no id', record.kind, record.source, record.subject ?? 'none'])).toEqual([
      ['no id', 'bbs2023', 'issued', 'none'],
      [own.id, 'bbs2020', 'issued', did],
    ]);
    // For bob: issued, and the holder's store is exactly as it was (no replaced credential).
    const bob = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bob' });
    const bob2023 = await issueBbs2023SelectiveDisclosureCredential(ctx, { holder: 'did:example:bob' });
    expect(bob.credentialSubject.id).toBe('did:example:bob');
    expect(bob2023.credentialSubject.id).toBe('did:example:bob');
    expect(listHeldCredentials(ctx)).toEqual(before);
    // And disclosing by type still discloses the holder's own newest, never bob's.
    const { vc } = await invokeOperation(ctx, sdDisclose, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'name'] });
    expect(vc.credentialSubject).toEqual({ name: 'Alice Example' });
    expect(bearer.credentialSubject.id).toBeUndefined();
  });
});

describe('an import refuses, with the reason, and keeps nothing', () => {
  it('a changed credential, one for someone else, a disclosure, an unknown proof, and a list with one bad entry', async () => {
    const ctx = wallet('refusals');
    const did = (await createHolderIdentity(ctx)).did_String;
    const good = await issueSelectiveDisclosureCredential(issuer, { holder: did, store: false });
    const good2023 = await issueBbs2023SelectiveDisclosureCredential(issuer, { holder: did, store: false });
    const changed = { ...good, credentialSubject: { ...good.credentialSubject, birthDate: 19700101 } };
    const changed2023 = { ...good2023, credentialSubject: { ...good2023.credentialSubject, nationality: 'FRA' } };
    const forBob = await issueSelectiveDisclosureCredential(issuer, { holder: 'did:example:bob', store: false });
    const disclosure = (await invokeOperation(ctx, sdDisclose, { credential: good, selectiveDisclosureKeys: ['name'] })).vc;
    const cases: Array<[string, unknown, RegExp, string]> = [
      ['a changed value (2020)', changed, /^credential: the issuer's BBS\+ signature does not verify: /, 'credential.proof'],
      ['a changed value (bbs-2023)', changed2023, /^credential: the issuer's bbs-2023 proof does not verify: /, 'credential.proof'],
      ['a credential for did:example:bob', forBob, new RegExp(`^credential\\.credentialSubject\\.id: the credential is for did:example:bob, not for the holder of this wallet, whose DID is ${did}`), 'credential.credentialSubject.id'],
      ['a derived disclosure', disclosure, /^credential\.proof: its proof is a BbsBlsSignatureProof2020: a disclosure derived for a verifier/, 'credential.proof'],
      ['an unknown proof', { ...good, proof: { ...good.proof, type: 'Ed25519Signature2020' } }, /^credential\.proof: proof type Ed25519Signature2020 is not one vc holds/, 'credential.proof'],
      ['a list with one changed entry', [good, changed], /^credential\[1\]: the issuer's BBS\+ signature does not verify/, 'credential[1].proof'],
    ];
    for (const [name, credential, message, field] of cases) {
      const error = await refusal(importing(ctx, credential));
      expect(error, name).toBeInstanceOf(UnprocessableError);
      expect(error.message, name).toMatch(message);
      expect(error.field, name).toBe(field);
      expect(heldIds(ctx), name).toEqual([]);
    }
    // The good ones, as a list: kept together.
    const { imported } = await importing(ctx, [good, good2023]);
    expect(imported.map((entry) => entry.kind)).toEqual(['bbs2020', 'bbs2023']);
    expect(heldIds(ctx).sort()).toEqual(imported.map((entry) => entry.id).sort());
    expect(heldIds(ctx)).toHaveLength(2);
  });

  it('a different credential under an id already held is a conflict (409) naming the command that makes room', async () => {
    const ctx = wallet('conflict');
    const did = (await createHolderIdentity(ctx)).did_String;
    const { keepHeldCredential } = await import('../../../src/core/holder/holderStore.js');
    const credential = await issueSelectiveDisclosureCredential(issuer, { holder: did, store: false });
    keepHeldCredential(ctx, { ...credential, note: 'kept earlier' }, { kind: 'bbs2020', source: 'imported' });
    const conflict = await refusal(importing(ctx, credential));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.message).toBe(`credential: the holder already has another credential with the id ${credential.id} (\`vc holder credentials delete ${credential.id}\` first to replace it)`);
    expect(listHeldCredentials(ctx).map((record) => record.credential.note)).toEqual(['kept earlier']);
  });

  it('the same credential with more proofs upgrades the held copy in place (an iden3 credential whose claim was published since); fewer or other proofs are a conflict', async () => {
    const ctx = wallet('upgrade');
    const did = (await createHolderIdentity(ctx)).did_String;
    const { keepHeldCredential } = await import('../../../src/core/holder/holderStore.js');
    const credential = (await issueSelectiveDisclosureCredential(issuer, { holder: did, store: false })) as Json;
    const other = (await issueSelectiveDisclosureCredential(issuer, { holder: did, store: false })) as Json;
    const first = keepHeldCredential(ctx, credential, { kind: 'bbs2020', source: 'imported' });
    const extra = { type: 'Iden3SparseMerkleTreeProof', mtp: { existence: true } };
    const more = { ...credential, proof: [credential.proof, extra] };
    const upgraded = keepHeldCredential(ctx, more, { kind: 'bbs2020', source: 'imported' });
    expect(upgraded.alreadyHeld).toBe(true);
    expect(upgraded.record.sequence).toBe(first.record.sequence);
    expect(listHeldCredentials(ctx).map((record) => record.credential.proof)).toEqual([[credential.proof, extra]]);
    // Back to fewer proofs, another proof beside the extra one, or other content: refused, the upgraded copy stays.
    for (const changed of [credential, { ...credential, proof: [other.proof, extra] }, { ...more, issuanceDate: '2020-01-01T00:00:00Z' }]) {
      expect(() => keepHeldCredential(ctx, changed, { kind: 'bbs2020', source: 'imported' })).toThrow(ConflictError);
    }
    expect(listHeldCredentials(ctx).map((record) => record.credential.proof)).toEqual([[credential.proof, extra]]);
  });
});

describe('a credential with a status', () => {
  type Entry = { id: string; statusListIndex: string; statusListCredential: string };
  const entriesOf = (credential: Json): Entry[] => (Array.isArray(credential.credentialStatus) ? (credential.credentialStatus as Entry[]) : [credential.credentialStatus as Entry]);

  it('bbs-2023: kept when its list (from the issuer service) says it holds; refused with the reason when revoked or when its list is not at hand', async () => {
    const server = await startServer(issuer, { roles: ['issuer'], port: 0, host: '127.0.0.1' });
    try {
      const ctx = new Context({ config: parseConfig({ VC_ISSUER_URL: server.urls.issuer! }, path.join(tmp.dir, 'status-holder')) });
      contexts.push(ctx);
      const did = (await createHolderIdentity(ctx)).did_String;
      const good = (await issueBbs2023SelectiveDisclosureCredential(issuer, { holder: did, status: ['revocation'], store: false })) as Json;
      const revoked = (await issueBbs2023SelectiveDisclosureCredential(issuer, { holder: did, status: ['revocation', 'suspension'], store: false })) as Json;
      const [entry] = entriesOf(revoked) as [Entry];
      expect(entry.statusListCredential.startsWith(`${server.urls.issuer!}/status-lists/`)).toBe(true);
      await changeCredentialStatus(issuer, { id: entry.id, purpose: 'revocation', set: true });

      const refused = await refusal(importing(ctx, [good, revoked]));
      expect(refused).toBeInstanceOf(UnprocessableError);
      expect(refused.message).toBe(`credential[1].credentialStatus: revoked: index ${entry.statusListIndex} of status list ${entry.statusListCredential} is set (revocation); not kept`);
      expect(refused.field).toBe('credential[1].credentialStatus');
      expect(heldIds(ctx)).toEqual([]);
      const { imported } = await importing(ctx, good);
      expect(imported).toHaveLength(1);
      expect(heldIds(ctx)).toEqual([imported[0]!.id]);

      // A wallet that may fetch no list (its issuer address is not the list's): not kept.
      const elsewhere = wallet('status-elsewhere');
      const noSubjectId = (await issueBbs2023SelectiveDisclosureCredential(issuer, { status: ['revocation'], store: false })) as Json;
      expect((noSubjectId.credentialSubject as Json).id).toBeUndefined();
      const unknown = await refusal(importing(elsewhere, noSubjectId));
      expect(unknown.message).toMatch(/^credential\.credentialStatus: status list \S+: not at hand: give it .*; not kept$/);
      expect(heldIds(elsewhere)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('BbsBlsSignature2020: refused naming every status type, since none can be checked', async () => {
    const ctx = wallet('status-2020');
    const credential = await issueSelectiveDisclosureCredential(issuer, { store: false });
    const withStatus = { ...credential, credentialStatus: [{ id: 'https://status.example/1#5', type: 'RevocationList2020Status' }, { id: 'https://status.example/2#9' }] };
    const refused = await refusal(importing(ctx, withStatus));
    expect(refused.message).toBe('credential.credentialStatus: vc cannot check a status (types "RevocationList2020Status", none) on a BbsBlsSignature2020 credential, so it cannot tell whether the issuer revoked it; not kept');
    expect(heldIds(ctx)).toEqual([]);
  });
});

describe('a wallet of the former store (one BBS+ credential per type, latest wins)', () => {
  it('moves every record in on first use, in one transaction, and leaves the old namespace empty', async () => {
    const ctx = wallet('legacy');
    const passport = await issueSelectiveDisclosureCredential(issuer, { holder: 'did:example:bob', store: false });
    const other = await issueBbs2023SelectiveDisclosureCredential(issuer, { holder: 'did:example:alice', store: false });
    // What the former store wrote: keyed by type, the latest one of a type only.
    ctx.store.put(LEGACY_SD_CREDENTIALS_NAMESPACE, 'PassportCredential', { credential: passport, storedAt: '2030-01-01T00:00:00.000Z' });
    // (A record under another type's key: the former store kept one per type.)
    ctx.store.put(LEGACY_SD_CREDENTIALS_NAMESPACE, 'OtherCredential', { credential: other, storedAt: '2030-01-02T00:00:00.000Z' });
    expect(ctx.store.count(HELD_CREDENTIALS_NAMESPACE)).toBe(0);

    const { credentials } = await invokeOperation(ctx, holderList, {});
    // Without loss: both, even the one for bob (the former store kept it; the user may delete it now), newest first.
    expect(credentials.map((entry) => [entry.kind, entry.source, entry.subject, entry.storedAt])).toEqual([
      ['bbs2023', 'migrated', 'did:example:alice', '2030-01-02T00:00:00.000Z'],
      ['bbs2020', 'migrated', 'did:example:bob', '2030-01-01T00:00:00.000Z'],
    ]);
    expect(ctx.store.count(LEGACY_SD_CREDENTIALS_NAMESPACE)).toBe(0);
    expect((await invokeOperation(ctx, holderShow, { id: passport.id! })).credential).toEqual(passport);
    // A second use finds nothing more to move.
    expect((await invokeOperation(ctx, holderList, {})).credentials).toHaveLength(2);
  });
});
