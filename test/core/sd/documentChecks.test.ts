/**
 * The shape checks that run on the event loop before any JSON-LD work: they name the member they
 * refuse, and a body of very many members is refused by counting, without walking (reading) its
 * members, so a large body costs no more than the limit.
 */
import { describe, expect, it } from 'vitest';
import { checkPresentedShape, findEmbeddedKeyword, MAX_CREDENTIAL_MEMBERS } from '../../../src/core/sd/documentChecks.js';
import { checkBbs2023Shape, MAX_BBS_2023_MEMBERS, MAX_BBS_2023_PROOF_MEMBERS } from '../../../src/core/sd/bbs2023Credentials.js';

/** An object of `count` members whose values count their reads. */
function counted(count: number): { object: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const target = Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']));
  const object = new Proxy(target, {
    get(inner, key, receiver) {
      reads++;
      return Reflect.get(inner, key, receiver) as unknown;
    },
  });
  return { object, reads: () => reads };
}

const credential = (subject: unknown, proof: unknown = { type: 'BbsBlsSignatureProof2020' }) => ({
  '@context': ['https://www.w3.org/2018/credentials/v1'],
  type: ['VerifiableCredential'],
  issuer: 'did:example:issuer',
  issuanceDate: '2026-01-01T00:00:00Z',
  credentialSubject: subject,
  proof,
});

describe('checkPresentedShape', () => {
  it('refuses a subject of 80,000 members by counting them, without reading one', () => {
    const { object, reads } = counted(80_000);
    expect(checkPresentedShape(credential(object))).toBe(`the credential has more than ${MAX_CREDENTIAL_MEMBERS} members`);
    expect(reads()).toBe(0);
  });

  it('accepts a credential within the limit and names a refused member by its path', () => {
    expect(checkPresentedShape(credential({ id: 'did:example:alice', name: 'Alice' }))).toBeUndefined();
    expect(checkPresentedShape(credential({ id: 'did:example:alice', name: null }))).toBe('credentialSubject.name: null is not a value (JSON-LD drops it, so it is not signed)');
  });
});

describe('checkBbs2023Shape', () => {
  it('refuses a proof of 80,000 members without reading them; the document limit counts the proof apart', () => {
    const { object, reads } = counted(80_000);
    expect(checkBbs2023Shape(credential({ name: 'Alice' }, object))).toBe(`proof: more than ${MAX_BBS_2023_PROOF_MEMBERS} members`);
    expect(reads()).toBe(0);
    // A document at its limit (the root, five top-level members besides the proof, one item in
    // each of the two lists, and the subject's members), with a proof beside it, passes: the proof
    // is not counted there. One member more does not.
    const subject = Object.fromEntries(Array.from({ length: MAX_BBS_2023_MEMBERS - 8 }, (_, index) => [`k${index}`, 'v']));
    expect(checkBbs2023Shape(credential(subject, { type: 'DataIntegrityProof', cryptosuite: 'bbs-2023', proofValue: 'u' }))).toBeUndefined();
    const over = { ...subject, one: 'more' };
    expect(checkBbs2023Shape(credential(over))).toBe(`the credential has more than ${MAX_BBS_2023_MEMBERS} members (proof aside)`);
  });

  it('refuses a document of 80,000 members without reading them', () => {
    const { object, reads } = counted(80_000);
    expect(checkBbs2023Shape(credential(object))).toBe(`the credential has more than ${MAX_BBS_2023_MEMBERS} members (proof aside)`);
    expect(reads()).toBe(0);
  });
});

describe('findEmbeddedKeyword', () => {
  it('names the path of a keyword below the top level, and allows only the top-level @context', () => {
    expect(findEmbeddedKeyword(credential({ name: 'Alice' }))).toBeUndefined();
    expect(findEmbeddedKeyword({ ...credential({ name: 'Alice' }), type: ['VerifiableCredential', { '@id': 'x' }] })).toBe('type[1].@id');
    expect(findEmbeddedKeyword(credential({ name: 'Alice', address: { '@context': {} } }))).toBe('credentialSubject.address.@context');
    expect(findEmbeddedKeyword({ ...credential({}), '@graph': [] })).toBe('@graph');
  });
});
