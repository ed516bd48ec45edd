/**
 * bbs-2023 in process: the specification's own test vectors verify; vc interoperates with
 * @digitalbazaar/bbs-2023-cryptosuite used directly (each verifies what the other derives); the
 * tamper cases of the 2020 suite are refused with reasons; the VC-API operations refuse what the
 * W3C suite's negative cases send; and the randomness holds as a property: no two signatures
 * share an HMAC key, no two derived proofs share a 16-byte window of their BBS proof, here and
 * across processes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode, encode } from 'cborg';
import { parseConfig } from '../../../../src/config/parse.js';
import { Context } from '../../../../src/context.js';
import { createVerifierNonce, deriveSelectiveDisclosure, verifySelectiveDisclosure } from '../../../../src/core/sd/index.js';
import { issueBbs2023SelectiveDisclosureCredential } from '../../../../src/core/sd/sdIssuance.js';
import { vcApiDerive, vcApiIssue, vcApiVerify } from '../../../../src/core/sd/vcApiCredentials.js';
import { createBbs2023DocumentLoader } from '../../../../src/sd/suites/bbs2023/bbs2023Loader.js';
import { deriveBbs2023Key, verifyBbs2023 } from '../../../../src/sd/suites/bbs2023/bbs2023Suite.js';
import { bbsLibraries } from '../../../../src/sd/library.js';
import { ROOT, runVc, tempDir } from '../../../helpers.js';
import { holdDirectly } from '../../../core/holder/support.js';

type Json = Record<string, unknown>;
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const OTHER_PHRASE = 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above';
const tmp = tempDir('vc-bbs2023-');
const loader = createBbs2023DocumentLoader();
let ctx: Context;
let did: string;
let issued: Json;

beforeAll(async () => {
  did = (await deriveBbs2023Key(PHRASE)).did;
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: did }, path.join(tmp.dir, 'home')) });
  issued = (await issueBbs2023SelectiveDisclosureCredential(ctx, { holder: 'did:example:alice' })) as Json;
  holdDirectly(ctx, issued);
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

/** The components of a bbs-2023 proof value: header (3 bytes), then a CBOR array. */
function proofComponents(vc: Json): unknown[] {
  const bytes = Buffer.from(((vc.proof as Json).proofValue as string).slice(1), 'base64url');
  return decode(bytes.subarray(3), { useMaps: true }) as unknown[];
}

/** True when `a` and `b` share any run of `window` bytes. */
function shareWindow(a: Uint8Array, b: Uint8Array, window = 16): boolean {
  const seen = new Set<string>();
  for (let i = 0; i + window <= a.length; i++) seen.add(Buffer.from(a.subarray(i, i + window)).toString('hex'));
  for (let i = 0; i + window <= b.length; i++) if (seen.has(Buffer.from(b.subarray(i, i + window)).toString('hex'))) return true;
  return false;
}

async function disclose(keys: string[], nonce?: string): Promise<Json> {
  return (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys, nonce })).vc;
}

describe('the bbs-2023 specification test vectors (w3c/vc-di-bbs TestVectors, test/fixtures/bbs2023-vectors)', () => {
  const vector = (name: string): Json => JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'bbs2023-vectors', name), 'utf8')) as Json;

  it('the derived reveal document verifies, and fails once a revealed value changes', async () => {
    const derived = vector('derivedRevealDocument.json');
    expect(await verifyBbs2023(derived, loader, new Date(), { bindIssuer: false })).toMatchObject({ verified: true });
    const tampered = structuredClone(derived);
    (tampered.credentialSubject as Json).sailNumber = 'Earth102';
    const result = await verifyBbs2023(tampered, loader, new Date(), { bindIssuer: false });
    expect(result.verified).toBe(false);
    expect(result.reason).toMatch(/does not match the disclosed statements/);
  });

  it('the signed base document verifies (by disclosing everything), and fails once a hidden value changes', async () => {
    const base = vector('addSignedSDBase.json');
    expect(await verifyBbs2023(base, loader, new Date(), { bindIssuer: false })).toMatchObject({ verified: true });
    const tampered = structuredClone(base);
    ((tampered.credentialSubject as Json).boards as Json[])[1]!.year = 2018;
    expect((await verifyBbs2023(tampered, loader, new Date(), { bindIssuer: false })).verified).toBe(false);
  });

  it("the vectors' key is the published one, and their issuer (a URL, not the key's DID) fails the issuer binding", async () => {
    const keys = vector('BBSKeyMaterial.json') as { publicKeyHex: string };
    const method = (vector('derivedRevealDocument.json').proof as Json).verificationMethod as string;
    const multibase = method.split('#')[1]!;
    // MATTR's decoder of the same multicodec (0xeb 0x01 + 96 bytes), independent of the libraries under test.
    const { Bls12381G2KeyPair } = (await bbsLibraries()).bbs;
    expect(Buffer.from(Bls12381G2KeyPair.fromFingerprint({ fingerprint: multibase }).publicKeyBuffer).toString('hex')).toBe(keys.publicKeyHex);
    const bound = await verifyBbs2023(vector('derivedRevealDocument.json'), loader, new Date());
    expect(bound.verified).toBe(false);
  });
});

