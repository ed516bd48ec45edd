/**
 * The commander tree, built in one factory from the command table (src/cli/commands.ts); this
 * file adds the global options, the help texts and the hook that configures output and context.
 */
import { Command, Option } from 'commander';
import type { CliRuntime } from './runtime.js';
import { registerCommands } from './commands.js';
import { refuseRepeatedFlags } from './operationCommand.js';

export { VERSION } from '../version.js';
import { VERSION } from '../version.js';

const EXAMPLES = `
Examples:
  $ vc holder did create                       # the holder's iden3 DID (created once, then reused)
  $ vc issuer did create
  $ vc verifier request -o request.json        # credential request, registered on chain
  $ vc issuer issue --holder did:polygonid:polygon:local:2q... -o passport.json
  $ vc holder prove-submit --credential passport.json --request request.json
  $ vc issuer issue --format bbs -o sd.json    # BBS+ signed credential for selective disclosure
  $ vc holder disclose --type PassportCredential --keys id,name,nationality -o disclosed.json
  $ vc verifier verify --credential disclosed.json
  $ vc serve --role all                        # issuer :3000, verifier :4000, holder :5000
  $ vc demo --yes                              # both flows end to end on the embedded chain
  $ eval "$(vc completion bash)"               # shell completion (also zsh, fish)

Data lives in the wallet home (--home, VC_HOME, \`vc config set-home DIR\`, default ~/.local/share/vc).
Configuration comes from the environment and ./.env (or --env FILE); see .env.sample.
Exit codes: 0 ok, 1 verification failed, 2 usage/input error, 3 configuration error,
4 network/chain error, 70 internal error.`;

/** Builds the `vc` program bound to a runtime. */
export function buildProgram(rt: CliRuntime): Command {
  const program = new Command('vc')
    .description('A command-line wallet and toolchain for verifiable credentials (iden3 proof by query, BBS+ selective disclosure)')
    .version(VERSION, '-V, --version', 'print the version')
    .addOption(new Option('--home <dir>', 'wallet/data directory (overrides VC_HOME)'))
    .addOption(new Option('--env <file>', 'read configuration variables from this .env file (default ./.env if present)'))
    .option('--json', 'compact JSON on stdout and no human output on stderr')
    .option('-q, --quiet', 'no progress or summaries on stderr (errors still shown)')
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError(true)
    .configureOutput({
      // The run's streams (the process' own, or a test's): help is wrapped to a terminal's width,
      // else to commander's default of 80 columns.
      getOutHelpWidth: () => (rt.stdout.isTTY === true ? (rt.stdout.columns ?? 80) : 80),
      getErrHelpWidth: () => (rt.stderr.isTTY === true ? (rt.stderr.columns ?? 80) : 80),
      writeOut: (text) => rt.output.rawOut(text),
      writeErr: (text) => {
        // With --json, a usage error is one JSON line like every other error.
        if (!rt.jsonRequested || !text.startsWith('error: ')) return rt.output.raw(text);
        const message = text.slice('error: '.length).trim().replace(/\s*\n\s*/g, ' ');
        const flag = /'(--[a-z][a-z0-9-]*)/.exec(message)?.[1];
        rt.output.raw(`${JSON.stringify({ error: { code: 'invalid_input', message, ...(flag === undefined ? {} : { field: flag }) } })}\n`);
      },
    });

  program.hook('preAction', async (_this, action) => {
    await rt.configure(action);
  });

  registerCommands(program, rt);

  // Usage errors throw instead of exiting, so the entry maps them to exit code 2 in one place.
  const applyExitOverride = (command: Command): void => {
    command.exitOverride();
    if (command.commands.length === 0) unknownOptionsFirst(command);
    command.commands.forEach(applyExitOverride);
  };
  applyExitOverride(program);
  // A flag of one value given twice is refused, not read as its last use (list flags add up).
  refuseRepeatedFlags(program);
  return program;
}

/**
 * Reports an unknown option of a command as unknown, before commander's other checks: commander
 * checks required options first, so `vc verifier verify --vc-file x` would answer "required option
 * '--credential <file>' not specified" instead of naming the option it does not know. `--help`
 * still shows the help.
 */
function unknownOptionsFirst(command: Command): void {
  const parse = command.parseOptions.bind(command);
  command.parseOptions = (args: string[]) => {
    const parsed = parse(args);
    const first = parsed.unknown[0];
    const wantsHelp = parsed.unknown.some((arg) => arg === '--help' || arg === '-h');
    if (first !== undefined && first.length > 1 && first.startsWith('-') && !wantsHelp) {
      // commander's own report (with its "Did you mean" suggestion); it does nothing for a command that allows unknown options.
      (command as unknown as { unknownOption(flag: string): void }).unknownOption(first);
    }
    return parsed;
  };
}
