/**
 * The only module that writes to stdout and stderr. Results are JSON on stdout (pretty on a
 * terminal, compact with --json) or written atomically to `-o FILE` (0600); human summaries,
 * progress and errors go to stderr. --json silences summaries and progress (warnings and errors
 * stay); --quiet silences everything but errors.
 */
import { PATH_ERROR_CODES, writeFailureCode, writeFileAtomicSync } from './store/atomicFile.js';
import { InputError, StoreError, isVcError, redactUrls, type VcError } from './errors.js';
import type { ProgressReporter, ProgressStep } from './context.js';

/** A stream Output writes to: the process' stdout or stderr, or any writable (a test's capture). */
export type OutputStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  stdout?: OutputStream;
  stderr?: OutputStream;
  /** The environment NO_COLOR is read from (default process.env). */
  env?: NodeJS.ProcessEnv;
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
  private readonly stdout: OutputStream;
  private readonly stderr: OutputStream;
  private readonly env: NodeJS.ProcessEnv;
  private chalk: Chalk | undefined;
  /** The live progress line on the terminal while a step runs (set and cleared by its ProgressRenderer). */
  live: ProgressRenderer | undefined;

  constructor(options: OutputOptions) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    this.env = options.env ?? process.env;
  }

  /** Loads chalk (colour only on a terminal); called once at start-up by the entry. */
  async init(): Promise<void> {
    const { Chalk } = await import('chalk');
    this.chalk = new Chalk({ level: this.stderr.isTTY === true && !this.env.NO_COLOR ? 1 : 0 });
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
    options: {
      outFile?: string | undefined;
      summary?: string | undefined;
      text?: ((value: unknown) => string) | undefined;
      lines?: ((value: unknown) => unknown[] | undefined) | undefined;
      /** On a terminal without --json, the summary alone tells the result (vc demo): no JSON there. */
      summaryOnTerminal?: boolean | undefined;
    } = {},
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
      const terminal = this.stdout.isTTY === true;
      if (!(terminal && !this.json && options.summaryOnTerminal === true)) {
        const shown = text ?? (this.json || !terminal ? JSON.stringify(value) : JSON.stringify(value, null, 2));
        this.writeOut(`${shown}\n`);
      }
    }
    if (options.summary !== undefined) this.success(options.summary);
  }

  /** A green line on stderr. */
  success(text: string): void {
    // Summaries are vc's own text (several lines at times); control characters are still escaped.
    if (this.chatty) this.writeErr(`${this.c ? this.c.green('✔') : '✔'} ${terminalSafe(text, 2_000, true)}\n`);
  }

  /** A plain informational line on stderr. */
  info(text: string): void {
    if (this.chatty) this.writeErr(`${this.c ? this.c.dim(text) : text}\n`);
  }

  /** A warning on stderr (shown even with --json, never with --quiet); URLs show their origin only, but for `publicUrls` (public documents' names). */
  warn(text: string, publicUrls: readonly string[] = []): void {
    if (!this.quiet) this.writeErr(`${this.c ? this.c.yellow('warning:') : 'warning:'} ${terminalSafe(redactUrls(text, publicUrls))}\n`);
  }

  /** A failed verification: red summary line (the result itself is on stdout); URLs show their origin only, as in errors (a callback's query may hold an API key). */
  failure(text: string): void {
    if (this.chatty) this.writeErr(`${this.c ? this.c.red('✘') : '✘'} ${terminalSafe(redactUrls(text), 2_000, true)}\n`);
  }

  /**
   * Reports an error: one line for user errors, the stack for internal bugs (always shown). Every
   * URL in it is cut to its origin (RPC_URL and RHS_URL often carry an API key in the path, the
   * query or the user info, and library errors quote them).
   */
  error(error: unknown, renderField: (field: string | undefined) => string | undefined = (field) => field): void {
    // An error ends the command: a spinner still turning would be redrawn below it.
    this.live?.stop();
    const prefix = this.c ? this.c.red('error:') : 'error:';
    if (isVcError(error)) {
      const vcError = error as VcError;
      if (this.json) {
        // One JSON line, the shape of the HTTP error bodies, the field named as this command line names it.
        const field = renderField(vcError.field);
        this.stderr.write(`${JSON.stringify({ error: { code: vcError.code, message: redactUrls(vcError.message, vcError.publicUrls), ...(field === undefined ? {} : { field }) } })}\n`);
        return;
      }
      this.stderr.write(`${prefix} ${terminalSafe(redactUrls(vcError.message, vcError.publicUrls))}\n`);
      if (vcError.details && !this.json) this.stderr.write(`  ${terminalSafe(redactUrls(vcError.details))}\n`);
      return;
    }
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.stderr.write(`${prefix} internal error (this is a bug in vc, please report it):\n${redactUrls(stack)}\n`);
  }

  /** A structured log line (server request logs) on stderr as compact JSON, URLs cut to their origin; silenced by --quiet. */
  log(line: object): void {
    if (!this.quiet) this.writeErr(`${redactUrls(JSON.stringify(line))}\n`);
  }

  /** Raw stderr text for usage messages. */
  raw(text: string): void {
    this.writeErr(text);
  }

  /** Raw stderr text, written as is (the progress renderer's live line). */
  rawErr(text: string): void {
    this.stderr.write(text);
  }

  /** Raw stdout text for help and version output. */
  rawOut(text: string): void {
    this.writeOut(text);
  }

  /** Writes to stdout (on a terminal, the same screen as the live progress line). */
  private writeOut(text: string): void {
    const live = this.live;
    live?.clear();
    this.stdout.write(text);
    live?.draw();
  }

  /**
   * The progress reporter of this command. On a terminal: one live line, a spinner with the step's
   * label, the label of the innermost step running inside it and the elapsed seconds, replaced by
   * the step's outcome (`✔ text (12.3 s)`); a step started inside another never prints its own
   * line. When stderr is not a terminal: a line when a step has run 2 s (`… label`) and one when it
   * ends; a narrated step (vc demo) always prints its outcome. Nothing with --json or --quiet
   * (warnings stay with --json).
   */
  progressReporter(): ProgressReporter {
    const info = (text: string): void => this.info(text);
    const warn = (text: string): void => this.warn(text);
    if (!this.chatty) return { start: () => SILENT_STEP, info, warn };
    // A terminal that reports no width (some pseudo-terminals) cannot hold a live line.
    const terminal = this.stderr.isTTY === true && (this.stderr.columns ?? 0) >= 20;
    const renderer = new ProgressRenderer(this, terminal);
    return { info, warn, start: (text, options) => renderer.start(text, options?.narrate === true) };
  }

  /** Writes to stderr, taking the live progress line off the screen meanwhile so no text is glued to it. */
  writeErr(text: string): void {
    const live = this.live;
    live?.clear();
    this.stderr.write(text);
    live?.draw();
  }

  /** Whether results go to a terminal (a person reads them). */
  get stdoutIsTerminal(): boolean {
    return this.stdout.isTTY === true;
  }

  /** The width of stderr when it is a terminal. */
  get columns(): number {
    return this.stderr.columns ?? 80;
  }

  /** Colours for the progress renderer (none without a terminal or with NO_COLOR). */
  get colours(): Chalk | undefined {
    return this.c;
  }
}

