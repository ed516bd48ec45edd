/**
 * Start-up time of the `vc` executable (`vc --version`, `vc --help`): heavy modules load lazily,
 * so it should stay close to a bare `node` start. Baseline: `node -e ""` in the same run.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, round, timeRuns, runIfMain } from './stats.js';

const VC_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'vc.js');

function run(args: string[]): void {
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(result.status)}`);
}

/** Median wall time of each command over `runs` runs, and its ratio to a bare node start. */
export async function runStartupBench(options: { runs?: number } = {}): Promise<Record<string, unknown>> {
  const runs = options.runs ?? 15;
  const baseline = median(await timeRuns(() => run(['-e', '']), runs));
  const version = median(await timeRuns(() => run([VC_BIN, '--version']), runs));
  const help = median(await timeRuns(() => run([VC_BIN, 'holder', '--help']), runs));
  return {
    runs,
    baselineNodeMs: round(baseline, 1),
    versionMs: round(version, 1),
    helpMs: round(help, 1),
    versionVsBaseline: round(version / baseline, 2),
    helpVsBaseline: round(help / baseline, 2),
  };
}

runIfMain(import.meta.url, (runs) => runStartupBench({ runs: runs ?? 15 }));
