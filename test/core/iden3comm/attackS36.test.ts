/**
 * Adversarial review (stop 36) of several proof requests in one iden3comm authorization request:
 * defects found, each a failing test until fixed. No chain, no proof.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonError, runVcInProcess, tempDir, type VcRun } from '../../helpers.js';
import { disclosedByField, type VerifiedScopeProof } from '../../../src/core/iden3comm/authVerify.js';

const tmp = tempDir('vc-attack-s36-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home });
type Made = { body: { scope: Array<{ query: { allowedIssuers: string[]; credentialSubject: Record<string, Record<string, unknown>> } }> } };

afterAll(() => tmp.cleanup());

describe('vc verifier auth-request: input that must not be changed silently', () => {
  it('refuses a condition whose operator is under a "__proto__" key instead of making it a disclosure ($sd)', async () => {
    // JSON.parse keeps "__proto__" as an own key; the zod record drops it, leaving {} = $sd: a
    // request for the value itself where the file asked a comparison. (POST /auth-requests
    // {"queries": [...]} with the same query answers 201 the same way.)
    writeFileSync(file('proto.json'), '{"type":"PassportCredential","credentialSubject":{"birthDate":{"__proto__":{"$lt":20010101}}}}');
    const run = await vc(['verifier', 'auth-request', '--query', file('proto.json')]);
    const made = run.status === 0 ? run.json<Made>().body.scope[0]!.query.credentialSubject : undefined;
    expect(made, 'the query became a disclosure of birthDate').toBeUndefined();
    expect(run.status).toBe(2);
    expect(jsonError(run.stderr).message).toMatch(/proto\.json.*birthDate/);
  });

  it('does not drop the earlier values of a repeated list flag (--value): they add up as --query files do, or the repetition is refused', async () => {
    const run = await vc(['verifier', 'auth-request', '--field', 'nationality', '--op', '$in', '--value', 'FRA', '--value', 'DEU']);
    if (run.status === 2) {
      expect(jsonError(run.stderr).message).toMatch(/--value/);
      return;
    }
    expect(run.status, run.stderr).toBe(0);
    // Today: {"$in": ["DEU"]}, without a word (--allowed-issuers A --allowed-issuers B keeps B only, --circuit too).
    expect(run.json<Made>().body.scope[0]!.query.credentialSubject.nationality).toEqual({ $in: ['FRA', 'DEU'] });
  });
});

describe('disclosedByField', () => {
  it('keeps every disclosed value: a type-qualified key never collides with a (nested) field of that name', () => {
    const proof = (id: number, type: string, field: string, disclosed: string): VerifiedScopeProof => ({ id, circuitId: 'credentialAtomicQueryV3', issuer: 'did:x', type, field, operator: '$sd', disclosed });
    const disclosed = disclosedByField([proof(1, 'A', 'b', 'one'), proof(2, 'C', 'b', 'two'), proof(3, 'T', 'A.b', 'three')]);
    // Today: {"A.b": "three", "C.b": "two"}: proof 1's value is gone.
    expect(Object.values(disclosed).sort()).toEqual(['one', 'three', 'two']);
  });
});
