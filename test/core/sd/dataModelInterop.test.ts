/**
 * VC Data Model 2.0 credentials from the other side: signed and disclosed with Digital Bazaar's
 * bbs-2023 cryptosuite and vc.js used directly (test/sd/suites/bbs2023/digitalBazaarIssuer.ts,
 * none of vc's code), with an inline @context, language value objects, a related resource whose
 * digests vc checks, verify in vc (the verifier flow and the VC-API verifier); credentials that
 * break a rule of the data model, though their proof holds, are refused naming the rule; and a
 * bbs-2023 proof value with an extra or a missing CBOR item, which Digital Bazaar's parser lets
 * through, is refused. In process; vc signs the same credential too, and Digital Bazaar verifies it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decode, encode } from 'cborg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { createVerifierNonce, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { vcApiDerive, vcApiIssue, vcApiVerify } from '../../../src/core/sd/vcApiCredentials.js';
import { deriveBbs2023Key } from '../../../src/sd/suites/bbs2023/bbs2023Suite.js';
import { ROOT, tempDir } from '../../helpers.js';
import { digitalBazaarIssuer, type DigitalBazaarIssuer } from '../../sd/suites/bbs2023/digitalBazaarIssuer.js';

type Json = Record<string, unknown>;
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const V2 = 'https://www.w3.org/ns/credentials/v2';
const EXAMPLES = 'https://www.w3.org/ns/credentials/examples/v2';
/** VC Data Model 2.0 (Recommendation) appendix B.1: the SHA2-256 of the base context as the W3C serves it. */
const BASE_CONTEXT_SHA256 = '59955ced6697d61e03f2b2556febe5308ab16842846f5b586d7f1f7adec92734';
const tmp = tempDir('vc-dm-interop-');
let ctx: Context;
let db: DigitalBazaarIssuer;
let vcDid: string;
let credential: Json;

/** The base context's bytes as published, which vc keeps (fixtures/contexts/credentials-v2.json). */
const baseContext = readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'credentials-v2.json'));
const digest = (algorithm: string): Buffer => createHash(algorithm).update(baseContext).digest();

/** A VC 2.0 credential as an issuer on Digital Bazaar's libraries writes one. */
function alumniCredential(issuer: string): Json {
  return {
    '@context': [V2, { AlumniCredential: 'https://example.org/vocab#AlumniCredential', alumniOf: { '@id': 'https://schema.org/alumniOf', '@type': '@id' } }],
    id: 'urn:uuid:6a3b9f2e-5d1c-4c8e-9a7b-2f4d6e8c0a1b',
    type: ['VerifiableCredential', 'AlumniCredential'],
    issuer: { id: issuer, name: { '@value': 'Université Exemple', '@language': 'fr' } },
    name: { '@value': 'Alumni credential', '@language': 'en' },
    description: [
      { '@value': 'Diplômée de l’université', '@language': 'fr' },
      { '@value': 'خريجة الجامعة', '@language': 'ar', '@direction': 'rtl' },
    ],
    validFrom: '2024-01-01T00:00:00Z',
    validUntil: '2099-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:alice', alumniOf: 'did:example:university' },
    credentialSchema: { id: 'https://example.org/schemas/alumni.json', type: 'JsonSchema' },
    relatedResource: [{ id: V2, digestSRI: `sha384-${digest('sha384').toString('base64')}`, digestMultibase: `u${Buffer.concat([Buffer.from([0x12, 0x20]), digest('sha256')]).toString('base64url')}` }],
  };
}

const EVERYTHING = ['/id', '/type', '/name', '/description', '/validFrom', '/validUntil', '/credentialSubject', '/credentialSchema', '/relatedResource'];

beforeAll(async () => {
  vcDid = (await deriveBbs2023Key(PHRASE)).did;
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: '*' }, path.join(tmp.dir, 'home')) });
  db = await digitalBazaarIssuer();
  credential = alumniCredential(db.did);
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

