/**
 * The only module that writes to stdout and stderr. Results are JSON on stdout (pretty on a
 * terminal, compact with --json) or written atomically to `-o FILE` (0600); human summaries,
 * progress and errors go to stderr. --json silences summaries and progress (warnings and errors
 * stay); --quiet silences everything but errors.
 */
import { PATH_ERROR_CODES, writeFailureCode, writeFileAtomicSync } from './store/atomicFile.js';
import { InputError, StoreError, isVcError, redactUrls, type VcError } from './errors.js';
import type { ProgressReporter, ProgressStep } from './context.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

type Chalk = typeof import('chalk').default;

/**
 * Writes an output file (-o) atomically. A path that cannot be written (missing directory, no
 * permission) is the user's input error (exit 2); a full disk or an I/O error stays the writer's
 * StoreError (exit 3). Either way the message names the file and the previous file is unchanged.
 */
export function writeFileAtomic(file: string, data: string, mode = 0o600): void {
  try {
    writeFileAtomicSync(file, data, { mode });
  } catch (error) {
    const code = writeFailureCode(error);
    if (code !== undefined && PATH_ERROR_CODES.has(code)) {
      throw new InputError((error as Error).message, { field: 'output', cause: error });
    }
    throw error;
  }
}

/**
 * One line of text that is safe on a terminal: control characters (escape sequences, carriage
 * returns, newlines) from untrusted input are shown escaped, and overlong text is cut, so what a
 * credential or request contains can neither redraw the screen nor fake another line.
 */
