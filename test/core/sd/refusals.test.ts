/**
 * What the issuer and the holder refuse up front, so nothing vc accepts at one step fails later:
 * subjects selective disclosure cannot handle, integers JSON cannot carry exactly, credentials a
 * verifier would refuse (inline or embedded contexts, undefined terms), and a refused import never
 * replacing the good credential already stored. In-process, real BBS+ signatures.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, storeSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { listHeldCredentials } from '../../../src/core/holder/holderStore.js';
import { SD_CREDENTIAL_CONTEXTS } from '../../../src/core/sd/sdIssuance.js';
import { loadIssuerBlsKey } from '../../../src/sd/suites/bbs2020/bbs2020Keys.js';
import { signBbsCredential, verifyBbsSignature } from '../../../src/sd/suites/bbs2020/bbs2020Suite.js';
import { type JsonLdDocument } from '../../../src/sd/proofOutcome.js';
import { sdDocumentLoader } from '../../../src/core/sd/sdDocumentLoader.js';
import { InputError, UnprocessableError } from '../../../src/errors.js';
import { tempDir } from '../../helpers.js';

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const NOW = new Date('2030-03-01T10:00:00.000Z');
const tmp = tempDir('vc-sd-refusals-');
let ctx: Context;

beforeAll(() => {
  ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(tmp.dir, 'home')), now: () => NOW });
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

const subject = { name: 'Alice', passportNumber: 'P1', nationality: 'NLD', birthDate: 19900101, customerReference: '3f0c9a3e-6d0b-4c52-9a41-7f1e8b2d5c10', expiryDate: 20340101, publicAddress: '0x2a' };

/** Signs a credential with the issuer's real key, bypassing vc's issuance checks (as another tool could). */
async function signDirectly(mutate: (credential: JsonLdDocument) => void): Promise<JsonLdDocument> {
  const credential: JsonLdDocument = {
    '@context': [...SD_CREDENTIAL_CONTEXTS],
    id: 'urn:uuid:8e7a0c1e-7f5e-4c3b-9a52-2f0d6f4f1a10',
    type: ['VerifiableCredential', 'PassportCredential'],
    issuer: (await loadIssuerBlsKey(ctx)).did,
    issuanceDate: '2030-01-01T00:00:00.000Z',
    // No subject id: a credential the holder of this wallet may keep (one naming another DID is refused for that alone).
    credentialSubject: { ...subject },
  };
  mutate(credential);
  const signed = await signBbsCredential(credential, await loadIssuerBlsKey(ctx), await sdDocumentLoader(ctx), NOW);
  // The signature itself is valid: only vc's own rules can refuse these credentials.
  expect((await verifyBbsSignature(signed, await sdDocumentLoader(ctx))).verified).toBe(true);
  return signed;
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describe('issuance', () => {
  it('stamps the proof with the injected clock', async () => {
    const credential = await issueSelectiveDisclosureCredential(ctx, { store: false });
    expect(credential.issuanceDate).toBe('2030-03-01T10:00:00.000Z');
    expect(credential.proof.created).toBe('2030-03-01T10:00:00Z');
  });

  it('refuses nested objects, arrays and unsafe integers in the subject, naming the field (exit 2 / 400)', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...subject, nationality: { id: 'did:example:nl' } }, /credentialSubject\.nationality: a nested object cannot be selectively disclosed/],
      [{ ...subject, name: ['Alice', 'Ally'] }, /credentialSubject\.name: an array cannot be selectively disclosed/],
      [{ ...subject, name: [{ id: 'did:example:x' }] }, /credentialSubject\.name: an array/],
      [{ ...subject, score: 2 ** 53 + 2 }, /credentialSubject\.score: the integer 9007199254740994 is beyond 2\^53/],
      [{ ...subject, name: null }, /credentialSubject\.name: null is not a value/],
      [{ ...subject, '@context': { nickname: 'https://vc.example/vocab/passport#name' } }, /credentialSubject\.@context: JSON-LD keywords are not accepted/],
    ];
    for (const [candidate, message] of cases) {
      const error = await refusal(issueSelectiveDisclosureCredential(ctx, { type: 'PassportCredential', subject: candidate, names: (field) => `subject.json: field ${field}`, store: false }));
      expect(error, String(message)).toBeInstanceOf(InputError);
      expect(error.message).toMatch(/^subject\.json: field credentialSubject: /);
      expect(error.message).toMatch(message);
      expect((error as InputError).exitCode).toBe(2);
    }
  });
});

