/**
 * Global setup of every test run: compiles src/ to dist/ incrementally before any test starts, so
 * the tests that spawn the `vc` binary or a worker thread (which run JavaScript from dist/) always
 * run the sources as they are now, never the last build. When no input of the build (bin/, src/,
 * bench/, tsconfig.json, package.json, package-lock.json) changed since the last build that
 * succeeded (this setup's, or tsc's own without errors, as `npm ci` and `npm test` run it first),
 * tsc is not run at all: even a no-op incremental build reads and parses every file (3 to 8
 * seconds on 2 busy cores, before any test could start).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Its modification time is the start of the last build that succeeded (see buildDist). */
const BUILT_MARKER = path.join(ROOT, 'dist', '.test-setup-built');

/** The newest modification time among the build's inputs (every file under its folders, not only .ts: a JSON import counts too). */
function newestInputTime(): number {
  let newest = 0;
  const visit = (entry: string): void => {
    const stat = statSync(entry, { throwIfNoEntry: false });
    if (stat === undefined) return;
    newest = Math.max(newest, stat.mtimeMs, stat.ctimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  for (const input of ['bin', 'src', 'bench', 'tsconfig.json', 'package.json', 'package-lock.json']) visit(path.join(ROOT, input));
  return newest;
}

/** The keys of a build information file of a build without errors or pending work (TypeScript 5.9). */
const CLEAN_BUILD_INFO_KEYS: ReadonlySet<string> = new Set(['fileNames', 'fileIdsList', 'fileInfos', 'root', 'options', 'referencedMap', 'version']);

/**
 * True when dist/ is newer than every input: the marker of this setup's last successful build, or
 * tsc's own dist/.tsbuildinfo (written by `npm run build`, `npm ci`'s prepare) when it records no
 * diagnostic, no pending emit and this TypeScript's version.
 */
function upToDate(): boolean {
  const newest = newestInputTime();
  const marker = statSync(BUILT_MARKER, { throwIfNoEntry: false });
  if (marker !== undefined && marker.mtimeMs > newest) return true;
  const infoFile = path.join(ROOT, 'dist', '.tsbuildinfo');
  const info = statSync(infoFile, { throwIfNoEntry: false });
  if (info === undefined || info.mtimeMs <= newest) return false;
  try {
    const parsed = JSON.parse(readFileSync(infoFile, 'utf8')) as Record<string, unknown>;
    const version = (createRequire(import.meta.url)('typescript/package.json') as { version: string }).version;
    return parsed.version === version && Object.keys(parsed).every((key) => CLEAN_BUILD_INFO_KEYS.has(key));
  } catch {
    return false;
  }
}

export default function buildDist(): void {
  // Both projects list this setup; one build per run is enough.
  if (process.env.VC_TEST_DIST_BUILT === String(process.pid)) return;
  const started = performance.now();
  const startedAt = new Date();
  if (upToDate()) {
    process.env.VC_TEST_DIST_BUILT = String(process.pid);
    process.stderr.write(`[test setup] dist/ up to date: nothing under bin/, src/, bench/ or the configuration changed since the last successful build (checked in ${Math.round(performance.now() - started)} ms)\n`);
    return;
  }
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    // The errors are reported again by the next run's build: no marker of success.
    rmSync(BUILT_MARKER, { force: true });
    // tsc emits even with type errors; the tests may still run, but the errors must be seen.
    process.stderr.write(`\n[test setup] tsc reported errors (dist/ was still written):\n${result.stdout}${result.stderr}\n`);
    if (result.status === null || result.error !== undefined) throw new Error(`tsc did not run: ${String(result.error ?? result.signal)}`);
  } else {
    // Dated when the build began: a file changed while tsc ran is newer, and the next run builds.
    writeFileSync(BUILT_MARKER, '');
    utimesSync(BUILT_MARKER, startedAt, startedAt);
  }
  process.env.VC_TEST_DIST_BUILT = String(process.pid);
  process.stderr.write(`[test setup] dist/ built incrementally in ${Math.round(performance.now() - started)} ms\n`);
}
