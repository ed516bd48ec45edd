/**
 * User mistakes in proof by query are refused as such (exit 1 or 2, HTTP 4xx, one line naming the
 * field), where the input enters and before anything heavy or on chain:
 * - an expired iden3 credential given to prove-submit (VerificationError by the context's clock);
 * - a credential naming a JSON-LD context vc does not have (422 naming it);
 * - $in/$nin with more values than the circuit's 64, at request creation and at prove time;
 * - values of the wrong shape or type at request creation ($lt with a list, a negative integer,
 *   an invalid YYYYMMDD date): nothing is registered on the UniversalVerifier.
 * One real credential is issued in beforeAll; the mistakes are variations of it and of a real
 * registered request, so each refusal is the first thing that can go wrong.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context, ServiceKey } from '../../../src/context.js';
import { checkProofInputs } from '../../../src/core/pbq/prove.js';
import { createCredentialRequest, universalVerifierAbi } from '../../../src/core/pbq/request.js';
import { pbqCredentialSchema, type CredentialRequest } from '../../../src/core/pbq/pbqSchemas.js';
import { InputError, UnprocessableError, VerificationError } from '../../../src/errors.js';
import { ROOT, runVcAsync, runVcInProcess, startVcServe, tempDir, templateHome, type ServedUrls, type VcRun, type VcServer } from '../../helpers.js';

type Json = Record<string, unknown>;

const tmp = tempDir('vc-pbq-mistakes-');
const home = templateHome(path.join(tmp.dir, 'home'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
const file = (name: string, content: unknown): string => {
  const target = path.join(tmp.dir, name);
  writeFileSync(target, JSON.stringify(content));
  return target;
};
/** A command in this process (no node start-up): what is refused, and how, is the command's, not the process'. */
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home, env });
/**
 * The same through the built binary, for the file's one check that the process ends as the refusal
 * says; asynchronous, so that this process keeps serving its keep-alive connections to the node.
 */
const vcBinary = (args: string[]): Promise<VcRun> => runVcAsync(['--json', ...args], { home, env });
/** No stack trace, no "internal error": one JSON line naming the problem; its message. */
const oneLine = (stderr: string): string => {
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  return (JSON.parse(stderr) as { error: { message: string } }).error.message;
};

let server: VcServer | undefined;
let urls: ServedUrls;
let credential: Json;
let request: CredentialRequest;
let rpcUrl: string;
let verifierAddress: string;

async function call(url: string, body: unknown): Promise<{ status: number; body: { error?: { code: string; message: string; field?: string } } & Json }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

/** How many requests the UniversalVerifier holds, read straight from the chain. */
async function registeredRequests(): Promise<bigint> {
  const { Contract, JsonRpcProvider } = await import('ethers');
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    return (await new Contract(verifierAddress, universalVerifierAbi(), provider).getFunction('getRequestsCount')()) as bigint;
  } finally {
    provider.destroy();
  }
}

/** A Context on a home of its own (bundled documents only, no chain). */
function isolatedContext(now?: Date): Context {
  return new Context({ config: parseConfig({}, path.join(tmp.dir, 'isolated')), ...(now === undefined ? {} : { now: () => now }) });
}

beforeAll(async () => {
  const holder = await vc(['holder', 'did', 'create']);
  expect(holder.status, holder.stderr).toBe(0);
  const issuer = await vc(['issuer', 'did', 'create']);
  expect(issuer.status, issuer.stderr).toBe(0);
  const issued = await vc(['issuer', 'issue', '--holder', holder.json<{ did_String: string }>().did_String]);
  expect(issued.status, issued.stderr).toBe(0);
  credential = issued.json<{ credential: Json }>().credential;
  const created = await vc(['verifier', 'request']);
  expect(created.status, created.stderr).toBe(0);
  request = created.json<CredentialRequest>();
  const status = await vc(['chain', 'status']);
  expect(status.status, status.stderr).toBe(0);
  const chain = status.json<{ rpcUrl: string; contracts: { universalVerifier: string } }>();
  rpcUrl = chain.rpcUrl;
  verifierAddress = chain.contracts.universalVerifier;
  server = await startVcServe(home, ['--role', 'all'], { env });
  urls = server.urls as ServedUrls;
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await vc(['chain', 'down']);
  tmp.cleanup();
});

