/**
 * V3 requests with a nullifier, without a chain: the validator params vc encodes carry the
 * nullifierSessionID and the verifierID, and their queryHash is the js-sdk's calculateQueryHashV3
 * of the same query (computed here with the js-sdk directly, from the bundled context), so the
 * circuit's circuitQueryHash can match it; `--nullifier-session` (and the HTTP body's
 * nullifierSessionID) takes an integer from 1 to r - 1 only, refused at every boundary with the
 * flag named, before anything reaches the chain.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { calculateCoreSchemaHash, calculateQueryHashV3, jsonLDMerklizer, parseQueryMetadata, parseZKPQuery } from '@0xpolygonid/js-sdk';
import { AbiCoder, type Result } from 'ethers';
import { parseConfig } from '../../../src/config/parse.js';
import { Context, ServiceKey } from '../../../src/context.js';
import { pbqHolderDid, pbqRequest } from '../../../src/core/operations/pbqOperations.js';
import { credentialRequestSchema } from '../../../src/core/pbq/pbqSchemas.js';
import { encodeRequestParams } from '../../../src/core/pbq/request.js';
import { parseInput } from '../../../src/core/validate.js';
import { jsonError, ROOT, runVcInProcess, tempDir } from '../../helpers.js';

const V3 = 'credentialAtomicQueryV3OnChain';
const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const CONTEXT_URL = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';
const PARAMS_TYPE =
  'tuple(uint256 schema, uint256 claimPathKey, uint256 operator, uint256 slotIndex, uint256[] value, uint256 queryHash, uint256[] allowedIssuers, string[] circuitIds, bool skipClaimRevocationCheck, uint256 groupID, uint256 nullifierSessionID, uint256 proofType, uint256 verifierID)';
/** An id of type 0x01A1 (did:iden3:privado:main), as the UniversalVerifier's getVerifierID gives. */
const VERIFIER_ID = 20206832189360971753730957013474627064297016012168620835460305334537593089n;

const tmp = tempDir('vc-pbq-nullifier-');
const home = path.join(tmp.dir, 'home');
afterAll(() => tmp.cleanup());

/** The js-sdk's own query hash of `birthDate $lt 20010101` on the bundled passport context. */
async function jsSdkQueryHash(verifierID: bigint, sessionID: bigint): Promise<bigint> {
  const contextJson = readFileSync(path.join(ROOT, 'fixtures', 'contexts', 'iden3-passport-v1.json'), 'utf8');
  const loader = async (url: string) => {
    if (url !== CONTEXT_URL) throw new Error(`offline: ${url}`);
    return { document: JSON.parse(contextJson) as unknown, documentUrl: url, contextUrl: null };
  };
  const ldOptions = { documentLoader: loader as never };
  const [property] = parseZKPQuery({ credentialSubject: { birthDate: { $lt: 20010101 } } } as never);
  const metadata = await parseQueryMetadata(property!, contextJson, 'PassportCredential', ldOptions);
  expect(Number(metadata.operator)).toBe(2); // $lt
  const schemaId = await jsonLDMerklizer.Path.getTypeIDFromContext(contextJson, 'PassportCredential', ldOptions);
  const schemaHash = calculateCoreSchemaHash(new TextEncoder().encode(schemaId));
  expect(metadata.values).toEqual([20010101n]);
  return calculateQueryHashV3(metadata.values, schemaHash, metadata.slotIndex, metadata.operator, metadata.claimPathKey.toString(), metadata.values.length, metadata.merklizedSchema ? 1 : 0, 1, verifierID.toString(), sessionID.toString());
}

describe('the validator params of a V3 request with a nullifier session', () => {
  it("carry the session and the verifierID, with the js-sdk's query hash; without a session both are 0 whatever verifierID is given", async () => {
    const ctx = new Context({ config: parseConfig({}, home) });
    try {
      const query = { allowedIssuers: ['*'], type: 'PassportCredential', context: CONTEXT_URL, credentialSubject: { birthDate: { $lt: 20010101 } } };
      const at = { names: (field: string) => field, allowedIssuers: 'allowedIssuers', query: '' };
      const decode = (params: string): Record<string, unknown> => (AbiCoder.defaultAbiCoder().decode([PARAMS_TYPE], params)[0] as Result).toObject();

      const session = R - 1n;
      const withSession = await encodeRequestParams(ctx, { id: 1, circuitId: V3, query, params: { nullifierSessionId: session.toString() } }, at, VERIFIER_ID);
      const expected = await jsSdkQueryHash(VERIFIER_ID, session);
      expect(withSession.queryHash).toBe(expected);
      expect(decode(withSession.params)).toMatchObject({ queryHash: expected, nullifierSessionID: session, verifierID: VERIFIER_ID });

      const without = await encodeRequestParams(ctx, { id: 1, circuitId: V3, query }, at, VERIFIER_ID);
      expect(without.queryHash).toBe(await jsSdkQueryHash(0n, 0n));
      expect(decode(without.params)).toMatchObject({ nullifierSessionID: 0n, verifierID: 0n });
      // The session and the verifierID are in the hash: another of either is another query.
      expect(new Set([withSession.queryHash, without.queryHash, await jsSdkQueryHash(VERIFIER_ID, 1n), await jsSdkQueryHash(VERIFIER_ID + 1n, session)]).size).toBe(4);
      // Nothing here needed a chain.
      expect(ctx.peek(new ServiceKey('chain.connection'))).toBeUndefined();
    } finally {
      await ctx.close();
    }
  }, 60_000);
});

