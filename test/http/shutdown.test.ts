import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir } from '../helpers.js';

const tmp = tempDir('vc-shutdown-');
afterAll(() => tmp.cleanup());

/** Resolves when `read()` satisfies `test`, checked each time `emitter` delivers data. */
function when(emitter: NodeJS.EventEmitter, event: string, test: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (test()) return resolve();
    const check = (): void => {
      if (!test()) return;
      emitter.off(event, check);
      resolve();
    };
    emitter.on(event, check);
  });
}

describe('vc serve shutdown', () => {
  it('finishes a request in flight on SIGTERM, then exits 0', async () => {
    // One worker thread (not one per core): the pool is still closed on the way out.
    const server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'holder'], { env: { VC_WORKERS: '1' } });
    const { port } = new URL(server.urls.holder!);

    // The request is in flight for certain when SIGTERM comes: the server has read its headers
    // (it answered 100 Continue) and waits for its body, which is sent only after the server says
    // it is finishing in-flight requests.
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('POST /did HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n');
    await when(socket, 'data', () => received.includes('100 Continue'));

    const exitCode = server.stop();
    await when(server.child.stderr!, 'data', () => /SIGTERM: finishing in-flight requests/.test(server.stderr()));
    socket.write('{}');
    await closed;

    const final = received.slice(received.indexOf('\r\n\r\n') + 4);
    expect(final).toMatch(/^HTTP\/1\.1 200 /);
    expect(final).toMatch(/\r\nconnection: close\r\n/i);
    expect((JSON.parse(final.slice(final.indexOf('\r\n\r\n') + 4)) as { message: string }).message).toBe('did successfully created');
    expect(await exitCode).toBe(0);
    // Once closed, nothing listens any more.
    await expect(fetch(`${server.urls.holder!}/healthz`)).rejects.toThrow();
  });
});
