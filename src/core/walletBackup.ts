/**
 * Backups of a whole wallet home (`vc wallet export -o FILE`, `vc wallet import FILE`): every
 * record of wallet.db (identities and their BJJ keys, trees, the issuer's seed phrase, credentials
 * held and issued, nonces, the address book) and the newest complete snapshot of each embedded
 * chain under chain/, in one gzip-compressed JSON file written atomically with mode 0600. The
 * file holds secrets in clear: it is for the user's own backups.
 *
 * Left out: what belongs to this machine's processes (the running node's record and its log, the
 * lock files) and older snapshots. A home restored somewhere else is a copy: its chain, started
 * from the restored snapshot, gets a marker of its own (src/chain/chainIdentity.ts), as a home
 * copied with `cp -r` does.
 *
 * An import checks the whole file first, refuses a home that holds anything unless told to
 * replace it, stops that home's embedded node, then writes the chain snapshots beside the home,
 * replaces every record in one SQLite transaction and moves the snapshots in place. An import
 * interrupted midway is completed by running it again with --force.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { Context } from '../context.js';
import { InputError, ConflictError, StoreError, describeError } from '../errors.js';
import { PATH_ERROR_CODES, writeFailureCode, writeFileAtomicSync } from '../store/atomicFile.js';
import type { RawStoreRecord } from '../store/store.js';
import { VERSION } from '../version.js';
import { NODE_KEY, NODE_NS, checkpointKey, type CheckpointMark } from '../chain/node/nodeRecord.js';
import { snapshotTextBlock, stateFiles } from '../chain/node/snapshots.js';
import { IDENTITIES_NS, KEYS_NS, ROLES_NS } from '../iden3/storage.js';
import { BBS_KEYS_NAMESPACE } from '../sd/issuerSeed.js';
import { HELD_CREDENTIALS_NAMESPACE, LEGACY_SD_CREDENTIALS_NAMESPACE } from './holder/holderStore.js';
import { ISSUED_NS } from './pbq/publication.js';

/** The `format` of a backup file. */
export const WALLET_BACKUP_FORMAT = 'vc-wallet-backup';
const BACKUP_VERSION = 1;
/** The largest backup file read (a wallet of many credentials and a long chain is tens of MB). */
export const MAX_BACKUP_BYTES = 1024 * 1024 * 1024;