export function terminalSafe(text: string, max = 2_000, keepNewlines = false): string {
  let escaped = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (!keepNewlines) escaped = escaped.replace(/\n/g, '\\n');
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped;
}

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  private readonly stdout: NodeJS.WriteStream;
  private readonly stderr: NodeJS.WriteStream;
  private chalk: Chalk | undefined;

  constructor(options: OutputOptions) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
  }

  /** Loads chalk (colour only on a terminal); called once at start-up by the entry. */
  async init(): Promise<void> {
    const { Chalk } = await import('chalk');
    this.chalk = new Chalk({ level: this.stderr.isTTY && !process.env.NO_COLOR ? 1 : 0 });
  }

  private get c(): Chalk | undefined {
    return this.chalk;
  }

  private get chatty(): boolean {
    return !this.json && !this.quiet;
  }

  /**
   * Emits a command's result: JSON to stdout or to `outFile` (or the command's own text form,
   * unless --json), plus an optional human summary.
   */
  result(
    value: unknown,
    options: { outFile?: string | undefined; summary?: string | undefined; text?: ((value: unknown) => string) | undefined; lines?: ((value: unknown) => unknown[] | undefined) | undefined } = {},
  ): void {
    // JSON Lines are JSON: the same with --json.
    const list = options.lines?.(value);
    const text = list !== undefined ? list.map((item) => JSON.stringify(item)).join('\n') : this.json ? undefined : options.text?.(value);
    if (options.outFile !== undefined) {
      // Results are credentials, proofs and keys: personal data, readable by the owner only.
      try {
        writeFileAtomic(options.outFile, `${text ?? JSON.stringify(value, null, 2)}\n`, 0o600);
      } catch (error) {
        // The command's effect happened (a credential issued, a proof submitted): say so, so a
        // retry does not repeat it, and where to get the result again.
        // (The path was checked before the command ran; it can still vanish or fill up meanwhile.)
        if (!(error instanceof StoreError) && !(error instanceof InputError)) throw error;
        const record = value as { id?: unknown; credential?: { id?: unknown }; credentials?: unknown[]; txId?: unknown } | null;
        const id = typeof record?.credential?.id === 'string' ? record.credential.id : typeof record?.id === 'string' ? record.id : undefined;
        const again =
          id !== undefined
            ? ` (${id}; for an issued iden3 credential, vc issuer credentials --id ${id} prints it again)`
            : Array.isArray(record?.credentials)
              ? ` (${record.credentials.length} credentials issued${typeof record.txId === 'string' ? ` with state transition ${record.txId}` : ''}; vc issuer credentials lists them, --id ID prints each)`
              : '';
        throw new StoreError(`${error.message.replace(/; no file was written$/, '')}; the command itself completed, only its result was not written${again}`, { field: options.outFile, cause: error });
      }
      this.info(`wrote ${options.outFile}`);
    } else {
      const shown = text ?? (this.json || !this.stdout.isTTY ? JSON.stringify(value) : JSON.stringify(value, null, 2));
      this.stdout.write(`${shown}\n`);
    }
    if (options.summary !== undefined) this.success(options.summary);
  }

  /** A green line on stderr. */
  success(text: string): void {
    // Summaries are vc's own text (several lines at times); control characters are still escaped.
    if (this.chatty) this.stderr.write(`${this.c ? this.c.green('✔') : '✔'} ${terminalSafe(text, 2_000, true)}\n`);
  }

  /** A plain informational line on stderr. */
  info(text: string): void {
    if (this.chatty) this.stderr.write(`${this.c ? this.c.dim(text) : text}\n`);
  }

  /** A warning on stderr (shown even with --json, never with --quiet); URLs show their origin only. */
  warn(text: string): void {
    if (!this.quiet) this.stderr.write(`${this.c ? this.c.yellow('warning:') : 'warning:'} ${terminalSafe(redactUrls(text))}\n`);
  }

  /** A failed verification: red summary line (the result itself is on stdout). */
  failure(text: string): void {
    if (this.chatty) this.stderr.write(`${this.c ? this.c.red('✘') : '✘'} ${terminalSafe(text)}\n`);
  }

  /**
   * Reports an error: one line for user errors, the stack for internal bugs (always shown). Every
   * URL in it is cut to its origin (RPC_URL and RHS_URL often carry an API key in the path, the
   * query or the user info, and library errors quote them).
   */
  error(error: unknown, renderField: (field: string | undefined) => string | undefined = (field) => field): void {
    const prefix = this.c ? this.c.red('error:') : 'error:';
    if (isVcError(error)) {
      const vcError = error as VcError;
      if (this.json) {
        // One JSON line, the shape of the HTTP error bodies, the field named as this command line names it.
        const field = renderField(vcError.field);
        this.stderr.write(`${JSON.stringify({ error: { code: vcError.code, message: redactUrls(vcError.message), ...(field === undefined ? {} : { field }) } })}\n`);
        return;
      }
      this.stderr.write(`${prefix} ${terminalSafe(redactUrls(vcError.message))}\n`);
      if (vcError.details && !this.json) this.stderr.write(`  ${terminalSafe(redactUrls(vcError.details))}\n`);
      return;
    }
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.stderr.write(`${prefix} internal error (this is a bug in vc, please report it):\n${redactUrls(stack)}\n`);
  }

  /** A structured log line (server request logs) on stderr as compact JSON, URLs cut to their origin; silenced by --quiet. */
  log(line: object): void {
    if (!this.quiet) this.stderr.write(`${redactUrls(JSON.stringify(line))}\n`);
  }

  /** Raw stderr text for usage messages. */
  raw(text: string): void {
    this.stderr.write(text);
  }

  /** Raw stdout text for help and version output. */
  rawOut(text: string): void {
    this.stdout.write(text);
  }

  /** A progress reporter: ora spinners on a terminal, nothing otherwise. */
  progressReporter(): ProgressReporter {
    // A terminal that reports no width (some pseudo-terminals) makes spinners redraw endlessly.
    const enabled = this.chatty && this.stderr.isTTY === true && (this.stderr.columns ?? 0) >= 20;
    const stderr = this.stderr;
    const info = (text: string): void => this.info(text);
    const warn = (text: string): void => this.warn(text);
    if (!enabled) {
      return { start: () => ({ update: () => undefined, succeed: () => undefined, fail: () => undefined }), info, warn };
    }
    return {
      info,
      warn,
      start(text: string): ProgressStep {
        let spinner: import('ora').Ora | undefined;
        let label = text;
        const pending = import('ora').then(({ default: ora }) => {
          spinner = ora({ text: label, stream: stderr }).start();
        });
        const render = (t: string, fraction?: number): string =>
          fraction === undefined ? t : `${t} ${bar(fraction)} ${Math.round(fraction * 100)}%`;
        return {
          update(t, fraction) {
            label = render(t, fraction);
            if (spinner) spinner.text = label;
          },
          succeed(t) {
            void pending.then(() => spinner?.succeed(t ?? text));
          },
          fail(t) {
            void pending.then(() => spinner?.fail(t ?? text));
          },
        };
      },
    };
  }
}

function bar(fraction: number): string {
  const width = 20;
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}
