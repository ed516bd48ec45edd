/**
 * `vc wallet export -o FILE` and `vc wallet import FILE [--force]`: backups of the whole wallet
 * home (src/core/walletBackup.ts). Written by hand because `-o FILE` is the backup itself here,
 * never the result: the result (what the backup holds, in counts and DIDs) goes to stdout, and no
 * secret is ever printed.
 */
import type { Command } from 'commander';
import type { WalletContents } from '../core/walletBackup.js';
import type { CliRuntime } from './runtime.js';

const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n === 1 ? word : words}`;

/** What a backup holds, in one line. */
function describeContents(contents: WalletContents): string {
  const parts = [
    plural(contents.identities, 'identity', 'identities'),
    plural(contents.privateKeys, 'private key'),
    contents.issuerSeedPhrase ? "the issuer's seed phrase" : undefined,
    plural(contents.heldCredentials, 'held credential'),
    plural(contents.issuedCredentials, 'issued credential'),
    contents.chains.length === 0 ? 'no chain state' : contents.chains.map((chain) => `chain ${chain.chainId} at block ${chain.blockNumber}`).join(', '),
  ].filter((part) => part !== undefined);
  const dids = [contents.holderDid === undefined ? undefined : `holder ${contents.holderDid}`, contents.issuerDid === undefined ? undefined : `issuer ${contents.issuerDid}`].filter((part) => part !== undefined);
  return `${parts.join(', ')}${dids.length === 0 ? '' : ` (${dids.join(', ')})`}`;
}

/** Registers `vc wallet export` and `vc wallet import`. */
export function registerWalletCommands(program: Command, rt: CliRuntime): void {
  const group =
    program.commands.find((command) => command.name() === 'wallet') ??
    program.command('wallet').description('back up the whole wallet home (keys included) to a file, and restore it');
  group
    .command('export')
    .description('write the whole wallet home (identities and their keys, seed phrase, credentials, trees, the embedded chain state) to FILE, atomically, mode 0600')
    .requiredOption('-o, --output <file>', 'the backup file to write (gzip JSON; it holds the private keys in clear)')
    .addHelpText(
      'after',
      `
Examples:
  $ vc wallet export -o ~/backups/vc-wallet.backup
  $ vc --home /tmp/restored wallet import ~/backups/vc-wallet.backup

The file holds every secret of the wallet (BJJ keys, the issuer's seed phrase): keep it as safe as
the wallet. IDP_BLS_SIGN_SEED_PHRASE, when set, is configuration and not in it. Nothing secret is
printed: the result says what the backup holds, in counts and DIDs.`,
    )
    .action(async (options: { output: string }) => {
      const { invokeOperation } = await import('../core/operation.js');
      const { walletExport } = await import('../core/operations/walletOperations.js');
      rt.renderField = (field) => (field === 'file' ? '--output' : field);
      const ctx = await rt.ctx();
      const result = await invokeOperation(ctx, walletExport, { file: options.output }, { names: (field) => (field === 'file' ? '-o' : field) });
      rt.output.result(result, { summary: `wrote ${result.file} (${result.bytes} bytes): ${describeContents(result)}` });
      for (const note of result.notes) rt.output.info(`note: ${note}`);
    });
  group
    .command('import <file>')
    .description('restore the wallet home from a backup FILE (vc wallet export); a home that holds anything is replaced only with --force')
    .option('--force', 'replace everything the home holds with the backup')
    .addHelpText(
      'after',
      `
Examples:
  $ vc --home ~/wallets/restored wallet import vc-wallet.backup
  $ vc wallet import vc-wallet.backup --force        # replaces the current home's contents

The whole file is checked before anything is written; the records are replaced in one transaction.
An import interrupted midway is completed by running it again with --force.`,
    )
    .action(async (file: string, options: { force?: boolean }) => {
      const { invokeOperation } = await import('../core/operation.js');
      const { walletImport } = await import('../core/operations/walletOperations.js');
      rt.renderField = (field) => (field === 'file' ? 'FILE' : field === 'force' ? '--force' : field);
      const ctx = await rt.ctx();
      const result = await invokeOperation(ctx, walletImport, { file, ...(options.force === true ? { force: true } : {}) }, { names: (field) => (field === 'file' ? 'FILE' : field) });
      rt.output.result(result, { summary: `${result.replaced ? 'replaced the home' : 'restored into'} ${result.home}: ${describeContents(result)} (backup of ${result.backupCreatedAt})` });
      for (const note of result.notes) rt.output.info(`note: ${note}`);
    });
}