describe('a VC 2.0 credential from Digital Bazaar’s libraries', () => {
  it('the related resource digests are of the base context as the W3C publishes it (appendix B.1)', () => {
    expect(digest('sha256').toString('hex')).toBe(BASE_CONTEXT_SHA256);
  });

  it('with an inline context and language value objects: vc.js signs it, and vc verifies the base proof and a disclosure bound to its nonce', async () => {
    const { signed, checked } = await db.sign(credential);
    expect(checked).toBe(true);
    const base = await vcApiVerify(ctx, { credential: signed });
    expect(base).toMatchObject({ verified: true, errors: [] });

    const { nonce } = createVerifierNonce(ctx);
    const derived = await db.derive(signed, EVERYTHING, new Uint8Array(Buffer.from(nonce, 'base64')));
    expect(derived.description).toEqual(credential.description);
    expect((derived['@context'] as unknown[])[1]).toEqual((credential['@context'] as unknown[])[1]);
    const result = await verifySelectiveDisclosure(ctx, { vc: derived, requireNonce: true });
    expect(result.checks.filter((check) => !check.valid)).toEqual([]);
    expect(result.checks.map((check) => check.id)).toEqual(['proof-type', 'shape', 'data-model', 'terms', 'proof', 'issuer', 'trusted-issuer', 'validity', 'nonce']);
    expect(result.verified).toBe(true);

    // The language and direction are signed: a changed @direction no longer verifies.
    const flipped = structuredClone(derived);
    ((flipped.description as Json[])[1]!)['@direction'] = 'ltr';
    const refused = await vcApiVerify(ctx, { credential: flipped });
    expect(refused.verified).toBe(false);
    expect(refused.errors[0]?.message).toMatch(/does not match the disclosed statements/);
  });

  it('the examples context of the specification (a @vocab the credential brings) is bundled: such a credential verifies', async () => {
    const example: Json = {
      '@context': [V2, EXAMPLES],
      id: 'http://university.example/credentials/3732',
      type: ['VerifiableCredential', 'ExampleDegreeCredential'],
      issuer: db.did,
      validFrom: '2010-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:ebfeb1f712ebc6f1c276e12ec21', degree: { type: 'ExampleBachelorDegree', name: 'Bachelor of Science and Arts' } },
    };
    const { signed } = await db.sign(example);
    expect(await vcApiVerify(ctx, { credential: signed })).toMatchObject({ verified: true });
    const derived = await db.derive(signed, ['/credentialSubject/degree']);
    expect((await vcApiVerify(ctx, { credential: derived })).verified).toBe(true);
  });

  it('an undefined term is refused under an inline context, and accepted once the credential brings a @vocab itself', async () => {
    const undefinedTerm = structuredClone(credential);
    (undefinedTerm.credentialSubject as Json).nickname = 'Ally';
    // Digital Bazaar's safe mode refuses to sign it: vc refuses it before any proof.
    await expect(db.sign(undefinedTerm)).rejects.toThrow();
    const { signed } = await db.sign(credential);
    const grafted = { ...undefinedTerm, proof: signed.proof };
    const refused = await vcApiVerify(ctx, { credential: grafted });
    expect(refused.verified).toBe(false);
    expect(refused.errors[0]?.message).toMatch(/field "nickname" is not defined/);

    const withVocab = structuredClone(undefinedTerm);
    (withVocab['@context'] as unknown[]).push({ '@vocab': 'https://example.org/vocab#' });
    const explicit = await db.sign(withVocab);
    expect(await vcApiVerify(ctx, { credential: explicit.signed })).toMatchObject({ verified: true });
  });

  it('vc signs the same credential as an issuer, and Digital Bazaar verifies vc’s disclosure of it', async () => {
    const issued = await vcApiIssue(ctx, { credential: alumniCredential(vcDid) });
    const derived = await vcApiDerive(ctx, { credential: issued.verifiableCredential, selectivePointers: ['/name', '/description', '/credentialSubject/alumniOf', '/relatedResource'] });
    const vcjs = await import('@digitalbazaar/vc');
    const { DataIntegrityProof } = await import('@digitalbazaar/data-integrity');
    const { createVerifyCryptosuite } = await import('@digitalbazaar/bbs-2023-cryptosuite');
    // Digital Bazaar resolves vc's did:key itself: vc's issuer key is a BLS12-381 G2 Multikey of the same format.
    const multikey = await import('@digitalbazaar/bls12-381-multikey');
    const loader = async (url: string) => {
      if (url.startsWith(vcDid)) {
        const publicKeyMultibase = vcDid.slice('did:key:'.length);
        const key = await multikey.from({ '@context': 'https://w3id.org/security/multikey/v1', id: `${vcDid}#${publicKeyMultibase}`, type: 'Multikey', controller: vcDid, publicKeyMultibase });
        const method = { '@context': 'https://w3id.org/security/multikey/v1', id: key.id, type: 'Multikey', controller: vcDid, publicKeyMultibase };
        return url.includes('#')
          ? { contextUrl: null, documentUrl: url, document: method }
          : { contextUrl: null, documentUrl: url, document: { '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'], id: vcDid, verificationMethod: [method], assertionMethod: [method.id] } };
      }
      return db.documentLoader(url);
    };
    const result = await vcjs.verifyCredential({ credential: derived.verifiableCredential, suite: new DataIntegrityProof({ cryptosuite: createVerifyCryptosuite() }), documentLoader: loader });
    expect(result.verified).toBe(true);
  });
});

