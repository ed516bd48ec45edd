/**
 * The whole command line as one function: builds the program, runs it on `args` and maps the
 * outcome to an exit code. bin/vc.ts calls it with the process' own streams and environment and
 * exits; tests call it in their own process with captured streams and a chosen environment.
 * It never exits the process, and releases everything the command opened before it returns.
 */
import { CommanderError } from 'commander';
import { ExitCode, asConnectionFailure, isVcError, type ExitCodeValue } from '../errors.js';
import { buildProgram } from './program.js';
import { CliRuntime, type CliIo } from './runtime.js';

export type { CliIo } from './runtime.js';

/**
 * Runs `vc ARGS` (the arguments after the program name) and returns its exit code.
 * The process' time zone and working directory are the caller's: bin/vc.ts sets TZ to UTC before
 * calling it, and relative paths (file arguments, ./.env, a relative home) are the process' cwd's.
 */
export async function runCli(args: readonly string[], io: CliIo = {}): Promise<ExitCodeValue> {
  const rt = new CliRuntime(io);
  rt.jsonRequested = args.includes('--json');
  const program = buildProgram(rt);
  try {
    await program.parseAsync([...args], { from: 'user' });
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
