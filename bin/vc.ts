#!/usr/bin/env node
/**
 * Entry of the `vc` executable: builds the program, runs it, and maps the outcome to an exit
 * code. This is the only place that exits the process.
 */
import { CommanderError } from 'commander';
import { buildProgram } from '../src/cli/program.js';
import { CliRuntime } from '../src/cli/runtime.js';
import { ExitCode, asConnectionFailure, isVcError } from '../src/errors.js';

async function main(argv: string[]): Promise<number> {
  // A time written without a time zone offset is UTC (VC Data Model 2.0 section 5.8), also inside
  // the libraries that read credential dates (vc.js reads one as this machine's local time): the
  // process, its worker threads included, runs in UTC, whatever the machine's zone. vc shows no
  // local time anywhere.
  process.env.TZ = 'UTC';
  const rt = new CliRuntime();
  rt.jsonRequested = argv.includes('--json');
  const program = buildProgram(rt);
  try {
    await program.parseAsync(argv);
    return rt.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the message (or the help / version text).
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return ExitCode.ok;
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // A lost connection raised inside a library (a node killed mid-command) is exit 4, not a bug.
    const reported = asConnectionFailure(error) ?? error;
    rt.output.error(reported, rt.renderField);
    return isVcError(reported) ? reported.exitCode : ExitCode.internal;
  } finally {
    await rt.close();
  }
}

const code = await main(process.argv);
// Give stdout a chance to flush when piped, then exit even if a library left handles open.
process.stdout.write('', () => process.exit(code));
