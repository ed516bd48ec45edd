/**
 * The result writer of the CLI: JSON Lines for list results (with or without --json), and an -o
 * FILE that cannot be written once the command ran (its directory vanished meanwhile) reported as
 * a command that completed, with how to get its result again, never as "nothing was done". And
 * the progress renderer: on a terminal one live line (nested steps inside it, elapsed seconds,
 * other text never glued to it), elsewhere a start and an end line for a step over 2 s.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/** A stderr that records what is written, a terminal of `columns` or a pipe. */
function errStream(terminal: boolean, columns = 100): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  Object.assign(stream, { isTTY: terminal, columns: terminal ? columns : undefined });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** What stays on a terminal: each live-line redraw (CR, erase line) replaces the text before it on that line. */
function visible(raw: string): string {
  return raw
    .split('\n')
    .map((line) => line.split('\r\u001b[2K').at(-1)!)
    .join('\n');
}

describe('Output.progressReporter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('on a terminal: one live line with the inner step and the elapsed time, one outcome line for the outer step only', async () => {
    const err = errStream(true);
    const output = new Output({ json: false, quiet: false, stderr: err.stream, stdout: new PassThrough() as unknown as NodeJS.WriteStream });
    const progress = output.progressReporter();
    const outer = progress.start('Holder → Chain  proving');
    const inner = progress.start('generating the proof');
    await vi.advanceTimersByTimeAsync(3_200);
    expect(err.text().split('\r\u001b[2K').at(-1)).toMatch(/^. Holder → Chain {2}proving · generating the proof 3 s$/);
    progress.info('deploying the verifiers');
    inner.succeed('proof generated');
    outer.succeed('proof accepted');
    await vi.advanceTimersByTimeAsync(500);
    expect(visible(err.text())).toBe('deploying the verifiers\n✔ proof accepted (3.2 s)\n');
  });

  it('on a terminal: the live line is cut to the width, never wrapped', async () => {
    const err = errStream(true, 40);
    const output = new Output({ json: false, quiet: false, stderr: err.stream });
    const step = output.progressReporter().start('a label much longer than the forty columns of this terminal');
    await vi.advanceTimersByTimeAsync(1_100);
    const live = err.text().split('\r\u001b[2K').at(-1)!;
    expect(live.length).toBeLessThan(40);
    expect(live).toMatch(/… 1 s$/);
    step.succeed();
  });

  it('without a terminal: a start and an end line for a step over 2 s, nothing for a short one unless narrated', async () => {
    const err = errStream(false);
    const output = new Output({ json: false, quiet: false, stderr: err.stream });
    const progress = output.progressReporter();
    const short = progress.start('reading');
    await vi.advanceTimersByTimeAsync(500);
    short.succeed('read');
    const long = progress.start('deploying');
    const nested = progress.start('deploying State');
    await vi.advanceTimersByTimeAsync(2_500);
    nested.succeed('State deployed');
    long.succeed('deployed');
    const story = progress.start('Verifier  checking', { narrate: true });
    story.succeed('Verifier  proof valid');
    expect(err.text()).toBe('… deploying\n✔ deployed (2.5 s)\n✔ Verifier  proof valid\n');
  });

  it('prints nothing with --quiet or --json', async () => {
    for (const options of [
      { json: true, quiet: false },
      { json: false, quiet: true },
    ]) {
      for (const terminal of [true, false]) {
        const err = errStream(terminal);
        const progress = new Output({ ...options, stderr: err.stream }).progressReporter();
        const step = progress.start('deploying', { narrate: true });
        await vi.advanceTimersByTimeAsync(3_000);
        step.succeed('deployed');
        progress.info('note');
        expect(err.text()).toBe('');
      }
    }
  });
});

describe('Output.failure', () => {
  it("shows URLs by their origin only, as errors do (a verifier callback's query, a reason quoting another URL)", () => {
    const stderr = new PassThrough();
    const chunks: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const output = new Output({ json: false, quiet: false, stdout: new PassThrough() as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream });
    output.failure('the verifier at http://127.0.0.1:4000/cb?apikey=CALLBACKKEY answered 500: upstream http://10.0.0.5/admin?key=UPSTREAMKEY failed');
    const line = Buffer.concat(chunks).toString('utf8');
    expect(line).toBe('✘ the verifier at http://127.0.0.1:4000/… answered 500: upstream http://10.0.0.5/… failed\n');
  });
});
