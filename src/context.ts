/**
 * The Context: everything an operation needs, built once per process and passed down. Heavy
 * pieces (chain client, js-sdk wallets, document loader) are created lazily through `lazy`, so
 * each module owns its own factory without a global singleton, and `close` releases them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from './config/parse.js';
import { WalletStore } from './store/store.js';

/** Progress of one long step; the CLI renders it as a spinner or bar, the server ignores or logs it. */
export interface ProgressStep {
  /** Updates the label, optionally with a completed fraction between 0 and 1. */
  update(text: string, fraction?: number): void;
  succeed(text?: string): void;
  fail(text?: string): void;
}

/** How a step is shown. */
export interface ProgressOptions {
  /**
   * A step of a story told to the user (`vc demo`): its outcome line is printed even when the step
   * was short and stderr is not a terminal (other steps print there only when they last over 2 s).
   */
  narrate?: boolean;
}

export interface ProgressReporter {
  /** Starts a step; a step started while another runs is part of it (the CLI shows it inside the same line). */
  start(text: string, options?: ProgressOptions): ProgressStep;
  /** A short informational line (stderr on the CLI, a log line on the server). */
  info(text: string): void;
  /** Something went wrong without failing the operation (a state file not saved...): shown even with --json. */
  warn?(text: string): void;
}

/** A reporter that shows nothing (tests, servers, non-TTY). */
export const silentProgress: ProgressReporter = {
  start: () => ({ update: () => undefined, succeed: () => undefined, fail: () => undefined }),
  info: () => undefined,
};

/**
 * The key of a service a Context creates once and keeps (the chain client, the js-sdk wiring...):
 * declared once, next to the code that creates the service, so its type travels with it.
 */
export class ServiceKey<T> {
  /** Only for the type checker: what the service is. */
  declare readonly service: T;
  constructor(readonly name: string) {}
}

export interface ContextOptions {
  config: Config;
  progress?: ProgressReporter;
  /** Injected clock, so tests can run deterministically. */
  now?: () => Date;
  /** The environment of the command or server (paths a health answer hides); default process.env. */
  env?: NodeJS.ProcessEnv;
}

export class Context {
  readonly config: Config;
  readonly progress: ProgressReporter;
  readonly now: () => Date;
  readonly env: NodeJS.ProcessEnv;
  private storeInstance: WalletStore | undefined;
  private readonly instances = new Map<string, Promise<unknown>>();
  private readonly closers: Array<() => Promise<void> | void> = [];
  /** The tail of the chain of exclusive sections (see `exclusive`). */
  private exclusiveTail: Promise<unknown> = Promise.resolve();
  /** Set inside an exclusive section, so a nested call runs at once instead of waiting for itself. */
  private readonly insideExclusive = new AsyncLocalStorage<true>();

  constructor(options: ContextOptions) {
    this.config = options.config;
    this.progress = options.progress ?? silentProgress;
    this.now = options.now ?? (() => new Date());
    this.env = options.env ?? process.env;
  }

  /** The wallet store, opened on first use. */
  get store(): WalletStore {
    if (this.storeInstance === undefined) {
      this.storeInstance = WalletStore.open(this.config.home);
      const store = this.storeInstance;
      this.onClose(() => store.close());
    }
    return this.storeInstance;
  }

  /**
   * Returns the instance registered under `key`, creating it with `factory` the first time.
   * Concurrent callers share one creation; a failed creation is forgotten so it can be retried.
   */
  lazy<T>(key: ServiceKey<T>, factory: () => Promise<T>): Promise<T> {
    let instance = this.instances.get(key.name) as Promise<T> | undefined;
    if (instance === undefined) {
      const created = factory();
      instance = created;
      this.instances.set(key.name, created);
      // Only this creation is dropped on failure, never a replacement registered after a forget.
      created.catch(() => this.forget(key, created));
    }
    return instance;
  }

  /**
   * Drops the instance registered under `key`, so the next `lazy` call creates a fresh one (a
   * connection whose server died). With `instance`, only that very entry is dropped: a
   * replacement another caller already started is kept. Returns whether an entry was dropped.
   */
  forget(key: ServiceKey<unknown>, instance?: Promise<unknown>): boolean {
    const current = this.instances.get(key.name);
    if (current === undefined || (instance !== undefined && current !== instance)) return false;
    return this.instances.delete(key.name);
  }

  /** The instance registered under `key` if it was ever requested, without creating it. */
  peek<T>(key: ServiceKey<T>): Promise<T> | undefined {
    return this.instances.get(key.name) as Promise<T> | undefined;
  }

  /**
   * Runs `fn` when no other exclusive section of this context runs, one after another in call
   * order: a server runs mutating operations this way (they share the wallet, the signer's nonces
   * and the prover). A call from inside an exclusive section runs at once (it already holds it).
   * Within one process only; the wallet store's locks order processes.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.insideExclusive.getStore() === true) return fn();
    const run = () => this.insideExclusive.run(true, fn);
    const next = this.exclusiveTail.then(run, run);
    this.exclusiveTail = next.catch(() => undefined);
    return next;
  }

  /** Registers cleanup run by `close`, in reverse order of registration. */
  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  /** Releases everything the context created. Safe to call twice. */
  async close(): Promise<void> {
    while (this.closers.length > 0) {
      const fn = this.closers.pop()!;
      try {
        await fn();
      } catch {
        // Cleanup must not mask the operation's own outcome.
      }
    }
    this.instances.clear();
    this.storeInstance = undefined;
  }
}
