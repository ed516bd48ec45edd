import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir } from '../helpers.js';

const tmp = tempDir('vc-shutdown-');
afterAll(() => tmp.cleanup());

describe('vc serve shutdown', () => {
  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'holder']);
    const base = server.urls.holder!;

    // Creating the holder identity takes a while (key, trees, auth claim): a request in flight.
    const inFlight = fetch(`${base}/did`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await new Promise((r) => setTimeout(r, 150));

    const exitCode = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { message: string }).message).toBe('did successfully created');
    expect(await exitCode).toBe(0);
    expect(server.stderr()).toMatch(/SIGTERM: finishing in-flight requests/);
    // Once closed, nothing listens any more.
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
