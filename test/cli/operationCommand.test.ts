/**
 * Commands built from the operation table (src/cli/operationCommand.ts): input files are read
 * safely, the output path is checked before anything is done, and every error, usage errors
 * included, is one JSON line under --json naming the flag.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonError, runVc, runVcInProcess, tempDir } from '../helpers.js';

const tmp = tempDir('vc-cli-operations-');
afterAll(() => tmp.cleanup());
let homes = 0;
const freshHome = (): string => path.join(tmp.dir, `home-${++homes}`);
/**
 * The command line in this process (no node start-up): these tests are about what the commands
 * do with their flags and files. The refusal of devices and FIFOs keeps the binary, whose run a
 * timeout can end if a regression made it read one.
 */
const vc = runVcInProcess;

describe('commands built from the operation table', () => {
  it('answers usage errors found by the parser as one JSON line under --json', async () => {
    const missing = await vc(['--json', 'verifier', 'status', '--request', '1'], { home: freshHome() });
    expect(missing.status).toBe(2);
    expect(jsonError(missing.stderr)).toEqual({ code: 'invalid_input', message: "required option '--address <address>' not specified", field: '--address' });
    const noKeys = await vc(['--json', 'holder', 'disclose', '--type', 'PassportCredential'], { home: freshHome() });
    expect(noKeys.status).toBe(2);
    expect(jsonError(noKeys.stderr)).toEqual({ code: 'invalid_input', message: "required option '--keys <list>' not specified", field: '--keys' });
    const unknown = await vc(['--json', 'verifier', 'nonce', '--bogus'], { home: freshHome() });
    expect(unknown.status).toBe(2);
    expect(jsonError(unknown.stderr)).toMatchObject({ code: 'invalid_input', field: '--bogus' });
  });

  it('reads input files only when they are regular files, refusing others before reading them', () => {
    const fifo = path.join(tmp.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const file of ['/dev/zero', fifo, tmp.dir]) {
      // The timeout only guards against a hang (reading /dev/zero or waiting on the FIFO): a run it
      // ends has a signal and no exit status 2. How fast the refusal is: bench/serverEdges.ts.
      const run = runVc(['--json', 'holder', 'import-sd', '--credential', file], { home: freshHome(), timeoutMs: 60_000 });
      expect(run.signal ?? null, file).toBeNull();
      expect(run.status, file).toBe(2);
      // Refused by what the file is, found before a byte is read.
      expect(jsonError(run.stderr), file).toEqual({ code: 'invalid_input', field: '--credential', message: `--credential: ${file} is not a regular file` });
    }
  });

  it('names the flag of a file that is not valid JSON, not a key inside it', async () => {
    const duplicate = path.join(tmp.dir, 'duplicate.json');
    writeFileSync(duplicate, '{"type": 1, "type": 2}');
    const run = await vc(['--json', 'issuer', 'issue', '--format', 'bbs', '--subject', duplicate], { home: freshHome() });
    expect(run.status).toBe(2);
    expect(jsonError(run.stderr)).toMatchObject({ code: 'invalid_json', field: '--subject', message: expect.stringMatching(/duplicate key "type"/) });
  });

  it('does nothing when the result could not be written (-o into a missing directory or onto a directory)', async () => {
    const home = freshHome();
    const outDir = path.join(tmp.dir, 'out');
    mkdirSync(outDir);
    for (const target of [path.join(tmp.dir, 'missing', 'sd.json'), outDir]) {
      const run = await vc(['--json', 'issuer', 'issue', '--format', 'bbs', '-o', target], { home });
      expect(run.status, target).toBe(2);
      expect(jsonError(run.stderr), target).toMatchObject({ field: '--output', message: expect.stringMatching(/nothing was done/) });
    }
    // Nothing was issued, so the holder keeps no credential.
    const disclose = await vc(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', 'name'], { home });
    expect(disclose.status).toBe(2);
    expect(jsonError(disclose.stderr)).toMatchObject({ code: 'not_found', field: '--type' });
  });

  it('refuses a flag the chosen variant does not take, naming it', async () => {
    const run = await vc(['--json', 'issuer', 'issue', '--format', 'bbs', '--context', '/dev/null'], { home: freshHome() });
    expect(run.status).toBe(2);
    expect(jsonError(run.stderr)).toEqual({ code: 'invalid_input', message: '--context does not apply to --format bbs', field: '--context' });
    const holder = await vc(['--json', 'issuer', 'issue', '--format', 'bbs', '--holder', 'x'], { home: freshHome() });
    expect(holder.status).toBe(2);
    expect(jsonError(holder.stderr)).toMatchObject({ field: '--holder', message: expect.stringMatching(/absolute IRI/) });
  });

  it('reads a flag two variants take with different shapes as each one takes it (--status: iden3 rhs|onchain|agent, bbs-2023 a list of purposes)', async () => {
    const home = freshHome();
    const help = await vc(['issuer', 'issue', '--help'], { home });
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--status <status> iden3, iden3 with --batch: the credential's status: rhs .* \(rhs, onchain, agent\); bbs-2023: give the credential a W3C Bitstring Status List entry .* \(comma-separated\)/);
    // bbs-2023: a comma-separated list of purposes, each checked.
    const both = path.join(tmp.dir, 'both.json');
    const listed = await vc(['--json', 'issuer', 'issue', '--format', 'bbs-2023', '--status', 'revocation,suspension', '-o', both], { home });
    expect(listed.status, listed.stderr).toBe(0);
    const statuses = (JSON.parse(readFileSync(both, 'utf8')) as { credentialStatus: Array<{ statusPurpose: string }> }).credentialStatus;
    expect(statuses.map((status) => status.statusPurpose)).toEqual(['revocation', 'suspension']);
    const wrongPurpose = await vc(['--json', 'issuer', 'issue', '--format', 'bbs-2023', '--status', 'onchain'], { home });
    expect(jsonError(wrongPurpose.stderr)).toMatchObject({ field: '--status [0]', message: '--status item 1: onchain is an iden3 credential status; this format takes revocation and/or suspension' });
    const agentPurpose = await vc(['--json', 'issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--status', 'revocation,agent'], { home });
    expect(agentPurpose.status).toBe(2);
    expect(jsonError(agentPurpose.stderr)).toMatchObject({ field: '--status [1]', message: '--status item 2: agent is an iden3 credential status; this format takes revocation and/or suspension' });
    const typo = await vc(['--json', 'issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--status', 'revocation,suspended'], { home });
    expect(jsonError(typo.stderr)).toMatchObject({ field: '--status [1]', message: '--status item 2: expected revocation or suspension, got "suspended"' });
    const twice = await vc(['--json', 'issuer', 'issue', '--format', 'bbs-2023', '--status', 'revocation,revocation'], { home });
    expect(twice.status).toBe(2);
    expect(jsonError(twice.stderr)).toMatchObject({ field: '--status', message: '--status: a status purpose is given twice' });
    // iden3: one of rhs, onchain, agent (refused before anything is asked of a chain).
    const wrongKind = await vc(['--json', 'issuer', 'issue', '--holder', 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR', '--status', 'revocation'], { home });
    expect(wrongKind.status).toBe(2);
    expect(jsonError(wrongKind.stderr)).toEqual({
      code: 'invalid_input',
      field: '--status',
      message: '--status: revocation is a W3C status list purpose (bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019); an iden3 credential takes rhs, onchain or agent',
    });
    const unknownKind = await vc(['--json', 'issuer', 'issue', '--holder', 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR', '--status', 'chain'], { home });
    expect(jsonError(unknownKind.stderr)).toMatchObject({ field: '--status', message: '--status: expected rhs, onchain or agent, got "chain"' });
    // Two iden3 kinds are not a list of W3C purposes.
    const twoKinds = await vc(['--json', 'issuer', 'issue', '--holder', 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR', '--status', 'agent,rhs'], { home });
    expect(twoKinds.status).toBe(2);
    expect(jsonError(twoKinds.stderr)).toMatchObject({ field: '--status', message: '--status: an iden3 credential has one status: expected rhs, onchain or agent, got "agent,rhs"' });
  });

  it('adds up the uses of a list flag, and refuses a flag of one value given twice, naming it (commander would keep the last use)', async () => {
    const home = freshHome();
    const amoy = 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR';
    type Made = { from: string; body: { scope: Array<{ query: { allowedIssuers: string[]; credentialSubject: Record<string, unknown> } }> } };
    const first = await vc(['--json', 'verifier', 'auth-request'], { home });
    expect(first.status, first.stderr).toBe(0);
    expect(first.json<Made>().body.scope[0]!.query.allowedIssuers).toEqual(['*']);
    // Another iden3 DID: the wallet's verifier.
    const local = first.json<Made>().from;
    // A list: its uses add up, comma-separated or not, and replace its default (*).
    const listed = await vc(['--json', 'verifier', 'auth-request', '--allowed-issuers', amoy, '--allowed-issuers', `${local},${amoy}`], { home });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.json<Made>().body.scope[0]!.query.allowedIssuers).toEqual([amoy, local, amoy]);
    // One value: a second use is refused (exit 2), before anything is done, whatever the flag.
    const refusals: Array<[string[], string]> = [
      [['verifier', 'auth-request', '--field', 'nationality', '--op', '$in', '--value', 'FRA', '--value', 'DEU'], '--value'],
      [['verifier', 'auth-request', '--field', 'nationality', '--op', '$in', '--op', '$nin', '--value', 'FRA'], '--op'],
      [['verifier', 'auth-request', '--expires', '60', '--expires', '120'], '--expires'],
      [['verifier', 'auth-request', '-o', path.join(tmp.dir, 'a.json'), '--output', path.join(tmp.dir, 'b.json')], '--output'],
      [['issuer', 'issue', '--format', 'bbs', '--format', 'iden3'], '--format'],
      [['--home', path.join(tmp.dir, 'elsewhere'), 'verifier', 'nonce', '--home', home], '--home'],
    ];
    for (const [args, flag] of refusals) {
      const run = await vc(['--json', ...args], { home });
      expect(run.status, args.join(' ')).toBe(2);
      expect(jsonError(run.stderr), args.join(' ')).toEqual({ code: 'invalid_input', message: `option '${flag}' given twice: it takes one value; give it once`, field: flag });
    }
    expect(existsSync(path.join(tmp.dir, 'a.json')) || existsSync(path.join(tmp.dir, 'b.json'))).toBe(false);
    // Switches may be repeated.
    const switches = await vc(['--json', '--json', 'verifier', 'nonce'], { home });
    expect(switches.status, switches.stderr).toBe(0);
    // A flag two variants read with different shapes (--status): the list's uses add up (bbs-2023),
    // the one value of iden3 refuses a second use.
    const purposes = path.join(tmp.dir, 'purposes.json');
    const added = await vc(['--json', 'issuer', 'issue', '--format', 'bbs-2023', '--status', 'revocation', '--status', 'suspension', '-o', purposes], { home });
    expect(added.status, added.stderr).toBe(0);
    expect((JSON.parse(readFileSync(purposes, 'utf8')) as { credentialStatus: Array<{ statusPurpose: string }> }).credentialStatus.map((status) => status.statusPurpose)).toEqual(['revocation', 'suspension']);
    const twice = await vc(['--json', 'issuer', 'issue', '--holder', amoy, '--status', 'agent', '--status', 'rhs'], { home });
    expect(twice.status).toBe(2);
    expect(jsonError(twice.stderr)).toEqual({ code: 'invalid_input', message: '--status given twice: it takes one value here; give it once', field: '--status' });
  });
});
