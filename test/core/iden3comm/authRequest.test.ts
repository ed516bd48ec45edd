/**
 * `vc verifier auth-request` (src/core/iden3comm/authRequest.ts), no chain and no proof: input the
 * command must not change silently (a condition under a `__proto__` key, a flag given twice; found
 * by the stop-36 review), and the values of a long `$in` list, hashed with turns of the event loop
 * between them, are the js-sdk's own (the same query hash, computed here with the js-sdk directly).
 * The server's side (vc serve answering /healthz meanwhile): test/http/authSessions.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { calculateCoreSchemaHash, calculateQueryHashV3, jsonLDMerklizer, parseQueryMetadata, parseZKPQuery } from '@0xpolygonid/js-sdk';
import { AbiCoder, type Result } from 'ethers';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { encodeRequestParams } from '../../../src/core/pbq/request.js';
import { jsonError, ROOT, runVcInProcess, tempDir, type VcRun } from '../../helpers.js';

const tmp = tempDir('vc-auth-request-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home });
type Made = { body: { scope: Array<{ query: { allowedIssuers: string[]; credentialSubject: Record<string, Record<string, unknown>> } }> } };
const CONTEXT_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';

afterAll(() => tmp.cleanup());

describe('vc verifier auth-request: input that must not be changed silently', () => {
  it('refuses a condition whose operator is under a "__proto__" key instead of making it a disclosure ($sd)', async () => {
    // JSON.parse keeps "__proto__" as an own key; a zod record drops it, leaving {} = $sd: a
    // request for the value itself where the file asked a comparison.
    writeFileSync(file('proto.json'), '{"type":"PassportCredential","credentialSubject":{"birthDate":{"__proto__":{"$lt":20010101}}}}');
    const run = await vc(['verifier', 'auth-request', '--query', file('proto.json')]);
    const made = run.status === 0 ? run.json<Made>().body.scope[0]!.query.credentialSubject : undefined;
    expect(made, 'the query became a disclosure of birthDate').toBeUndefined();
    expect(run.status).toBe(2);
    expect(jsonError(run.stderr)).toMatchObject({ code: 'invalid_json', field: '--query' });
    expect(jsonError(run.stderr).message).toMatch(/proto\.json: the key "__proto__" at credentialSubject\.birthDate is not accepted/);
  });

  it('refuses a repeated --value (one value; a list is comma-separated), and reads the comma-separated list whole', async () => {
    const run = await vc(['verifier', 'auth-request', '--field', 'nationality', '--op', '$in', '--value', 'FRA', '--value', 'DEU']);
    expect(run.status).toBe(2);
    expect(jsonError(run.stderr)).toEqual({ code: 'invalid_input', message: "option '--value' given twice: it takes one value; give it once", field: '--value' });
    const listed = await vc(['verifier', 'auth-request', '--field', 'nationality', '--op', '$in', '--value', 'FRA,DEU']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.json<Made>().body.scope[0]!.query.credentialSubject.nationality).toEqual({ $in: ['FRA', 'DEU'] });
  });
});

describe('the values of a long $in list', () => {
  it("are the js-sdk's own (the same query hash and values), hashed with a turn of the event loop after each", async () => {
    const values = Array.from({ length: 64 }, (_, i) => `N-${i}`);
    const query = { allowedIssuers: ['*'], type: 'PassportCredential', context: CONTEXT_URL, credentialSubject: { nationality: { $in: values } } };
    const ctx = new Context({ config: parseConfig({}, home) });
    try {
      const at = { names: (field: string) => field, allowedIssuers: 'allowedIssuers', query: '' };
      // Warm: the js-sdk and the context loaded, so that the turns counted are the encoding's.
      await encodeRequestParams(ctx, { id: 1, circuitId: 'credentialAtomicQueryV3OnChain', query: { ...query, credentialSubject: { nationality: { $in: ['X'] } } } }, at);
      let turns = 0;
      let counting = true;
      const count = (): void => {
        turns += 1;
        if (counting) setImmediate(count);
      };
      setImmediate(count);
      const encoded = await encodeRequestParams(ctx, { id: 1, circuitId: 'credentialAtomicQueryV3OnChain', query }, at);
      counting = false;
      // Each value's hash (~2 ms) is followed by a turn: timers and I/O run meanwhile.
      expect(turns).toBeGreaterThanOrEqual(values.length);

      // The js-sdk directly, on the bundled context: its values (every one hashed at once) and query hash.
      const contextJson = readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'iden3-passport-v1.json'), 'utf8');
      const loader = async (url: string) => {
        if (url !== CONTEXT_URL) throw new Error(`offline: ${url}`);
        return { document: JSON.parse(contextJson) as unknown, documentUrl: url, contextUrl: null };
      };
      const ldOptions = { documentLoader: loader as never };
      const [property] = parseZKPQuery({ credentialSubject: { nationality: { $in: values } } } as never);
      const metadata = await parseQueryMetadata(property!, contextJson, 'PassportCredential', ldOptions);
      expect(metadata.values).toHaveLength(64);
      expect(new Set(metadata.values).size).toBe(64);
      const schemaHash = calculateCoreSchemaHash(new TextEncoder().encode(await jsonLDMerklizer.Path.getTypeIDFromContext(contextJson, 'PassportCredential', ldOptions)));
      const expected = calculateQueryHashV3(metadata.values, schemaHash, metadata.slotIndex, metadata.operator, metadata.claimPathKey.toString(), metadata.values.length, metadata.merklizedSchema ? 1 : 0, 1, '0', '0');
      expect(encoded.queryHash).toBe(expected);
      const decoded = (AbiCoder.defaultAbiCoder().decode(['tuple(uint256 schema, uint256 claimPathKey, uint256 operator, uint256 slotIndex, uint256[] value, uint256 queryHash)'], encoded.params)[0] as Result).toObject();
      expect((decoded.value as bigint[]).slice(0, 64)).toEqual(metadata.values);
      // Another value anywhere in the list is another query.
      const changed = await encodeRequestParams(ctx, { id: 1, circuitId: 'credentialAtomicQueryV3OnChain', query: { ...query, credentialSubject: { nationality: { $in: [...values.slice(0, 63), 'other'] } } } }, at);
      expect(changed.queryHash).not.toBe(expected);
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
