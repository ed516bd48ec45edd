/**
 * The route table (src/http/routes.ts) over a real server: a request sets only the fields its
 * route takes (unknown and omitted fields are refused, never ignored or obeyed), and query
 * strings give numbers in decimal only.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-routes-');
let ctx: Context;
let server: RunningServer;

beforeAll(async () => {
  // About the route table's validation: BBS+ on the main thread (VC_WORKERS=0), no worker threads to start.
  ctx = new Context({ config: parseConfig({ CIRCUITS_PATH: tmp.dir, VC_WORKERS: '0' }, path.join(tmp.dir, 'home')) });
  server = await startServer(ctx, { roles: ['issuer', 'holder', 'verifier'], port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
  await ctx.close();
  tmp.cleanup();
});

async function send(url: string, body?: unknown): Promise<{ status: number; error: { code: string; message: string; field?: string } | undefined; body: Record<string, unknown> }> {
  const response = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string; field?: string } };
  return { status: response.status, error: json.error, body: json };
}

const HOLDER = 'did:polygonid:polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn';

describe('routes take exactly their fields', () => {
  it('refuses an unknown field instead of issuing without it', async () => {
    const answer = await send(`${server.urls.issuer!}/generate-pbq-credentials`, { did: HOLDER, credentialSubject: { name: 'typo' } });
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/credentialSubject/) });
  });

  it('refuses fields the route omits: a context and schema, the seed phrase, a holder-given credential', async () => {
    const issue = await send(`${server.urls.issuer!}/generate-pbq-credentials`, { did: HOLDER, type: 'Foo', context: {}, schema: {} });
    expect(issue.status).toBe(400);
    for (const query of ['showSecret=true', 'showSecret=1', 'showSecret']) {
      const key = await send(`${server.urls.issuer!}/bbs-key?${query}`);
      expect(key.status, query).toBe(400);
      expect(JSON.stringify(key.body)).not.toMatch(/seedPhrase/);
    }
    const disclose = await send(`${server.urls.holder!}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name'], credential: {} });
    expect(disclose.status).toBe(400);
  });

  it('reads a request id of the query string in decimal only, and says when it is missing', async () => {
    const address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    for (const request of ['0x10', '1e3', '', '12abc']) {
      const answer = await send(`${server.urls.verifier!}/request-status?request=${encodeURIComponent(request)}&address=${address}`);
      expect(answer.status, request).toBe(400);
      expect(answer.error, request).toMatchObject({ code: 'invalid_input', field: 'request' });
    }
    const missing = await send(`${server.urls.verifier!}/request-status?address=${address}`);
    expect(missing.error).toMatchObject({ field: 'request', message: 'query string: field request: missing (expected number)' });
  });
});
