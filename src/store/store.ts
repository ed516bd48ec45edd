/**
 * The persistent wallet store: one SQLite database (WAL journal) under the home directory
 * holding namespaced JSON records: identities, keys, credentials, merkle tree nodes, chain and
 * deployment records, nonces. SQLite gives atomic, crash-safe writes (a kill -9 mid-write
 * rolls back) and serialises concurrent writers across processes; `withLock` adds a named
 * inter-process lock for long asynchronous critical sections (starting the chain, creating the
 * default identity). The home is 0700 and the database 0600 because it holds secrets.
 *
 * The binding is libsql (better-sqlite3's API, SQLite's file format): its native binary comes
 * prebuilt inside an npm package, where better-sqlite3 downloads one from GitHub or compiles
 * SQLite (a minute of CPU at every clean install without that download, as in CI).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, realpathSync, rmdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import Database from 'libsql';
import lockfile from 'proper-lockfile';
import { StoreError, describeError } from '../errors.js';
import { bindLockName, lockName as abstractLockName, ownerIsDead, ownIdentity, readOwner, releaseLockName, writeOwner } from './lockOwner.js';

/**
 * A partial index of the records that mention the iden3 auth key credential type, by their
 * issuer: the js-sdk looks up an identity's auth key credentials among all its credentials at
 * every signature and proof (authKeyCandidates). Only records that are JSON are indexed (a value
 * another program broke must not make every write fail).
 */
const AUTH_KEY_MENTION = `instr(value, '"AuthBJJCredential"') > 0 AND json_valid(value)`;
const AUTH_KEY_INDEX = `CREATE INDEX IF NOT EXISTS records_auth_keys ON records (ns, json_extract(value, '$.issuer')) WHERE ${AUTH_KEY_MENTION}`;

/** Creates the auth key index unless the database has it; false when it cannot be created. */
function authKeyIndex(db: Database.Database): boolean {
  try {
    db.exec(AUTH_KEY_INDEX);
    return true;
  } catch {
    return false;
  }
}

type Callback<R> = (error: NodeJS.ErrnoException | null, result?: R) => void;

/** Runs `operation` now and gives its outcome to `callback` on the next tick, as an asynchronous call would. */
function settle<R>(callback: Callback<R>, operation: () => R): void {
  let result: R;
  try {
    result = operation();
  } catch (error) {
    process.nextTick(callback, error as NodeJS.ErrnoException);
    return;
  }
  process.nextTick(callback, null, result);
}

/**
 * The file operations proper-lockfile makes on a lock (realpath, mkdir, stat, utimes, rmdir),
 * synchronous as the store's SQLite calls are, each answered on the next tick. Through the thread
 * pool, every one of them left the event loop waiting for its completion: 3.5 ms of each lock
 * taken and released, a quarter of a signature issuance. They are calls on a directory beside
 * the database, of microseconds. One object: proper-lockfile keeps its probe of the file system's
 * time precision on it.
 */
const lockFs = {
  realpath: (file: string, callback: Callback<string>) => settle(callback, () => realpathSync(file)),
  mkdir: (dir: string, callback: Callback<void>) => settle(callback, () => void mkdirSync(dir)),
  stat: (file: string, callback: Callback<ReturnType<typeof statSync>>) => settle(callback, () => statSync(file)),
  utimes: (file: string, atime: Date, mtime: Date, callback: Callback<void>) => settle(callback, () => utimesSync(file, atime, mtime)),
  rmdir: (dir: string, callback: Callback<void>) => settle(callback, () => rmdirSync(dir)),
  rmdirSync: (dir: string) => rmdirSync(dir),
};

/**
 * A record's JSON text as `put` writes it (JSON.stringify of its value), for records that come from
 * elsewhere (a backup file): a member written twice then reads in SQLite's JSON functions (the
 * auth key index, deleteBefore) as it reads in JavaScript, where the last one counts. A text that
 * is not JSON is kept as it is (read, it is a StoreError naming it).
 */
