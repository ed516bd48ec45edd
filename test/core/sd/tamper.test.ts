/**
 * Every way to tamper with a derived credential is refused with a reason written by vc, never a
 * library's internals, and never an exception or a WebAssembly trap (which would end the process
 * that runs `vc serve`). In-process, with an injected clock.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { deriveBlsKeyPair } from '../../../src/sd/suites/bbs2020/bbs2020Keys.js';
import { PROOF_MISMATCH_REASON, PROOF_UNPROCESSABLE_REASON } from '../../../src/sd/suites/bbs2020/bbs2020Suite.js';
import { tempDir } from '../../helpers.js';
import { holdDirectly } from '../holder/support.js';

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
/** did:key of the phrase 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above': another issuer. */
let OTHER_DID_KEY = '';
type Json = Record<string, unknown>;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The sentences vc writes as verification reasons; anything else would be a library leaking through. */
const OWN_REASONS: RegExp[] = [
  /^the proof value is malformed: [a-z]/,
  new RegExp(`^${escape(PROOF_MISMATCH_REASON)}$`),
  new RegExp(`^${escape(PROOF_UNPROCESSABLE_REASON)}$`),
  /^the credential is not valid JSON-LD: [a-z @]+$/,
  /^the credential has no proof object with a verificationMethod$/,
  /^expected a derived proof of type BbsBlsSignatureProof2020 or a DataIntegrityProof \(bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019\), got /,
  /^the first @context must be https:/,
  /^an inline @context object is not accepted/,
  /^@context \S+ is not a known context/,
  /^[\w.@[\]]+: a JSON-LD keyword inside the credential is not accepted/,
  /^field "[^"]+" is not defined in any of the credential's JSON-LD contexts/,
  /^type "[^"]+" is not defined in any of the credential's JSON-LD contexts/,
  /^id "[^"]*" is not an absolute IRI/,
  /^the proof's key belongs to \S+, not to the credential's issuer /,
  /^issuer key \S+ is not in the verifier's trusted issuers/,
  /^(issuanceDate|expirationDate) \S+ (is in the future|has passed|is not a date)/,
  /^unknown JSON-LD context \S+: add it with `vc documents add \S+ FILE`/,
  /^the stored copy of \S+ changed since it was added/,
  /^did:key:\S+ is not a valid BLS12-381 G2 did:key/,
  /: unknown verification method/,
  /^the proof carries no nonce$/,
  /^(the credential|[\w.@[\]]+): (null is not a value|blank node identifiers|an array is not accepted here|an empty list is not accepted|the key __proto__ is not accepted|a nested object cannot|an array cannot)/,
  /^the credential has more than \d+ members$/,
  /^credentialSubject\.@\w+: JSON-LD keywords are not accepted in a subject/,
  /^the proof nonce was not issued by this verifier \(/,
  /^nonce already used( at \S+)? \(replayed proof\)$/,
  /^nonce expired at \S+$/,
  /^[\w.@[\]]*:? ?.+ \(check data-model:[a-z-]+, VC Data Model 2\.0 §[\dA-Z.]+\)$/,
];

const tmp = tempDir('vc-sd-tamper-');
let ctx: Context;
let derived: Json;
const now = new Date('2030-06-01T00:00:00.000Z');

beforeAll(async () => {
  OTHER_DID_KEY = (await deriveBlsKeyPair('letter advice cage absurd amount doctor acoustic avoid letter advice cage above')).did;
  const config = parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(tmp.dir, 'home'));
  ctx = new Context({ config, now: () => now });
  holdDirectly(ctx, await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:alice' }));
  derived = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'name', 'nationality'], nonce: Buffer.alloc(32, 9).toString('base64') })).vc;
});
afterAll(async () => {
  await ctx.close();
  tmp.cleanup();
});

function proofBytes(vc: Json): Buffer {
  return Buffer.from((vc.proof as Json).proofValue as string, 'base64');
}
function withProofValue(vc: Json, bytes: Uint8Array): void {
  (vc.proof as Json).proofValue = Buffer.from(bytes).toString('base64');
}
function flip(vc: Json, index: number): void {
  const bytes = proofBytes(vc);
  bytes[index]! ^= 0xff;
  withProofValue(vc, bytes);
}