describe('interoperability with @digitalbazaar/bbs-2023-cryptosuite used directly', () => {
  it('vc verifies a disclosure the library derives from a vc credential, bound to a vc nonce', async () => {
    const { createDiscloseCryptosuite } = await import('@digitalbazaar/bbs-2023-cryptosuite');
    const { DataIntegrityProof } = await import('@digitalbazaar/data-integrity');
    const vcjs = await import('@digitalbazaar/vc');
    const { nonce } = createVerifierNonce(ctx);
    const suite = new DataIntegrityProof({
      cryptosuite: createDiscloseCryptosuite({ selectivePointers: ['/credentialSubject/nationality'], presentationHeader: new Uint8Array(Buffer.from(nonce, 'base64')) }),
    });
    const derived = await vcjs.derive({ verifiableCredential: structuredClone(issued), suite, documentLoader: loader });
    expect(Object.keys(derived.credentialSubject as Json).sort()).toEqual(['id', 'nationality']);
    const result = await verifySelectiveDisclosure(ctx, { vc: derived, requireNonce: true });
    expect(result.checks.filter((check) => !check.valid)).toEqual([]);
    expect(result.verified).toBe(true);
  });

  it('the library verifies a disclosure vc derives, and reads the nonce vc bound it to', async () => {
    const { createVerifyCryptosuite } = await import('@digitalbazaar/bbs-2023-cryptosuite');
    const { DataIntegrityProof } = await import('@digitalbazaar/data-integrity');
    const vcjs = await import('@digitalbazaar/vc');
    const nonce = Buffer.alloc(32, 7).toString('base64');
    const derived = await disclose(['name'], nonce);
    const cryptosuite = createVerifyCryptosuite({ expectedPresentationHeader: new Uint8Array(Buffer.alloc(32, 7)) });
    const result = await vcjs.verifyCredential({ credential: derived, suite: new DataIntegrityProof({ cryptosuite }), documentLoader: loader });
    expect(result.verified).toBe(true);
    const wrong = createVerifyCryptosuite({ expectedPresentationHeader: new Uint8Array(Buffer.alloc(32, 8)) });
    expect((await vcjs.verifyCredential({ credential: derived, suite: new DataIntegrityProof({ cryptosuite: wrong }), documentLoader: loader })).verified).toBe(false);
  });
});

describe('disclosure reveals what was asked and nothing more', () => {
  it('the derived credential carries the asked fields and the mandatory ones only; its proof holds', async () => {
    const derived = await disclose(['id', 'name', 'nationality', 'notAField']);
    expect(Object.keys(derived.credentialSubject as Json).sort()).toEqual(['id', 'name', 'nationality']);
    expect(Object.keys(derived).sort()).toEqual(['@context', 'credentialSubject', 'issuer', 'proof', 'type', 'validFrom']);
    expect(JSON.stringify(derived)).not.toContain((issued.credentialSubject as Json).passportNumber as string);
    expect((await verifySelectiveDisclosure(ctx, { vc: derived })).verified).toBe(true);
  });
});