describe('holder import (vc holder import-sd, POST /sd-credentials)', () => {
  it('refuses what could not be disclosed and verified later, and keeps nothing of it', async () => {
    const good = await issueSelectiveDisclosureCredential(ctx);
    const held = (): Array<string | undefined> => listHeldCredentials(ctx).map((record) => record.credentialId);
    expect(held()).toEqual([good.id]);

    const refusedCredentials: Array<[string, JsonLdDocument, RegExp]> = [
      ['an inline context', await signDirectly((c) => (c['@context'] as unknown[]).push({ nickname: 'https://vc.example/vocab/passport#name' })), /inline @context object is not accepted/],
      ['a context inside the subject', await signDirectly((c) => ((c.credentialSubject as Record<string, unknown>)['@context'] = { nickname: 'https://vc.example/vocab/passport#name' })), /credentialSubject\.@context: a JSON-LD keyword inside the credential/],
      ['a nested subject value', await signDirectly((c) => ((c.credentialSubject as Record<string, unknown>).nationality = { id: 'did:example:nl' })), /credentialSubject\.nationality: a nested object/],
      ['an expired credential', await signDirectly((c) => (c.expirationDate = '2030-02-01T00:00:00.000Z')), /expirationDate 2030-02-01T00:00:00\.000Z has passed/],
    ];
    for (const [name, credential, message] of refusedCredentials) {
      const error = await refusal(storeSelectiveDisclosureCredential(ctx, { credential }));
      expect(error, name).toBeInstanceOf(UnprocessableError);
      expect(error.message, name).toMatch(message);
      expect(held(), name).toEqual([good.id]);
    }
    // The good one is still disclosable and verifies.
    const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'] });
    expect((await verifySelectiveDisclosure(ctx, { vc })).verified).toBe(true);
  });

  it('refuses the same credentials given to disclose as a file', async () => {
    const nested = await signDirectly((c) => ((c.credentialSubject as Record<string, unknown>).nationality = { id: 'did:example:nl' }));
    const error = await refusal(deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'], credential: nested, names: (field) => (field === 'credential' ? '--credential c.json' : field) }));
    expect(error.message).toMatch(/^--credential c\.json: credentialSubject\.nationality: a nested object/);
  });
});

describe('disclosure keys and type (issue 26)', () => {
  it('a key close to a field (a typo) is refused with that field and the fields there are; one like no field is left out (spec 2.5 rule 4)', async () => {
    const credential = await issueSelectiveDisclosureCredential(ctx, { subject, holder: 'did:example:alice', store: false });
    const names = (field: string): string => (field === 'selectiveDisclosureKeys' ? '--keys' : field);
    const error = await refusal(deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name', 'nationalty'], credential, names }));
    expect(error).toBeInstanceOf(UnprocessableError);
    expect(error.message).toBe('--keys: the credential has no subject field nationalty (did you mean nationality?); its fields: name, passportNumber, nationality, birthDate, customerReference, expiryDate, publicAddress, id');
    const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name', 'shoeSize'], credential });
    expect(vc.credentialSubject).toEqual({ id: 'did:example:alice', name: 'Alice' });
  });

  it('with a credential, the type is its own; without either, the type is asked for', async () => {
    const credential = await issueSelectiveDisclosureCredential(ctx, { subject, store: false });
    const { vc } = await deriveSelectiveDisclosure(ctx, { keys: ['nationality'], credential });
    expect(vc.type).toEqual(['VerifiableCredential', 'PassportCredential']);
    expect(vc.credentialSubject).toEqual({ nationality: 'NLD' });
    const names = (field: string): string => ({ credentialType: '--type', credentialId: '--id', credential: '--credential FILE' })[field] ?? field;
    const missing = await refusal(deriveSelectiveDisclosure(ctx, { keys: ['name'], names }));
    expect(missing).toBeInstanceOf(InputError);
    expect(missing.message).toBe("--type: missing: give the credential type, the id of a held credential (--id), or the credential itself (--credential FILE)");
  });
});
