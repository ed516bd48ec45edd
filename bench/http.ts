/**
 * HTTP load benchmark of `vc serve`: for a bounded time (default 30 s), autocannon drives the
 * verifier's POST /verify-vc and the holder's POST /generate-selective-disclosure-vc at the same
 * time, against `vc serve --role all` started as a child process on free loopback ports (a
 * separate process, so its memory is measured alone). It reports requests/s and p50/p99 latency
 * per route next to the same operations called in process (median and p99 of sequential calls),
 * the count of failed requests (which must be zero), and the server's RSS before and after.
 *
 * The verified credential carries a holder-chosen nonce, not one issued by the verifier: a
 * verifier nonce is used up by its first successful verification (replay protection), while a
 * holder nonce is only checked, so one credential can be verified again and again.
 *
 * Run: node dist/bench/http.js [seconds]   (or VC_BENCH_HTTP_SECONDS)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../src/core/sd/index.js';
import { median, percentile, round, timeRuns, runIfMain } from './stats.js';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const REVEALED_KEYS = ['id', 'name', 'nationality'];
const VC_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'vc.js');
/** Acceptance: the server's RSS after the run stays within 20% of before. */
const MAX_MEMORY_GROWTH = 1.2;

export interface HttpBenchOptions {
  /** Length of the load run in seconds (default VC_BENCH_HTTP_SECONDS or 30). */
  durationSeconds?: number;
  /** Concurrent connections per route (default 4). */
  connections?: number;
  /** Sequential in-process calls per operation for the baseline (default 30). */
  baselineRuns?: number;
  /** Progress lines (default: stderr). */
  progress?: (line: string) => void;
}

export interface RouteLoad {
  route: string;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface InProcessBaseline {
  runs: number;
  medianMs: number;
  p99Ms: number;
  /** 1000 / median: what one sequential caller achieves. */
  sequentialPerSecond: number;
}

export interface HttpBenchReport {
  benchmark: 'http';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  durationSeconds: number;
  server: { command: string; roles: string[] };
  load: { verify: RouteLoad; disclose: RouteLoad };
  inProcess: { verify: InProcessBaseline; disclose: InProcessBaseline };
  /** Total failed requests (non-2xx answers, connection errors, timeouts), warm-up included; must be 0. */
  failedRequests: number;
  zeroFailedRequests: boolean;
  /** Server log lines per status, counted from its request log (a cross-check of autocannon). */
  serverLoggedStatuses: Record<string, number>;
  memory: {
    /** RSS right after the server started listening (nothing loaded yet). */
    rssAtStartMiB: number;
    /** RSS after ten sequential calls of each route loaded every module they use. */
    rssAfterModulesMiB: number;
    /** Length of the warm-up run of the same load shape (its requests count as failed too when they fail). */
    warmupSeconds: number;
    /** RSS after the warm-up run: the "before". */
    rssBeforeMiB: number;
    rssAfterMiB: number;
    /** rssAfter / rssBefore; acceptance: at most 1.2. */
    ratio: number;
    withinTwentyPercent: boolean;
    /** RSS sampled every second during the run. */
    samplesMiB: number[];
  };
}

/** Resident set size of a process in MiB (Linux /proc, else ps). */
function rssMiB(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb !== undefined) return round(Number(kb) / 1024, 1);
  } catch {
    // Not Linux: fall through to ps.
  }
  return round(Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024, 1);
}

function baseline(durations: number[]): InProcessBaseline {
  const med = median(durations);
  return { runs: durations.length, medianMs: round(med, 2), p99Ms: round(percentile(durations, 99), 2), sequentialPerSecond: round(1000 / med, 1) };
}

interface ServerProcess {
  child: ChildProcess;
  urls: { issuer: string; holder: string; verifier: string };
  statuses: Record<string, number>;
  stop(): Promise<void>;
}