function asWritten(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

export interface StoreRecord<T> {
  key: string;
  value: T;
}

/** A record as the database holds it (a wallet backup's unit): its value is the JSON text. */
export interface RawStoreRecord {
  ns: string;
  key: string;
  value: string;
  updatedAt: number;
}

export interface LockOptions {
  /** How long to wait for another process before failing (default 120 s). */
  timeoutMs?: number;
  /**
   * For critical sections whose completed result stands on its own (a publication that is on
   * chain and recorded): when the lock was lost during a section that then succeeded, this is
   * told why and the result is returned, instead of failing a command whose effect happened (a
   * retry would repeat it).
   */
  resultStandsIfLost?: (message: string) => void;
}

/** Paths of the files and directories under the wallet home. */
export interface HomePaths {
  home: string;
  database: string;
  locks: string;
  /** Working directory of the embedded chain (anvil state, logs, pid). */
  chain: string;
}

/** Computes the layout of a home directory. */
export function homePaths(home: string): HomePaths {
  return {
    home,
    database: path.join(home, 'wallet.db'),
    locks: path.join(home, 'locks'),
    chain: path.join(home, 'chain'),
  };
}

/** Creates a directory (and parents) readable by the owner only. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** A prepared statement with the parameter and row types of its SQL (libsql's own typings leave rows unknown). */
interface Statement<Params extends unknown[], Row = unknown> {
  run(...params: Params): { changes: number };
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
}

function prepared<Params extends unknown[], Row = unknown>(db: Database.Database, sql: string): Statement<Params, Row> {
  return db.prepare(sql) as unknown as Statement<Params, Row>;
}

/** A record's JSON value; one that is not JSON (the database edited by another program) is a StoreError naming it. */
function parseRecord<T>(ns: string, key: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StoreError(`the wallet record ${ns}/${key.length > 80 ? `${key.slice(0, 80)}...` : key} is not JSON: the wallet database was changed outside vc`, { cause: error });
  }
}

export class WalletStore {
  readonly paths: HomePaths;
  private readonly db: Database.Database;
  /** Depth of nested transaction() calls (the outer one is BEGIN IMMEDIATE, inner ones savepoints). */
  private transactionDepth = 0;
  private readonly statements: {
    get: Statement<[string, string], { value: string }>;
    put: Statement<[string, string, string, number]>;
    del: Statement<[string, string]>;
    list: Statement<[string, string, string], { key: string; value: string }>;
    count: Statement<[string], { n: number }>;
    any: Statement<[string, string, string], { n: number }>;
    countPrefix: Statement<[string, string, string], { n: number }>;
    authKeys: Statement<[string, string], { key: string; value: string }>;
    deleteBefore: Statement<[string, string, string, string | null, string | null]>;
    all: Statement<[], RawStoreRecord>;
    total: Statement<[], { n: number }>;
    clear: Statement<[]>;
    insertRaw: Statement<[string, string, string, number]>;
  };

