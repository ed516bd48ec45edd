import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, tempDir } from '../helpers.js';

const tmp = tempDir('vc-cli-');
afterAll(() => tmp.cleanup());
const home = path.join(tmp.dir, 'home');

function expectOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

// The version, the help and the usage errors through the built binary; the rest in this process
// (runVcInProcess: the same command line without a node start-up, test/cli/main.test.ts).
describe('vc command line', () => {
  it('prints its version', () => {
    const run = runVc(['--version']);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('lists every group with examples in --help', () => {
    const run = runVc(['--help']);
    expect(run.status).toBe(0);
    for (const group of ['issuer', 'holder', 'verifier', 'serve', 'chain', 'circuits', 'demo', 'config']) {
      expect(run.stdout).toMatch(new RegExp(`^  ${group}\\b`, 'm'));
    }
    expect(run.stdout).toContain('Examples:');
  });

  it.each([
    ['issuer', ['did', 'issue']],
    ['holder', ['did', 'prove-submit', 'disclose']],
    ['verifier', ['request', 'verify', 'nonce']],
    ['chain', ['up', 'status', 'down', 'reset']],
    ['circuits', ['build', 'status', 'fetch']],
  ])('lists the commands of `vc %s` with an example', async (group, commands) => {
    const run = await runVcInProcess([group, '--help']);
    expect(run.status).toBe(0);
    for (const command of commands) expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(run.stdout).toMatch(/Examples?:/);
  });

  it('rejects an unknown option with exit code 2 and one line', () => {
    const run = runVc(['--bogus']);
    expect(run.status).toBe(2);
    expectOneLineError(run.stderr, /unknown option '--bogus'/);
  });

  it('rejects an unknown command with exit code 2', () => {
    const run = runVc(['holdr']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'holdr'/);
  });

  it('reports a malformed .env value by name with exit code 3', async () => {
    const envFile = path.join(tmp.dir, 'bad.env');
    writeFileSync(envFile, 'CHAIN_ID=one-five-two\nRPC_URL=not a url\n');
    const run = await runVcInProcess(['--env', envFile, 'config', 'show'], { home });
    expect(run.status).toBe(3);
    expectOneLineError(run.stderr, /CHAIN_ID="one-five-two": expected an integer.*RPC_URL=\(hidden\): expected a URL/);
  });

  it('reports a missing --env file with exit code 3', async () => {
    const run = await runVcInProcess(['--env', path.join(tmp.dir, 'missing.env'), 'config', 'show'], { home });
    expect(run.status).toBe(3);
    expectOneLineError(run.stderr, /missing\.env: no such file/);
  });

  it('reports a corrupt preferences file by path with exit code 3, for config show and set-home', async () => {
    const configHome = path.join(tmp.dir, 'xdg-config');
    const file = path.join(configHome, 'vc', 'config.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{"home": ');
    // No --home and no VC_HOME: the default home is looked up in the preferences file.
    const env = { XDG_CONFIG_HOME: configHome, XDG_DATA_HOME: path.join(tmp.dir, 'xdg-data') };
    for (const args of [['config', 'show'], ['config', 'set-home', path.join(tmp.dir, 'elsewhere')]]) {
      const run = await runVcInProcess(args, { env });
      expect(run.status, run.stderr).toBe(3);
      expectOneLineError(run.stderr, new RegExp(`cannot read the preferences file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*JSON`));
    }
    expect(readFileSync(file, 'utf8')).toBe('{"home": ');
  });

  it('reports an unreadable input file with exit code 2', async () => {
    const run = await runVcInProcess(['verifier', 'verify', '--vc', path.join(tmp.dir, 'nope.json')], { home });
    expect(run.status).toBe(2);
    expectOneLineError(run.stderr, /--vc: cannot read .*nope\.json: no such file/);
  });

  it('reports invalid JSON in an input file with exit code 2', async () => {
    const file = path.join(tmp.dir, 'broken.json');
    writeFileSync(file, '{"vc": ');
    const run = await runVcInProcess(['verifier', 'verify', '--vc', file], { home });
    expect(run.status).toBe(2);
    expectOneLineError(run.stderr, /--vc: .*broken\.json is not valid JSON/);
  });

  it('writes -o FILE atomically, readable by the owner only, and keeps stdout empty', async () => {
    const out = path.join(tmp.dir, 'nonce.json');
    const run = await runVcInProcess(['--json', 'verifier', 'nonce', '-o', out], { home });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveProperty('nonce');
    expect(readdirSync(tmp.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('prints compact JSON on stdout and nothing on stderr with --json, never the secrets', async () => {
    const secret = 'ab'.repeat(32);
    const run = await runVcInProcess(['--json', 'config', 'show'], { home, env: { WALLET_KEY: secret, CHAIN_ID: '31337' } });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const config = run.json<{ home: string; chain: { chainId: number; walletKey: string } }>();
    expect(config.home).toBe(home);
    expect(config.chain.chainId).toBe(31337);
    expect(config.chain.walletKey).toBe('(set, hidden)');
    expect(run.stdout).not.toContain(secret);
  });
});
