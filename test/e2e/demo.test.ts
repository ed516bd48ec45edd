/**
 * `vc demo` as a user meets it: in a real terminal (a tmux session), the checkbox prompt is
 * answered once with keystrokes and the screen is read until the summary appears; and without a
 * terminal, --yes runs it and a missing --yes is a one-line usage error. The selective-disclosure
 * flow keeps this quick; the full `vc demo --yes` (both flows) is run separately.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, VC_BIN, childEnv, runVc, tempDir } from '../helpers.js';

const tmp = tempDir('vc-demo-');
/** A tmux server of our own (its own socket), so no other session is touched. */
const SOCKET = `vc-demo-test-${process.pid}`;
const SESSION = 'demo';

afterAll(() => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server'], { stdio: 'ignore' });
  tmp.cleanup();
});

/** The environment of the tmux server and so of vc: a colour terminal (the colour summary is tested). */
function terminalEnv(): NodeJS.ProcessEnv {
  const env = childEnv({ TERM: 'xterm-256color' });
  delete env.NO_COLOR;
  return env;
}

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8', env: terminalEnv() });
  if (result.error !== undefined) {
    throw new Error(`tmux is needed for this test (Debian: apt-get install -y tmux): ${result.error.message}`);
  }
  if (result.status !== 0) throw new Error(`tmux ${args[0]} failed (${String(result.status)}): ${result.stderr}`);
  return result.stdout;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The whole pane (scrollback included), wrapped lines joined; with escapes when `escapes`. */
function screen(escapes = false): string {
  return tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-1000', '-t', SESSION);
}

async function waitForScreen(predicate: (text: string) => boolean, what: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = screen();
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen shows:\n${text}`);
}

describe('vc demo in a terminal (tmux)', () => {
  it('asks which fields to reveal, reveals exactly the chosen ones and verifies them', async () => {
    const home = path.join(tmp.dir, 'interactive');
    const command = `cd ${shellQuote(ROOT)} && ${shellQuote(process.execPath)} ${shellQuote(VC_BIN)} --home ${shellQuote(home)} demo --flow sd; echo "[vc exited $?]"; sleep 600`;
    tmux('new-session', '-d', '-s', SESSION, '-x', '200', '-y', '50', command);

    const prompt = await waitForScreen((text) => /Which passport fields should the holder reveal\?/.test(text) && /submit/.test(text), 'the checkbox prompt', 60_000);
    // The defaults are id, name and nationality; the user unticks name and ticks birthDate.
    expect(prompt).toMatch(/◉ id/);
    expect(prompt).toMatch(/◉ name/);
    expect(prompt).toMatch(/◯ birthDate/);
    tmux('send-keys', '-t', SESSION, 'Down', 'Space', 'Down', 'Down', 'Space');
    await waitForScreen((text) => /◯ name/.test(text) && /◉ birthDate/.test(text), 'the ticked boxes to change', 10_000);
    tmux('send-keys', '-t', SESSION, 'Enter');

    const done = await waitForScreen((text) => /\[vc exited \d+\]/.test(text), 'the demo to finish', 120_000);
    expect(done).toMatch(/Which passport fields should the holder reveal\? id, nationality, birthDate/);
    expect(done).toContain('[vc exited 0]');
    const summary = done.split('\n').find((line) => line.includes('selective disclosure:'));
    expect(summary, done).toBeDefined();
    // The subject is the holder's DID; id, nationality and birthDate are revealed, never name.
    expect(summary).toMatch(/selective disclosure: verified \(user has been verified successfully\); revealed id, nationality, birthDate$/);
    expect(done).toMatch(/"disclosed": \{\s*"id": "did:polygonid:polygon:local:\w+",\s*"nationality": "NLD",\s*"birthDate": 19900101\s*\}/);
    // The summary is coloured on a terminal.
    const coloured = screen(true).split('\n').find((line) => line.includes('selective disclosure:'));
    expect(coloured).toMatch(/\u001b\[[0-9;]*m/);
  }, 240_000);
});

describe('vc demo without a terminal', () => {
  it('--flow sd --yes --json runs the defaults and exits 0 with ok: true', () => {
    const run = runVc(['--json', 'demo', '--flow', 'sd', '--yes'], { home: path.join(tmp.dir, 'yes'), timeoutMs: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const result = run.json<{ ok: boolean; holderDid: string; sd: { verified: boolean; disclosed: Record<string, unknown> }; steps: Array<{ flow: string; ok: boolean }>; pbq?: unknown }>();
    expect(result.ok).toBe(true);
    expect(result.sd.verified).toBe(true);
    expect(result.holderDid).toMatch(/^did:polygonid:polygon:local:\w+$/);
    expect(result.sd.disclosed).toEqual({ id: result.holderDid, name: 'Alice Example', nationality: 'NLD' });
    expect(result.steps.map((step) => step.flow)).toEqual(['holder', 'sd', 'sd', 'sd', 'sd']);
    expect(result.steps.every((step) => step.ok)).toBe(true);
    expect(result.pbq).toBeUndefined();
  }, 180_000);

  it('without --yes exits 2 with a one-line error naming --yes', () => {
    const run = runVc(['demo'], { home: path.join(tmp.dir, 'no-tty') });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/--yes/);
  });
});
