/**
 * Progress when stderr is not a terminal (a pipe, a CI log): a step that runs over 2 s prints one
 * line when it has run 2 s and one when it ends, with its time; --quiet and --json print nothing.
 * The step is the deployment of the iden3 contracts on a fresh home's embedded chain (5-8 s).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, tempDir } from '../helpers.js';

const tmp = tempDir('vc-progress-');
const homes = ['plain', 'quiet', 'json'].map((name) => path.join(tmp.dir, name));

afterAll(() => {
  for (const home of homes) runVc(['--json', 'chain', 'down'], { home });
  tmp.cleanup();
});

describe('progress on a piped stderr', () => {
  it('prints a start and an end line for a step over 2 s, and nothing with --quiet or --json', () => {
    const [plain, quiet, json] = homes as [string, string, string];
    const run = runVc(['chain', 'status'], { home: plain, timeoutMs: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stderr.trim().split('\n');
    const start = lines.findIndex((line) => /^… deploying the iden3 contracts on chain \d+$/.test(line));
    const end = lines.findIndex((line) => /^✔ deployed \d+ contracts on chain \d+ \(\d+\.\d s\)$/.test(line));
    expect(start, run.stderr).toBeGreaterThanOrEqual(0);
    expect(end, run.stderr).toBeGreaterThan(start);
    expect(Number(/\((\d+\.\d) s\)$/.exec(lines[end]!)![1])).toBeGreaterThanOrEqual(2);
    // Nothing but lines: no spinner frames, no carriage returns, no escape sequences.
    expect(run.stderr).not.toMatch(/[\r\u001b⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    // Each step prints at most one start line and one end line.
    expect(new Set(lines).size, run.stderr).toBe(lines.length);

    for (const [home, flag] of [
      [quiet, '--quiet'],
      [json, '--json'],
    ] as const) {
      const silent = runVc([flag, 'chain', 'status'], { home, timeoutMs: 120_000 });
      expect(silent.status, silent.stderr).toBe(0);
      expect(silent.stderr, flag).toBe('');
      expect(JSON.parse(silent.stdout)).toMatchObject({ embedded: true });
    }
  }, 300_000);
});