describe('an expired credential given to prove-submit', () => {
  const expired = (): Json => ({ ...credential, expirationDate: '2020-01-01T00:00:00Z' });

  it('CLI: exit 1, "expired at <date>", before proving', async () => {
    const run = await vcBinary(['holder', 'prove-submit', '--credential', file('expired.json', expired()), '--request', file('request.json', request)]);
    expect(run.status).toBe(1);
    expect(oneLine(run.stderr)).toBe(`--credential ${file('expired.json', expired())}: field expirationDate: the credential expired at 2020-01-01T00:00:00.000Z`);
    expect(JSON.parse(run.stderr).error.field).toBe('--credential expirationDate');
  });

  it('HTTP: 422 verification_failed naming verifiableCredential.expirationDate', async () => {
    const res = await call(`${urls.holder}/generate-submit-proof`, { verifiableCredential: expired(), credentialRequest: request });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ code: 'verification_failed', message: 'request body: field verifiableCredential.expirationDate: the credential expired at 2020-01-01T00:00:00.000Z', field: 'verifiableCredential.expirationDate' });
  });

  it("uses the context's injected clock, before the chain or the circuits", async () => {
    const inFuture = pbqCredentialSchema.parse({ ...credential, expirationDate: '2030-06-01T00:00:00Z' });
    const later = isolatedContext(new Date('2031-01-01T00:00:00Z'));
    const earlier = isolatedContext(new Date('2029-01-01T00:00:00Z'));
    try {
      const error = await checkProofInputs(later, { credential: inFuture, request }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VerificationError);
      expect((error as Error).message).toMatch(/expired at 2030-06-01T00:00:00.000Z/);
      await expect(checkProofInputs(earlier, { credential: inFuture, request })).resolves.toBeUndefined();
      for (const ctx of [later, earlier]) {
        expect(ctx.peek(new ServiceKey('chain.connection'))).toBeUndefined();
        expect(ctx.peek(new ServiceKey('iden3.circuitsDir'))).toBeUndefined();
      }
    } finally {
      await later.close();
      await earlier.close();
    }
  });
});

