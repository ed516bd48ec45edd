/**
 * The fields of an iden3 credential type read from its documents (src/iden3/typeFields.ts): the
 * terms its context gives the type, the properties its schema gives credentialSubject, and the
 * checks of a subject against the schema that name the field and what was expected.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgainstSchema, contextDefinesType, contextFieldsOfType, contextTypes, schemaFieldsOf, subjectSchemaOf } from '../../src/iden3/typeFields.js';
import { ROOT } from '../helpers.js';

const read = (...parts: string[]): unknown => JSON.parse(readFileSync(path.join(ROOT, ...parts), 'utf8'));
const KYC_CONTEXT = read('test', 'fixtures', 'iden3-official', 'kyc-v3.json-ld');
const KYC_SCHEMA = read('test', 'fixtures', 'iden3-official', 'KYCAgeCredential-v3.json');
const PASSPORT_SCHEMA = read('fixtures', 'schemas', 'iden3-passport-v1.json');

describe('fields of a type', () => {
  it('from the official KYC context: each type its own terms, not the prefixes', () => {
    expect(contextTypes(KYC_CONTEXT)).toEqual(['KYCAgeCredential', 'KYCCountryOfResidenceCredential']);
    expect(contextFieldsOfType(KYC_CONTEXT, 'KYCAgeCredential')).toEqual(['birthday', 'documentType']);
    expect(contextFieldsOfType(KYC_CONTEXT, 'KYCCountryOfResidenceCredential')).toEqual(['countryCode', 'documentType']);
    expect(contextFieldsOfType(KYC_CONTEXT, 'PassportCredential')).toBeUndefined();
    expect(schemaFieldsOf(KYC_SCHEMA)).toEqual(['birthday', 'documentType']);
  });

  it('a default vocabulary makes any term valid: the fields cannot be listed, the type is still known', () => {
    const vocab = { '@context': { MyCredential: { '@id': 'https://x.example/#My', '@context': { '@vocab': 'https://x.example/#' } } } };
    expect(contextFieldsOfType(vocab, 'MyCredential')).toBeUndefined();
    expect(contextDefinesType(vocab, 'MyCredential')).toBe(true);
  });
});

describe('a subject against its schema', () => {
  const passport = subjectSchemaOf(PASSPORT_SCHEMA)!;
  const good = { name: 'Alice', passportNumber: 'X1', nationality: 'NLD', birthDate: 19900101, customerReference: '3f0c9a3e-6d0b-4c52-9a41-7f1e8b2d5c10', expiryDate: 20340101, publicAddress: `0x${'a'.repeat(40)}` };

  it('passes a good one, and names the field and what was expected otherwise', () => {
    expect(checkAgainstSchema(good, passport)).toBeUndefined();
    expect(checkAgainstSchema({ ...good, birthDate: '1990-01-01' }, passport)).toEqual({ path: 'birthDate', problem: 'expected an integer, got a string ("1990-01-01")' });
    expect(checkAgainstSchema({}, passport)).toEqual({ path: 'name', problem: 'missing: the schema requires it (string)' });
    expect(checkAgainstSchema({ ...good, nationality: 'nl' }, passport)?.problem).toBe('"nl" does not match the schema\'s pattern ^[A-Z]{3}$ (Nationality (ISO 3166-1 alpha-3))');
    expect(checkAgainstSchema({ ...good, birthDate: 123 }, passport)?.problem).toBe('expected at least 10000101 (Birth date (YYYYMMDD)), got 123');
    expect(checkAgainstSchema({ ...good, name: '' }, passport)).toEqual({ path: 'name', problem: 'expected at least 1 character, got ""' });
  });

  it('walks nested objects and arrays, and refuses a property a closed schema does not list', () => {
    const schema = {
      type: 'object',
      properties: { address: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
    };
    expect(checkAgainstSchema({ address: { city: 1 } }, schema)).toEqual({ path: 'address.city', problem: 'expected a string, got an integer (1)' });
    expect(checkAgainstSchema({ address: { town: 'x' } }, schema)).toEqual({ path: 'address.town', problem: 'not a field of the schema (its fields: city)' });
    expect(checkAgainstSchema({ tags: ['a', 'c'] }, schema)).toEqual({ path: 'tags[1]', problem: 'expected one of "a", "b", got "c"' });
  });
});
