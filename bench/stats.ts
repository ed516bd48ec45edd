import path from 'node:path';
import { fileURLToPath } from 'node:url';
/**
 * Small statistics helpers shared by the benchmarks.
 */

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (0..100) of a list of numbers, nearest-rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Runs `fn` `runs` times (after `warmup` untimed runs) and returns each duration in ms. */
export async function timeRuns(fn: () => Promise<unknown> | unknown, runs: number, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const durations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn();
    durations.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return durations;
}

/** Rounds to 3 significant decimals for readable JSON. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * Runs a benchmark module as a script (`node dist/bench/<name>.js [N]`): when `moduleUrl` is the
 * entry point, calls `run` with the optional numeric argument, prints the JSON report on stdout,
 * and sets exit code 1 when it throws or when `failed(report)` says it missed its criterion.
 */
export function runIfMain<R>(moduleUrl: string, run: (arg: number | undefined) => Promise<R>, failed?: (report: R) => boolean): void {
  if (process.argv[1] === undefined || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  const arg = process.argv[2] !== undefined ? Number(process.argv[2]) : undefined;
  run(arg)
    .then((report) => {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      if (failed?.(report) === true) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    });
}
