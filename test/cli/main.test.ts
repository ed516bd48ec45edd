/**
 * The in-process command line (src/cli/main.ts's runCli, run by test/helpers.ts's runVcInProcess)
 * is the binary: the same commands through the built `vc` and in this process give the same exit
 * code, stdout and stderr, byte for byte: results with and without --json, help, usage errors
 * (commander's own output, and its JSON line with --json), a user error (exit 2, one JSON line), a
 * failed verification (exit 1), configuration read from the environment, from --env and from the
 * preferences file under XDG_CONFIG_HOME, a bad variable (exit 3); with this test process in a zone 12 hours behind UTC, as the binary's
 * environment says, since the binary runs in UTC whatever it is given.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, tempDir, type RunOptions } from '../helpers.js';

const tmp = tempDir('vc-inprocess-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
const ZONE = 'Etc/GMT+12';
let zoneBefore: string | undefined;

beforeAll(async () => {
  // The wallet and its credential in this process: the cases below compare the two ways of running.
  const key = await runVcInProcess(['--json', 'holder', 'did-key'], { home });
  expect(key.status, key.stderr).toBe(0);
  const issued = await runVcInProcess(['issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--holder', key.json<{ did: string }>().did, '-o', file('credential.json')], { home });
  expect(issued.status, issued.stderr).toBe(0);
  const tampered = JSON.parse(readFileSync(file('credential.json'), 'utf8')) as { credentialSubject: { name: string } };
  tampered.credentialSubject.name = 'Mallory Example';
  writeFileSync(file('tampered.json'), JSON.stringify(tampered));
  writeFileSync(file('vars.env'), 'VC_TRUSTED_ISSUERS=did:example:one, did:example:two\nVC_BODY_LIMIT=4096\n');
  zoneBefore = process.env.TZ;
  process.env.TZ = ZONE;
});
afterAll(() => {
  if (zoneBefore === undefined) delete process.env.TZ;
  else process.env.TZ = zoneBefore;
  tmp.cleanup();
});

/** [what it shows, arguments, options, the exit code it must have]. */
const CASES: Array<[string, string[], RunOptions, number]> = [
  ['the version', ['--version'], {}, 0],
  ['the program help', ['--help'], {}, 0],
  ["a command's help", ['issuer', 'issue', '--help'], {}, 0],
  ['an unknown option (commander, exit 2)', ['--bogus'], {}, 2],
  ['an unknown option with --json (one JSON line)', ['--json', 'verifier', 'verify', '--vc-file', 'x.json'], {}, 2],
  ['an unknown command with its suggestion', ['holdr'], {}, 2],
  ['a missing required option', ['verifier', 'verify'], { home }, 2],
  ['a missing input file with --json (one JSON line, exit 2)', ['--json', 'verifier', 'verify', '--credential', file('missing.json')], { home }, 2],
  ['a missing input file without --json', ['verifier', 'verify', '--credential', file('missing.json')], { home }, 2],
  ['a verified credential without --json (summary on stderr)', ['verifier', 'verify', '--credential', file('credential.json')], { home }, 0],
  ['a verified credential with --json', ['--json', 'verifier', 'verify', '--credential', file('credential.json')], { home }, 0],
  ['a tampered credential (exit 1)', ['verifier', 'verify', '--credential', file('tampered.json')], { home }, 1],
  ['configuration from the environment', ['--json', 'config', 'show'], { home, env: { VC_TRUSTED_ISSUERS: 'did:example:alice', VC_BODY_LIMIT: '2048', TZ: ZONE } }, 0],
  ['configuration from --env FILE', ['--env', file('vars.env'), 'config', 'show'], { home }, 0],
  ['a malformed variable (exit 3)', ['--json', 'config', 'show'], { home, env: { VC_BODY_LIMIT: 'lots' } }, 3],
  ['the wallet home from VC_HOME', ['--json', 'config', 'show'], { env: { VC_HOME: home } }, 0],
  ['the preferences file under XDG_CONFIG_HOME', ['config', 'set-home', home], { env: { XDG_CONFIG_HOME: file('xdg-config') } }, 0],
  ['the wallet home from the preferences file', ['--json', 'config', 'show'], { env: { XDG_CONFIG_HOME: file('xdg-config') } }, 0],
];

describe('the in-process command line is the binary', () => {
  it.each(CASES)('%s', async (_what, args, options, status) => {
    const binary = runVc(args, { ...options, env: { TZ: ZONE, ...options.env } });
    const inProcess = await runVcInProcess(args, options);
    expect(binary.status, binary.stderr).toBe(status);
    expect({ status: inProcess.status, stdout: inProcess.stdout, stderr: inProcess.stderr }).toEqual({ status: binary.status, stdout: binary.stdout, stderr: binary.stderr });
    // The test process is back in its own zone once no run is under way.
    expect(process.env.TZ).toBe(ZONE);
    expect(new Date('2024-01-01T00:00:00').getUTCHours()).toBe(12);
  });

  it('runs concurrently with separate outputs and releases the wallet each time', async () => {
    const verify = (name: string) => runVcInProcess(['--json', 'verifier', 'verify', '--credential', file(name)], { home });
    const [good, bad, again] = await Promise.all([verify('credential.json'), verify('tampered.json'), verify('credential.json')]);
    expect([good.status, bad.status, again.status]).toEqual([0, 1, 0]);
    expect(good.json<{ verified: boolean }>().verified).toBe(true);
    expect(bad.json<{ verified: boolean }>().verified).toBe(false);
    expect(again.stdout).toBe(good.stdout);
    // The binary still opens the wallet at once: nothing of the in-process runs holds it.
    const after = runVc(['--json', 'verifier', 'verify', '--credential', file('credential.json')], { home, timeoutMs: 60_000 });
    expect(after.stdout).toBe(good.stdout);
  });

  it('refuses what only a process can do, rather than ignore it', async () => {
    await expect(runVcInProcess(['--version'], { env: { VC_CRASH_AT: 'status:assigned' } })).rejects.toThrow(/VC_CRASH_AT/);
    await expect(runVcInProcess(['--version'], { input: 'x' })).rejects.toThrow(/stdin/);
    await expect(runVcInProcess(['--version'], { cwd: tmp.dir })).rejects.toThrow(/use runVc/);
  });
});
