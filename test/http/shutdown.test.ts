import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, ROOT, tempDir, VC_BIN } from '../helpers.js';

const tmp = tempDir('vc-shutdown-');
afterAll(() => tmp.cleanup());

describe('vc serve shutdown', () => {
  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const child = spawn(process.execPath, [VC_BIN, '--home', path.join(tmp.dir, 'home'), 'serve', '--role', 'holder', '--port', '0'], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const listening = await new Promise<{ listening: { holder: string } }>((resolve) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { listening: { holder: string } });
      });
    });
    const base = listening.listening.holder;

    // Creating the holder identity takes a while (key, trees, auth claim): a request in flight.
    const inFlight = fetch(`${base}/did`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGTERM');

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { message: string }).message).toBe('did successfully created');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/SIGTERM: finishing in-flight requests/);
    // Once closed, nothing listens any more.
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