  private constructor(paths: HomePaths, db: Database.Database) {
    this.paths = paths;
    this.db = db;
    this.statements = {
      get: prepared(db, 'SELECT value FROM records WHERE ns = ? AND key = ?'),
      put: prepared(db, 
        'INSERT INTO records (ns, key, value, updated_at) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      ),
      del: prepared(db, 'DELETE FROM records WHERE ns = ? AND key = ?'),
      list: prepared(db, "SELECT key, value FROM records WHERE ns = ? AND key >= ? AND key < ? || char(1114111) ORDER BY key"),
      count: prepared(db, 'SELECT count(*) AS n FROM records WHERE ns = ?'),
      any: prepared(db, "SELECT 1 AS n FROM records WHERE ns = ? AND key >= ? AND key < ? || char(1114111) LIMIT 1"),
      countPrefix: prepared(db, "SELECT count(*) AS n FROM records WHERE ns = ? AND key >= ? AND key < ? || char(1114111)"),
      // INDEXED BY: the planner, without statistics, would scan the namespace instead. A database
      // that cannot be given the index (read-only) is scanned; an earlier vc's gets it here.
      authKeys: prepared(db, `SELECT key, value FROM records ${authKeyIndex(db) ? 'INDEXED BY records_auth_keys ' : ''}WHERE ns = ? AND ${AUTH_KEY_MENTION} AND json_extract(value, '$.issuer') = ? ORDER BY key`),
      // ISO-8601 UTC timestamps of one format (toISOString) compare correctly as text.
      deleteBefore: prepared(db, 'DELETE FROM records WHERE ns = ? AND json_extract(value, ?) <= ? AND (? IS NULL OR json_extract(value, ?) IS NULL)'),
      all: prepared(db, 'SELECT ns, key, value, updated_at AS updatedAt FROM records ORDER BY ns, key'),
      total: prepared(db, 'SELECT count(*) AS n FROM records'),
      clear: prepared(db, 'DELETE FROM records'),
      insertRaw: prepared(db, 'INSERT INTO records (ns, key, value, updated_at) VALUES (?, ?, ?, ?)'),
    };
  }

  /** Opens (creating if needed) the store of a home directory. */
  static open(home: string): WalletStore {
    const paths = homePaths(home);
    try {
      ensurePrivateDir(paths.home);
      // mkdir leaves an existing directory's mode alone: the home holds secrets, so it is the
      // owner's only even when --home names a directory created beforehand.
      if ((statSync(paths.home).mode & 0o077) !== 0) chmodSync(paths.home, 0o700);
      ensurePrivateDir(paths.locks);
      if (!existsSync(paths.database)) closeSync(openSync(paths.database, 'a', 0o600));
      if ((statSync(paths.database).mode & 0o077) !== 0) chmodSync(paths.database, 0o600);
      const db = new Database(paths.database, { timeout: 30_000 });
      // Two processes opening a fresh wallet at once race to switch it to WAL, and SQLite answers
      // the loser "database is locked" without waiting: retry for a while, then give up.
      for (let attempt = 0; ; attempt++) {
        try {
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = NORMAL');
          db.pragma('busy_timeout = 30000');
          db.exec(
            'CREATE TABLE IF NOT EXISTS records (ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, ' +
              'updated_at INTEGER NOT NULL, PRIMARY KEY (ns, key)) WITHOUT ROWID',
          );
          break;
        } catch (error) {
          const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY' || /database is locked/i.test(describeError(error));
          if (!busy || attempt >= 300) {
            db.close();
            throw error;
          }
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 + Math.floor(Math.random() * 30));
        }
      }
      return new WalletStore(paths, db);
    } catch (error) {
      throw new StoreError(`cannot open wallet store in ${home}: ${describeError(error)}`, { cause: error });
    }
  }

  /** Reads one record, or undefined. */
  get<T>(ns: string, key: string): T | undefined {
    const row = this.statements.get.get(ns, key);
    return row === undefined ? undefined : parseRecord<T>(ns, key, row.value);
  }

  /** Reads one record as stored, or undefined: for callers that mend what another program broke. */
  getLenient(ns: string, key: string): { value: unknown } | { invalid: string } | undefined {
    const row = this.statements.get.get(ns, key);
    if (row === undefined) return undefined;
    try {
      return { value: JSON.parse(row.value) as unknown };
    } catch {
      return { invalid: row.value };
    }
  }

  /** Writes one record (insert or replace), atomically. */
  put<T>(ns: string, key: string, value: T): void {
    this.statements.put.run(ns, key, JSON.stringify(value), Date.now());
  }

  /** Deletes one record; returns whether it existed. */
  delete(ns: string, key: string): boolean {
    return this.statements.del.run(ns, key).changes > 0;
  }

  /** Lists the records of a namespace whose keys start with `prefix`, in key order. */
  list<T>(ns: string, prefix = ''): StoreRecord<T>[] {
    return this.statements.list.all(ns, prefix, prefix).map((row) => ({ key: row.key, value: parseRecord<T>(ns, row.key, row.value) }));
  }