describe('credentials that break a rule of the data model: their proof holds, vc refuses them naming the rule', () => {
  /** [name, change to the valid credential, the failed check] */
  const CASES: Array<[string, (c: Json) => void, string]> = [
    ['a credentialSchema without type', (c) => delete (c.credentialSchema as Json).type, 'data-model:schema-type'],
    ['a credentialSchema without id', (c) => delete (c.credentialSchema as Json).id, 'data-model:schema-id'],
    ['validFrom after validUntil', (c) => (c.validUntil = '2023-01-01T00:00:00Z'), 'data-model:validity-order'],
    ['a relatedResource without any digest', (c) => delete ((c.relatedResource as Json[])[0]!).digestSRI && delete ((c.relatedResource as Json[])[0]!).digestMultibase, 'data-model:related-resource-digest'],
    ['a relatedResource with a wrong digestSRI', (c) => (((c.relatedResource as Json[])[0]!).digestSRI = `sha384-${createHash('sha384').update('another document').digest('base64')}`), 'data-model:related-resource-digest-match'],
    ['a relatedResource with a wrong digestMultibase', (c) => (((c.relatedResource as Json[])[0]!).digestMultibase = `u${Buffer.concat([Buffer.from([0x12, 0x20]), createHash('sha256').update('x').digest()]).toString('base64url')}`), 'data-model:related-resource-digest-match'],
    ['the same relatedResource id twice', (c) => (c.relatedResource as Json[]).push(structuredClone((c.relatedResource as Json[])[0]!)), 'data-model:related-resource-unique'],
    ['a refreshService without type', (c) => (c.refreshService = { id: 'https://university.example/refresh/3732' }), 'data-model:refresh-service-type'],
    ['a name that is a number', (c) => (c.name = 42), 'data-model:name'],
  ];

  it.each(CASES)('%s', { timeout: 30_000 }, async (_name, change, check) => {
    const invalid = structuredClone(credential);
    change(invalid);
    const { signed } = await db.sign(invalid, ['/issuer', ...EVERYTHING.filter((pointer) => Object.hasOwn(invalid, pointer.slice(1))), ...(invalid.refreshService === undefined ? [] : ['/refreshService'])]);
    const derived = await db.derive(signed, ['/credentialSubject/alumniOf']);
    // The issuer's signature and the holder's proof hold: only the rule makes the difference.
    expect(await db.proofHolds(derived)).toBe(true);

    const verified = await verifySelectiveDisclosure(ctx, { vc: derived });
    expect(verified.verified).toBe(false);
    expect(verified.checks.find((entry) => !entry.valid)).toMatchObject({ id: check, reason: expect.stringContaining(`check ${check}`) as string });

    const vcApi = await vcApiVerify(ctx, { credential: signed });
    expect(vcApi.verified).toBe(false);
    expect(vcApi.errors[0]).toMatchObject({ name: 'DataModelError', check });

    // A holder does not disclose from it, and an issuer does not sign it.
    await expect(vcApiDerive(ctx, { credential: signed, selectivePointers: ['/credentialSubject/alumniOf'] })).rejects.toMatchObject({ code: 'data_model_violation', check, httpStatus: 422, exitCode: 2 });
    const { proof: _proof, ...unsigned } = { ...invalid, issuer: { id: vcDid } } as Json;
    await expect(vcApiIssue(ctx, { credential: unsigned })).rejects.toMatchObject({ code: 'data_model_violation', check });
  });

  it('an inline context that redefines a term the base context protects is refused (data-model:jsonld-expansion)', async () => {
    const { signed } = await db.sign(credential);
    const derived = await db.derive(signed, ['/name', '/credentialSubject/alumniOf']);
    (derived['@context'] as unknown[]).push({ name: 'https://evil.example/name' });
    const result = await verifySelectiveDisclosure(ctx, { vc: derived });
    expect(result.checks.find((entry) => !entry.valid)).toMatchObject({ id: 'data-model:jsonld-expansion', reason: expect.stringMatching(/"name" is protected/) as string });
    const redefining = structuredClone(credential);
    (redefining['@context'] as unknown[]).push({ description: 'https://evil.example/description' });
    await expect(vcApiIssue(ctx, { credential: { ...redefining, issuer: vcDid } })).rejects.toMatchObject({ check: 'data-model:jsonld-expansion' });
  });
});