const backupSchema = z.strictObject({
  format: z.literal(WALLET_BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  createdAt: z.string(),
  vcVersion: z.string(),
  records: z.array(z.tuple([z.string(), z.string(), z.string(), z.number().int()])),
  chains: z.array(z.strictObject({ chainId: z.number().int().positive(), blockNumber: z.number().int().nonnegative(), state: z.string() })),
  /** SHA-256 (hex) of the JSON of [records, chains]: a changed record is refused before anything is written. */
  digest: z.string().regex(/^[0-9a-f]{64}$/),
});
type WalletBackup = z.output<typeof backupSchema>;

/** What a backup holds, in words and counts: never a secret itself. */
export interface WalletContents {
  records: number;
  /** The default holder and issuer DIDs (iden3), when the wallet has them. */
  holderDid?: string;
  issuerDid?: string;
  /** iden3 identities (each with its BJJ key and trees). */
  identities: number;
  /** BJJ private keys (secrets). */
  privateKeys: number;
  /** The issuer's BBS+ seed phrase kept in the wallet (a secret), if it has one. */
  issuerSeedPhrase: boolean;
  heldCredentials: number;
  issuedCredentials: number;
  /** The embedded chains with the block their snapshot is at. */
  chains: Array<{ chainId: number; blockNumber: number }>;
}

export interface WalletExportResult extends WalletContents {
  file: string;
  bytes: number;
  createdAt: string;
  /** What the backup does not hold and the user must keep another way. */
  notes: string[];
}

export interface WalletImportResult extends WalletContents {
  home: string;
  file: string;
  /** When the backup was made, and by which vc. */
  backupCreatedAt: string;
  backupVcVersion: string;
  /** True when the home held something that the backup replaced (--force). */
  replaced: boolean;
  notes: string[];
}

function contentsOf(records: ReadonlyArray<{ ns: string; key: string; value: string }>, chains: Array<{ chainId: number; blockNumber: number }>): WalletContents {
  const count = (ns: string): number => records.filter((record) => record.ns === ns).length;
  const role = (key: string): string | undefined => {
    const found = records.find((record) => record.ns === ROLES_NS && record.key === key);
    if (found === undefined) return undefined;
    const did = (JSON.parse(found.value) as { did?: unknown }).did;
    return typeof did === 'string' ? did : undefined;
  };
  const holderDid = role('holder');
  const issuerDid = role('issuer');
  return {
    records: records.length,
    ...(holderDid === undefined ? {} : { holderDid }),
    ...(issuerDid === undefined ? {} : { issuerDid }),
    identities: count(IDENTITIES_NS),
    privateKeys: count(KEYS_NS),
    issuerSeedPhrase: records.some((record) => record.ns === BBS_KEYS_NAMESPACE),
    heldCredentials: count(HELD_CREDENTIALS_NAMESPACE) + count(LEGACY_SD_CREDENTIALS_NAMESPACE),
    issuedCredentials: count(ISSUED_NS),
    chains,
  };
}

/** The newest complete snapshot of each embedded chain of the home (chain/<chainId>/). */
function chainSnapshots(chainDir: string): WalletBackup['chains'] {
  if (!existsSync(chainDir)) return [];
  const chains: WalletBackup['chains'] = [];
  for (const name of readdirSync(chainDir).filter((entry) => /^\d+$/.test(entry)).sort((a, b) => Number(a) - Number(b))) {
    const files = stateFiles(path.join(chainDir, name));
    let best: { blockNumber: number; state: string } | undefined;
    for (const file of [files.checkpoint, files.served, files.autosave, files.anvilDump]) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      // Read once and checked as read: a dump being rewritten in place is incomplete and skipped.
      const blockNumber = snapshotTextBlock(text);
      if (blockNumber !== undefined && (best === undefined || blockNumber > best.blockNumber)) best = { blockNumber, state: text };
    }
    if (best !== undefined) chains.push({ chainId: Number(name), ...best });
  }
  return chains;
}

/** Whether a record stays with this machine: the running node's record (a process here). */
function isMachineRecord(record: { ns: string; key: string }): boolean {
  return record.ns === NODE_NS && record.key === NODE_KEY;
}

/** Writes a whole-home backup to `file` (see the module comment). */
export async function exportWallet(ctx: Context, options: { file: string; names?: (field: string) => string }): Promise<WalletExportResult> {
  const where = options.names?.('file') ?? options.file;
  const file = path.resolve(options.file);
  const home = path.resolve(ctx.store.paths.home);
  // Only a regular file is replaced (a FIFO would block the export until someone reads it).
  const existing = statSync(file, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isFile()) {
    throw new InputError(`${where}: ${options.file} is ${existing.isDirectory() ? 'a directory' : 'not a regular file'}: name the backup file to write`, { field: 'file' });
  }
  if (file === home || file.startsWith(`${home}${path.sep}`)) {
    throw new InputError(`${where}: ${options.file} is inside the wallet home ${home}: a backup belongs elsewhere`, { field: 'file' });
  }
  const records = ctx.store.allRecords().filter((record) => !isMachineRecord(record));
  const chains = chainSnapshots(ctx.store.paths.chain);
  const createdAt = ctx.now().toISOString();
  const backup: WalletBackup = {
    format: WALLET_BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt,
    vcVersion: VERSION,
    records: records.map((record) => [record.ns, record.key, record.value, record.updatedAt]),
    chains,
    digest: '',
  };
  backup.digest = backupDigest(backup);
  const data = gzipSync(JSON.stringify(backup));
  try {
    writeFileAtomicSync(file, data, { mode: 0o600 });
  } catch (error) {
    const code = writeFailureCode(error);
    if (code !== undefined && PATH_ERROR_CODES.has(code)) throw new InputError(`${where}: ${(error as Error).message}`, { field: 'file', cause: error });
    throw error;
  }
  const contents = contentsOf(records, chains.map(({ chainId, blockNumber }) => ({ chainId, blockNumber })));
  const notes: string[] = ['the file holds the wallet\'s private keys in clear: keep it as safe as the wallet itself'];
  if (ctx.config.issuer.blsSeedPhrase !== undefined) notes.push('the issuer\'s BBS+ key comes from IDP_BLS_SIGN_SEED_PHRASE, which is configuration, not in the wallet: keep that phrase too');
  if (ctx.config.chain.rpcUrl !== undefined) notes.push('the chain is the one RPC_URL names: its state is not in the backup (only the embedded chains\' are)');
  return { file, bytes: data.length, createdAt, ...contents, notes };
}

