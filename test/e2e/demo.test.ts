/**
 * `vc demo` as a user meets it. In a real terminal (a tmux session, 120x40): the prompts are
 * answered with keystrokes (the flow, the fields to reveal, the query and its date check), then
 * the screen a person sees is read: one line per step tagged with the role that acts, the fields
 * revealed with their values and the hidden ones by name, the statement proven without the value,
 * a summary, no JSON and no line printed twice. This is the one full run (two proofs) of the file;
 * Ctrl-C at a prompt exits 2. Without a terminal: --yes runs it (JSON on stdout, the story on
 * stderr, nothing on stderr with --json), and a missing --yes is a one-line usage error.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, VC_BIN, childEnv, runVc, tempDir, templateHome } from '../helpers.js';

const tmp = tempDir('vc-demo-');
/** A tmux server of our own (its own socket), so no other session is touched. */
const SOCKET = `vc-demo-test-${process.pid}`;
const FULL_HOME = path.join(tmp.dir, 'interactive');

afterAll(() => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server'], { stdio: 'ignore' });
  runVc(['--json', 'chain', 'down'], { home: FULL_HOME });
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

/** Starts `vc ARGS` in a new 120x40 tmux session; the shell then prints its exit status. */
function startInTerminal(session: string, home: string, args: string): void {
  const command = `cd ${shellQuote(ROOT)} && ${shellQuote(process.execPath)} ${shellQuote(VC_BIN)} --home ${shellQuote(home)} ${args}; echo "[vc exited $?]"; sleep 600`;
  tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', command);
}

/** The whole pane (scrollback included), wrapped lines joined; with escapes when `escapes`. */
function screen(session: string, escapes = false): string {
  return tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-1000', '-t', session);
}

async function waitForScreen(session: string, predicate: (text: string) => boolean, what: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = screen(session);
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen shows:\n${text}`);
}

/** The line of `text` that starts with `prefix` (exactly one). */
function lineStarting(text: string, prefix: string): string {
  const lines = text.split('\n').filter((line) => line.startsWith(prefix));
  expect(lines, `one line starting with "${prefix}" in:\n${text}`).toHaveLength(1);
  return lines[0]!;
}

describe('vc demo in a terminal (tmux)', () => {
  it('Ctrl-C at the first prompt exits 2', async () => {
    const session = 'cancel';
    startInTerminal(session, path.join(tmp.dir, 'cancel'), 'demo');
    await waitForScreen(session, (text) => /Which flow do you want to run\?/.test(text), 'the flow prompt', 60_000);
    tmux('send-keys', '-t', session, 'C-c');
    const done = await waitForScreen(session, (text) => /\[vc exited \d+\]/.test(text), 'vc to exit', 30_000);
    expect(done).toContain('[vc exited 2]');
    expect(done).toMatch(/error: vc demo cancelled at a prompt/);
  }, 120_000);

  it('tells both flows as a story: roles, revealed and hidden fields, the statement proven, a summary, no JSON, no line twice', async () => {
    const session = 'full';
    // The template's chain has the contracts deployed: the story starts without deploying 28 of them.
    startInTerminal(session, templateHome(FULL_HOME), 'demo');

    await waitForScreen(session, (text) => /Which flow do you want to run\?/.test(text) && /both flows/.test(text), 'the flow prompt', 60_000);
    tmux('send-keys', '-t', session, 'Enter');
    const prompt = await waitForScreen(session, (text) => /Which passport fields should the holder reveal\?/.test(text) && /submit/.test(text), 'the checkbox prompt', 30_000);
    // The defaults are id, name and nationality; the user unticks name and ticks birthDate.
    expect(prompt).toMatch(/◉ id/);
    expect(prompt).toMatch(/◉ name/);
    expect(prompt).toMatch(/◯ birthDate/);
    tmux('send-keys', '-t', session, 'Down', 'Space', 'Down', 'Down', 'Space');
    await waitForScreen(session, (text) => /◯ name/.test(text) && /◉ birthDate/.test(text), 'the ticked boxes to change', 10_000);
    tmux('send-keys', '-t', session, 'Enter');
    await waitForScreen(session, (text) => /which operator\?/.test(text), 'the operator prompt', 10_000);
    tmux('send-keys', '-t', session, 'Enter');
    await waitForScreen(session, (text) => /Compared with which date/.test(text), 'the date prompt', 10_000);
    // A date that is not YYYYMMDD is refused at the prompt; then the user types a real one.
    tmux('send-keys', '-t', session, '-l', '2001');
    tmux('send-keys', '-t', session, 'Enter');
    await waitForScreen(session, (text) => /expected a date as YYYYMMDD/.test(text), 'the date to be refused', 10_000);
    tmux('send-keys', '-t', session, 'BSpace', 'BSpace', 'BSpace', 'BSpace');
    tmux('send-keys', '-t', session, '-l', '20010101');
    tmux('send-keys', '-t', session, 'Enter');

    const done = await waitForScreen(session, (text) => /\[vc exited \d+\]/.test(text), 'the demo to finish', 400_000);
    expect(done).toContain('[vc exited 0]');
    expect(done).toMatch(/Which passport fields should the holder reveal\? id, nationality, birthDate/);

    // Every party acts on its own line, tagged with who acts and who receives.
    expect(lineStarting(done, '✔ Holder  ')).toMatch(/has the DID did:polygonid:polygon:local:\w+…\w+/);
    expect(lineStarting(done, '✔ Issuer → Holder    PassportCredential with 8 fields')).toMatch(/signed with BBS\+ by did:key:/);
    expect(lineStarting(done, '✔ Verifier → Holder ')).toMatch(/nonce/);
    lineStarting(done, '✔ Holder → Verifier ');
    expect(lineStarting(done, '✔ Verifier  ')).toMatch(/user has been verified successfully/);
    expect(lineStarting(done, '✔ Chain  ')).toMatch(/local chain \d+ at http:\/\/127\.0\.0\.1:\d+, iden3 contracts deployed/);
    expect(lineStarting(done, '✔ Issuer  ')).toMatch(/has the DID did:polygonid/);
    expect(lineStarting(done, '✔ Verifier → Chain ')).toMatch(/request \d+ registered: "prove birthDate < 20010101"/);
    expect(lineStarting(done, '✔ Issuer → Holder    PassportCredential with birthDate')).toMatch(/19900101 issued; the issuer's new state is on chain/);
    // The proof takes seconds: its line carries its time.
    expect(lineStarting(done, '✔ Holder → Chain ')).toMatch(/zero-knowledge proof of birthDate < 20010101 accepted by the contract \(tx 0x\w+…\w+\) \((\d+\.\d s|\d+ min \d\d s)\)$/);
    expect(done).toMatch(/^ +the birthDate itself stayed with the holder: the verifier learns only that the statement is true$/m);
    expect(lineStarting(done, '✔ Chain → Verifier ')).toMatch(/request \d+: the holder's proof is recorded as verified/);

    // Selective disclosure: the revealed fields with their values, the hidden ones by name.
    const revealed = lineStarting(done, '                     revealed  ');
    expect(revealed).toMatch(/revealed {2}id did:polygonid:polygon:local:\w+…\w+, nationality "NLD", birthDate 19900101$/);
    const hidden = lineStarting(done, '                     hidden    ').trim();
    expect(hidden.replace(/^hidden +/, '').split(', ').sort()).toEqual(['customerReference', 'expiryDate', 'name', 'passportNumber', 'publicAddress']);

    // The summary, coloured, then the way to the JSON; the JSON itself is not on the terminal.
    expect(done).toMatch(/^✔ Selective disclosure verified\n {4}revealed {2}id, nationality, birthDate\n {4}hidden {4}name, /m);
    expect(done).toMatch(/^✔ Proof by query verified on chain \(request \d+\)\n {4}proven {4}birthDate < 20010101; the birthDate never left the holder's wallet$/m);
    expect(done).toMatch(/^ {2}11 steps in \d+\.\d s; the whole result as JSON: vc demo --yes --json$/m);
    const coloured = screen(session, true).split('\n').find((line) => line.includes('Selective disclosure verified'));
    expect(coloured).toMatch(/\u001b\[[0-9;]*m/);
    expect(done).not.toMatch(/^[ \t]*[{}]/m);
    expect(done).not.toMatch(/^[ \t]*"\w+": /m);
    expect(done).not.toContain('"disclosed"');

    // No line twice, no spinner left behind or glued to another line (after the prompts' answers).
    const story = done.slice(done.indexOf('vc demo: an Issuer gives a Holder'));
    const outcomes = story.split('\n').filter((line) => /^[✔✘] /.test(line));
    expect(outcomes.length).toBe(13);
    expect(new Set(outcomes).size, outcomes.join('\n')).toBe(outcomes.length);
    expect(done).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(done.split('\n').filter((line) => (line.match(/[✔✘]/g) ?? []).length > 1)).toEqual([]);
  }, 600_000);
});

describe('vc demo without a terminal', () => {
  it('--flow sd --yes: the result as JSON on stdout, the story on stderr; with --json, nothing on stderr', () => {
    const home = path.join(tmp.dir, 'yes');
    const run = runVc(['demo', '--flow', 'sd', '--yes'], { home, timeoutMs: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const result = run.json<{ ok: boolean; holderDid: string; sd: { disclosed: Record<string, unknown>; hidden: string[] }; steps: Array<{ role: string; to?: string }> }>();
    expect(result.ok).toBe(true);
    expect(result.sd.hidden).toEqual(['passportNumber', 'birthDate', 'customerReference', 'expiryDate', 'publicAddress']);
    expect(result.steps.map((step) => (step.to === undefined ? step.role : `${step.role} → ${step.to}`))).toEqual(['Holder', 'Issuer → Holder', 'Verifier → Holder', 'Holder → Verifier', 'Verifier']);
    expect(run.stderr).toMatch(/^✔ Holder → Verifier {2}a derived proof bound to the nonce, revealing 3 of 8 fields/m);
    expect(run.stderr).toMatch(/^ +hidden {4}passportNumber, birthDate, customerReference, expiryDate, publicAddress$/m);
    expect(run.stderr).toMatch(/^✔ Selective disclosure verified$/m);
    expect(run.stderr).not.toContain('vc demo --yes --json');

    const json = runVc(['--json', 'demo', '--flow', 'sd', '--yes'], { home, timeoutMs: 120_000 });
    expect(json.status, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    const again = json.json<{ ok: boolean; holderDid: string; sd: { verified: boolean; disclosed: Record<string, unknown> }; steps: Array<{ flow: string; ok: boolean }>; pbq?: unknown }>();
    expect(again.ok).toBe(true);
    expect(again.sd.verified).toBe(true);
    expect(again.holderDid).toMatch(/^did:polygonid:polygon:local:\w+$/);
    expect(again.sd.disclosed).toEqual({ id: again.holderDid, name: 'Alice Example', nationality: 'NLD' });
    expect(again.steps.map((step) => step.flow)).toEqual(['holder', 'sd', 'sd', 'sd', 'sd']);
    expect(again.steps.every((step) => step.ok)).toBe(true);
    expect(again.pbq).toBeUndefined();
  }, 240_000);

  it('without --yes exits 2 with a one-line error naming --yes', () => {
    const run = runVc(['demo'], { home: path.join(tmp.dir, 'no-tty') });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/--yes/);
  });
});
