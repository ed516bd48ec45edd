/**
 * The cost limits of bbs-2023 (src/core/sd/sdCost.ts): members are counted without reading a body
 * past the limit, and a ~900-member credential is refused at once with 413 and the limit on every
 * VC-API route and the spec's verify route, and with exit 2 and the same message on the CLI, while
 * a credential within the limits is issued, derived and verified.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BBS_2023_STATEMENT_LIMITS, checkBbs2023Cost, countMembers, hiddenStatementsOf } from '../../src/core/sd/sdCost.js';
import { runVcInProcess, startVcServe, tempDir, type ServedUrls, type VcServer } from '../helpers.js';

type Json = Record<string, unknown>;
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const tmp = tempDir('vc-sdcost-');
// One BBS+ worker thread (not one per core): the served routes still run their BBS+ calls in a worker.
const env = { IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: '*', VC_WORKERS: '1' };
let server: VcServer | undefined;
let urls: ServedUrls;
let issuerDid: string;

async function call(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

/** A licence credential whose subject lists `names` names (one member and one statement each). */
function credential(names: number): Json {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
    type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
    issuer: issuerDid,
    credentialSubject: { id: 'did:example:bob', name: Array.from({ length: names }, (_, index) => `name ${index}`) },
  };
}

/** `signed` (or derived) with its subject's list grown to about 900 members: its proof no longer matches, but it is refused before that matters. */
function grown(signed: Json): Json {
  return { ...signed, credentialSubject: { ...(signed.credentialSubject as Json), name: Array.from({ length: 890 }, (_, index) => `name ${index}`) } };
}

describe('counting members', () => {
  it('stops at the limit without reading the members past it', () => {
    let reads = 0;
    const huge: Json = {};
    for (let index = 0; index < 80_000; index++) Object.defineProperty(huge, `k${index}`, { enumerable: true, get: () => ++reads });
    const count = countMembers({ credentialSubject: huge }, 200);
    expect(count.document).toBeGreaterThan(200);
    expect(reads).toBe(0);
    expect(countMembers({ a: 1, b: [1, 2, { c: 3 }], proof: { type: 'x', proofValue: 'y' } })).toEqual({ document: 7, proof: 3 });
  });

  it('names the limit and what it counted', () => {
    expect(checkBbs2023Cost({ credentialSubject: { name: Array.from({ length: 10 }, String) } }, 'base')).toBeUndefined();
    expect(checkBbs2023Cost({ credentialSubject: { name: Array.from({ length: 900 }, String) } }, 'verifyBase')).toMatch(/more than 100 members .*at most 100 statements/);
    expect(hiddenStatementsOf({ proofValue: 'u2V0D' + 'A'.repeat(43 * 100) })).toBeGreaterThanOrEqual(90);
    expect(hiddenStatementsOf({ proofValue: 'u2V0C' + 'A'.repeat(43 * 100) })).toBe(0);
  });
});

describe('a 900-member bbs-2023 credential over HTTP and the CLI', () => {
  let signed: Json;
  let derived: Json;

  beforeAll(async () => {
    server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'all'], { env });
    urls = server.urls as ServedUrls;
    issuerDid = ((await (await fetch(`${urls.issuer}/bbs-key`)).json()) as { bbs2023: { did: string } }).bbs2023.did;
    // Within the limits: 40 names, issued, derived and verified.
    const issued = await call(`${urls.issuer}/credentials/issue`, { credential: credential(40), options: { mandatoryPointers: ['/issuer'] } });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    signed = issued.body.verifiableCredential as Json;
    const disclosed = await call(`${urls.holder}/credentials/derive`, { verifiableCredential: signed, options: { selectivePointers: ['/credentialSubject/name/0'] } });
    expect(disclosed.status, JSON.stringify(disclosed.body)).toBe(201);
    derived = disclosed.body.verifiableCredential as Json;
    const verified = await call(`${urls.verifier}/credentials/verify`, { verifiableCredential: derived });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    tmp.cleanup();
  });

  it('is refused at once with 413 and the limit on every route', async () => {
    const cases: Array<[string, unknown, number]> = [
      [`${urls.issuer}/credentials/issue`, { credential: grown(credential(1)) }, BBS_2023_STATEMENT_LIMITS.base],
      [`${urls.holder}/credentials/derive`, { verifiableCredential: grown(signed), options: { selectivePointers: ['/credentialSubject/name/0'] } }, BBS_2023_STATEMENT_LIMITS.base],
      [`${urls.holder}/sd-credentials`, { credential: grown(signed) }, BBS_2023_STATEMENT_LIMITS.base],
      [`${urls.verifier}/credentials/verify`, { verifiableCredential: grown(signed) }, BBS_2023_STATEMENT_LIMITS.verifyBase],
      [`${urls.verifier}/credentials/verify`, { verifiableCredential: grown(derived) }, BBS_2023_STATEMENT_LIMITS.verifyDerived],
      [`${urls.verifier}/verify-vc`, { vc: grown(derived) }, BBS_2023_STATEMENT_LIMITS.verifyDerived],
    ];
    for (const [url, body, limit] of cases) {
      const answer = await call(url, body);
      expect(answer.status, `${url}: ${JSON.stringify(answer.body)}`).toBe(413);
      const error = answer.body.error as { code: string; message: string };
      expect(error.code).toBe('payload_too_large');
      expect(error.message).toContain(`at most ${limit} statements`);
      expect(error.message).toMatch(/members/);
    }
  });

  // The commands in this process (runVcInProcess: the same exit code and output as the binary, test/cli/main.test.ts).
  it('is refused with exit 2 and the same message by the commands', async () => {
    const home = path.join(tmp.dir, 'cli');
    const derivedFile = path.join(tmp.dir, 'derived-900.json');
    writeFileSync(derivedFile, JSON.stringify(grown(derived)));
    const verify = await runVcInProcess(['verifier', 'verify', '--vc', derivedFile], { home, env });
    expect(verify.status, verify.stderr).toBe(2);
    expect(verify.stderr).toContain(`at most ${BBS_2023_STATEMENT_LIMITS.verifyDerived} statements`);
    const signedFile = path.join(tmp.dir, 'signed-900.json');
    writeFileSync(signedFile, JSON.stringify(grown(signed)));
    const keep = await runVcInProcess(['holder', 'import-sd', '--credential', signedFile], { home, env });
    expect(keep.status, keep.stderr).toBe(2);
    expect(keep.stderr).toContain(`at most ${BBS_2023_STATEMENT_LIMITS.base} statements`);
  });
});