describe('what a holder cannot hide, and what links disclosures', () => {
  it('the issuer and validity fields are disclosed whatever mandatory pointers the issuer gives', async () => {
    const other = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: did }, path.join(tmp.dir, 'mandatory')) });
    try {
      const signed = (await issueBbs2023SelectiveDisclosureCredential(other, { expirationDate: '2099-01-01', mandatoryPointers: [] })) as Json;
      const { vc } = await deriveSelectiveDisclosure(other, { type: 'PassportCredential', keys: ['name'] });
      expect([vc.issuer, vc.validFrom, vc.validUntil]).toEqual([signed.issuer, signed.validFrom, '2099-01-01T00:00:00.000Z']);
      const unsigned: Json = { ...structuredClone(signed), validUntil: '2020-01-01T00:00:00Z', validFrom: '2019-01-01T00:00:00Z' };
      delete unsigned.proof;
      const expired = (await vcApiIssue(other, { credential: unsigned, mandatoryPointers: ['/issuer'] })).verifiableCredential;
      // The base proof names the pointers every disclosure must reveal (its fifth component): a
      // holder's own software cannot leave them out and still produce a proof that verifies.
      expect(proofComponents(expired)[4]).toEqual(expect.arrayContaining(['/issuer', '/validFrom', '/validUntil']));
      expect(proofComponents(signed)[4]).toEqual(expect.arrayContaining(['/issuer', '/validFrom', '/validUntil']));
    } finally {
      await other.close();
    }
  });

  it('two disclosures of one credential share no identifier: no credential id, and validFrom is the day of issuance', async () => {
    const a = await disclose(['nationality']);
    const b = await disclose(['nationality']);
    expect(a.id).toBeUndefined();
    expect(b.id).toBeUndefined();
    expect(a.validFrom).toMatch(/T00:00:00\.000Z$/);
    expect((a.proof as Json).proofValue).not.toBe((b.proof as Json).proofValue);
  });

  it('but they share their label map: the blank nodes of a nested subject keep the order the issuer’s HMAC key shuffled them into (the README says so)', async () => {
    // No credential id and no subject id: the credential, its subject and the nested degree are
    // blank nodes, whose canonical labels each disclosure maps to the base proof's shuffled ones.
    const unsigned: Json = {
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
      type: ['VerifiableCredential'],
      issuer: did,
      validFrom: '2024-01-01T00:00:00Z',
      credentialSubject: { degree: { type: 'ExampleBachelorDegree', name: 'Bachelor of Science' }, alumniOf: 'Example University' },
    };
    const signed = (await vcApiIssue(ctx, { credential: unsigned })).verifiableCredential;
    const labelMap = async (): Promise<Map<number, number>> => {
      const derived = (await vcApiDerive(ctx, { credential: signed, selectivePointers: ['/credentialSubject/degree/name'] })).verifiableCredential;
      return proofComponents(derived)[1] as Map<number, number>;
    };
    const [first, second] = [await labelMap(), await labelMap()];
    expect(first.size).toBe(3);
    // The same permutation of 0..n-1 in every disclosure: with n blank nodes, up to log2(n!) bits
    // (2.6 here) that two verifiers can compare to link disclosures of one credential.
    expect([...first.values()].sort()).toEqual([0, 1, 2]);
    expect([...second.entries()]).toEqual([...first.entries()]);
  });
});

