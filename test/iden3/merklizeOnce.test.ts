/**
 * `merklizeOnce` answers a repeated merklization (same document, same options object) with the
 * first's result, and only then: another document or other options are merklized again, and a
 * failed merklization is retried. The remembered Merklizer gives the same root as a fresh one.
 */
import { describe, expect, it } from 'vitest';
import { REMEMBERED_MERKLIZATIONS, REMEMBER_MS, merklizeOnce, rememberingMerklize } from '../../src/iden3/merklizeOnce.js';

const library = await import('@iden3/js-jsonld-merklization');
const original = library.Merklizer.merklizeJSONLD.bind(library.Merklizer);

const doc = (name: string): string => JSON.stringify({ '@context': { '@vocab': 'https://example.org/terms#' }, '@id': 'https://example.org/a', name });

describe('rememberingMerklize', () => {
  it('merklizes a document once per options object, and again for another document or other options', async () => {
    const calls: string[] = [];
    const merklize = rememberingMerklize((d, o) => {
      calls.push(d);
      return original(d, o);
    });
    const options = {};
    const first = await merklize(doc('alice'), options);
    const again = await merklize(doc('alice'), options);
    expect(again).toBe(first);
    expect(calls).toHaveLength(1);
    const fresh = await original(doc('alice'), options);
    expect((await first.root()).bigInt()).toBe((await fresh.root()).bigInt());

    const other = await merklize(doc('bob'), options);
    expect((await other.root()).bigInt()).not.toBe((await first.root()).bigInt());
    const otherOptions = await merklize(doc('alice'), {});
    expect(otherOptions).not.toBe(first);
    expect(calls).toHaveLength(3);
  });

  it('does not remember a failure, and forgets its oldest results beyond its limit', async () => {
    let calls = 0;
    const merklize = rememberingMerklize((d, o) => {
      calls += 1;
      return original(d, o);
    }, 2);
    await expect(merklize('{"@context": 5}', undefined)).rejects.toThrow();
    await expect(merklize('{"@context": 5}', undefined)).rejects.toThrow();
    expect(calls).toBe(2);
    const options = {};
    await merklize(doc('a'), options);
    await merklize(doc('b'), options);
    await merklize(doc('c'), options);
    await merklize(doc('c'), options);
    expect(calls).toBe(5);
    await merklize(doc('a'), options); // forgotten: two newer ones
    expect(calls).toBe(6);
  });

  it('forgets a result after REMEMBER_MS', async () => {
    let clock = 0;
    let calls = 0;
    const merklize = rememberingMerklize(
      (d, o) => {
        calls += 1;
        return original(d, o);
      },
      REMEMBERED_MERKLIZATIONS,
      () => clock,
    );
    const options = {};
    const first = await merklize(doc('dave'), options);
    clock = REMEMBER_MS - 1;
    expect(await merklize(doc('dave'), options)).toBe(first);
    clock = REMEMBER_MS;
    expect(await merklize(doc('dave'), options)).not.toBe(first);
    expect(calls).toBe(2);
  });
});

describe('merklizeOnce', () => {
  it('makes the library’s Merklizer.merklizeJSONLD remember, once however often installed', async () => {
    expect(REMEMBERED_MERKLIZATIONS).toBeGreaterThanOrEqual(2);
    merklizeOnce(library);
    const installed = library.Merklizer.merklizeJSONLD;
    merklizeOnce(library);
    expect(library.Merklizer.merklizeJSONLD).toBe(installed);
    const options = {};
    const first = await library.Merklizer.merklizeJSONLD(doc('carol'), options);
    expect(await library.Merklizer.merklizeJSONLD(doc('carol'), options)).toBe(first);
    expect((await first.root()).bigInt()).toBe((await (await original(doc('carol'), options)).root()).bigInt());
  });
});
