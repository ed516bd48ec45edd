/**
 * The holder's credential store over HTTP (GET /credentials, POST /credentials, GET and DELETE
 * /credentials/:id on the holder service), against a real server without a chain (BBS+ kinds):
 * the same operations as `vc holder credentials`, their validation (400 naming the field or
 * parameter), a refused import (422 with the reason), a conflict (409), an unknown id (404), the
 * body limit (413), and a DELETE sent with a JSON content type and no body.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { createHolderIdentity } from '../../src/core/pbq/identities.js';
import { issueBbs2023SelectiveDisclosureCredential, issueSelectiveDisclosureCredential } from '../../src/core/sd/sdIssuance.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { tempDir } from '../helpers.js';

type Json = Record<string, unknown>;
const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const tmp = tempDir('vc-holder-routes-');
let ctx: Context;
let issuer: Context;
let server: RunningServer;
let holder: string;
let holderDid: string;

beforeAll(async () => {
  // One BBS+ worker thread (not one per core): the imports' checks still run in a worker.
  ctx = new Context({ config: parseConfig({ CIRCUITS_PATH: tmp.dir, VC_BODY_LIMIT: '65536', VC_WORKERS: '1' }, path.join(tmp.dir, 'home')) });
  issuer = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE }, path.join(tmp.dir, 'issuer')) });
  server = await startServer(ctx, { roles: ['holder'], port: 0, host: '127.0.0.1' });
  holder = server.urls.holder!;
  holderDid = (await createHolderIdentity(ctx)).did_String;
}, 120_000);
afterAll(async () => {
  await server.close();
  await ctx.close();
  await issuer.close();
  tmp.cleanup();
});

async function send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json & { error?: { code: string; message: string; field?: string } } }> {
  const init: RequestInit = body === undefined ? { method, headers } : { method, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) };
  const response = await fetch(url, init);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Json };
}

describe('the holder credential routes', () => {
  it('import (201), list with filters, show, delete (then 404), for both BBS+ kinds', async () => {
    const bbs = await issueSelectiveDisclosureCredential(issuer, { holder: holderDid, store: false });
    const bbs2023 = await issueBbs2023SelectiveDisclosureCredential(issuer, { holder: holderDid, store: false });
    const imported = await send('POST', `${holder}/credentials`, { credential: [bbs, bbs2023] });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const ids = (imported.body.imported as Json[]).map((entry) => entry.id as string);
    expect((imported.body.imported as Json[]).map((entry) => entry.kind)).toEqual(['bbs2020', 'bbs2023']);

    const all = await send('GET', `${holder}/credentials`);
    expect(all.status).toBe(200);
    expect((all.body.credentials as Json[]).map((entry) => entry.id)).toEqual([ids[1], ids[0]]);
    const only2023 = await send('GET', `${holder}/credentials?kind=bbs2023&type=PassportCredential`);
    expect((only2023.body.credentials as Json[]).map((entry) => entry.id)).toEqual([ids[1]]);
    expect((await send('GET', `${holder}/credentials?issuer=${encodeURIComponent('did:example:nobody')}`)).body).toEqual({ credentials: [] });

    // An id with colons (urn:uuid:..., urn:sha256:...) stands in the path as it is, or percent-encoded.
    const shown = await send('GET', `${holder}/credentials/${ids[0]!}`);
    expect(shown.status).toBe(200);
    expect(shown.body.credential).toEqual(bbs);
    expect((await send('GET', `${holder}/credentials/${encodeURIComponent(ids[1]!)}`)).body.credential).toEqual(bbs2023);

    // A client that says JSON and sends no body on a DELETE is fine.
    const deleted = await send('DELETE', `${holder}/credentials/${ids[0]!}`, undefined, { 'content-type': 'application/json' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, id: ids[0], kind: 'bbs2020' });
    const again = await send('DELETE', `${holder}/credentials/${ids[0]!}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'not_found', field: 'id', message: expect.stringMatching(/^path parameter id: the holder has no credential/) as string });
    expect((await send('GET', `${holder}/credentials/${ids[0]!}`)).status).toBe(404);
    expect(((await send('GET', `${holder}/credentials`)).body.credentials as Json[]).map((entry) => entry.id)).toEqual([ids[1]]);
  });

  it('refuses, naming the field: a bad kind, an unknown query field, a body without a credential, a changed credential (422), someone else\'s (422), a conflict (409), a body over the limit (413)', async () => {
    const kind = await send('GET', `${holder}/credentials?kind=jwt`);
    expect(kind.status).toBe(400);
    expect(kind.body.error).toMatchObject({ code: 'invalid_input', field: 'kind' });
    expect((await send('GET', `${holder}/credentials?typo=1`)).status).toBe(400);
    const empty = await send('POST', `${holder}/credentials`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'invalid_input', field: 'credential' });
    expect((await send('POST', `${holder}/credentials`, { credential: 'eyJhbGciOi' })).status).toBe(400);
    expect((await send('POST', `${holder}/credentials`, { credential: [] })).status).toBe(400);

    const signed = await issueSelectiveDisclosureCredential(issuer, { holder: holderDid, store: false });
    const changed = await send('POST', `${holder}/credentials`, { credential: { ...signed, credentialSubject: { ...signed.credentialSubject, nationality: 'FRA' } } });
    expect(changed.status).toBe(422);
    expect(changed.body.error).toMatchObject({ code: 'unprocessable', field: 'credential.proof', message: expect.stringMatching(/^request body: field credential: the issuer's BBS\+ signature does not verify/) as string });
    const bobs = await issueSelectiveDisclosureCredential(issuer, { holder: 'did:example:bob', store: false });
    const foreign = await send('POST', `${holder}/credentials`, { credential: bobs });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toMatchObject({ field: 'credential.credentialSubject.id', message: expect.stringMatching(/the credential is for did:example:bob, not for the holder of this wallet/) as string });

    expect((await send('POST', `${holder}/credentials`, { credential: signed })).status).toBe(201);
    const duplicate = await send('POST', `${holder}/credentials`, { credential: signed });
    expect(duplicate.status).toBe(201);
    expect((duplicate.body.imported as Json[])[0]).toMatchObject({ id: signed.id, alreadyHeld: true });
    // Another credential already held under the id of the one given: 409, nothing replaced.
    const { keepHeldCredential } = await import('../../src/core/holder/holderStore.js');
    const other = await issueSelectiveDisclosureCredential(issuer, { holder: holderDid, store: false });
    keepHeldCredential(ctx, { ...other, note: 'kept earlier' }, { kind: 'bbs2020', source: 'imported' });
    const conflicting = await send('POST', `${holder}/credentials`, { credential: other });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error).toMatchObject({ code: 'conflict', field: 'credential.id', message: expect.stringMatching(/already has another credential with the id/) as string });
    expect(((await send('GET', `${holder}/credentials/${other.id!}`)).body.credential as Json).note).toBe('kept earlier');

    const tooLarge = await send('POST', `${holder}/credentials`, { credential: { ...signed, padding: 'x'.repeat(70_000) } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toMatchObject({ code: 'payload_too_large' });
  });

  it('is documented in the holder\'s OpenAPI document, each route with its errors', async () => {
    const doc = (await send('GET', `${holder}/openapi.json`)).body as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
    expect(Object.keys(doc.paths['/credentials']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/credentials/{id}']!).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/credentials/{id}']!.delete!.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(doc.paths['/credentials/{id}']!.delete!.requestBody).toBeUndefined();
    expect(Object.keys(doc.paths['/credentials']!.post!.responses)).toEqual(expect.arrayContaining(['201', '400', '413', '415']));
  });
});