  /** Lists a namespace's records, a value that is not JSON as undefined: for callers that mend what another program broke. */
  listLenient(ns: string): Array<{ key: string; value: unknown }> {
    return this.statements.list.all(ns, '', '').map((row) => {
      try {
        return { key: row.key, value: JSON.parse(row.value) as unknown };
      } catch {
        return { key: row.key, value: undefined };
      }
    });
  }

  /**
   * Deletes the records of a namespace whose JSON value has an ISO-8601 UTC timestamp at `field`
   * (e.g. expiresAt) at or before `instant`, in SQLite itself, keeping those where `unlessSet` is
   * set; returns how many were deleted.
   */
  deleteWhereTimestampBefore(ns: string, field: string, instant: Date, options: { unlessSet?: string } = {}): number {
    const keep = options.unlessSet === undefined ? null : `$.${options.unlessSet}`;
    return this.statements.deleteBefore.run(ns, `$.${field}`, instant.toISOString(), keep, keep).changes;
  }

  /** Every record of the store, read in one transaction (a consistent snapshot, for a backup). */
  allRecords(): RawStoreRecord[] {
    // Only the four columns: the binding adds fields of its own to each row (libsql: _metadata).
    return this.transaction(() => this.statements.all.all().map(({ ns, key, value, updatedAt }) => ({ ns, key, value, updatedAt })));
  }

  /** Number of records in the whole store. */
  totalCount(): number {
    return this.statements.total.get()?.n ?? 0;
  }

  /**
   * Replaces every record of the store with `records` (a backup being restored), in one
   * transaction: a crash leaves the store as it was or as restored, never between. Each value
   * is stored as `put` would write it (asWritten).
   */
  replaceAllRecords(records: readonly RawStoreRecord[]): void {
    this.transaction(() => {
      this.statements.clear.run();
      for (const record of records) this.statements.insertRaw.run(record.ns, record.key, asWritten(record.value), record.updatedAt);
    });
  }

  /** Number of records in a namespace. */
  count(ns: string): number {
    return this.statements.count.get(ns)?.n ?? 0;
  }

  /**
   * The records of `ns` whose JSON mentions "AuthBJJCredential" and whose top-level `issuer` is
   * `issuer`, by key, from an index (not a scan of the namespace): every iden3 auth key credential
   * of that issuer is among them; the caller filters them further.
   */
  authKeyCandidates<T>(ns: string, issuer: string): StoreRecord<T>[] {
    return this.statements.authKeys.all(ns, issuer).map((row) => ({ key: row.key, value: parseRecord<T>(ns, row.key, row.value) }));
  }

  /** How many records of the namespace have a key starting with `prefix` (counted by the database, none read). */
  countPrefix(ns: string, prefix: string): number {
    return this.statements.countPrefix.get(ns, prefix, prefix)?.n ?? 0;
  }

  /** Whether the namespace holds a record whose key starts with `prefix` (without reading them all). */
  hasAny(ns: string, prefix = ''): boolean {
    return this.statements.any.get(ns, prefix, prefix) !== undefined;
  }

  /**
   * The record at namespace/key, created by `create` when there is none, in one transaction: two
   * processes asking at once agree on one record (for secrets generated on first use).
   */
  getOrCreate<T>(namespace: string, key: string, create: () => T): T {
    return this.transaction(() => {
      const found = this.get<T>(namespace, key);
      if (found !== undefined) return found;
      const created = create();
      this.put(namespace, key, created);
      return created;
    });
  }