/** [name, mutation, the check expected to fail first] */
const CASES: Array<[string, (vc: Json) => void, string]> = [
  ['a disclosed value changed', (vc) => ((vc.credentialSubject as Json).name = 'Mallory'), 'proof'],
  ['a hidden field added back', (vc) => ((vc.credentialSubject as Json).birthDate = 19900101), 'proof'],
  ['the subject id changed', (vc) => ((vc.credentialSubject as Json).id = 'did:example:mallory'), 'proof'],
  ['the issuer changed', (vc) => (vc.issuer = OTHER_DID_KEY), 'proof'],
  ['the issuanceDate changed', (vc) => (vc.issuanceDate = '2020-01-01T00:00:00.000Z'), 'proof'],
  ['an expirationDate added', (vc) => (vc.expirationDate = '2040-01-01T00:00:00.000Z'), 'proof'],
  ['the type changed', (vc) => (vc.type = ['VerifiableCredential']), 'proof'],
  ['proofValue truncated to 0 bytes', (vc) => ((vc.proof as Json).proofValue = ''), 'proof'],
  ['proofValue truncated to 1 byte', (vc) => withProofValue(vc, proofBytes(vc).subarray(0, 1)), 'proof'],
  ['proofValue truncated inside the header', (vc) => withProofValue(vc, proofBytes(vc).subarray(0, 4)), 'proof'],
  ['proofValue truncated after the points', (vc) => withProofValue(vc, proofBytes(vc).subarray(0, 153)), 'proof'],
  ['proofValue truncated by one byte', (vc) => withProofValue(vc, proofBytes(vc).subarray(0, proofBytes(vc).length - 1)), 'proof'],
  ['proofValue with trailing bytes', (vc) => withProofValue(vc, Buffer.concat([proofBytes(vc), Buffer.alloc(10)])), 'proof'],
  ['proofValue of 0xff bytes', (vc) => withProofValue(vc, Buffer.alloc(proofBytes(vc).length, 0xff)), 'proof'],
  ['proofValue that is not base64', (vc) => ((vc.proof as Json).proofValue = 'not base64 at all!!'), 'proof'],
  ['proofValue that is a number', (vc) => ((vc.proof as Json).proofValue = 12345), 'proof'],
  ['proofValue message count flipped', (vc) => flip(vc, 0), 'proof'],
  ['proofValue bit vector flipped', (vc) => flip(vc, 3), 'proof'],
  ['proofValue point flipped', (vc) => flip(vc, 60), 'proof'],
  ['proofValue inner length flipped', (vc) => flip(vc, 150), 'proof'],
  ['proofValue response flipped', (vc) => flip(vc, proofBytes(vc).length - 1), 'proof'],
  ['the nonce changed', (vc) => ((vc.proof as Json).nonce = Buffer.alloc(32, 8).toString('base64')), 'proof'],
  ['the nonce removed', (vc) => delete (vc.proof as Json).nonce, 'proof'],
  ['the nonce not base64', (vc) => ((vc.proof as Json).nonce = '%%%'), 'proof'],
  ['the proof created date changed', (vc) => ((vc.proof as Json).created = '2020-01-01T00:00:00Z'), 'proof'],
  ['the verificationMethod is another key', (vc) => ((vc.proof as Json).verificationMethod = `${OTHER_DID_KEY}#${OTHER_DID_KEY.slice(8)}`), 'proof'],
  ['the verificationMethod is not a did:key', (vc) => ((vc.proof as Json).verificationMethod = 'https://evil.example/key'), 'proof'],
  ['the verificationMethod is a broken did:key', (vc) => ((vc.proof as Json).verificationMethod = 'did:key:zUC7abc#zUC7abc'), 'proof'],
  ['the proof type is the issuer signature', (vc) => ((vc.proof as Json).type = 'BbsBlsSignature2020'), 'proof-type'],
  ['the proof removed', (vc) => delete vc.proof, 'proof-type'],
  ['the proof is an array', (vc) => (vc.proof = [vc.proof]), 'proof-type'],
  ['an inline @context added', (vc) => (vc['@context'] as unknown[]).push({ name: 'https://evil.example/name' }), 'context'],
  ['a remote @context added', (vc) => (vc['@context'] as unknown[]).push('https://evil.example/ctx'), 'context'],
  ['the credentials context not first', (vc) => (vc['@context'] as unknown[]).reverse(), 'context'],
  ['an @context inside the subject aliasing a term', (vc) => ((vc.credentialSubject as Json)['@context'] = { nickname: 'https://vc.example/vocab/passport#name' }), 'context'],
  ['an @id inside the subject', (vc) => ((vc.credentialSubject as Json)['@id'] = 'did:example:mallory'), 'context'],
  ['a null for a hidden field (JSON-LD drops it unsigned)', (vc) => ((vc.credentialSubject as Json).passportNumber = null), 'shape'],
  ['an empty list added at the top', (vc) => (vc.evidence = []), 'shape'],
  ['a repeated value in a list', (vc) => ((vc.credentialSubject as Json).nationality = ['NLD', 'NLD']), 'shape'],
  ['a __proto__ member in the subject', (vc) => Object.defineProperty(vc.credentialSubject, '__proto__', { value: { passportNumber: 'FAKE' }, enumerable: true }), 'shape'],
  ['blank nodes referring to each other', (vc) => ((vc.credentialSubject as Json).nationality = { id: '_:b0', name: { id: '_:b1', name: { id: '_:b0' } } }), 'shape'],
  ['a list of 80,000 values', (vc) => ((vc.credentialSubject as Json).nationality = Array.from({ length: 80_000 }, (_, i) => `N${i}`)), 'shape'],
  ['a did:key verificationMethod 250,000 characters long', (vc) => ((vc.proof as Json).verificationMethod = `did:key:zUC7${'z'.repeat(250_000)}`), 'proof'],
  ['an undefined field added', (vc) => ((vc.credentialSubject as Json).verifiedAdult = true), 'terms'],
  ['a relative id', (vc) => ((vc.credentialSubject as Json).id = 'alice'), 'data-model:id-url'],
];

