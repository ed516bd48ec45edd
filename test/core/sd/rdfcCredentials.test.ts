/**
 * eddsa-rdfc-2022 and ecdsa-rdfc-2019 credentials: vc's issuer signs them and Digital Bazaar's
 * vc.verifyCredential (used directly) verifies them; credentials Digital Bazaar's libraries sign
 * (another issuer's did:key, resolved offline) verify in vc, through `vc verifier verify` and the
 * VC-API; and as properties, a changed claim, another key, a key the issuer does not control, a
 * suite the key cannot make and an unknown suite are each refused with a reason.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { verifySelectiveDisclosure } from '../../../src/core/sd/verify.js';
import { issueRdfcCredential } from '../../../src/core/sd/rdfcCredentials.js';
import { vcApiIssue, vcApiVerify } from '../../../src/core/sd/vcApiCredentials.js';
import { deriveIssuerRdfcKey } from '../../../src/sd/suites/rdfc/rdfcKeys.js';
import { tempDir } from '../../helpers.js';
import { digitalBazaarIssue, digitalBazaarKey, digitalBazaarVerifyCredential } from '../../sd/suites/rdfc/digitalBazaarSide.js';

type Json = Record<string, unknown>;
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const tmp = tempDir('vc-rdfc-');
let ctx: Context;
const issued: Record<string, Json> = {};

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE }, path.join(tmp.dir, 'home')) });
  issued.Ed25519 = (await issueRdfcCredential(ctx, { keyType: 'Ed25519', holder: 'did:example:alice' })) as Json;
  issued['P-256'] = (await issueRdfcCredential(ctx, { keyType: 'P-256', holder: 'did:example:alice', expirationDate: '2099-01-01' })) as Json;
  issued['P-384'] = (await issueRdfcCredential(ctx, { keyType: 'P-384' })) as Json;
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

/** A VC 2.0 credential another issuer (Digital Bazaar's libraries) signs, with the VDL context. */
function licence(issuer: string): Json {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
    id: 'urn:uuid:9a0c5e1f-2b3d-4c5e-8f70-112233445566',
    type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
    issuer,
    validFrom: '2024-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:bob', type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '542426814', family_name: 'TURNER' } },
  };
}

async function verify(vc: Json): Promise<{ verified: boolean; message: string; checks: Array<{ id: string; valid: boolean; reason?: string }> }> {
  return verifySelectiveDisclosure(ctx, { vc });
}

describe('vc issues, Digital Bazaar verifies', () => {
  it('eddsa-rdfc-2022 (Ed25519), ecdsa-rdfc-2019 with P-256 and with P-384, under the issuer key of the phrase', async () => {
    for (const [keyType, suite] of [['Ed25519', 'eddsa-rdfc-2022'], ['P-256', 'ecdsa-rdfc-2019'], ['P-384', 'ecdsa-rdfc-2019']] as const) {
      const credential = issued[keyType]!;
      const key = await deriveIssuerRdfcKey(PHRASE, keyType);
      expect(credential.issuer).toBe(key.did);
      expect(credential.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: suite, proofPurpose: 'assertionMethod', verificationMethod: key.verificationMethod });
      expect(credential['@context']).toEqual(['https://www.w3.org/ns/credentials/v2', 'https://vc.example/contexts/sd-passport/v2']);
      const theirs = await digitalBazaarVerifyCredential(credential);
      expect(theirs.verified, `${keyType}: ${String(theirs.error)}`).toBe(true);
      const tampered = structuredClone(credential);
      (tampered.credentialSubject as Json).nationality = 'BEL';
      expect((await digitalBazaarVerifyCredential(tampered)).verified, keyType).toBe(false);
    }
  });

  it('the VC-API issuer signs a given credential with the suite asked for, and fills in the issuer', async () => {
    const key = await deriveIssuerRdfcKey(PHRASE, 'P-384');
    const { issuer: _issuer, ...credential } = licence(key.did);
    const { verifiableCredential } = await vcApiIssue(ctx, { credential, cryptosuite: 'ecdsa-rdfc-2019', curve: 'P-384' });
    expect(verifiableCredential.issuer).toBe(key.did);
    expect((await digitalBazaarVerifyCredential(verifiableCredential)).verified).toBe(true);
    // Another issuer's DID is not signed for.
    await expect(vcApiIssue(ctx, { credential: licence('did:example:someone'), cryptosuite: 'eddsa-rdfc-2022' })).rejects.toThrow(/credential\.issuer: expected this issuer's eddsa-rdfc-2022 Ed25519 DID/);
    await expect(vcApiIssue(ctx, { credential: licence(key.did), cryptosuite: 'eddsa-rdfc-2022', mandatoryPointers: ['/issuer'] })).rejects.toThrow(/applies to bbs-2023 only/);
    await expect(vcApiIssue(ctx, { credential: licence(key.did), cryptosuite: 'eddsa-rdfc-2022', curve: 'P-384' })).rejects.toThrow(/applies to ecdsa-rdfc-2019 only/);
    await expect(vcApiIssue(ctx, { credential: { ...licence(key.did), credentialStatus: { id: 'https://status.example/1#5', type: 'BitstringStatusListEntry' } }, cryptosuite: 'ecdsa-rdfc-2019', curve: 'P-384' })).rejects.toThrow(/credentialStatus/);
    // The data model's rules apply to every suite: a name that is not a string or language value object is not signed.
    await expect(vcApiIssue(ctx, { credential: { ...licence(key.did), name: 42 }, cryptosuite: 'ecdsa-rdfc-2019', curve: 'P-384' })).rejects.toThrow(/^credential\.name: .*\(check data-model:name, VC Data Model 2\.0 §4\.6\)$/);
  });
});