describe('a credential naming an unknown JSON-LD context', () => {
  const UNKNOWN = 'https://contexts.unknown.example/v9/thing.jsonld';
  const withUnknown = (): Json => ({ ...credential, '@context': [...(credential['@context'] as string[]), UNKNOWN] });
  const index = (): number => (credential['@context'] as string[]).length;

  it('HTTP: 422 naming the URL and its position', async () => {
    const res = await call(`${urls.holder}/generate-submit-proof`, { verifiableCredential: withUnknown(), credentialRequest: request });
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe('unprocessable');
    expect(res.body.error?.field).toBe(`verifiableCredential.@context[${index()}]`);
    expect(res.body.error?.message).toContain(`unknown JSON-LD context ${UNKNOWN}`);
  });

  it('CLI: exit 2 naming the context whole (a public document, not a secret endpoint) and the command that adds it', async () => {
    const run = await vc(['holder', 'prove-submit', '--credential', file('unknown-context.json', withUnknown()), '--request', file('request.json', request)]);
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toBe(
      `--credential ${path.join(tmp.dir, 'unknown-context.json')}: field @context[${index()}]: unknown JSON-LD context ${UNKNOWN}: add it with \`vc documents add ${UNKNOWN} FILE\` (vc never fetches documents from the network)`,
    );
  });

  it('an unknown context in the request file is named too', async () => {
    const ctx = isolatedContext();
    try {
      const error = await checkProofInputs(ctx, { credential: pbqCredentialSchema.parse(credential), request: { ...request, query: { ...request.query, context: UNKNOWN } } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableError);
      expect((error as UnprocessableError).field).toBe('credentialRequest.query.context');
    } finally {
      await ctx.close();
    }
  });
});

describe('$in / $nin beyond the 64 values of the circuit', () => {
  const values = Array.from({ length: 1000 }, (_, i) => `N${String(i).padStart(3, '0')}`);

  it('CLI request: exit 2 naming the limit, nothing registered', async () => {
    const before = await registeredRequests();
    const run = await vc(['verifier', 'request', '--field', 'nationality', '--op', '$in', '--value', values.join(',')]);
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toBe("--value: $in takes at most 64 values (the size of the circuit's value array), not 1000");
    expect(await registeredRequests()).toBe(before);
  });

  it('HTTP request: 400 naming the limit, nothing registered; 64 values are accepted', async () => {
    const before = await registeredRequests();
    const res = await call(`${urls.verifier}/credential-requests`, { field: 'nationality', op: '$nin', value: values });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_input', field: 'value' });
    expect(res.body.error?.message).toMatch(/\$nin takes at most 64 values/);
    expect(await registeredRequests()).toBe(before);

    const ok = await call(`${urls.verifier}/credential-requests`, { field: 'nationality', op: '$in', value: values.slice(0, 64) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await registeredRequests()).toBe(before + 1n);
  });

  it('prove time: a request file carrying 1000 values is refused (exit 2 / 400) naming the limit', async () => {
    const tooMany: CredentialRequest = { ...request, query: { ...request.query, credentialSubject: { nationality: { $in: values } } } };
    const run = await vc(['holder', 'prove-submit', '--credential', file('credential.json', credential), '--request', file('too-many.json', tooMany)]);
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toMatch(/field query\.credentialSubject\.nationality\.\$in: \$in takes at most 64 values .*not 1000$/);
    const res = await call(`${urls.holder}/generate-submit-proof`, { verifiableCredential: credential, credentialRequest: tooMany });
    expect(res.status).toBe(400);
    expect(res.body.error?.field).toBe('credentialRequest.query.credentialSubject.nationality.$in');
  });
});

describe('operator and value shapes at request creation', () => {
  const refusals: Array<[string, Json, RegExp]> = [
    ['$lt with a list', { op: '$lt', value: [1, 2] }, /value: \$lt takes one value, not a list of 2/],
    ['a negative birthDate', { field: 'birthDate', op: '$lt', value: -1 }, /value: -1 is negative/],
    ['an invalid YYYYMMDD birthDate', { field: 'birthDate', op: '$gt', value: 20011340 }, /value: 20011340 is not a valid YYYYMMDD date/],
    ['an invalid expiryDate in a list', { field: 'expiryDate', op: '$in', value: [20300101, 20230229] }, /value: 20230229 is not a valid YYYYMMDD date/],
    ['a fraction for an integer field', { field: 'birthDate', op: '$eq', value: 19990101.5 }, /value: 19990101.5 is not an integer/],
    ['an empty $nin', { field: 'nationality', op: '$nin', value: [] }, /value: \$nin takes a list of 1 to 64 values/],
  ];

  it('HTTP: 400 naming value, nothing registered on chain', async () => {
    const before = await registeredRequests();
    for (const [what, body, message] of refusals) {
      const res = await call(`${urls.verifier}/credential-requests`, body.field === undefined ? { field: 'birthDate', ...body } : body);
      expect(res.status, what).toBe(400);
      expect(res.body.error?.field, what).toBe('value');
      expect(res.body.error?.message, what).toMatch(new RegExp(`^request body: field ${message.source}`));
    }
    expect(await registeredRequests()).toBe(before);
  });

  it('HTTP, V3: circuitId in the body selects credentialAtomicQueryV3OnChain; a V3 operator or proof type without it, or a value of the wrong shape for it, is a 400 naming the field', async () => {
    const before = await registeredRequests();
    const v3 = 'credentialAtomicQueryV3OnChain';
    const v3Refusals: Array<[Json, string, RegExp]> = [
      [{ op: '$sd' }, 'op', /^request body: field op: \$sd needs request body: field circuitId credentialAtomicQueryV3OnChain/],
      [{ proofType: 'sig' }, 'proofType', /^request body: field proofType: credentialAtomicQueryMTPV2OnChain proves with the MTP proof only/],
      [{ circuitId: 'credentialAtomicQuerySigV2OnChain' }, 'circuitId', /^request body: field circuitId/],
      [{ circuitId: v3, op: '$between', value: [19900101] }, 'value', /\$between takes a list of two values/],
      [{ circuitId: v3, op: '$sd', value: 1 }, 'value', /\$sd takes no value/],
      [{ circuitId: v3, proofType: 'BJJSignature2021' }, 'proofType', /^request body: field proofType/],
    ];
    for (const [body, field, message] of v3Refusals) {
      const res = await call(`${urls.verifier}/credential-requests`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error?.field, JSON.stringify(body)).toBe(field);
      expect(res.body.error?.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await registeredRequests()).toBe(before);
    const created = await call(`${urls.verifier}/credential-requests`, { circuitId: v3, proofType: 'sig', op: '$sd' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ circuitId: v3, query: { proofType: 'BJJSignature2021', credentialSubject: { birthDate: {} } } });
    expect(await registeredRequests()).toBe(before + 1n);
  }, 900_000);

  it('CLI: exit 2 with the reason, nothing registered on chain', async () => {
    const before = await registeredRequests();
    for (const [value, message] of [
      ['-1', /^--value: -1 is negative/],
      ['20010230', /^--value: 20010230 is not a valid YYYYMMDD date/],
      ['1,2', /^--value: "1,2" is not an integer/],
    ] as const) {
      const run = await vc(['verifier', 'request', '--field', 'birthDate', '--op', '$lt', '--value', value]);
      expect(run.status, value).toBe(2);
      expect(oneLine(run.stderr), value).toMatch(message);
    }
    expect(await registeredRequests()).toBe(before);
  });

  it('in process: refused before the circuits or the chain are touched', async () => {
    const ctx = isolatedContext();
    try {
      for (const [what, body] of refusals) {
        const error = await createCredentialRequest(ctx, { field: 'birthDate', ...body } as never).catch((e: unknown) => e);
        expect(error, what).toBeInstanceOf(InputError);
        expect(error, what).not.toBeInstanceOf(UnprocessableError);
      }
      expect(ctx.peek(new ServiceKey('iden3.circuitsDir'))).toBeUndefined();
      expect(ctx.peek(new ServiceKey('chain'))).toBeUndefined();
      expect(ctx.peek(new ServiceKey('chain.connection'))).toBeUndefined();
    } finally {
      await ctx.close();
    }
  });
});

describe('messages that name the input and what was expected (issue 26)', () => {
  const SAMPLE = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'subjects', 'passport.json'), 'utf8')) as Json;
  const holderDid = (): string => String((credential.credentialSubject as Json).id);
  const issue = (subject: unknown, name: string, extra: string[] = []) => vc(['issuer', 'issue', '--holder', holderDid(), '--subject', file(name, subject), ...extra]);

  it('--subject with a value of the wrong type: the file, the field and what the schema expects', async () => {
    const run = await issue({ ...SAMPLE, birthDate: '1990-01-01' }, 'bad-birthdate.json');
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toBe(`--subject ${path.join(tmp.dir, 'bad-birthdate.json')}: field birthDate: expected an integer, got a string ("1990-01-01") (the JSON schema of PassportCredential)`);
    expect(JSON.parse(run.stderr).error.field).toBe('--subject birthDate');
  });

  it('--subject {} : the first required field, named', async () => {
    const run = await issue({}, 'empty.json');
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toBe(`--subject ${path.join(tmp.dir, 'empty.json')}: field name: missing: the schema requires it (string) (the JSON schema of PassportCredential)`);
  });

  it('--subject with a misspelt field: did you mean, and the fields of the type', async () => {
    const { birthDate, ...rest } = SAMPLE;
    const run = await issue({ ...rest, birthdate: birthDate }, 'misspelt.json');
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toBe(
      `--subject ${path.join(tmp.dir, 'misspelt.json')}: field birthdate: not a field of PassportCredential (did you mean birthDate?); its fields: birthDate, customerReference, expiryDate, name, nationality, passportNumber, publicAddress`,
    );
  });

  it('--schema in the official iden3 format ($metadata.uris.jsonSchema, no $id) is accepted; its missing $metadata.type is asked for as --type', async () => {
    const official = path.join(ROOT, 'test', 'fixtures', 'iden3-official');
    const register = ['--context-file', path.join(official, 'kyc-v3.json-ld'), '--schema', path.join(official, 'KYCAgeCredential-v3.json')];
    const noType = await issue({ birthday: 19960424, documentType: 2 }, 'kyc.json', register);
    expect(noType.status).toBe(2);
    expect(oneLine(noType.stderr)).toMatch(/^--schema \S+KYCAgeCredential-v3\.json: field \$metadata\.type is missing .*give the type with --type \(the context defines KYCAgeCredential, KYCCountryOfResidenceCredential\)$/);
    // With --type the schema registers, and the subject is checked against it (nothing issued here).
    const checked = await issue({ birthday: '1996-04-24', documentType: 2 }, 'kyc-bad.json', [...register, '--type', 'KYCAgeCredential']);
    expect(checked.status).toBe(2);
    expect(oneLine(checked.stderr)).toBe(`--subject ${path.join(tmp.dir, 'kyc-bad.json')}: field birthday: expected an integer, got a string ("1996-04-24") (the JSON schema of KYCAgeCredential)`);
  });

  it('vc verifier request --field birthdate: did you mean birthDate, before anything is registered', async () => {
    const before = await registeredRequests();
    const run = await vc(['verifier', 'request', '--field', 'birthdate', '--value', '20010101']);
    expect(run.status).toBe(2);
    expect(oneLine(run.stderr)).toBe('--field: PassportCredential has no field birthdate (did you mean birthDate?); its fields: birthDate, customerReference, expiryDate, name, nationality, passportNumber, publicAddress');
    expect(await registeredRequests()).toBe(before);
  });

  it('an iden3 credential given to vc verifier verify is named as such (bare, or the issuer\'s response)', async () => {
    const bare = await vc(['verifier', 'verify', '--credential', file('passport.json', credential)]);
    expect(bare.status).toBe(2);
    expect(oneLine(bare.stderr)).toBe(
      `--credential ${path.join(tmp.dir, 'passport.json')}: is an iden3 credential (proof BJJSignature2021); \`verifier verify\` takes a W3C credential (a BBS+ disclosure from \`vc holder disclose\`, or an eddsa-rdfc-2022 / ecdsa-rdfc-2019 credential); an iden3 credential is proved on chain with \`vc holder prove-submit\``,
    );
    const wrapped = await vc(['verifier', 'verify', '--credential', file('passport-response.json', { message: 'credential successfully generated', credential })]);
    expect(wrapped.status).toBe(2);
    expect(oneLine(wrapped.stderr)).toMatch(/: is an issuer's response holding an iden3 credential \(proof BJJSignature2021\); `verifier verify` takes a W3C credential \(a BBS\+ disclosure/);
    const res = await call(`${urls.verifier}/verify-vc`, { vc: credential });
    expect(res.status).toBe(422);
    expect(res.body.error?.message).toMatch(/^request body: field vc: is an iden3 credential/);
  });
});
