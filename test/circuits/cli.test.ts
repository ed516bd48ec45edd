/**
 * `vc circuits` as a user runs it (the built binary): status without building, and the errors a
 * user can cause (those commands in this process, runVcInProcess: same code, output and exit
 * codes, no node start-up each). Building the project circuits is exercised by the proof tests
 * that need them.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, tempDir } from '../helpers.js';

const { dir, cleanup } = tempDir('vc-circuits-cli-');
afterAll(cleanup);

describe('vc circuits', () => {
  it('status reports the planned cache keys of both circuits without building', () => {
    const run = runVc(['--json', 'circuits', 'status'], { home: `${dir}/home`, env: { VC_CIRCUITS_CACHE: `${dir}/cache` } });
    expect(run.status, run.stderr).toBe(0);
    const status = run.json<{ source: string; upToDate: boolean; dir: string; circuits: Array<{ id: string; key: string; complete: boolean }> }>();
    expect(status.source).toBe('built');
    expect(status.upToDate).toBe(false);
    expect(status.dir.startsWith(`${dir}/cache/`)).toBe(true);
    expect(status.circuits.map((c) => c.id)).toEqual(['credentialAtomicQueryMTPV2OnChain', 'stateTransition']);
    for (const circuit of status.circuits) {
      expect(circuit.key).toMatch(/^[0-9a-f]{24}$/);
      expect(circuit.complete).toBe(false);
    }
  });

  it('uses CIRCUITS_PATH as is and refuses to build over it', async () => {
    const missing = await runVcInProcess(['circuits', 'status'], { home: `${dir}/home`, env: { CIRCUITS_PATH: `${dir}/nowhere` } });
    expect(missing.status).toBe(3);
    expect(missing.stderr).toMatch(/CIRCUITS_PATH=.*nowhere: not a directory/);
    const build = await runVcInProcess(['circuits', 'build'], { home: `${dir}/home`, env: { CIRCUITS_PATH: dir } });
    expect(build.status).toBe(3);
    expect(build.stderr).toMatch(/CIRCUITS_PATH is set/);
    const status = await runVcInProcess(['--json', 'circuits', 'status'], { home: `${dir}/home`, env: { CIRCUITS_PATH: dir } });
    expect(status.status).toBe(0);
    expect(status.json<{ source: string; upToDate: boolean }>()).toMatchObject({ source: 'configured', upToDate: false });
  });

  it('rejects a --url that is not an http(s) URL before creating or downloading anything', async () => {
    for (const url of ['notaurl', 'ftp://example.org/latest.zip']) {
      const run = await runVcInProcess(['circuits', 'fetch', '--dir', `${dir}/bad-url`, '--url', url], { home: `${dir}/home` });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/--url: expected an http\(s\) URL/);
      expect(run.stderr).toContain(url);
    }
    expect(existsSync(`${dir}/bad-url`)).toBe(false);
  });

  it('rejects a malformed --sha256 before downloading anything', async () => {
    const run = await runVcInProcess(['circuits', 'fetch', '--dir', `${dir}/official`, '--sha256', 'xyz'], { home: `${dir}/home` });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--sha256: expected 64 hex characters/);
  });
});
