/**
 * Reverse hash service requests are bounded: the URL comes from a credential (possibly from an
 * HTTP body), so a server that never answers, trickles its body, answers without end or with
 * something else than JSON yields a NetworkError naming the URL, quickly; the publisher's POST to
 * RHS_URL is bounded the same way. Real HTTP servers on loopback.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, NetworkError } from '../../src/errors.js';
import { loadIden3Modules } from '../../src/iden3/modules.js';
import { RhsNodeStore, StoreRhsPublisher, fetchRhsJson } from '../../src/iden3/rhs.js';
import { WalletStore } from '../../src/store/store.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-pbq-rhs-');
const hanging: ServerResponse[] = [];
let server: Server;
let base: string;
const limits = { timeoutMs: 400, maxBytes: 64 * 1024 };
/** The requests that reached /elsewhere (the target of the redirect below). */
const redirectedTo: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    switch (req.url) {
      case '/node/ok':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ node: { hash: 'ab', children: ['01', '02'] }, status: 'OK' }));
        return;
      case '/node/missing':
        res.statusCode = 404;
        res.end('{"error":"not found"}');
        return;
      case '/moved/node':
        res.statusCode = 307;
        res.setHeader('location', '/elsewhere');
        res.end();
        return;
      case '/elsewhere':
        redirectedTo.push(req.method ?? '');
        res.end('{}');
        return;
      case '/node/html':
        res.end('<html>not an RHS</html>');
        return;
      case '/node/endless': {
        // Chunked, no content-length, far beyond the limit.
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        let sent = 0;
        const push = (): void => {
          while (sent < 4096 && res.write(chunk)) sent += 1;
          if (sent < 4096) res.once('drain', push);
          else res.end();
        };
        res.on('error', () => undefined);
        push();
        return;
      }
      case '/node/declared':
        res.setHeader('content-length', String(10 * 1024 * 1024));
        res.write('{');
        hanging.push(res);
        return;
      case '/node/trickle':
        res.setHeader('content-type', 'application/json');
        res.write('{"node":');
        hanging.push(res);
        return;
      default:
        // Never answers (a stalled service).
        hanging.push(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  tmp.cleanup();
});

describe('fetchRhsJson', () => {
  it('returns a node and the status of a missing one', async () => {
    await expect(fetchRhsJson(`${base}/node/ok`, limits)).resolves.toEqual({ status: 200, body: { node: { hash: 'ab', children: ['01', '02'] }, status: 'OK' } });
    await expect(fetchRhsJson(`${base}/node/missing`, limits)).resolves.toEqual({ status: 404, body: undefined });
  });

  it('gives up on a service that never answers, naming the URL', async () => {
    const error = await fetchRhsJson(`${base}/node/stalled`, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain(`${base}/node/stalled`);
    expect((error as Error).message).toMatch(/within 400 ms/);
  });

  it('gives up on a body that never completes', async () => {
    const error = await fetchRhsJson(`${base}/node/trickle`, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain(`${base}/node/trickle`);
  });

  it('refuses answers larger than the limit, declared or not', async () => {
    for (const name of ['endless', 'declared']) {
      const error = await fetchRhsJson(`${base}/node/${name}`, limits).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(new RegExp(`^reverse hash service request ${base}/node/${name} failed: .*more than the ${64 * 1024} bytes accepted$`));
    }
  });

  it('wraps a body that is not JSON in a NetworkError naming the URL', async () => {
    const error = await fetchRhsJson(`${base}/node/html`, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(new RegExp(`${base}/node/html did not answer with JSON`));
  });
});

describe('StoreRhsPublisher', () => {
  it('gives up on an RHS_URL that never answers within its timeout', async () => {
    const store = WalletStore.open(`${tmp.dir}/publisher`);
    try {
      const publisher = new StoreRhsPublisher(new RhsNodeStore(store, await loadIden3Modules()), `${base}/stalled`, 400);
      const error = await publisher.publish({ nodes: [] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(/RHS_URL=.*\/stalled.*within 400 ms/);
    } finally {
      store.close();
    }
  });

  it('does not follow a redirect with the nodes: the redirect is refused with the reason, nothing sent elsewhere', async () => {
    const store = WalletStore.open(`${tmp.dir}/publisher-redirect`);
    try {
      const publisher = new StoreRhsPublisher(new RhsNodeStore(store, await loadIden3Modules()), `${base}/moved`, 2_000);
      const error = await publisher.publish({ nodes: [] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(/RHS_URL=.*\/moved refused the tree nodes \(HTTP 307\): it answered with a redirect, which vc does not follow/);
      expect(redirectedTo).toEqual([]);
    } finally {
      store.close();
    }
  });
});

// Attack s34 (fails on lead f1d17a5): a child hash at or above the field modulus made Poseidon
// throw a plain Error out of saveNodes: POST /node answered 500 "internal error" instead of a 400
// naming the node. The modulus comes from @iden3/js-merkletree (FIELD_SIZE), not from vc.
describe('RhsNodeStore.saveNodes', () => {
  it('refuses a child that is not a field element (the modulus + 1, 2^256 - 1) as bad input naming it', async () => {
    const modules = await loadIden3Modules();
    const { FIELD_SIZE } = await import('@iden3/js-merkletree');
    const store = WalletStore.open(`${tmp.dir}/nodes-field`);
    try {
      const nodes = new RhsNodeStore(store, modules);
      const zero = '0'.repeat(64);
      for (const child of [modules.mt.Hash.fromBigInt(FIELD_SIZE - 1n).hex().replace(/^../, (b) => (parseInt(b, 16) + 2).toString(16).padStart(2, '0')), 'f'.repeat(64)]) {
        // The first is FIELD_SIZE + 1 written as a hash (little-endian: the low byte first).
        const error = (() => {
          try {
            nodes.saveNodes([{ hash: zero, children: [zero, child] }]);
            return undefined;
          } catch (e) {
            return e;
          }
        })();
        expect(error, child).toBeInstanceOf(InputError);
        expect((error as InputError).message).toMatch(/node 0: child 1 .* is not a field element/);
        expect((error as InputError).field).toBe('[0].children[1]');
      }
    } finally {
      store.close();
    }
  });
});
