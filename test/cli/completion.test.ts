/**
 * `vc completion bash|zsh|fish`: generated from the command table. The bash script is run (bash
 * completes a subcommand, a flag, a flag's choices and a file); every script lists every command
 * and every flag of the table, and none of the former flag names.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, LOCAL_COMMANDS } from '../../src/cli/commands.js';
import { flagsOf, operationsOfCommand } from '../../src/cli/operationCommand.js';
import { runVc, tempDir } from '../helpers.js';

const tmp = tempDir('vc-cli-completion-');
afterAll(() => tmp.cleanup());

const scripts: Record<'bash' | 'zsh' | 'fish', string> = { bash: '', zsh: '', fish: '' };
beforeAll(() => {
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    const run = runVc(['completion', shell]);
    expect(run.status, run.stderr).toBe(0);
    scripts[shell] = run.stdout;
  }
});

/** What bash completes for the words typed so far (the last one is the word being completed). */
function bashCompletes(...typed: string[]): string[] {
  const file = path.join(tmp.dir, 'vc.bash');
  writeFileSync(file, scripts.bash);
  const words = typed.map((word) => `'${word}'`).join(' ');
  const run = spawnSync('bash', ['--norc', '-c', `source '${file}'; COMP_WORDS=(vc ${words}); COMP_CWORD=${typed.length}; _vc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    encoding: 'utf8',
    cwd: tmp.dir,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter((line) => line !== '');
}

describe('vc completion', () => {
  it('bash completes commands, subcommands, flags, choices and files', () => {
    expect(bashCompletes('iss')).toEqual(['issuer']);
    expect(bashCompletes('issuer', '')).toEqual(expect.arrayContaining(['issue', 'did', 'revoke', 'bbs-key', 'credentials']));
    expect(bashCompletes('--json', 'holder', 'did', '')).toEqual(['create']);
    expect(bashCompletes('verifier', 'verify', '--cr')).toEqual(['--credential']);
    expect(bashCompletes('issuer', 'issue', '--context')).toEqual(['--context-file']);
    expect(bashCompletes('issuer', 'issue', '--format', '')).toEqual(['iden3', 'bbs', 'bbs-2023', 'eddsa-rdfc-2022', 'ecdsa-rdfc-2019']);
    // After an option's value, flags again; the global ones too.
    expect(bashCompletes('issuer', 'issue', '--format', 'bbs', '--ho')).toEqual(['--holder', '--home']);
    expect(bashCompletes('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    writeFileSync(path.join(tmp.dir, 'disclosed.json'), '{}');
    expect(bashCompletes('verifier', 'verify', '--credential', 'discl')).toEqual(['disclosed.json']);
  });

  it('is valid bash', () => {
    const run = spawnSync('bash', ['-n'], { input: scripts.bash, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it.each(['bash', 'zsh', 'fish'] as const)('%s: lists every command and flag of the table, not the former flag names', (shell) => {
    const script = scripts[shell];
    const flagOf = (flag: string): RegExp => (shell === 'fish' ? new RegExp(`-l ${flag}( |$)`, 'm') : new RegExp(`[ ']--${flag}[ ':]`));
    for (const command of [...COMMANDS, ...LOCAL_COMMANDS]) {
      for (const word of command.path.split(' ')) expect(script, `${shell}: ${command.path}`).toMatch(new RegExp(`[ ']${word}[ ':']`));
    }
    for (const command of COMMANDS) {
      for (const { operation } of operationsOfCommand(command)) {
        for (const info of flagsOf(command, operation)) {
          // A positional argument (vc documents add URL FILE) is no flag.
          if (info.positional === true) continue;
          expect(script, `${shell}: vc ${command.path} --${info.flag}`).toMatch(flagOf(info.flag));
          for (const alias of info.aliases ?? []) {
            // A former name that is no flag of any command is not offered.
            const elsewhere = COMMANDS.some((other) => operationsOfCommand(other).some((entry) => flagsOf(other, entry.operation).some((flag) => flag.flag === alias)));
            if (!elsewhere) expect(script, `${shell}: --${alias}`).not.toMatch(flagOf(alias));
          }
        }
      }
    }
    for (const global of ['home', 'env', 'json', 'quiet']) expect(script).toMatch(flagOf(global));
  });

  it('refuses another shell', () => {
    const run = runVc(['completion', 'tcsh']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