describe('randomness, as properties', () => {
  it('two signatures of the same credential use different HMAC keys (the base proof relabels blank nodes with it)', async () => {
    const unsigned: Json = { ...structuredClone(issued), id: 'urn:uuid:00000000-0000-4000-8000-000000000001' };
    delete unsigned.proof;
    const a = (await vcApiIssue(ctx, { credential: unsigned })).verifiableCredential;
    const b = (await vcApiIssue(ctx, { credential: unsigned })).verifiableCredential;
    const [, , , hmacA] = proofComponents(a) as Uint8Array[];
    const [, , , hmacB] = proofComponents(b) as Uint8Array[];
    expect(hmacA).toHaveLength(32);
    expect(Buffer.from(hmacA!).equals(Buffer.from(hmacB!))).toBe(false);
  });

  it('ten derivations of one credential with the same fields and nonce share no 16-byte window of their BBS proofs', async () => {
    const nonce = Buffer.alloc(32, 1).toString('base64');
    const proofs: Uint8Array[] = [];
    for (let i = 0; i < 10; i++) proofs.push(proofComponents(await disclose(['nationality'], nonce))[0] as Uint8Array);
    for (let i = 0; i < proofs.length; i++) for (let j = i + 1; j < proofs.length; j++) expect(shareWindow(proofs[i]!, proofs[j]!), `proofs ${i} and ${j}`).toBe(false);
  });

  it('across processes: two `vc` processes with the same key give different HMAC keys and unlinkable proofs', () => {
    const results = [0, 1].map((index) => {
      const home = path.join(tmp.dir, `process-${index}`);
      const env = { IDP_BLS_SIGN_SEED_PHRASE: PHRASE };
      // No --holder: a credential without a subject id is the holder's of this wallet, kept for disclose --type.
      const issue = runVc(['issuer', 'issue', '--format', 'bbs-2023', '-o', path.join(tmp.dir, `c-${index}.json`)], { home, env });
      expect(issue.status, issue.stderr).toBe(0);
      const derive = runVc(['holder', 'disclose', '--type', 'PassportCredential', '--keys', 'nationality', '--nonce', Buffer.alloc(32, 2).toString('base64'), '-o', path.join(tmp.dir, `d-${index}.json`)], { home, env });
      expect(derive.status, derive.stderr).toBe(0);
      return {
        base: JSON.parse(readFileSync(path.join(tmp.dir, `c-${index}.json`), 'utf8')) as Json,
        derived: (JSON.parse(readFileSync(path.join(tmp.dir, `d-${index}.json`), 'utf8')) as { vc: Json }).vc,
      };
    });
    const [first, second] = results as [{ base: Json; derived: Json }, { base: Json; derived: Json }];
    expect(first.base.issuer).toBe(second.base.issuer);
    const hmac = results.map((result) => Buffer.from((proofComponents(result.base) as Uint8Array[])[3]!));
    expect(hmac[0]!.equals(hmac[1]!)).toBe(false);
    expect(shareWindow(proofComponents(first.derived)[0] as Uint8Array, proofComponents(second.derived)[0] as Uint8Array)).toBe(false);
  });
});

