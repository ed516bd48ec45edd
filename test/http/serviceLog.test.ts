/**
 * The log of a real `vc serve --role all`: every line on stderr is a JSON object with its time and
 * level (the request lines, the start messages and the shutdown ones alike), and a request's line
 * names the X-Request-Id of its answer.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, startVcServe, tempDir } from '../helpers.js';

const TOKEN = 'log-test-token-0123456789';
const tmp = tempDir('vc-service-log-');
afterAll(() => tmp.cleanup());

describe('vc serve logs', () => {
  it('writes JSON lines only, from start to shutdown, with the request id of each answer', async () => {
    const server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'all'], { env: { VC_API_TOKEN: TOKEN, VC_WORKERS: '1', CIRCUITS_PATH: tmp.dir } });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const ids: string[] = [];
    let exitCode: number | null;
    try {
      for (const url of Object.values(server.urls)) {
        const index = await fetch(`${url}/`, { headers: { ...auth, 'x-request-id': `index-${ids.length}` } });
        expect(index.status).toBe(200);
        expect(((await index.json()) as { openapi: string }).openapi).toBe('/openapi.json');
        ids.push(index.headers.get('x-request-id')!);
      }
      expect(ids).toEqual(['index-0', 'index-1', 'index-2']);
      const refused = await fetch(`${server.urls.verifier!}/openapi.json`);
      expect(refused.status).toBe(401);
      ids.push(refused.headers.get('x-request-id')!);
      const health = await fetch(`${server.urls.holder!}/healthz`, { headers: { 'x-request-id': 'bad id\twith tab' } });
      expect(JSON.stringify(await health.json())).not.toContain(tmp.dir);
      ids.push(health.headers.get('x-request-id')!);
      expect(ids.at(-1)).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      exitCode = await server.stop();
    }
    expect(exitCode).toBe(0);

    const lines = server.stderr().split('\n').filter((line) => line !== '');
    const parsed = lines.map((line) => {
      let value: unknown;
      expect(() => (value = JSON.parse(line)), `a plain-text log line: ${line}`).not.toThrow();
      expect(value, line).toMatchObject({ time: expect.any(String), level: expect.stringMatching(/^(info|warn|error)$/) });
      return value as { id?: string; message?: string; status?: number };
    });
    // The start, the workers and the shutdown are logged lines too.
    const messages = parsed.map((line) => line.message ?? '');
    expect(messages.some((message) => /^the verifier service listens at http:\/\/127\.0\.0\.1:\d+: GET \/ lists its routes, GET \/openapi\.json describes them$/.test(message))).toBe(true);
    expect(messages.some((message) => /^BBS\+ runs on 1 worker thread/.test(message))).toBe(true);
    expect(messages).toContain('SIGTERM: finishing in-flight requests and shutting down');
    expect(messages.at(-1)).toBe('shut down');
    // Each answer's X-Request-Id is the id of its request line.
    for (const id of ids) expect(parsed.filter((line) => line.id === id), id).toHaveLength(1);
    expect(server.stderr()).not.toContain('bad id');
  });

  it('an error that stops it before it serves is one JSON line too, without --json', () => {
    const run = runVc(['serve', '--role', 'verifier', '--port', '0'], { home: path.join(tmp.dir, 'refused'), env: { VC_API_TOKEN: 'short' } });
    expect(run.status).toBe(3);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ error: { code: 'config_error', field: 'VC_API_TOKEN' } });
    expect(run.stderr).not.toContain('short');
  });
});
