/**
 * `vc config set-home|unset-home`: the default wallet home, a preference of the command line kept
 * by conf.
 */
import type { Command } from 'commander';
import path from 'node:path';
import type { CliRuntime } from './runtime.js';

/** Registers `vc config set-home|unset-home` (preferences of the command line; `config show` is an operation). */
export function registerConfigCommands(program: Command, rt: CliRuntime): void {
  const group = program.commands.find((command) => command.name() === 'config') ?? program.command('config');
  group
    .command('set-home <dir>')
    .description('remember DIR as the default wallet home (VC_HOME and --home still override it)')
    .addHelpText('after', '\nExample:\n  $ vc config set-home ~/wallets/work')
    .action(async (dir: string) => {
      const { openConf } = await import('../config/load.js');
      const conf = await openConf(rt.env);
      const home = path.resolve(dir);
      conf.set('home', home);
      rt.output.result({ home, conf: conf.path }, { summary: `default home is now ${home}` });
    });
  group
    .command('unset-home')
    .description('forget the default wallet home set with set-home')
    .action(async () => {
      const { openConf } = await import('../config/load.js');
      const conf = await openConf(rt.env);
      conf.delete('home');
      rt.output.result({ home: null, conf: conf.path });
    });
}