  /** Runs synchronous reads and writes as one atomic transaction (all or nothing). */
  transaction<T>(fn: () => T): T {
    // A transaction inside another is a savepoint: its failure undoes its own writes only.
    const savepoint = this.transactionDepth > 0 ? `nested_${this.transactionDepth}` : undefined;
    this.db.exec(savepoint === undefined ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
    this.transactionDepth += 1;
    try {
      const result = fn();
      // A COMMIT that fails (a full disk) undoes the whole transaction below, as a failing fn does.
      this.db.exec(savepoint === undefined ? 'COMMIT' : `RELEASE ${savepoint}`);
      return result;
    } catch (error) {
      if (savepoint === undefined) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } else {
        this.db.exec(`ROLLBACK TO ${savepoint}`);
        this.db.exec(`RELEASE ${savepoint}`);
      }
      throw error;
    } finally {
      this.transactionDepth -= 1;
    }
  }

  /**
   * Runs an async critical section while holding a named lock shared by every `vc` process on
   * this home. The lock of a process that died holding it is taken over at once when the kernel
   * says it is dead (Linux, same host and network namespace: src/store/lockOwner.ts), otherwise
   * once it has gone stale (10 s without its holder's heartbeat).
   */
  async withLock<T>(name: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    const file = path.join(this.paths.locks, `${name}.lock`);
    /** A lock that cannot be taken for another reason than a holder (a read-only or full disk): said at once. */
    const unusable = (error: unknown): StoreError =>
      new StoreError(`cannot take the lock "${name}" of wallet ${this.paths.home} in ${this.paths.locks}: ${describeError(error)}`, { cause: error });
    try {
      if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    } catch (error) {
      throw unusable(error);
    }
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    // proper-lockfile's default for a lost lock throws from a timer (an uncaught exception that
    // kills the process): remember it and fail the critical section once it returns instead.
    let compromised: Error | undefined;
    const lockOnce = (): Promise<() => Promise<void>> =>
      lockfile.lock(file, {
        fs: lockFs,
        stale: 10_000,
        update: 2_000,
        retries: 0,
        onCompromised: (error) => {
          compromised = error;
        },
      });
    let release: (() => Promise<void>) | undefined;
    let lockName: Awaited<ReturnType<typeof bindLockName>>;
    let lastError: unknown;
    for (;;) {
      // The kernel's name first: while a live process of this namespace holds the lock, it holds
      // the name too, so waiting for the name is waiting for that process.
      lockName = await bindLockName(file);
      if (lockName !== 'taken') {
        try {
          release = await lockOnce();
        } catch (error) {
          lastError = error;
          if ((error as NodeJS.ErrnoException).code === 'ELOCKED' && ownerIsDead(readOwner(file), lockName === undefined ? undefined : abstractLockName(file))) {
            // Its holder bound the name we now hold: it died holding the lock. Take it over.
            rmSync(`${file}.lock`, { recursive: true, force: true });
            try {
              release = await lockOnce();
            } catch (retryError) {
              lastError = retryError;
            }
          }
        }
        if (release !== undefined) break;
        releaseLockName(lockName);
        if ((lastError as NodeJS.ErrnoException | undefined)?.code !== 'ELOCKED') throw unusable(lastError);
      }
      if (Date.now() >= deadline) {
        throw new StoreError(`wallet ${this.paths.home} is busy (lock "${name}" held by another vc process)`, { cause: lastError });
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const identity = ownIdentity();
    try {
      // Inside the try: a record that cannot be written (a full disk) must not leave the lock held.
      if (identity !== undefined) writeOwner(file, lockName === undefined ? { ...identity, bound: false } : { ...identity, bound: true, name: abstractLockName(file) });
      const result = await fn();
      if (compromised !== undefined) {
        const message = `the lock "${name}" of wallet ${this.paths.home} was lost while in use (${compromised.message})`;
        if (options.resultStandsIfLost !== undefined) {
          options.resultStandsIfLost(`${message}; another vc process may have worked on the wallet meanwhile, but this command's work completed`);
          return result;
        }
        throw new StoreError(`${message}; run the command again`, { cause: compromised });
      }
      return result;
    } finally {
      if (identity !== undefined) {
        try {
          writeOwner(file, undefined);
        } catch {
          // a record left behind only delays a takeover to the stale period
        }
      }
      await release().catch(() => undefined);
      releaseLockName(lockName);
    }
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