const SILENT_STEP: ProgressStep = { update: () => undefined, succeed: () => undefined, fail: () => undefined };
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** A step running longer than this prints a start line when stderr is not a terminal. */
export const ANNOUNCE_AFTER_MS = 2_000;

interface ActiveStep {
  text: string;
  label: string;
  started: number;
  narrate: boolean;
  announced: boolean;
  done: boolean;
  timer?: NodeJS.Timeout;
}

/** Elapsed time as people read it: 0.4 s, 12.3 s, 1 min 05 s. */
export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** The steps running in one command and their rendering (see Output.progressReporter). */
class ProgressRenderer {
  private readonly active: ActiveStep[] = [];
  private frame = 0;
  private interval: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: Output,
    private readonly terminal: boolean,
  ) {}

  start(text: string, narrate: boolean): ProgressStep {
    const step: ActiveStep = { text, label: text, started: Date.now(), narrate, announced: false, done: false };
    this.active.push(step);
    if (this.terminal) {
      this.spin();
    } else if (this.active.length === 1) {
      step.timer = setTimeout(() => {
        if (step.done || this.active[0] !== step) return;
        step.announced = true;
        this.output.writeErr(`… ${terminalSafe(step.text, 500)}\n`);
      }, ANNOUNCE_AFTER_MS);
      step.timer.unref();
    }
    return {
      update: (t, fraction) => {
        step.label = fraction === undefined ? t : `${t} ${bar(fraction)} ${Math.round(fraction * 100)}%`;
        if (this.terminal && this.interval !== undefined) this.draw();
      },
      succeed: (t) => this.finish(step, true, t),
      fail: (t) => this.finish(step, false, t),
    };
  }

  private finish(step: ActiveStep, ok: boolean, text: string | undefined): void {
    if (step.done) return;
    step.done = true;
    if (step.timer !== undefined) clearTimeout(step.timer);
    const index = this.active.indexOf(step);
    this.active.splice(index, 1);
    if (this.active.length === 0) this.stop();
    // Only the outermost step tells its outcome: the steps inside it were its details.
    if (index !== 0 || !(this.terminal || step.narrate || step.announced)) {
      if (this.interval !== undefined) this.draw();
      return;
    }
    const c = this.output.colours;
    const mark = ok ? (c ? c.green('✔') : '✔') : c ? c.red('✘') : '✘';
    const ms = Date.now() - step.started;
    const lines = terminalSafe(text ?? step.text, 2_000, true).split('\n');
    if (ms >= 1_000) lines[0] = `${lines[0]} ${c ? c.dim(`(${formatElapsed(ms)})`) : `(${formatElapsed(ms)})`}`;
    this.output.writeErr(`${mark} ${lines.join('\n')}\n`);
  }

  private spin(): void {
    if (this.interval !== undefined) {
      this.draw();
      return;
    }
    this.output.live = this;
    this.interval = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.draw();
    }, 80);
    this.interval.unref();
    this.draw();
  }

  /** Draws the live line, cut to the terminal's width so it never wraps (a wrapped line cannot be redrawn). */
  draw(): void {
    const top = this.active[0];
    if (top === undefined) return;
    const inner = this.active.length > 1 ? this.active[this.active.length - 1] : undefined;
    const c = this.output.colours;
    const seconds = Math.floor((Date.now() - top.started) / 1000);
    const elapsed = seconds >= 1 ? ` ${seconds} s` : '';
    let room = Math.max(10, this.output.columns - 1 - 2 - elapsed.length);
    const cut = (text: string): string => {
      const safe = terminalSafe(text, 500);
      const shown = safe.length > room ? `${safe.slice(0, Math.max(0, room - 1))}…` : safe;
      room -= shown.length;
      return shown;
    };
    const label = cut(top.label);
    const detail = inner !== undefined && room > 8 ? cut(` · ${inner.label}`) : '';
    const spinner = FRAMES[this.frame]!;
    this.output.rawErr(`\r\u001b[2K${c ? c.cyan(spinner) : spinner} ${label}${c ? c.dim(detail + elapsed) : detail + elapsed}`);
  }

  /** Takes the live line off the screen (before other text is written). */
  clear(): void {
    this.output.rawErr('\r\u001b[2K');
  }

  /** Stops the spinner and leaves its line empty. */
  stop(): void {
    if (this.interval === undefined) return;
    clearInterval(this.interval);
    this.interval = undefined;
    this.clear();
    if (this.output.live === this) this.output.live = undefined;
  }
}

function bar(fraction: number): string {
  const width = 20;
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}