describe('nullifier session ids and profile nonces: integers from 1 to r - 1', () => {
  const bad: Array<[unknown, RegExp]> = [
    [0, /^0 means no nullifier/],
    ['0', /^0 means no nullifier/],
    [-1, /is negative/],
    ['-1', /is negative/],
    [1.5, /is not an integer/],
    ['1.5', /is not an integer/],
    ['1e3', /is not an integer/],
    ['0x10', /is not an integer/],
    [' 7', /is not an integer/],
    ['', /is not an integer/],
    [2 ** 53, /beyond 2\^53/],
    [R.toString(), /is not below the circuit's field modulus r = 2188824287/],
    [(R + 1n).toString(), /is not below the circuit's field modulus/],
    [true, /is not an integer/],
  ];

  it('the request body refuses each bad value, naming the field; accepts 1, r - 1 and safe integers', () => {
    const parse = (value: unknown) => parseInput(pbqRequest.input, { circuitId: V3, nullifierSessionID: value }, 'body');
    for (const [value, reason] of bad) {
      let message = '';
      try {
        parse(value);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, JSON.stringify(value)).toMatch(/nullifierSessionID/);
      expect(message.replace(/^.*?nullifierSessionID:? /, ''), JSON.stringify(value)).toMatch(reason);
    }
    for (const value of [1, '1', 2 ** 53 - 1, (R - 1n).toString()]) expect(parse(value).nullifierSessionID).toBe(value);
    // The holder's profile nonce has the same bounds (0 is the identity itself).
    expect(() => parseInput(pbqHolderDid.input, { profileNonce: 0 }, 'body')).toThrow(/profileNonce.*0 is the genesis identity itself/);
    expect(() => parseInput(pbqHolderDid.input, { profileNonce: R.toString() }, 'body')).toThrow(/profileNonce.*not below/);
    expect(parseInput(pbqHolderDid.input, { profileNonce: '5' }, 'body').profileNonce).toBe('5');
  });

  it('a request file whose params.nullifierSessionId is out of range, or on the MTP circuit, is refused with its field', () => {
    const request = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'requests', 'passport-birthdate-lt.json'), 'utf8')) as Record<string, unknown>;
    expect(() => parseInput(credentialRequestSchema, { ...request, circuitId: V3, params: { nullifierSessionId: '0' } }, 'request.json')).toThrow(/params.nullifierSessionId.*0 means no nullifier/);
    expect(() => parseInput(credentialRequestSchema, { ...request, circuitId: V3, params: { nullifierSessionId: R.toString() } }, 'request.json')).toThrow(/params.nullifierSessionId.*not below/);
    expect(() => parseInput(credentialRequestSchema, { ...request, params: { nullifierSessionId: '7' } }, 'request.json')).toThrow(/params.*has no nullifier/);
    expect(parseInput(credentialRequestSchema, { ...request, circuitId: V3, params: { nullifierSessionId: '7' } }, 'request.json').params).toEqual({ nullifierSessionId: '7' });
  });

  it('vc verifier request --nullifier-session refuses them with exit 2 and the flag named, and needs the V3 circuit', async () => {
    for (const value of ['0', '-1', '1.5', R.toString()]) {
      const run = await runVcInProcess(['--json', 'verifier', 'request', '--circuit', V3, '--nullifier-session', value], { home });
      expect(run.status, run.stderr).toBe(2);
      expect(jsonError(run.stderr).field).toBe('--nullifier-session');
    }
    const mtp = await runVcInProcess(['--json', 'verifier', 'request', '--nullifier-session', '7'], { home });
    expect(mtp.status).toBe(2);
    expect(jsonError(mtp.stderr)).toMatchObject({ field: '--nullifier-session', message: expect.stringContaining(`has no nullifier; a nullifier session needs --circuit ${V3}`) });
  }, 60_000);
});
