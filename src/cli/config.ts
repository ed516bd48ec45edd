/**
 * `vc config`: user preferences kept by conf (the default home) and a view of the effective
 * configuration with secrets masked.
 */
import type { Command } from 'commander';
import path from 'node:path';
import { redactUrls } from '../errors.js';
import type { CliRuntime } from './runtime.js';

/** Registers `vc config show|set-home|unset-home`. */
export function registerConfigCommands(program: Command, rt: CliRuntime): void {
  const group = program.command('config').description('show the effective configuration, set the default wallet home')
    .addHelpText('after', `\nExamples:\n  $ vc config show\n  $ vc config set-home ~/wallets/work`);
  group
    .command('show')
    .description('print the effective configuration (secrets masked)')
    .addHelpText('after', '\nExample:\n  $ vc config show --json | jq .chain')
    .action(async () => {
      const ctx = await rt.ctx();
      const { config } = ctx;
      const mask = (value: string | undefined): string | null => (value === undefined ? null : '(set, hidden)');
      // RPC and RHS URLs often carry an API key (path, query or user info): show the origin only.
      const maskUrl = (value: string | undefined): string | null => (value === undefined ? null : redactUrls(value));
      rt.output.result({
        ...config,
        chain: { ...config.chain, rpcUrl: maskUrl(config.chain.rpcUrl), walletKey: mask(config.chain.walletKey) },
        rhsUrl: maskUrl(config.rhsUrl),
        issuer: { ...config.issuer, blsSeedPhrase: mask(config.issuer.blsSeedPhrase) },
        server: { ...config.server, apiToken: mask(config.server.apiToken) },
      });
    });
  group
    .command('set-home <dir>')
    .description('remember DIR as the default wallet home (VC_HOME and --home still override it)')
    .addHelpText('after', '\nExample:\n  $ vc config set-home ~/wallets/work')
    .action(async (dir: string) => {
      const { openConf } = await import('../config/load.js');
      const conf = await openConf();
      const home = path.resolve(dir);
      conf.set('home', home);
      rt.output.result({ home, conf: conf.path }, { summary: `default home is now ${home}` });
    });
  group
    .command('unset-home')
    .description('forget the default wallet home set with set-home')
    .action(async () => {
      const { openConf } = await import('../config/load.js');
      const conf = await openConf();
      conf.delete('home');
      rt.output.result({ home: null, conf: conf.path });
    });
}