describe('tampered derived credentials', () => {
  it('the untampered credential verifies (so each case below fails for its tampering)', async () => {
    const result = await verifySelectiveDisclosure(ctx, { vc: structuredClone(derived) });
    expect(result.verified, JSON.stringify(result.checks)).toBe(true);
  });

  // A bound on each case: unusual shapes used to hold the verifier for minutes (a did:key of
  // 250,000 characters took 113 s): refused before any expensive work now.
  it.each(CASES)('%s: refused with vc\'s own reason', { timeout: 20_000 }, async (_name, mutate, expectedCheck) => {
    const vc = structuredClone(derived);
    mutate(vc);
    const result = await verifySelectiveDisclosure(ctx, { vc });
    expect(result.verified).toBe(false);
    const failed = result.checks.filter((check) => !check.valid);
    expect(failed[0]?.id, JSON.stringify(result.checks)).toBe(expectedCheck);
    for (const check of failed) {
      expect(OWN_REASONS.some((pattern) => pattern.test(check.reason ?? '')), `not a vc sentence: ${check.reason}`).toBe(true);
    }
    expect(result.message).toBe(`verification failed: ${failed[0]!.reason}`);
  });

  it('an expired credential is refused with a validity check naming expirationDate (injected clock)', async () => {
    let clock = new Date('2031-01-01T00:00:00.000Z');
    const config = parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(tmp.dir, 'expiry'));
    const expiring = new Context({ config, now: () => clock });
    try {
      holdDirectly(expiring, await issueSelectiveDisclosureCredential(expiring, { holder: 'did:example:alice', expirationDate: '2031-02-01' }));
      const { vc } = await deriveSelectiveDisclosure(expiring, { type: 'PassportCredential', keys: ['name'] });
      expect(vc.expirationDate).toBe('2031-02-01T00:00:00.000Z');
      expect((await verifySelectiveDisclosure(expiring, { vc: structuredClone(vc) })).verified).toBe(true);
      clock = new Date('2031-02-01T00:00:00.000Z');
      const result = await verifySelectiveDisclosure(expiring, { vc: structuredClone(vc) });
      expect(result.verified).toBe(false);
      expect(result.checks.filter((check) => !check.valid).map((check) => check.id)).toEqual(['validity']);
      expect(result.message).toMatch(/expirationDate 2031-02-01T00:00:00\.000Z has passed/);
      await expect(issueSelectiveDisclosureCredential(expiring, { expirationDate: '2031-01-31' })).rejects.toThrow(/expirationDate: 2031-01-31 is not after the issuance/);
      await expect(issueSelectiveDisclosureCredential(expiring, { expirationDate: 'soon' })).rejects.toThrow(/expected an ISO 8601 date/);
    } finally {
      await expiring.close();
    }
  });

  it('a credential whose dates make it invalid now is refused with a validity check naming the date', async () => {
    const early = new Context({ config: ctx.config, now: () => new Date('2030-05-31T23:00:00.000Z') });
    try {
      const result = await verifySelectiveDisclosure(early, { vc: structuredClone(derived) });
      expect(result.verified).toBe(false);
      const validity = result.checks.find((check) => check.id === 'validity');
      expect(validity?.reason).toMatch(/^issuanceDate 2030-06-01T00:00:00\.000Z is in the future/);
    } finally {
      await early.close();
    }
  });
});
