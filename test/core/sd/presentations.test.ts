/**
 * Presentations: the holder's did:key (created once, kept in the 0600 wallet), a VC 2.0
 * presentation signed with it around whole and derived credentials, and the verifier's checks as
 * properties: a changed claim, another signer, the wrong challenge or domain, a presentation
 * replayed for another challenge or a second time, a credential presented by someone other than
 * its subject are each refused with a reason. Interop both ways with Digital Bazaar's libraries
 * used directly: a presentation they sign verifies in vc, and one vc signs verifies with their
 * vc.verify.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { createVerifierNonce } from '../../../src/core/sd/verify.js';
import { issueRdfcCredential } from '../../../src/core/sd/rdfcCredentials.js';
import { issueBbs2023SelectiveDisclosureCredential, issueSelectiveDisclosureCredential } from '../../../src/core/sd/sdIssuance.js';
import { deriveSelectiveDisclosure } from '../../../src/core/sd/disclose.js';
import { createHolderPresentation, describeHolderKey, vcApiProve, vcApiVerifyPresentation, verifyPresentation } from '../../../src/core/sd/presentations.js';
import { tempDir } from '../../helpers.js';
import { digitalBazaarIssue, digitalBazaarKey, digitalBazaarPresent, digitalBazaarVerifyPresentation } from '../../sd/suites/rdfc/digitalBazaarSide.js';

type Json = Record<string, unknown>;
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const DOMAIN = 'verifier.example';
const tmp = tempDir('vc-vp-');
/** The issuer, the holder and the verifier share one wallet here (one context); the holder's key is its own. */
let ctx: Context;
let holder: string;
let credential: Json;
let disclosed: Json;

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE }, path.join(tmp.dir, 'home')) });
  holder = describeHolderKey(ctx).did;
  credential = (await issueRdfcCredential(ctx, { keyType: 'Ed25519', holder })) as Json;
  await issueBbs2023SelectiveDisclosureCredential(ctx, { holder });
  disclosed = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'nationality'] })).vc;
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

async function present(credentials: Json[], challenge: string, domain = DOMAIN, keyType?: 'Ed25519' | 'P-256' | 'P-384'): Promise<Json> {
  return createHolderPresentation(ctx, { credentials, challenge, domain, keyType });
}

function failure(result: Awaited<ReturnType<typeof verifyPresentation>>): string {
  expect(result.verified).toBe(false);
  return result.message;
}

describe("the holder's key", () => {
  it('is created on first use and kept: the same did:key every time, in a wallet only its owner reads', () => {
    expect(describeHolderKey(ctx)).toEqual({ did: holder, verificationMethod: `${holder}#${holder.slice(8)}`, keyType: 'Ed25519', type: 'Multikey', publicKeyMultibase: holder.slice(8), cryptosuite: 'eddsa-rdfc-2022' });
    expect(describeHolderKey(ctx).did).toBe(holder);
    expect(describeHolderKey(ctx, 'P-256').did).toMatch(/^did:key:zDnae/);
    expect(statSync(ctx.store.paths.database).mode & 0o777).toBe(0o600);
    const other = new Context({ config: parseConfig({}, path.join(tmp.dir, 'other')) });
    try {
      expect(describeHolderKey(other).did).not.toBe(holder);
    } finally {
      void other.close();
    }
  });
});