describe('Digital Bazaar issues, vc verifies (another issuer, did:key resolved offline)', () => {
  for (const keyType of ['Ed25519', 'P-256', 'P-384'] as const) {
    it(`${keyType}: verified by vc verifier verify and by the VC-API; a changed claim is refused with a reason`, async () => {
      const key = await digitalBazaarKey(keyType);
      const credential = await digitalBazaarIssue(licence(key.did), key);
      const result = await verify(credential);
      expect(result.checks.filter((check) => !check.valid)).toEqual([]);
      expect(result.verified).toBe(true);
      expect(result.checks.map((check) => check.id)).toEqual(['proof-type', 'shape', 'data-model', 'terms', 'proof', 'issuer', 'trusted-issuer', 'validity']);
      expect(await vcApiVerify(ctx, { credential })).toEqual({ verified: true, checks: ['data-model', 'proof'], warnings: [], errors: [] });

      const tampered = structuredClone(credential);
      ((tampered.credentialSubject as Json).driversLicense as Json).family_name = 'TURNIP';
      const refused = await verify(tampered);
      expect(refused.verified).toBe(false);
      expect(refused.message).toMatch(new RegExp(`the ${key.suite} signature does not match the signed statements`));
      const api = await vcApiVerify(ctx, { credential: tampered });
      expect(api.verified).toBe(false);
      expect(api.errors[0]?.message).toMatch(/does not match the signed statements/);
    });
  }
});

