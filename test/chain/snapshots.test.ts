/**
 * The snapshot a start loads has exactly one block 0, the chain's own (the oldest): anvil adds a
 * genesis of its own at every start and dumps it beside the loaded one, in no fixed order.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepOriginalGenesis, loadableSnapshot, sentDumpBlock, snapshotTextBlock, stateFiles } from '../../src/chain/node/snapshots.js';
import { tempDir, templateHome } from '../helpers.js';

const tmp = tempDir('vc-snapshots-');
afterAll(() => tmp.cleanup());

interface Block {
  header: { number: string; timestamp: string; tag: string };
}
const block = (number: number, timestamp: number, tag: string): Block => ({ header: { number: `0x${number.toString(16)}`, timestamp: `0x${timestamp.toString(16)}`, tag } });

/** Every order of a list (small lists only). */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('keepOriginalGenesis', () => {
  it('keeps the oldest block 0 and every other block in its order, whatever the order of the dump', () => {
    const chain = [block(1, 1_000_001, 'b1'), block(2, 1_000_002, 'b2')];
    for (const restarts of [1, 2, 3]) {
      const geneses = [block(0, 1_000_000, 'original'), ...Array.from({ length: restarts }, (_, i) => block(0, 1_000_100 + i * 50, `restart-${i + 1}`))];
      for (const order of permutations([...geneses, ...chain])) {
        const dump = { blocks: order };
        expect(keepOriginalGenesis(dump)).toBe(true);
        const kept = dump.blocks;
        expect(kept.filter((b) => b.header.number === '0x0').map((b) => b.header.tag)).toEqual(['original']);
        expect(kept.filter((b) => b.header.number !== '0x0')).toEqual(order.filter((b) => b.header.number !== '0x0'));
      }
    }
  });

  it('leaves a dump with one block 0, or none, or no block list, as it is', () => {
    for (const dump of [{ blocks: [block(0, 5, 'g'), block(1, 6, 'b1')] }, { blocks: [block(3, 5, 'b3')] }, { blocks: [] }, {}, { blocks: 'nonsense' }]) {
      const before = JSON.stringify(dump);
      expect(keepOriginalGenesis(dump)).toBe(false);
      expect(JSON.stringify(dump)).toBe(before);
    }
  });
});

describe('loadableSnapshot', () => {
  it('is the snapshot itself when it holds one block 0, and a mended copy (load.json, 0600) when it holds more', () => {
    const dir = path.join(tmp.dir, 'state');
    const files = stateFiles(dir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(files.checkpoint, JSON.stringify({ accounts: {}, best_block_number: '0x1', blocks: [block(0, 10, 'g'), block(1, 11, 'b1')] }));
    expect(loadableSnapshot(dir, { file: files.checkpoint })).toBe(files.checkpoint);
    expect(existsSync(files.load)).toBe(false);

    const dump = { accounts: { a: 1 }, best_block_number: '0x1', blocks: [block(1, 11, 'b1'), block(0, 90, 'restart'), block(0, 10, 'g')] };
    writeFileSync(files.checkpoint, JSON.stringify(dump));
    expect(loadableSnapshot(dir, { file: files.checkpoint })).toBe(files.load);
    const mended = JSON.parse(readFileSync(files.load, 'utf8')) as typeof dump;
    expect(mended).toEqual({ ...dump, blocks: [block(1, 11, 'b1'), block(0, 10, 'g')] });
    expect(statSync(files.load).mode & 0o777).toBe(0o600);
    // The snapshot itself is never rewritten.
    expect(JSON.parse(readFileSync(files.checkpoint, 'utf8'))).toEqual(dump);
  });

  it('is the snapshot itself when it cannot be read as JSON (anvil reports what is wrong with it)', () => {
    const file = path.join(tmp.dir, 'broken.json');
    writeFileSync(file, '{"accounts":');
    expect(loadableSnapshot(tmp.dir, { file })).toBe(file);
  });
});

describe('sentDumpBlock (the block of a dump the node has just sent, not parsed whole)', () => {
  it('gives the block number parsing gives, for a real dump and its variants', () => {
    const home = templateHome(path.join(tmp.dir, 'template'));
    const chainDir = path.join(home, 'chain', readdirSync(path.join(home, 'chain'))[0]!);
    const real = readFileSync(stateFiles(chainDir).checkpoint, 'utf8');
    const block = snapshotTextBlock(real);
    expect(block).toBeGreaterThan(0);
    expect(sentDumpBlock(real)).toBe(block);
    const parsed = JSON.parse(real) as Record<string, unknown>;
    const variants: Array<Record<string, unknown>> = [
      // The field as a decimal number, with leading zeros in hex, at the end, or absent (parsed whole: block.number).
      { ...parsed, best_block_number: 300 },
      { ...parsed, best_block_number: '0x000012c' },
      { ...Object.fromEntries(Object.entries(parsed).filter(([key]) => key !== 'best_block_number')), best_block_number: '0x12c' },
      Object.fromEntries(Object.entries(parsed).filter(([key]) => key !== 'best_block_number')),
    ];
    for (const variant of variants) {
      for (const text of [JSON.stringify(variant), `${JSON.stringify(variant, null, 1)}\n`]) expect(sentDumpBlock(text)).toBe(snapshotTextBlock(text));
    }
    expect(sentDumpBlock(JSON.stringify(variants[0]))).toBe(300);
    expect(sentDumpBlock(JSON.stringify(variants[3]))).toBe(block);
  });

  it('refuses what is not an object holding the accounts', () => {
    for (const text of ['', '[]', '{"best_block_number":"0x1"}', '{"accounts":[],"best_block_number":"0x1"}', ' {"accounts":{},"best_block_number":"0x1"}', '{"accounts":{},"best_block_number":"0x1"']) {
      expect(sentDumpBlock(text), text).toBeUndefined();
    }
    expect(sentDumpBlock('{"accounts":{},"best_block_number":"0x1"}')).toBe(1);
  });
});