describe('present and verify', () => {
  it('a whole eddsa credential and a bbs-2023 disclosure, signed with Ed25519, verify with every check named', async () => {
    const challenge = 'challenge-1';
    const vp = await present([credential, disclosed], challenge);
    expect(vp).toMatchObject({ '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], holder });
    expect(vp.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'authentication', challenge, domain: DOMAIN });
    const result = await verifyPresentation(ctx, { presentation: vp, challenge, domain: DOMAIN });
    expect(result.message).toBe(`presentation verified: 2 credentials presented by ${holder}`);
    expect(result.verified).toBe(true);
    expect(result.checks.map((check) => check.id)).toEqual(['presentation', 'proof-type', 'challenge', 'domain', 'holder', 'proof', 'fresh-challenge']);
    expect(result.credentials.map((entry) => entry.checks.at(-1))).toEqual([
      { id: 'holder-binding', valid: true },
      { id: 'holder-binding', valid: true },
    ]);
    // Digital Bazaar's verifier (vc.verify, used directly) accepts the presentation and the eddsa credential inside.
    const theirs = await digitalBazaarVerifyPresentation(await present([credential], challenge), challenge, DOMAIN);
    expect(theirs.verified, String(theirs.error)).toBe(true);
  });

  it('a BbsBlsSignatureProof2020 disclosure (VC 1.1) inside the VC 2.0 presentation verifies too', async () => {
    await issueSelectiveDisclosureCredential(ctx, { holder });
    const disclosure2020 = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'name'] })).vc;
    expect((disclosure2020.proof as Json).type).toBe('BbsBlsSignatureProof2020');
    const vp = await present([disclosure2020], 'c-2020');
    const result = await verifyPresentation(ctx, { presentation: vp, challenge: 'c-2020', domain: DOMAIN });
    expect(result.credentials[0]?.checks.filter((check) => !check.valid)).toEqual([]);
    expect(result.verified).toBe(true);
  });

  it('signed with the holder\'s P-256 or P-384 key (ecdsa-rdfc-2019) too, which also has to be the subject', async () => {
    const p256 = describeHolderKey(ctx, 'P-256').did;
    const mine = (await issueRdfcCredential(ctx, { keyType: 'P-384', holder: p256 })) as Json;
    const vp = await present([mine], 'c-ecdsa', DOMAIN, 'P-256');
    expect(vp.proof).toMatchObject({ cryptosuite: 'ecdsa-rdfc-2019' });
    expect((await verifyPresentation(ctx, { presentation: vp, challenge: 'c-ecdsa', domain: DOMAIN })).verified).toBe(true);
    expect((await digitalBazaarVerifyPresentation(vp, 'c-ecdsa', DOMAIN)).verified).toBe(true);
    await expect(present([mine], 'c', DOMAIN, 'P-384')).rejects.toThrow(/credentials\[0\]: its subject is did:key:zDnae.*, not this holder \(did:key:z82L/);
  });
});