describe('refusals, each with its reason', () => {
  it('another key than the signer: the same claims signed by key A, presented as signed by key B', async () => {
    const a = await digitalBazaarKey('Ed25519');
    const b = await digitalBazaarKey('Ed25519');
    const credential = await digitalBazaarIssue(licence(a.did), a);
    const forged = structuredClone(credential);
    forged.issuer = b.did;
    (forged.proof as Json).verificationMethod = b.verificationMethod;
    const result = await verify(forged);
    expect(result.verified).toBe(false);
    expect(result.checks.find((check) => check.id === 'proof')?.reason).toMatch(/does not match the signed statements/);
  });

  it("a key the credential's issuer does not control", async () => {
    const key = await digitalBazaarKey('P-256');
    const other = await digitalBazaarKey('P-256');
    const credential = await digitalBazaarIssue(licence(other.did), key);
    const result = await verify(credential);
    expect(result.verified).toBe(false);
    expect(result.checks.find((check) => check.id === 'proof')?.reason).toMatch(/Credential issuer must match the verification method controller/);
    expect(result.checks.find((check) => check.id === 'issuer')?.reason).toBe(`the proof's key belongs to ${key.did}, not to the credential's issuer ${other.did}`);
  });

  it('a suite its key cannot make, an unknown suite, a proof set, a malformed did:key', async () => {
    const credential = issued.Ed25519!;
    const wrongSuite = structuredClone(credential);
    (wrongSuite.proof as Json).cryptosuite = 'ecdsa-rdfc-2019';
    expect((await verify(wrongSuite)).message).toMatch(/Ed25519 keys cannot make ecdsa-rdfc-2019 proofs/);
    const unknown = structuredClone(credential);
    (unknown.proof as Json).cryptosuite = 'ecdsa-jcs-2019';
    expect((await verify(unknown)).message).toMatch(/cryptosuite "ecdsa-jcs-2019" is not supported \(supported: bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019\)/);
    const api = await vcApiVerify(ctx, { credential: unknown });
    expect(api.errors[0]?.message).toMatch(/cryptosuite "ecdsa-jcs-2019" is not supported/);
    const set = { ...structuredClone(credential), proof: [credential.proof, credential.proof] };
    expect((await verify(set)).verified).toBe(false);
    const badKey = structuredClone(credential);
    (badKey.proof as Json).verificationMethod = 'did:key:z6MkBAD#z6MkBAD';
    expect((await verify(badKey)).message).toMatch(/verificationMethod: did:key:z6MkBAD is not a did:key of an Ed25519, P-256 or P-384 key/);
  });

  it('a did:key whose P-256 point is not on the curve, or whose Ed25519 key is garbage: a reason, not a crash', async () => {
    const { rdfcDidKeyOf } = await import('../../../src/sd/suites/rdfc/rdfcDidKey.js');
    const { ECDH } = await import('node:crypto');
    // An x with no point on P-256 (about half of them): found by asking node:crypto to decompress.
    let x = Buffer.alloc(32, 1);
    for (let i = 0; ; i++) {
      x = Buffer.alloc(32, i);
      try {
        ECDH.convertKey(Buffer.concat([Buffer.from([2]), x]), 'prime256v1', undefined, undefined, 'uncompressed');
      } catch {
        break;
      }
    }
    for (const [keyType, publicKey, suite] of [['P-256', Uint8Array.from([2, ...x]), 'ecdsa-rdfc-2019'], ['Ed25519', new Uint8Array(32).fill(0xff), 'eddsa-rdfc-2022']] as const) {
      const bad = rdfcDidKeyOf(keyType, publicKey);
      const forged = structuredClone(issued[keyType === 'Ed25519' ? 'Ed25519' : 'P-256']!);
      forged.issuer = bad.did;
      Object.assign(forged.proof as Json, { verificationMethod: bad.verificationMethod, cryptosuite: suite });
      const result = await verify(forged);
      expect(result.verified, keyType).toBe(false);
      expect(result.checks.find((check) => check.id === 'proof')?.reason, keyType).toMatch(
        keyType === 'P-256' ? "the ecdsa-rdfc-2019 proof's key cannot be used: the did:key does not hold a point of its curve" : /the eddsa-rdfc-2022 signature does not match/,
      );
      const api = await vcApiVerify(ctx, { credential: forged });
      expect(api.verified).toBe(false);
    }
  });

  it('an expired credential, and one with a status whose list is not at hand, are refused', async () => {
    const later = new Context({ config: ctx.config, now: () => new Date('2100-01-01T00:00:00Z') });
    try {
      const result = await verifySelectiveDisclosure(later, { vc: issued['P-256']! });
      expect(result.verified).toBe(false);
      expect(result.checks.find((check) => check.id === 'validity')?.reason).toMatch(/^validUntil 2099-01-01T00:00:00.000Z has passed/);
      expect(result.checks.find((check) => check.id === 'proof')?.reason).toMatch(/is after "validUntil"/);
    } finally {
      await later.close();
    }
    const key = await digitalBazaarKey('Ed25519');
    const withStatus = await digitalBazaarIssue({ ...licence(key.did), credentialStatus: { id: 'https://status.example/lists/1#5', type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '5', statusListCredential: 'https://status.example/lists/1' } }, key);
    const result = await verify(withStatus);
    expect(result.verified).toBe(false);
    // The status is checked as any other suite's: the data model accepts the entry, its list is not at hand.
    expect(result.checks.find((check) => check.id === 'data-model')).toEqual({ id: 'data-model', valid: true });
    expect(result.checks.find((check) => !check.valid)).toEqual({ id: 'status', valid: false, reason: expect.stringMatching(/^status list https:\/\/status\.example\/lists\/1: not at hand/) as unknown });
  });

  it('an issuer outside VC_TRUSTED_ISSUERS is refused by the verifier (a warning on the VC-API route)', async () => {
    const picky = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: 'did:example:trusted' }, path.join(tmp.dir, 'picky')) });
    try {
      const result = await verifySelectiveDisclosure(picky, { vc: issued.Ed25519! });
      expect(result.verified).toBe(false);
      expect(result.checks.find((check) => !check.valid)).toEqual({ id: 'trusted-issuer', valid: false, reason: `issuer key ${String(issued.Ed25519!.issuer)} is not in the verifier's trusted issuers (VC_TRUSTED_ISSUERS)` });
      const api = await vcApiVerify(picky, { credential: issued.Ed25519! });
      expect(api.verified).toBe(true);
      expect(api.warnings[0]?.name).toBe('UntrustedIssuer');
    } finally {
      await picky.close();
    }
  });

  it('with VC_REQUIRE_NONCE, a bare credential (no nonce) must come in a presentation', async () => {
    const strict = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_REQUIRE_NONCE: 'true' }, path.join(tmp.dir, 'strict')) });
    try {
      const result = await verifySelectiveDisclosure(strict, { vc: issued.Ed25519! });
      expect(result.verified).toBe(false);
      expect(result.message).toMatch(/eddsa-rdfc-2022 proof carries no nonce: present the credential in a presentation/);
    } finally {
      await strict.close();
    }
  });
});
