/**
 * The log of `vc serve`: one JSON object per line on stderr, whatever writes it (the access log,
 * the start and shutdown messages, warnings, unexpected errors, the chain node's progress), so a
 * log collector never meets a plain-text line.
 */
import type { ProgressReporter } from '../context.js';

export type LogLevel = 'info' | 'warn' | 'error';

/** A line that is not a request's: its time, level and message (and fields of its own). */
export interface ServiceLogLine {
  time: string;
  level: LogLevel;
  message: string;
  [field: string]: unknown;
}

/** Receives every line of the service's log. */
export type LogSink = (line: object) => void;

/** A line of the log, stamped now. */
export function logLine(level: LogLevel, message: string, fields: Record<string, unknown> = {}): ServiceLogLine {
  return { time: new Date().toISOString(), level, message, ...fields };
}

/**
 * A progress reporter that writes log lines: what the operations say while they run (the chain
 * node restarting, an interrupted issuance completed, a warning). Steps (a spinner on the command
 * line: signing, proving) are not logged, as before: one per request would drown the access log.
 */
export function loggingProgress(sink: LogSink): ProgressReporter {
  return {
    start: () => ({ update: () => undefined, succeed: () => undefined, fail: () => undefined }),
    info: (text) => sink(logLine('info', text)),
    warn: (text) => sink(logLine('warn', text)),
  };
}
