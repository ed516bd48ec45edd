/**
 * Backups of the whole wallet home: export it to a file (keys included) and restore it from one.
 * Command line only: a backup holds every secret of the wallet, so no route serves it.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';

const contents = {
  records: z.number(),
  holderDid: z.string().optional(),
  issuerDid: z.string().optional(),
  identities: z.number(),
  privateKeys: z.number(),
  issuerSeedPhrase: z.boolean(),
  heldCredentials: z.number(),
  issuedCredentials: z.number(),
  chains: z.array(z.object({ chainId: z.number(), blockNumber: z.number() })),
  notes: z.array(z.string()),
};

export const walletExport = defineOperation({
  name: 'wallet.export',
  summary: 'write the whole wallet home (identities and their keys, seed phrase, credentials, trees, the embedded chain\'s state) to a backup file, atomically, mode 0600',
  input: z.strictObject({ file: z.string().min(1).describe('the backup file to write (gzip JSON; it holds the private keys)') }),
  result: z.object({ file: z.string(), bytes: z.number(), createdAt: z.string(), ...contents }),
  mutates: false,
  run: async (ctx, input, call) => {
    const { exportWallet } = await import('../walletBackup.js');
    return exportWallet(ctx, { file: input.file, names: call.names });
  },
});

export const walletImport = defineOperation({
  name: 'wallet.import',
  summary: 'restore a wallet home from a backup file (vc wallet export); a home that holds anything is replaced only with force',
  input: z.strictObject({
    file: z.string().min(1).describe('the backup file (written by vc wallet export)'),
    force: z.boolean().describe('replace everything the home holds with the backup').optional(),
  }),
  result: z.object({ home: z.string(), file: z.string(), backupCreatedAt: z.string(), backupVcVersion: z.string(), replaced: z.boolean(), ...contents }),
  mutates: true,
  run: async (ctx, input, call) => {
    const { importWallet } = await import('../walletBackup.js');
    return importWallet(ctx, { file: input.file, force: input.force, names: call.names });
  },
});
