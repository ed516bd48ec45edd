/**
 * What every command action needs from the CLI: the parsed global options, the output module and
 * the Context of the run (created on first use, closed by runCli after the command), and where the
 * run reads and writes (the process' streams and environment, or those a test injects).
 */
import { InvalidOptionArgumentError, type Command } from 'commander';
import type { Context } from '../context.js';
import type { ExitCodeValue } from '../errors.js';
import { Output, type OutputStream } from '../output.js';

export interface GlobalOptions {
  home?: string;
  env?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Where a run of the command line reads and writes. */
export interface CliIo {
  /** Results (default process.stdout). */
  stdout?: OutputStream;
  /** Summaries, progress, warnings, errors, help on a usage error (default process.stderr). */
  stderr?: OutputStream;
  /** Whether stdin is a terminal (`vc demo` asks its questions only there; default process.stdin's). */
  stdinIsTerminal?: boolean;
  /** The environment the configuration is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export class CliRuntime {
  /** Where this run writes (injected by the caller of runCli, else the process' own streams). */
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  /** The environment the configuration is read from. */
  readonly env: NodeJS.ProcessEnv;
  /** Whether stdin is a terminal (`vc demo` asks questions only there). */
  readonly stdinIsTerminal: boolean;
  output: Output;
  /** Exit code requested by a command that completed (1 when a verification failed). */
  exitCode: ExitCodeValue = 0;
  /** --json was on the command line: set before parsing, for usage errors found before any command runs. */
  jsonRequested = false;
  /** How the running command names an error's input field (a flag); set by the command. */
  renderField: (field: string | undefined) => string | undefined = (field) => field;
  private context: Context | undefined;
  private globals: GlobalOptions = {};

  constructor(io: CliIo = {}) {
    this.stdout = io.stdout ?? process.stdout;
    this.stderr = io.stderr ?? process.stderr;
    this.env = io.env ?? process.env;
    this.stdinIsTerminal = io.stdinIsTerminal ?? process.stdin.isTTY === true;
    this.output = new Output({ json: false, quiet: false, stdout: this.stdout, stderr: this.stderr, env: this.env });
  }

  /** Applies the global options before a command action runs (commander preAction hook). */
  async configure(command: Command): Promise<void> {
    this.globals = command.optsWithGlobals<GlobalOptions>();
    // `vc serve` logs JSON Lines only: an error that stops it before it serves (a busy port, a bad
    // variable) is one JSON line too, as if --json were given.
    const serving = command.name() === 'serve' && command.parent?.parent === null;
    this.output = new Output({ json: this.globals.json === true || serving, quiet: this.globals.quiet === true, stdout: this.stdout, stderr: this.stderr, env: this.env });
    await this.output.init();
  }

  /** The Context of this process, built from the configuration on first use. */
  async ctx(): Promise<Context> {
    if (this.context === undefined) {
      // Loaded here, not at start-up: `vc --help` and `--version` never touch config or the store.
      const [{ loadConfig }, { Context }] = await Promise.all([import('../config/load.js'), import('../context.js')]);
      const config = await loadConfig({ home: this.globals.home, envFile: this.globals.env, env: this.env });
      this.context = new Context({ config, progress: this.output.progressReporter(), env: this.env });
    }
    return this.context;
  }

  /** Releases the Context (chain handles, store); called once by runCli. */
  async close(): Promise<void> {
    await this.context?.close();
    this.context = undefined;
  }
}

/** Parses an integer option value, with a one-line error naming the option. */
export function integerOption(name: string): (value: string) => number {
  return (value: string) => {
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
      throw new InvalidOptionArgumentError(`${name} expects an integer, got "${value}"`);
    }
    return Number(value);
  };
}

/** Parses a TCP port option (0 picks a free port). */
export function portOption(name: string): (value: string) => number {
  const parseInteger = integerOption(name);
  return (value: string) => {
    const port = parseInteger(value);
    if (port < 0 || port > 65535) throw new InvalidOptionArgumentError(`${name} expects a port from 0 to 65535, got ${port}`);
    return port;
  };
}