describe('refusals, each with its reason', () => {
  it('a presentation replayed with another challenge, or for another domain', async () => {
    const vp = await present([credential], 'challenge-A');
    expect(failure(await verifyPresentation(ctx, { presentation: vp, challenge: 'challenge-B', domain: DOMAIN }))).toBe(
      'verification failed: the presentation was signed for the challenge "challenge-A", not "challenge-B": made for another request or another verifier (a replay)',
    );
    expect(failure(await verifyPresentation(ctx, { presentation: vp, challenge: 'challenge-A', domain: 'other.example' }))).toBe(
      'verification failed: the presentation was signed for the domain "verifier.example", not "other.example"',
    );
    // Rewriting the challenge in the proof to the one asked for breaks the signature.
    const rewritten = structuredClone(vp);
    (rewritten.proof as Json).challenge = 'challenge-B';
    expect(failure(await verifyPresentation(ctx, { presentation: rewritten, challenge: 'challenge-B', domain: DOMAIN }))).toMatch(/signature does not match the signed statements/);
  });

  it("the verifier's own challenge is used up: the same presentation is refused the second time", async () => {
    const { nonce } = createVerifierNonce(ctx);
    const vp = await present([credential], nonce);
    expect((await verifyPresentation(ctx, { presentation: vp, challenge: nonce, domain: DOMAIN })).verified).toBe(true);
    expect(failure(await verifyPresentation(ctx, { presentation: vp, challenge: nonce, domain: DOMAIN }))).toMatch(/challenge: nonce already used at .* \(replayed proof\)/);
    // With nonces required, a challenge this verifier did not issue is refused.
    const foreign = await present([credential], 'made-up');
    expect(failure(await verifyPresentation(ctx, { presentation: foreign, challenge: 'made-up', domain: DOMAIN, requireNonce: true }))).toMatch(/challenge: the proof nonce was not issued by this verifier/);
  });

  it('a changed claim in a credential inside (the presentation proof covers it; re-signed, the credential proof fails)', async () => {
    const vp = await present([credential], 'c-tamper');
    const tampered = structuredClone(vp);
    ((tampered.verifiableCredential as Json[])[0]!.credentialSubject as Json).nationality = 'BEL';
    expect(failure(await verifyPresentation(ctx, { presentation: tampered, challenge: 'c-tamper', domain: DOMAIN }))).toMatch(/eddsa-rdfc-2022 signature does not match/);
    // The holder re-signs around the changed credential: now the issuer's proof is what fails.
    const changed = structuredClone(credential);
    (changed.credentialSubject as Json).nationality = 'BEL';
    const resigned = await present([changed], 'c-tamper');
    const result = await verifyPresentation(ctx, { presentation: resigned, challenge: 'c-tamper', domain: DOMAIN });
    expect(failure(result)).toMatch(/^verification failed: credential 0: the eddsa-rdfc-2022 signature does not match the signed statements/);
  });

  it('another key: a presentation whose proof names another did:key, and one that names another holder', async () => {
    const vp = await present([credential], 'c-key');
    const other = await digitalBazaarKey('Ed25519');
    const swapped = structuredClone(vp);
    swapped.holder = other.did;
    (swapped.proof as Json).verificationMethod = other.verificationMethod;
    expect(failure(await verifyPresentation(ctx, { presentation: swapped, challenge: 'c-key', domain: DOMAIN }))).toMatch(/signature does not match the signed statements/);
    const renamed = structuredClone(vp);
    renamed.holder = other.did;
    expect(failure(await verifyPresentation(ctx, { presentation: renamed, challenge: 'c-key', domain: DOMAIN }))).toBe(
      `verification failed: the presentation names the holder ${other.did} but is signed by ${holder}`,
    );
  });

  it("holder binding: another holder presenting someone else's credential (signed by Digital Bazaar's libraries) is refused", async () => {
    const thief = await digitalBazaarKey('Ed25519');
    const vp = await digitalBazaarPresent([credential], thief, 'c-bind', DOMAIN);
    const result = await verifyPresentation(ctx, { presentation: vp, challenge: 'c-bind', domain: DOMAIN });
    expect(result.checks.every((check) => check.valid)).toBe(true);
    expect(failure(result)).toBe(`verification failed: credential 0: its subject is ${holder}, but the presentation is signed by ${thief.did}: only the subject may present it`);
    // vc's holder refuses to make such a presentation at all.
    const { proof: _proof, ...unsigned } = credential;
    const stranger = await digitalBazaarIssue({ ...unsigned, issuer: thief.did, credentialSubject: { id: thief.did, nationality: 'NLD' } }, thief);
    await expect(present([stranger], 'c')).rejects.toThrow(new RegExp(`credentials\\[0\\]: its subject is ${thief.did}, not this holder`));
  });

  it("a credential inside that breaks a rule of the VC data model (their proof holding) is refused naming the check; vc's holder does not present one", async () => {
    const other = await digitalBazaarKey('Ed25519');
    const { proof: _proof, ...unsigned } = credential;
    // A name that is neither a string nor a language value object (section 4.6), which vc.js does not check.
    const numericName = { name: 42 };
    const theirs = await digitalBazaarIssue({ ...unsigned, ...numericName, issuer: other.did, credentialSubject: { id: other.did, nationality: 'NLD' } }, other);
    const vp = await digitalBazaarPresent([theirs], other, 'c-rules', DOMAIN);
    const result = await verifyPresentation(ctx, { presentation: vp, challenge: 'c-rules', domain: DOMAIN });
    expect(result.checks.every((check) => check.valid)).toBe(true);
    expect(result.verified).toBe(false);
    expect(result.credentials[0]!.checks.find((check) => !check.valid)).toEqual({ id: 'data-model:name', valid: false, reason: 'name: expected a string or language value objects ({"@value", "@language"}), got 42 (check data-model:name, VC Data Model 2.0 §4.6)' });
    // The same rule on the holder's side: a credential of this holder that breaks it is not presented.
    const mine = await digitalBazaarIssue({ ...unsigned, ...numericName, issuer: other.did }, other);
    await expect(present([mine], 'c')).rejects.toThrow(/^credentials\[0\]\.name: expected a string or language value objects .*, got 42 \(check data-model:name, VC Data Model 2\.0 §4\.6\)$/);
  });

  it('a presentation proof of another purpose, of bbs-2023, or no proof; a credential given by reference', async () => {
    const vp = await present([credential], 'c-form');
    const purpose = structuredClone(vp);
    (purpose.proof as Json).proofPurpose = 'assertionMethod';
    expect(failure(await verifyPresentation(ctx, { presentation: purpose, challenge: 'c-form', domain: DOMAIN }))).toMatch(/proofPurpose: expected authentication, got "assertionMethod"/);
    const bbs = structuredClone(vp);
    (bbs.proof as Json).cryptosuite = 'bbs-2023';
    expect(failure(await verifyPresentation(ctx, { presentation: bbs, challenge: 'c-form', domain: DOMAIN }))).toMatch(/signed by its holder with eddsa-rdfc-2022 or ecdsa-rdfc-2019, not bbs-2023/);
    const { proof: _proof, ...unsigned } = vp;
    expect(failure(await verifyPresentation(ctx, { presentation: unsigned, challenge: 'c-form', domain: DOMAIN }))).toMatch(/there is no proof object/);
    const reference = { ...structuredClone(vp), verifiableCredential: ['urn:uuid:1234'] };
    expect(failure(await verifyPresentation(ctx, { presentation: reference, challenge: 'c-form', domain: DOMAIN }))).toMatch(/verifiableCredential\[0\]: expected a credential object/);
    const empty = { ...structuredClone(vp), verifiableCredential: [] };
    expect(failure(await verifyPresentation(ctx, { presentation: empty, challenge: 'c-form', domain: DOMAIN }))).toMatch(/carries no credential/);
  });
});

