/**
 * The CLI Driver: each call runs the built `vc` binary with the command of the operation in the
 * command table (src/cli/commands.ts), its input given as the flags that table derives (structured
 * fields as JSON files), `--json` for a JSON result on stdout and a JSON error line on stderr. An
 * error's field comes back as the flag it names; the driver maps it to the input's path, so the
 * behaviours compare the same fields on every surface.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseConfig, type RawVariables } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { COMMANDS } from '../../../src/cli/commands.js';
import { flagsOf, operationsOfCommand, positionalsOf, type FlagInfo } from '../../../src/cli/operationCommand.js';
import type { AnyOperation } from '../../../src/core/operation.js';
import { runVcAsync } from '../../helpers.js';
import { DriverCallError, STATUS_BY_CODE, driverOver, type Driver, type Json } from './driver.js';
import { stopEmbeddedChain } from './inProcessDriver.js';

/** The flag value of one input field, or undefined when a command line cannot say it (a list that is not a list). */
function flagArguments(info: FlagInfo, value: unknown, writeFile: (value: unknown) => string): string[] | undefined {
  switch (info.kind) {
    case 'switch':
      return typeof value === 'boolean' ? (value ? [`--${info.flag}`] : []) : undefined;
    case 'list':
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? [`--${info.flag}`, value.join(',')] : undefined;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? [`--${info.flag}`, String(value)] : undefined;
    case 'text':
      return typeof value === 'string' || typeof value === 'number' ? [`--${info.flag}`, String(value)] : undefined;
    case 'file':
      return [`--${info.flag}`, writeFile(value)];
  }
}

/** Maps a field as the CLI names it (`--subject nationality`) back to the input's path. */
function inputPath(flags: FlagInfo[], field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  // An argument is named in capitals (ID, FILE), a flag with its dashes.
  const match = /^(?:--([a-z0-9-]+)|([A-Z]+))(?: (.+))?$/.exec(field);
  if (match === null) return field;
  const info = flags.find((candidate) => candidate.flag === (match[1] ?? match[2]));
  if (info === undefined) return field;
  return match[3] === undefined ? info.field : `${info.field}.${match[3]}`;
}

/** A driver running `vc --json` for each operation, on a wallet at `home`. */
export function createCliDriver(vars: RawVariables, home: string, scratch: string): Driver {
  let files = 0;
  const writeFile = (value: unknown): string => {
    files += 1;
    const file = path.join(scratch, `input-${files}.json`);
    writeFileSync(file, JSON.stringify(value));
    return file;
  };

  async function call(name: string, input: Json): Promise<unknown> {
    const command = COMMANDS.find((candidate) => operationsOfCommand(candidate).some((entry) => entry.operation.name === name));
    if (command === undefined) throw new Error(`no command runs operation ${name}`);
    const args = command.path.split(' ');
    let operation: AnyOperation = command.operation;
    if (command.variants !== undefined) {
      const [choice, chosen] = Object.entries(command.variants.choices).find(([, candidate]) => candidate.name === name)!;
      operation = chosen;
      args.push(`--${command.variants.option}`, choice);
    }
    const flags = flagsOf(command, operation);
    // The command's arguments first (`vc holder credentials delete ID`), in their order.
    const positionals = positionalsOf(command, operation);
    for (const info of positionals) {
      const value = input[info.field];
      if (value === undefined) continue;
      args.push(info.kind === 'file' ? writeFile(value) : String(value));
    }
    for (const [field, value] of Object.entries(input)) {
      if (positionals.some((candidate) => candidate.field === field)) continue;
      const info = flags.find((candidate) => candidate.field === field);
      if (info === undefined) throw new Error(`${command.path} has no flag for ${field}`);
      const given = flagArguments(info, value, writeFile);
      if (given === undefined) throw new Error(`a command line cannot give ${JSON.stringify(value)} as --${info.flag} (${info.kind})`);
      args.push(...given);
    }
    const run = await runVcAsync(['--json', '--home', home, ...args], { cwd: scratch, env: vars });
    if (run.status === 0 || (run.status === 1 && operation.failure !== undefined && run.stdout.trim() !== '')) return JSON.parse(run.stdout);
    const lastLine = run.stderr.trim().split('\n').at(-1) ?? '';
    let error: { code?: unknown; message?: unknown; field?: unknown } | undefined;
    try {
      error = (JSON.parse(lastLine) as { error?: typeof error }).error;
    } catch {
      error = undefined;
    }
    if (error === undefined || typeof error.code !== 'string' || typeof error.message !== 'string') {
      throw new Error(`vc ${args.join(' ')}: exit ${run.status} without a JSON error line on stderr: ${run.stderr.slice(-400)}`);
    }
    const field = typeof error.field === 'string' ? inputPath([...flags, ...positionals], error.field) : undefined;
    throw new DriverCallError(error.message, STATUS_BY_CODE[error.code] ?? 500, error.code, field, run.status);
  }

  return driverOver('cli', call, async () => {
    // The binary started the embedded node (it outlives each command): stop it.
    const ctx = new Context({ config: parseConfig(vars, home) });
    await stopEmbeddedChain(ctx);
    await ctx.close();
  });
}