/** Starts `vc serve --role all --port 0` on `home` and resolves with its URLs once listening. */
async function startServerProcess(home: string, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  // cwd is the home so no .env of the checkout is read: the bench controls the configuration.
  const child = spawn(process.execPath, [VC_BIN, '--home', home, 'serve', '--role', 'all', '--port', '0'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const statuses: Record<string, number> = {};
  let stderrTail = '';
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    // One JSON line per request: count statuses; keep a short tail for error reports.
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const status = /"status":(\d{3})/.exec(line)?.[1];
      if (status !== undefined) statuses[status] = (statuses[status] ?? 0) + 1;
      else stderrTail = `${stderrTail}${line}\n`.slice(-2000);
    }
  });
  const urls = await new Promise<ServerProcess['urls']>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`vc serve did not start within 60 s: ${stderrTail}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.includes('"listening"'));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { listening: ServerProcess['urls'] }).listening);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vc serve exited with ${String(code)}: ${stderrTail}`));
    });
  });
  return {
    child,
    urls,
    statuses,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as unknown;
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(parsed).slice(0, 300)}`);
  return parsed;
}

function routeLoad(route: string, result: import('autocannon').Result): RouteLoad {
  return {
    route,
    connections: result.connections,
    requests: result['2xx'] + result.non2xx,
    requestsPerSecond: round((result['2xx'] + result.non2xx) / result.duration, 1),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: round(result.latency.mean, 1), max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** Runs the load test and the in-process baseline; see the file comment. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchReport> {
  const envSeconds = Number(process.env.VC_BENCH_HTTP_SECONDS);
  const durationSeconds = options.durationSeconds ?? (Number.isFinite(envSeconds) && envSeconds > 0 ? envSeconds : 30);
  const connections = options.connections ?? 4;
  const baselineRuns = options.baselineRuns ?? 30;
  const progress = options.progress ?? ((line: string) => process.stderr.write(`[http] ${line}\n`));
  const vars = { IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_TRUSTED_ISSUERS: '*' };
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-http-'));
  let server: ServerProcess | undefined;
  try {
    // In-process baseline first, alone on the machine; it also leaves the holder's credential in
    // the wallet the server then serves.
    progress(`in-process baseline: ${baselineRuns} sequential calls of each operation`);
    const ctx = new Context({ config: parseConfig(vars, home) });
    let inProcess: HttpBenchReport['inProcess'];
    try {
      await issueSelectiveDisclosureCredential(ctx, {});
      const disclose = () => deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: REVEALED_KEYS });
      const { vc } = await disclose();
      const verify = async () => {
        const result = await verifySelectiveDisclosure(ctx, { vc: vc as Record<string, unknown> });
        if (!result.verified) throw new Error(`in-process verification failed: ${result.message}`);
      };
      inProcess = { disclose: baseline(await timeRuns(disclose, baselineRuns, 2)), verify: baseline(await timeRuns(verify, baselineRuns, 2)) };
    } finally {
      await ctx.close();
    }

    progress('starting vc serve --role all --port 0 (child process)');
    server = await startServerProcess(home, { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...vars });
    const rssAtStart = rssMiB(server.child.pid!);

    const discloseUrl = `${server.urls.holder}/generate-selective-disclosure-vc`;
    const verifyUrl = `${server.urls.verifier}/verify-vc`;
    const discloseBody = JSON.stringify({ credentialType: 'PassportCredential', selectiveDisclosureKeys: REVEALED_KEYS });
    const { vc } = (await postJson(discloseUrl, JSON.parse(discloseBody))) as { vc: Record<string, unknown> };
    const verifyBody = JSON.stringify({ vc });
    // Sequential calls first: they load every module and fill the caches the routes use.
    for (let i = 0; i < 10; i++) {
      await postJson(discloseUrl, JSON.parse(discloseBody));
      const verified = (await postJson(verifyUrl, { vc })) as { verified: boolean; message: string };
      if (!verified.verified) throw new Error(`the server did not verify the disclosed credential: ${verified.message}`);
    }
    const rssAfterModules = rssMiB(server.child.pid!);

    const { default: autocannon } = await import('autocannon');
    const load = (url: string, body: string, seconds: number) =>
      autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration: seconds, timeout: 30 });
    // A short run of the same shape first: the heap and the BBS+ WebAssembly memory (which can
    // only grow) reach the size this concurrency needs, so "before" is the steady state and the
    // comparison with "after" shows growth over time, i.e. leaks.
    const warmupSeconds = Math.max(2, Math.min(5, Math.round(durationSeconds / 6)));
    progress(`warm-up: ${warmupSeconds} s of the same load`);
    const warmup = await Promise.all([load(verifyUrl, verifyBody, warmupSeconds), load(discloseUrl, discloseBody, warmupSeconds)]);
    const warmupFailures = warmup.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
    const rssBefore = rssMiB(server.child.pid!);

    progress(`load: ${durationSeconds} s, ${connections} connections on each route, both routes at once`);
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMiB(server!.child.pid!)), 1000);
    let verifyResult: import('autocannon').Result;
    let discloseResult: import('autocannon').Result;
    try {
      [verifyResult, discloseResult] = await Promise.all([load(verifyUrl, verifyBody, durationSeconds), load(discloseUrl, discloseBody, durationSeconds)]);
    } finally {
      clearInterval(sampler);
    }
    const rssAfter = rssMiB(server.child.pid!);

    const verifyLoad = routeLoad('POST /verify-vc', verifyResult);
    const discloseLoad = routeLoad('POST /generate-selective-disclosure-vc', discloseResult);
    const failedRequests = [verifyLoad, discloseLoad].reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0) + warmupFailures;
    const ratio = round(rssAfter / rssBefore, 3);
    progress(`done: verify ${verifyLoad.requestsPerSecond}/s, disclose ${discloseLoad.requestsPerSecond}/s, ${failedRequests} failed, RSS ${rssBefore} -> ${rssAfter} MiB`);
    await server.stop();

    return {
      benchmark: 'http',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      durationSeconds,
      server: { command: 'vc serve --role all --port 0', roles: ['issuer', 'holder', 'verifier'] },
      load: { verify: verifyLoad, disclose: discloseLoad },
      inProcess,
      failedRequests,
      zeroFailedRequests: failedRequests === 0,
      serverLoggedStatuses: { ...server.statuses },
      memory: {
        rssAtStartMiB: rssAtStart,
        rssAfterModulesMiB: rssAfterModules,
        warmupSeconds,
        rssBeforeMiB: rssBefore,
        rssAfterMiB: rssAfter,
        ratio,
        withinTwentyPercent: ratio <= MAX_MEMORY_GROWTH,
        samplesMiB: samples,
      },
    };
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(
  import.meta.url,
  (seconds) => runHttpBench(seconds !== undefined && seconds > 0 ? { durationSeconds: seconds } : {}),
  (report) => !report.zeroFailedRequests,
);
