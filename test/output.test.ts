/**
 * The result writer of the CLI: JSON Lines for list results (with or without --json), and an -o
 * FILE that cannot be written once the command ran (its directory vanished meanwhile) reported as
 * a command that completed, with how to get its result again, never as "nothing was done".
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from '../src/errors.js';
import { Output } from '../src/output.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('vc-output-');
afterAll(() => tmp.cleanup());

function capture(json: boolean): { output: Output; stdout: () => string } {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const output = new Output({ json, quiet: true, stdout: stdout as unknown as NodeJS.WriteStream, stderr: new PassThrough() as unknown as NodeJS.WriteStream });
  return { output, stdout: () => Buffer.concat(chunks).toString('utf8') };
}

const batch = { credentials: [{ message: 'm', credential: { id: 'urn:uuid:1' } }, { message: 'm', credential: { id: 'urn:uuid:2' } }], txId: '0xabc', state: 's', recovered: false };
const lines = (value: unknown): unknown[] | undefined => (value as { credentials?: unknown[] }).credentials;

describe('Output.result', () => {
  it('writes a list result as JSON Lines, one compact value per line, also with --json', () => {
    for (const json of [false, true]) {
      const { output, stdout } = capture(json);
      output.result(batch, { lines });
      expect(stdout().split('\n')).toEqual([JSON.stringify(batch.credentials[0]), JSON.stringify(batch.credentials[1]), '']);
    }
  });

  it('reports an -o whose directory vanished after the work as completed work, naming how to list it', () => {
    const dir = path.join(tmp.dir, 'gone');
    mkdirSync(dir);
    rmSync(dir, { recursive: true });
    const { output } = capture(false);
    let raised: unknown;
    try {
      output.result(batch, { outFile: path.join(dir, 'out.jsonl'), lines });
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(StoreError);
    const message = (raised as Error).message;
    expect(message).toMatch(/the command itself completed, only its result was not written \(2 credentials issued with state transition 0xabc; vc issuer credentials lists them/);
    expect(message).not.toMatch(/no file was written/);
  });
});
