/**
 * The Bitstring Status List adapter (src/status), no suite involved: the entries a credential
 * carries are checked against the specification's statements, a list's bit is read only from the
 * list the entry names, with its purpose and at least 131,072 entries, a GZIP bomb is refused
 * without being inflated, and status lists are fetched from the loopback only, bounded. Lists are
 * built with Digital Bazaar's library directly.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createCredential, createList } from '@digitalbazaar/vc-bitstring-status-list';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MIN_STATUS_LIST_LENGTH,
  decodeStatusList,
  drawFreeIndex,
  readStatusBit,
  readStatusEntries,
  unsignedStatusListCredential,
  type StatusEntry,
} from '../../src/status/bitstringStatusList.js';
import { fetchLoopbackStatusList, isLoopbackUrl } from '../../src/status/statusListFetch.js';

const URL_1 = 'https://issuer.example/status/1';

function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: `${URL_1}#42`, type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '42', statusListCredential: URL_1, ...overrides };
}

async function dbList(length: number, set: number[], statusPurpose = 'revocation', id = URL_1): Promise<Record<string, unknown>> {
  const list = await createList({ length });
  for (const index of set) list.setStatus(index, true);
  return createCredential({ id, list, statusPurpose });
}

const ENTRY: StatusEntry = { statusPurpose: 'revocation', statusListIndex: 42, statusListCredential: URL_1 };

describe('the entries of a credential', () => {
  it('reads one entry or a list of them, and leaves other status types to whoever knows them', () => {
    expect(readStatusEntries({})).toEqual({ entries: [], otherTypes: [] });
    expect(readStatusEntries({ credentialStatus: entry() })).toEqual({ entries: [{ id: `${URL_1}#42`, statusPurpose: 'revocation', statusListIndex: 42, statusListCredential: URL_1 }], otherTypes: [] });
    const both = readStatusEntries({ credentialStatus: [entry(), entry({ id: `${URL_1}#7`, statusPurpose: 'suspension', statusListIndex: '7' }), { type: 'Iden3ReverseSparseMerkleTreeProof', id: 'http://x/node' }] });
    expect(both).toMatchObject({ entries: [{ statusListIndex: 42 }, { statusPurpose: 'suspension', statusListIndex: 7 }], otherTypes: ['Iden3ReverseSparseMerkleTreeProof'] });
  });

  it('refuses what the specification forbids, naming the member', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [entry({ statusListIndex: 42 }), /credentialStatus\.statusListIndex: expected a non-negative integer written in base 10 as a string/],
      [entry({ statusListIndex: '-1' }), /statusListIndex/],
      [entry({ statusListIndex: '0x2a' }), /statusListIndex/],
      [entry({ statusListIndex: '042' }), /statusListIndex/],
      [entry({ statusListIndex: '99999999999999999999' }), /statusListIndex/],
      [entry({ statusListCredential: 'not a url' }), /credentialStatus\.statusListCredential: expected the URL/],
      [entry({ statusListCredential: 'did:example:list' }), /statusListCredential/],
      [entry({ id: URL_1 }), /credentialStatus\.id: expected a URL other than the statusListCredential/],
      [entry({ statusPurpose: '' }), /statusPurpose/],
      [entry({ statusSize: 2 }), /credentialStatus\.statusSize: 2 is not supported/],
    ];
    for (const [status, reason] of cases) {
      const read = readStatusEntries({ credentialStatus: status });
      expect(read, JSON.stringify(status)).toMatchObject({ problem: expect.stringMatching(reason) });
    }
    expect(readStatusEntries({ credentialStatus: [entry(), 'x'] })).toEqual({ problem: 'credentialStatus[1]: expected an object' });
  });
});

describe('the bit of an entry in a list', () => {
  it('is read from a list Digital Bazaar built: set and unset, anywhere in the list', async () => {
    const list = await dbList(MIN_STATUS_LIST_LENGTH, [0, 42, MIN_STATUS_LIST_LENGTH - 1]);
    for (const index of [0, 42, MIN_STATUS_LIST_LENGTH - 1]) expect(await readStatusBit({ ...ENTRY, statusListIndex: index }, list)).toEqual({ set: true, length: MIN_STATUS_LIST_LENGTH });
    for (const index of [1, 41, 43, 100_000]) expect(await readStatusBit({ ...ENTRY, statusListIndex: index }, list)).toEqual({ set: false, length: MIN_STATUS_LIST_LENGTH });
  });

  it('refuses a list of another purpose, another id, another type, too short, or that the index is beyond', async () => {
    expect(await readStatusBit(ENTRY, await dbList(MIN_STATUS_LIST_LENGTH, [], 'suspension'))).toEqual({ problem: 'its statusPurpose is "suspension", not the credential\'s "revocation"' });
    expect(await readStatusBit(ENTRY, await dbList(MIN_STATUS_LIST_LENGTH, [], 'revocation', 'https://issuer.example/status/2'))).toMatchObject({ problem: expect.stringMatching(/is not the statusListCredential the credential names/) });
    const short = await dbList(MIN_STATUS_LIST_LENGTH - 8, [42]);
    expect(await readStatusBit(ENTRY, short)).toEqual({ problem: `it has ${MIN_STATUS_LIST_LENGTH - 8} entries, fewer than the 131072 (16 KB) a Bitstring Status List must have for group privacy` });
    const list = await dbList(MIN_STATUS_LIST_LENGTH, []);
    expect(await readStatusBit({ ...ENTRY, statusListIndex: MIN_STATUS_LIST_LENGTH }, list)).toEqual({ problem: `statusListIndex ${MIN_STATUS_LIST_LENGTH} is beyond its ${MIN_STATUS_LIST_LENGTH} entries` });
    expect(await readStatusBit(ENTRY, { ...list, type: ['VerifiableCredential'] })).toMatchObject({ problem: expect.stringMatching(/not a BitstringStatusListCredential/) });
    expect(await readStatusBit(ENTRY, { ...list, credentialSubject: { ...(list.credentialSubject as object), type: 'StatusList2021' } })).toMatchObject({ problem: expect.stringMatching(/not a BitstringStatusList/) });
    // A list of several purposes serves each of them.
    const subject = { ...(list.credentialSubject as object), statusPurpose: ['suspension', 'revocation'] };
    expect(await readStatusBit(ENTRY, { ...list, credentialSubject: subject })).toEqual({ set: false, length: MIN_STATUS_LIST_LENGTH });
  });

  it('refuses an encodedList that is not a GZIP-compressed multibase bitstring, and a GZIP bomb without inflating it', async () => {
    expect(await decodeStatusList('H4sIAAAA')).toMatchObject({ problem: expect.stringMatching(/expected "u" and base64url/) });
    expect(await decodeStatusList(`u${Buffer.from('plain bytes').toString('base64url')}`)).toEqual({ problem: 'encodedList: not a GZIP-compressed bitstring' });
    // 64 MiB of zeros compress to 64 KiB: refused at the 16 MiB bound, whatever the compressed size.
    const bomb = `u${gzipSync(Buffer.alloc(64 * 1024 * 1024)).toString('base64url')}`;
    expect(bomb.length).toBeLessThan(100_000);
    const started = process.memoryUsage().arrayBuffers;
    expect(await decodeStatusList(bomb)).toEqual({ problem: 'encodedList: the list is longer than 134217728 entries (16777216 bytes), the most vc reads' });
    expect(process.memoryUsage().arrayBuffers - started).toBeLessThan(48 * 1024 * 1024);
  });
});

describe('the list credential vc signs', () => {
  it("is Digital Bazaar's BitstringStatusListCredential with the issuer and the version's time", async () => {
    const list = await createList({ length: MIN_STATUS_LIST_LENGTH });
    list.setStatus(7, true);
    const unsigned = await unsignedStatusListCredential({ url: URL_1, issuer: 'did:example:issuer', statusPurpose: 'suspension', list, validFrom: new Date('2026-01-02T03:04:05.678Z') });
    expect(unsigned).toEqual({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: URL_1,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: 'did:example:issuer',
      validFrom: '2026-01-02T03:04:05Z',
      credentialSubject: { id: `${URL_1}#list`, type: 'BitstringStatusList', statusPurpose: 'suspension', encodedList: await list.encode() },
    });
    expect(await readStatusBit({ statusPurpose: 'suspension', statusListIndex: 7, statusListCredential: URL_1 }, unsigned)).toEqual({ set: true, length: MIN_STATUS_LIST_LENGTH });
  });
});

describe('drawing a free index', () => {
  it('draws uniformly at random among the free ones, and gives up on a full list', () => {
    const taken = new Set<number>();
    const draws: number[] = [];
    for (let i = 0; i < 200; i++) {
      const index = drawFreeIndex(1024, (candidate) => taken.has(candidate))!;
      expect(taken.has(index)).toBe(false);
      taken.add(index);
      draws.push(index);
    }
    // Spread over the whole list (each quarter gets some), not handed out in order.
    for (let quarter = 0; quarter < 4; quarter++) expect(draws.filter((index) => Math.floor(index / 256) === quarter).length).toBeGreaterThan(20);
    expect(draws).not.toEqual([...draws].sort((a, b) => a - b));
    expect(drawFreeIndex(8, () => true)).toBeUndefined();
  });
});

describe('fetching a status list', () => {
  let server: Server;
  let base: string;
  let answer: (path: string) => { status: number; body: string; headers?: Record<string, string> } = () => ({ status: 200, body: '{}' });
  beforeAll(async () => {
    server = createServer((request, response) => {
      const { status, body, headers } = answer(request.url ?? '/');
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('knows the loopback by name and address, and nothing else', () => {
    for (const url of ['http://127.0.0.1:3000/status-lists/x', 'http://localhost:3000/x', 'http://[::1]:3000/x', 'https://localhost/x']) expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of ['http://10.0.0.1/x', 'http://127.0.0.1.example.com/x', 'http://localhost.example/x', 'file:///etc/passwd', 'ftp://127.0.0.1/x', 'not a url', 'http://0.0.0.0/x']) expect(isLoopbackUrl(url), url).toBe(false);
  });

  it('gets the JSON of a list; 404, redirects, oversized and non-JSON answers are errors naming the URL', async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ id: 'x' }) });
    expect(await fetchLoopbackStatusList(`${base}/status-lists/a`)).toEqual({ id: 'x' });
    answer = () => ({ status: 404, body: '{"error":{}}' });
    await expect(fetchLoopbackStatusList(`${base}/status-lists/a`)).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/has no such list \(404\)/) });
    answer = () => ({ status: 302, body: '', headers: { location: 'http://10.0.0.1/elsewhere' } });
    await expect(fetchLoopbackStatusList(`${base}/status-lists/a`)).rejects.toMatchObject({ code: 'network_error' });
    answer = () => ({ status: 200, body: 'x'.repeat(2_000_000) });
    await expect(fetchLoopbackStatusList(`${base}/status-lists/a`)).rejects.toMatchObject({ message: expect.stringMatching(/more than the 1048576 bytes accepted$/) });
    answer = () => ({ status: 200, body: 'not json' });
    await expect(fetchLoopbackStatusList(`${base}/status-lists/a`)).rejects.toMatchObject({ message: `status list ${base}/status-lists/a: the answer is not JSON` });
    await expect(fetchLoopbackStatusList('http://192.0.2.1/status-lists/a')).rejects.toMatchObject({ message: expect.stringMatching(/only from this machine/) });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(fetchLoopbackStatusList(`http://127.0.0.1:${port}/status-lists/a`)).rejects.toMatchObject({ code: 'network_error', message: expect.stringMatching(/ECONNREFUSED/) });
  });
});