describe('tampered bbs-2023 disclosures are refused with a reason', () => {
  let derived: Json;
  let otherDid: string;
  beforeAll(async () => {
    otherDid = (await deriveBbs2023Key(OTHER_PHRASE)).did;
    derived = await disclose(['id', 'name', 'nationality']);
  });
  const proofPayload = (vc: Json): Buffer => Buffer.from(((vc.proof as Json).proofValue as string).slice(1), 'base64url').subarray(3);
  /** The proof value with its CBOR (after the 3-byte header) replaced by `change` of it. */
  const recode = (vc: Json, change: (payload: Buffer) => Buffer): void => {
    const proof = vc.proof as Json;
    const bytes = Buffer.from((proof.proofValue as string).slice(1), 'base64url');
    expect(bytes[3]).toBe(0x85);
    proof.proofValue = `u${Buffer.concat([bytes.subarray(0, 3), change(bytes.subarray(3))]).toString('base64url')}`;
  };
  const flip = (vc: Json, index: number): void => {
    const proof = vc.proof as Json;
    const bytes = Buffer.from((proof.proofValue as string).slice(1), 'base64url');
    bytes[index]! ^= 0xff;
    proof.proofValue = `u${bytes.toString('base64url')}`;
  };
  const CASES: Array<[string, (vc: Json) => void, string]> = [
    ['a disclosed value changed', (vc) => ((vc.credentialSubject as Json).name = 'Mallory'), 'proof'],
    ['a hidden field added back', (vc) => ((vc.credentialSubject as Json).birthDate = 19900101), 'proof'],
    ['the subject id changed', (vc) => ((vc.credentialSubject as Json).id = 'did:example:mallory'), 'proof'],
    ['the issuer changed', (vc) => (vc.issuer = otherDid), 'proof'],
    ['validFrom changed', (vc) => (vc.validFrom = '2020-01-01T00:00:00.000Z'), 'proof'],
    ['a validUntil added', (vc) => (vc.validUntil = '2040-01-01T00:00:00.000Z'), 'proof'],
    ['the type changed', (vc) => (vc.type = ['VerifiableCredential']), 'proof'],
    ['the proof value emptied', (vc) => ((vc.proof as Json).proofValue = ''), 'proof-type'],
    ['the proof value without its u prefix', (vc) => ((vc.proof as Json).proofValue = ((vc.proof as Json).proofValue as string).slice(1)), 'proof-type'],
    ['the proof value header zeroed', (vc) => ((vc.proof as Json).proofValue = `u${Buffer.alloc(40).toString('base64url')}`), 'proof-type'],
    ['a byte of the BBS proof flipped', (vc) => flip(vc, 40), 'proof'],
    ['the last byte flipped (presentation header)', (vc) => flip(vc, Buffer.from(((vc.proof as Json).proofValue as string).slice(1), 'base64url').length - 1), 'proof'],
    ['the cryptosuite changed', (vc) => ((vc.proof as Json).cryptosuite = 'ecdsa-sd-2023'), 'proof-type'],
    ['the proof type changed', (vc) => ((vc.proof as Json).type = 'UnknownProofType'), 'proof-type'],
    ['the proof purpose changed', (vc) => ((vc.proof as Json).proofPurpose = 'authentication'), 'proof'],
    ['the proof created date invalid', (vc) => ((vc.proof as Json).created = 'invalidDate'), 'proof'],
    ['the verificationMethod is another key', (vc) => ((vc.proof as Json).verificationMethod = `${otherDid}#${otherDid.slice(8)}`), 'proof'],
    ['the verificationMethod is not a did:key', (vc) => ((vc.proof as Json).verificationMethod = 'https://evil.example/key'), 'proof'],
    // VC 2.0 accepts inline contexts (section 4.3), but not one that redefines a protected term.
    ['an inline @context redefining a protected term', (vc) => (vc['@context'] as unknown[]).push({ name: 'https://evil.example/name' }), 'data-model:jsonld-expansion'],
    ['a remote @context added', (vc) => (vc['@context'] as unknown[]).push('https://evil.example/ctx'), 'data-model:context-known'],
    ['the credentials context not first', (vc) => (vc['@context'] as unknown[]).reverse(), 'data-model:context-first'],
    ['an @context inside the subject', (vc) => ((vc.credentialSubject as Json)['@context'] = { nickname: 'https://schema.org/name' }), 'data-model:compacted-form'],
    // One encoding per proof value (Digital Bazaar's parser reads the first five items of any CBOR).
    ['a sixth CBOR item in the proof value', (vc) => recode(vc, (payload) => Buffer.concat([Buffer.from([0x86]), payload.subarray(1), Buffer.from([0x40])])), 'proof-type'],
    ['a CBOR item missing from the proof value', (vc) => recode(vc, () => Buffer.from(encode((decode(proofPayload(vc), { useMaps: true }) as unknown[]).slice(0, 4), { useMaps: true } as never))), 'proof-type'],
    ['a byte after the CBOR array', (vc) => recode(vc, (payload) => Buffer.concat([payload, Buffer.from([0x00])])), 'proof-type'],
    ['the CBOR array with an indefinite length', (vc) => recode(vc, (payload) => Buffer.concat([Buffer.from([0x9f]), payload.subarray(1), Buffer.from([0xff])])), 'proof-type'],
    ['the CBOR array length not in its shortest form', (vc) => recode(vc, (payload) => Buffer.concat([Buffer.from([0x98, 0x05]), payload.subarray(1)])), 'proof-type'],
    ['a CBOR tag around the proof value', (vc) => recode(vc, (payload) => Buffer.concat([Buffer.from([0xd8, 0x40]), payload])), 'proof-type'],
    ['a null for a hidden field', (vc) => ((vc.credentialSubject as Json).passportNumber = null), 'shape'],
    ['blank node identifiers', (vc) => ((vc.credentialSubject as Json).nationality = { id: '_:b0' }), 'shape'],
    ['the proof removed', (vc) => delete vc.proof, 'proof-type'],
  ];

  it('the untampered disclosure verifies', async () => {
    expect((await verifySelectiveDisclosure(ctx, { vc: structuredClone(derived) })).verified).toBe(true);
  });

  it.each(CASES)('%s', { timeout: 20_000 }, async (_name, mutate, expected) => {
    const vc = structuredClone(derived);
    mutate(vc);
    const result = await verifySelectiveDisclosure(ctx, { vc });
    expect(result.verified).toBe(false);
    const failed = result.checks.filter((check) => !check.valid);
    expect(failed[0]?.id, JSON.stringify(result.checks)).toBe(expected);
    expect(failed[0]?.reason ?? '').toMatch(/\w{4,}/);
    expect(failed[0]?.reason ?? '').not.toMatch(/\n|\bat [\w.]+ \(/);
  });

  it('the issuer base proof given to a verifier is refused: it expects a disclosure', async () => {
    const result = await verifySelectiveDisclosure(ctx, { vc: structuredClone(issued) });
    expect(result.checks[0]).toMatchObject({ id: 'proof-type', valid: false, reason: expect.stringMatching(/base proof/) as string });
  });

  it('an expired credential fails the validity check naming validUntil (injected clock)', async () => {
    let clock = new Date('2031-01-01T00:00:00.000Z');
    const expiring = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: did }, path.join(tmp.dir, 'expiry')), now: () => clock });
    try {
      await issueBbs2023SelectiveDisclosureCredential(expiring, { expirationDate: '2031-02-01' });
      const { vc } = await deriveSelectiveDisclosure(expiring, { type: 'PassportCredential', keys: ['name'] });
      expect(vc.validUntil).toBe('2031-02-01T00:00:00.000Z');
      expect((await verifySelectiveDisclosure(expiring, { vc: structuredClone(vc) })).verified).toBe(true);
      clock = new Date('2031-02-01T00:00:00.000Z');
      const result = await verifySelectiveDisclosure(expiring, { vc: structuredClone(vc) });
      expect(result.checks.filter((check) => !check.valid).map((check) => check.id)).toContain('validity');
      expect(result.message).toMatch(/validUntil 2031-02-01T00:00:00\.000Z has passed/);
    } finally {
      await expiring.close();
    }
  });
});

