/**
 * The shared input shapes of proof by query: the spec 2.1 request fixture parses, and malformed
 * requests are refused with the failing field named.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialRequestSchema, isChecksumValid, requestOptionsSchema, requestStatusSchema } from '../../../src/core/pbq/pbqSchemas.js';
import { pbqIssue } from '../../../src/core/operations/pbqOperations.js';
import { parseInput } from '../../../src/core/validate.js';
import { InputError } from '../../../src/errors.js';
import { ROOT } from '../../helpers.js';

const fixture = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'requests', 'passport-birthdate-lt.json'), 'utf8')) as Record<string, unknown>;

describe('credential request (spec 2.1)', () => {
  it('accepts the bundled example request', () => {
    expect(parseInput(credentialRequestSchema, fixture, 'request.json')).toEqual(fixture);
  });

  it('names the field of a malformed request', () => {
    const bad = (patch: Record<string, unknown>) => () => parseInput(credentialRequestSchema, { ...fixture, ...patch }, 'request.json');
    expect(bad({ id: 1.5 })).toThrow(/request.json: field id/);
    expect(bad({ id: 2 ** 60 })).toThrow(/field id/);
    expect(bad({ circuitId: 'credentialAtomicQuerySigV2OnChain' })).toThrow(/field circuitId/);
    const query = fixture.query as Record<string, unknown>;
    expect(bad({ query: { ...query, credentialSubject: { birthDate: { $lte: 1 } } } })).toThrow(/credentialSubject.birthDate/);
    expect(bad({ query: { ...query, credentialSubject: { birthDate: { $lt: 1, $gt: 0 } } } })).toThrow(InputError);
    expect(bad({ query: { ...query, allowedIssuers: [] } })).toThrow(/allowedIssuers/);
  });

  it('takes the V3 operators, $sd (the empty condition) and a proof type with credentialAtomicQueryV3OnChain only', () => {
    const query = fixture.query as Record<string, unknown>;
    const parse = (patch: Record<string, unknown>) => parseInput(credentialRequestSchema, { ...fixture, ...patch }, 'request.json');
    const v3 = 'credentialAtomicQueryV3OnChain';
    for (const condition of [{ $lte: 1 }, { $between: [1, 2] }, { $nonbetween: [1, 2] }, { $exists: true }, {}]) {
      expect(parse({ circuitId: v3, query: { ...query, credentialSubject: { birthDate: condition } } }).query.credentialSubject.birthDate).toEqual(condition);
      expect(() => parse({ query: { ...query, credentialSubject: { birthDate: condition } } })).toThrow(/credentialSubject.birthDate: .*needs credentialAtomicQueryV3OnChain/);
    }
    expect(parse({ circuitId: v3, query: { ...query, proofType: 'BJJSignature2021' } }).query.proofType).toBe('BJJSignature2021');
    expect(() => parse({ query: { ...query, proofType: 'BJJSignature2021' } })).toThrow(/field query.proofType: .*MTP proof only/);
    expect(() => parse({ circuitId: v3, query: { ...query, proofType: 'sig' } })).toThrow(/field query.proofType/);
    expect(() => parse({ circuitId: v3, query: { ...query, credentialSubject: { birthDate: { $between: [1] } } } })).toThrow(/\$between takes a list of two values/);
    expect(() => parse({ circuitId: v3, query: { ...query, credentialSubject: { birthDate: { $exists: 1 } } } })).toThrow(/\$exists takes true or false/);
    expect(() => parse({ circuitId: v3, query: { ...query, credentialSubject: { birthDate: { $noop: 1 } } } })).toThrow(/credentialSubject.birthDate/);
  });
});

describe('issue and request options', () => {
  it('requires a DID and accepts only known operators', () => {
    expect(() => parseInput(pbqIssue.input, { did: 'alice' }, 'request body')).toThrow(/field did: expected a DID/);
    expect(parseInput(pbqIssue.input, { did: 'did:polygonid:polygon:local:2qCU58EJgrELNZCDkSU23dQHZsBgAFWLNpNezo1g6b' }, 'request body').did).toMatch(/^did:polygonid/);
    expect(() => parseInput(requestOptionsSchema, { op: '$lessThan' }, 'options')).toThrow(/field op/);
    expect(() => parseInput(requestOptionsSchema, { circuitId: 'credentialAtomicQuerySigV2OnChain' }, 'options')).toThrow(/field circuitId/);
    expect(() => parseInput(requestOptionsSchema, { proofType: 'BJJSignature2021' }, 'options')).toThrow(/field proofType/);
    expect(parseInput(requestOptionsSchema, { circuitId: 'credentialAtomicQueryV3OnChain', op: '$sd', proofType: 'mtp' }, 'options')).toEqual({ circuitId: 'credentialAtomicQueryV3OnChain', op: '$sd', proofType: 'mtp' });
    expect(parseInput(requestOptionsSchema, { field: 'nationality', op: '$in', value: 'NLD,BEL' }, 'options')).toEqual({ field: 'nationality', op: '$in', value: 'NLD,BEL' });
  });
});

describe('request-status query', () => {
  it('accepts a safe integer request id and refuses ids beyond it (a 1e300 id is a bad request, not a chain failure)', () => {
    const address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    expect(parseInput(requestStatusSchema, { request: '42', address }, 'query')).toEqual({ request: 42, address });
    expect(() => parseInput(requestStatusSchema, { request: '1e300', address }, 'query')).toThrow(/field request/);
    expect(() => parseInput(requestStatusSchema, { request: String(2 ** 60), address }, 'query')).toThrow(/field request/);
  });

  it("judges an address's EIP-55 checksum as ethers does: every mixed-case form with one letter flipped is a bad request (it was a network error), one-case forms carry none", async () => {
    const { getAddress, hexlify, randomBytes } = await import('ethers');
    const ethersAccepts = (address: string): boolean => {
      try {
        getAddress(address);
        return true;
      } catch {
        return false;
      }
    };
    const addresses = [...Array.from({ length: 60 }, () => hexlify(randomBytes(20))), `0x${'00'.repeat(19)}0a`, `0x${'ff'.repeat(20)}`, `0x${'ab'.repeat(20)}`, `0x0000000000000000000000000000000000000000`];
    let flipped = 0;
    for (const lower of addresses) {
      const checksummed = getAddress(lower);
      for (const form of [checksummed, lower, `0x${lower.slice(2).toUpperCase()}`]) {
        expect(isChecksumValid(form), form).toBe(true);
        expect(parseInput(requestStatusSchema, { request: '1', address: form }, 'query').address).toBe(form);
      }
      for (let i = 2; i < 42; i += 1) {
        const char = checksummed[i]!;
        if (!/[a-f]/i.test(char)) continue;
        const other = checksummed.slice(0, i) + (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()) + checksummed.slice(i + 1);
        const mixed = other.slice(2) !== other.slice(2).toLowerCase() && other.slice(2) !== other.slice(2).toUpperCase();
        expect(isChecksumValid(other), other).toBe(ethersAccepts(other));
        if (mixed) {
          flipped += 1;
          expect(isChecksumValid(other), other).toBe(false);
          expect(() => parseInput(requestStatusSchema, { request: '1', address: other }, 'query')).toThrow(/field address: .*EIP-55 checksum is wrong/);
        }
      }
    }
    // About 15 letters per random address (6 of 16 hex digits), 81 in the fixed ones: about 980 flips.
    expect(flipped).toBeGreaterThan(800);
  });
});