describe('interop with Digital Bazaar', () => {
  it('a presentation their holder signs (P-256) around a credential their issuer signs (Ed25519) verifies in vc, also over the VC-API shape', async () => {
    const issuer = await digitalBazaarKey('Ed25519');
    const theirHolder = await digitalBazaarKey('P-256');
    const theirs = await digitalBazaarIssue(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
        type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
        issuer: issuer.did,
        validFrom: '2024-01-01T00:00:00Z',
        credentialSubject: { id: theirHolder.did, type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '542426814' } },
      },
      issuer,
    );
    const vp = await digitalBazaarPresent([theirs], theirHolder, 'c-db', DOMAIN);
    const result = await verifyPresentation(ctx, { presentation: vp, challenge: 'c-db', domain: DOMAIN });
    expect(result.message).toBe(`presentation verified: 1 credential presented by ${theirHolder.did}`);
    const api = await vcApiVerifyPresentation(ctx, { presentation: vp, challenge: 'c-db', domain: DOMAIN });
    expect(api).toMatchObject({ verified: true, errors: [], credentialResults: [{ index: 0, verified: true }] });
    const wrong = await vcApiVerifyPresentation(ctx, { presentation: vp, challenge: 'c-other' });
    expect(wrong.verified).toBe(false);
    expect(wrong.errors[0]?.message).toMatch(/signed for the challenge "c-db", not "c-other"/);
  });

  it('the VC-API holder signs a given presentation; its holder must be this holder, its verification method this key', async () => {
    const presentation = { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], verifiableCredential: [credential] };
    const { verifiablePresentation } = await vcApiProve(ctx, { presentation, options: { challenge: 'c-api', domain: DOMAIN } });
    expect(verifiablePresentation.holder).toBe(holder);
    expect((await digitalBazaarVerifyPresentation(verifiablePresentation, 'c-api', DOMAIN)).verified).toBe(true);
    await expect(vcApiProve(ctx, { presentation: { ...presentation, holder: 'did:example:mallory' }, options: { challenge: 'c' } })).rejects.toThrow(/presentation\.holder: expected this holder's Ed25519 did:key/);
    await expect(vcApiProve(ctx, { presentation, options: { challenge: 'c', verificationMethod: 'did:key:z6Mkother#z6Mkother' } })).rejects.toThrow(/signs eddsa-rdfc-2022 presentations with did:key:z6Mk.* only/);
    await expect(vcApiProve(ctx, { presentation: { ...presentation, type: ['Presentation'] }, options: { challenge: 'c' } })).rejects.toThrow(/type must include VerifiablePresentation/);
  });
});