describe('the VC-API operations', () => {
  const licence = (): Json => ({
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vdl/v1'],
    type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
    issuer: did,
    issuanceDate: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:bob', type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '542426814', family_name: 'TURNER' } },
  });

  it('issue (VC 1.1 gets the data-integrity context), derive by pointers, verify; domain and challenge must match', async () => {
    const { verifiableCredential: signed } = await vcApiIssue(ctx, { credential: licence(), mandatoryPointers: ['/issuer'] });
    expect(signed['@context']).toEqual(['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vdl/v1', 'https://w3id.org/security/data-integrity/v2']);
    const { verifiableCredential: derived } = await vcApiDerive(ctx, { credential: signed, selectivePointers: ['/credentialSubject/driversLicense/document_number'] });
    expect((derived.credentialSubject as { driversLicense: Json }).driversLicense).toEqual({ type: 'Iso18013DriversLicense', document_number: '542426814' });
    expect((await vcApiVerify(ctx, { credential: derived })).errors).toEqual([]);
    expect((await vcApiVerify(ctx, { credential: derived, domain: 'domain.example' })).errors[0]?.message).toMatch(/domain/);
    expect((await vcApiVerify(ctx, { credential: derived, challenge: '1235abcd6789' })).errors[0]?.message).toMatch(/challenge/);
  });

  it.each([
    ['an undefined type', (c: Json) => ((c.type as string[]).push('InvalidType'), c), /type "InvalidType" is not defined/],
    ['an undefined term', (c: Json) => (((c.credentialSubject as Json).invalidTerm = 'x'), c), /field "invalidTerm" is not defined/],
    ['no credentialSubject', (c: Json) => (delete c.credentialSubject, c), /credentialSubject/],
    ['another issuer', (c: Json) => ((c.issuer = 'did:example:mallory'), c), /expected this issuer's bbs-2023 DID/],
    ['a mandatory pointer to nothing', (c: Json) => c, /selects nothing/],
    ['a credential that already has a proof', (c: Json) => ((c.proof = { type: 'DataIntegrityProof' }), c), /already has a proof/],
    ['a credentialStatus', (c: Json) => ((c.credentialStatus = { id: 'https://status.example/1', type: 'BitstringStatusListEntry' }), c), /credential\.credentialStatus: the issuer assigns the status list entry itself/],
  ])('issue refuses %s with a 4xx error naming it', async (name, mutate, reason) => {
    const pointers = name === 'a mandatory pointer to nothing' ? ['/credentialSubject/nothing'] : undefined;
    const error = await vcApiIssue(ctx, { credential: mutate(licence()), mandatoryPointers: pointers }).then(
      () => undefined,
      (e: unknown) => e as { httpStatus?: number; message: string },
    );
    expect(error?.httpStatus).toBeGreaterThanOrEqual(400);
    expect(error?.httpStatus).toBeLessThan(500);
    expect(error?.message).toMatch(reason);
  });
});