/** The digest a backup carries of its content (records and chain snapshots). */
function backupDigest(backup: Pick<WalletBackup, 'records' | 'chains'>): string {
  return createHash('sha256').update(JSON.stringify([backup.records, backup.chains])).digest('hex');
}

/** Reads and checks a backup file whole; InputError naming the file on anything wrong. */
function readBackup(file: string, where: string): WalletBackup {
  let raw: Buffer;
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new InputError(`${where}: ${file} is not a regular file`, { field: 'file' });
      if (stat.size > MAX_BACKUP_BYTES) throw new InputError(`${where}: ${file} is larger than ${MAX_BACKUP_BYTES / 1024 / 1024} MiB`, { field: 'file' });
      raw = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw new InputError(`${where}: cannot read ${file}: ${reason}`, { field: 'file', cause: error });
  }
  const notBackup = (why: string, cause?: unknown): InputError =>
    new InputError(`${where}: ${file} is not a vc wallet backup (${why}); \`vc wallet export -o FILE\` writes one`, { field: 'file', ...(cause === undefined ? {} : { cause }) });
  let text: string;
  try {
    // gunzip checks the length and CRC: a file cut short or changed is refused here.
    text = gunzipSync(raw).toString('utf8');
  } catch (error) {
    throw notBackup(raw[0] === 0x1f && raw[1] === 0x8b ? `its compressed data is damaged: ${describeError(error)}` : 'not gzip data', error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw notBackup('not JSON inside', error);
  }
  if ((parsed as { format?: unknown } | null)?.format !== WALLET_BACKUP_FORMAT) throw notBackup(`no "format": "${WALLET_BACKUP_FORMAT}"`);
  const version = (parsed as { version?: unknown }).version;
  if (version !== BACKUP_VERSION) throw new InputError(`${where}: ${file} is a wallet backup of version ${String(version)}; this vc reads version ${BACKUP_VERSION}`, { field: 'file' });
  const result = backupSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw notBackup(`field ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const backup = result.data;
  if (backupDigest(backup) !== backup.digest) throw notBackup('its records do not match its digest: the file was changed after it was written');
  backup.records.forEach(([ns, key, value], index) => {
    try {
      JSON.parse(value);
    } catch {
      throw notBackup(`record ${index} (${ns}/${key.slice(0, 40)}) is not JSON`);
    }
  });
  for (const chain of backup.chains) {
    if (snapshotTextBlock(chain.state) !== chain.blockNumber) throw notBackup(`the snapshot of chain ${chain.chainId} is not a complete chain state at block ${chain.blockNumber}`);
  }
  return backup;
}

/** What the home holds now (records, or chain snapshots), or undefined when it is empty. */
function homeContents(ctx: Context): string | undefined {
  const records = ctx.store.totalCount();
  const chainDir = ctx.store.paths.chain;
  const chainEntries = existsSync(chainDir) ? readdirSync(chainDir).length : 0;
  if (records === 0 && chainEntries === 0) return undefined;
  return [records > 0 ? `${records} record${records === 1 ? '' : 's'} in wallet.db` : undefined, chainEntries > 0 ? 'a chain state' : undefined].filter((part) => part !== undefined).join(' and ');
}

/** Restores a whole-home backup into this home (see the module comment). */
export async function importWallet(ctx: Context, options: { file: string; force?: boolean | undefined; names?: (field: string) => string }): Promise<WalletImportResult> {
  const where = options.names?.('file') ?? options.file;
  const file = path.resolve(options.file);
  const backup = readBackup(file, where);
  const home = ctx.store.paths.home;
  const existing = homeContents(ctx);
  if (existing !== undefined && options.force !== true) {
    throw new ConflictError(`the wallet home ${home} is not empty (${existing}): importing would replace it; give --force to replace everything in it with the backup`, { field: 'force' });
  }
  if (existing !== undefined) {
    // The home's own node runs on the state being replaced: stop it first (nothing of it is kept).
    const { stopLocalNode } = await import('../chain/node/lifecycle.js');
    await stopLocalNode(ctx, { persist: false });
  }
  return ctx.store.withLock('chain', async () => {
    const suffix = randomBytes(6).toString('hex');
    const staged = path.join(home, `chain.restoring-${suffix}`);
    const replaced = path.join(home, `chain.replaced-${suffix}`);
    try {
      mkdirSync(staged, { recursive: true, mode: 0o700 });
      for (const chain of backup.chains) {
        const dir = path.join(staged, String(chain.chainId));
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileAtomicSync(stateFiles(dir).checkpoint, chain.state, { mode: 0o600 });
      }
      const now = ctx.now().toISOString();
      const records: RawStoreRecord[] = backup.records
        .map(([ns, key, value, updatedAt]) => ({ ns, key, value, updatedAt }))
        .filter((record) => !isMachineRecord(record) && !(record.ns === NODE_NS && backup.chains.some((chain) => record.key === checkpointKey(chain.chainId))));
      // The checkpoint marks say which block each restored snapshot is at.
      for (const chain of backup.chains) {
        records.push({ ns: NODE_NS, key: checkpointKey(chain.chainId), value: JSON.stringify({ blockNumber: chain.blockNumber, at: now } satisfies CheckpointMark), updatedAt: Date.now() });
      }
      ctx.store.replaceAllRecords(records);
      if (existsSync(ctx.store.paths.chain)) renameSync(ctx.store.paths.chain, replaced);
      renameSync(staged, ctx.store.paths.chain);
      rmSync(replaced, { recursive: true, force: true });
    } catch (error) {
      rmSync(staged, { recursive: true, force: true });
      if (error instanceof InputError || error instanceof StoreError) throw error;
      throw new StoreError(`cannot restore ${file} into ${home}: ${describeError(error)}; run the import again with --force to complete it`, { cause: error });
    }
    const rows = backup.records.map(([ns, key, value]) => ({ ns, key, value })).filter((record) => !isMachineRecord(record));
    const notes: string[] = [];
    if (backup.chains.length > 0) notes.push('the embedded chain starts from the restored snapshot on the next command that needs it');
    if (ctx.config.issuer.blsSeedPhrase !== undefined) notes.push('IDP_BLS_SIGN_SEED_PHRASE is set: the issuer\'s BBS+ key comes from it, not from the restored wallet');
    return {
      home,
      file,
      backupCreatedAt: backup.createdAt,
      backupVcVersion: backup.vcVersion,
      replaced: existing !== undefined,
      ...contentsOf(rows, backup.chains.map(({ chainId, blockNumber }) => ({ chainId, blockNumber }))),
      notes,
    };
  });
}