describe('bbs-2023 proof values: one encoding only', () => {
  /** The proof value with its CBOR array changed by `change`. */
  function reencode(document: Json, change: (items: unknown[]) => unknown[]): Json {
    const copy = structuredClone(document);
    const proof = copy.proof as Json;
    const bytes = Buffer.from((proof.proofValue as string).slice(1), 'base64url');
    const items = decode(bytes.subarray(3), { useMaps: true }) as unknown[];
    proof.proofValue = `u${Buffer.concat([bytes.subarray(0, 3), encode(change(items), { useMaps: true } as never)]).toString('base64url')}`;
    return copy;
  }

  it('a derived proof with a sixth CBOR item: Digital Bazaar still verifies it, vc refuses it', async () => {
    const { signed } = await db.sign(credential);
    const derived = await db.derive(signed, ['/name']);
    const sixth = reencode(derived, (items) => [...items, new Uint8Array([1, 2, 3])]);
    expect(await db.proofHolds(sixth)).toBe(true);
    const result = await verifySelectiveDisclosure(ctx, { vc: sixth });
    expect(result.checks[0]).toMatchObject({ id: 'proof-type', valid: false, reason: expect.stringMatching(/derived proof value is malformed: its CBOR array has 6 items, a derived proof has exactly 5/) as string });
    expect((await vcApiVerify(ctx, { credential: sixth })).errors[0]?.message).toMatch(/has 6 items/);
    const fourth = reencode(derived, (items) => items.slice(0, 4));
    expect((await vcApiVerify(ctx, { credential: fourth })).errors[0]?.message).toMatch(/has 4 items, a derived proof has exactly 5/);
  });

  it('a base proof with an extra or a missing item is refused by the verifier and by a holder', async () => {
    const { signed } = await db.sign(credential);
    const extra = reencode(signed, (items) => [...items, 'extra']);
    expect((await vcApiVerify(ctx, { credential: extra })).errors[0]?.message).toMatch(/base proof value is malformed: its CBOR array has 6 items, a base proof has exactly 5/);
    await expect(vcApiDerive(ctx, { credential: extra, selectivePointers: ['/name'] })).rejects.toThrow(/has 6 items/);
    const missing = reencode(signed, (items) => items.slice(0, 4));
    expect((await vcApiVerify(ctx, { credential: missing })).errors[0]?.message).toMatch(/has 4 items/);
  });
});
