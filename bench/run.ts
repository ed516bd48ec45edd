/**
 * Runs the benchmarks and prints one JSON document on stdout: {node, cpu, date, results}. Every
 * bench module present in this directory runs, or only those named on the command line:
 *   node dist/bench/run.js            # all of them
 *   node dist/bench/run.js sd http    # selective disclosure and the HTTP load test
 * Progress goes to stderr. A benchmark that fails is reported as {error} and makes the exit code 1.
 * VC_BENCH_HTTP_SECONDS shortens the HTTP load run (default 30 s).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type BenchModule = Record<string, unknown>;

interface BenchEntry {
  name: string;
  /** What it measures, for --help. */
  description: string;
  /** Calls the module's entry point with its defaults. */
  run: (module: BenchModule) => Promise<unknown>;
  /** A reason the result misses its acceptance criterion, if it does (the run then exits 1). */
  unacceptable?: (result: unknown) => string | undefined;
}

/** Calls the named export of a bench module, failing clearly when it is missing. */
function entry(module: BenchModule, exportName: string): (...args: unknown[]) => Promise<unknown> {
  const fn = module[exportName];
  if (typeof fn !== 'function') throw new Error(`the bench module does not export ${exportName}()`);
  return fn as (...args: unknown[]) => Promise<unknown>;
}

/** The known benchmarks, in the order they run. */
const BENCHES: BenchEntry[] = [
  { name: 'startup', description: 'vc --version and --help start-up vs a bare node start', run: (m) => entry(m, 'runStartupBench')({}) },
  { name: 'sd', description: 'BBS+ sign/derive/verify: vc vs the JSON-LD suite vs the raw library, and bbs-2023 beside BbsBlsSignature2020', run: (m) => entry(m, 'runSdBench')({}) },
  { name: 'sdCost', description: 'BBS+ cost model: sign/derive/verify time against the members and statements of a credential, both suites', run: (m) => entry(m, 'runSdCostBench')({}) },
  {
    name: 'sdCostHttp',
    description: 'vc serve while 4 clients send 900-member bbs-2023 bodies to /credentials/verify (refused), then the largest accepted: /healthz p99',
    run: (m) => entry(m, 'runSdCostHttpBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptance: { met: boolean; healthP99: boolean; oversizedRefused: boolean; acceptedServed: boolean } };
      const { acceptance } = report;
      return acceptance.met ? undefined : `healthz p99 within target ${acceptance.healthP99}, oversized refused ${acceptance.oversizedRefused}, accepted served ${acceptance.acceptedServed}`;
    },
  },
  { name: 'chain', description: 'embedded chain start and contract deployment', run: (m) => entry(m, 'runChainBench')() },
  { name: 'circuits', description: 'circuit build and proving', run: (m) => entry(m, 'runCircuitsBench')({}) },
  {
    name: 'prover',
    description: 'the Groth16 proof alone: vc\'s native prover vs snarkjs in process and the snarkjs CLI, stateTransition, MTPV2OnChain and V3OnChain (16-16-64-16-32)',
    run: (m) => entry(m, 'runProverBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptance: { met: boolean; targetRatioToCli: number }; circuits: Array<{ circuitId: string; ratios: { nativeToSnarkjsCli: number } }> };
      return report.acceptance.met ? undefined : `native/snarkjs CLI ${report.circuits.map((c) => `${c.circuitId} ${c.ratios.nativeToSnarkjsCli}`).join(', ')} (target <= ${report.acceptance.targetRatioToCli})`;
    },
  },
  { name: 'pbq', description: 'proof by query: issue, prove, submit', run: (m) => entry(m, 'runPbqBench')({}) },
  {
    name: 'pbqV3',
    description: 'V3 on chain: signature issuance per credential vs MTP issuance; V3 prove-submit (signature and MTP proofs) split into witness, proof and the rest',
    run: (m) => entry(m, 'runPbqV3Bench')({}),
    unacceptable: (result) => {
      const report = result as { acceptance: { met: boolean }; issuance: { signedMedianMs: number; speedup: number }; signatureProof: { overheadMs: number }; mtpProof: { overheadMs: number } };
      return report.acceptance.met
        ? undefined
        : `signature issuance ${report.issuance.signedMedianMs} ms (x${report.issuance.speedup} faster than MTP), prove-submit minus proving ${report.signatureProof.overheadMs} / ${report.mtpProof.overheadMs} ms`;
    },
  },
  {
    name: 'issuance',
    description: 'iden3 issuance: 100 with --batch vs 5 single; 10 concurrent HTTP issuances vs one',
    run: (m) => entry(m, 'runIssuanceBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptable: boolean; batch: { perCredentialVsSingle: number }; http: { concurrentVsSingle: number; failed: number } };
      return report.acceptable ? undefined : `batch x${report.batch.perCredentialVsSingle} of single, HTTP x${report.http.concurrentVsSingle} (${report.http.failed} failed)`;
    },
  },
  {
    name: 'issuerScale',
    description: 'signature issuance in a fresh wallet vs after 2,000 more credentials (revocation nonces and the auth key found by index)',
    run: (m) => entry(m, 'runIssuerScaleBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptable: boolean; ratio: number; fresh: { medianMs: number }; atScale: { medianMs: number } };
      return report.acceptable ? undefined : `at scale ${report.atScale.medianMs} ms vs fresh ${report.fresh.medianMs} ms: x${report.ratio} (target <= 1.5)`;
    },
  },
  {
    name: 'poseidon',
    description: 'one Poseidon hash (2, 3, 5, 6, 16 inputs): js-crypto vs vc\'s WebAssembly Poseidon, and the WebAssembly one\'s first use in a fresh process',
    run: (m) => entry(m, 'runPoseidonBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptance: { met: boolean; targetRatioTwoInputs: number; targetFirstUseMs: number }; widths: Array<{ inputs: number; ratio: number }>; firstUse: { firstHashMs: number } };
      const two = report.widths.find((w) => w.inputs === 2);
      return report.acceptance.met ? undefined : `2 inputs x${two?.ratio ?? '?'} of js-crypto (target <= ${report.acceptance.targetRatioTwoInputs}), first use ${report.firstUse.firstHashMs} ms (target < ${report.acceptance.targetFirstUseMs} ms)`;
    },
  },
  {
    name: 'proving',
    description: 'vc serve issuing one credential after another (a state-transition proof each): /healthz p99 with proofs on the main thread vs in the prover process',
    run: (m) => entry(m, 'runProvingBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptance: { met: boolean; healthP99TargetMs: number }; proverProcess: { health: { failed: number; latencyMs: { p99: number } } } };
      return report.acceptance.met ? undefined : `/healthz p99 ${report.proverProcess.health.latencyMs.p99} ms while proving (target ${report.acceptance.healthP99TargetMs} ms), ${report.proverProcess.health.failed} failed`;
    },
  },
  {
    name: 'serverEdges',
    description: 'the durations tests no longer assert: slow bodies vs VC_BODY_TIMEOUT, /healthz meanwhile and with a saturated BBS+ pool, the strict JSON parser vs JSON.parse, the cached circuit build, the CLI refusing non-regular files',
    run: (m) => entry(m, 'runServerEdgesBench')({}),
    unacceptable: (result) => {
      const report = result as { acceptance: { problems: string[] } };
      return report.acceptance.problems.length === 0 ? undefined : report.acceptance.problems.join('; ');
    },
  },
  {
    name: 'http',
    description: 'vc serve under load: POST /verify-vc and the holder disclose route at once',
    run: (m) => entry(m, 'runHttpBench')({}),
    unacceptable: (result) => {
      const report = result as {
        failedRequests: number;
        memory: { ratio: number; withinTwentyPercent: boolean };
        health: { latencyMs: { p99: number } };
        throughput: { ratio: number };
        acceptance: { targets: { healthP99Ms: number; minThroughputRatio: number; maxOtherCores: number }; undisturbed: boolean };
        cpuDuringLoad?: { others: number };
        cpuDuringBaseline?: { others: number };
      };
      const { targets } = report.acceptance;
      const problems: string[] = [];
      if (report.failedRequests !== 0) problems.push(`${report.failedRequests} failed requests`);
      if (!report.memory.withinTwentyPercent) problems.push(`server RSS grew by a factor ${report.memory.ratio}`);
      if (!(report.health.latencyMs.p99 < targets.healthP99Ms)) problems.push(`/healthz p99 ${report.health.latencyMs.p99} ms under load (target < ${targets.healthP99Ms} ms)`);
      if (!(report.throughput.ratio >= targets.minThroughputRatio)) problems.push(`throughput ${report.throughput.ratio}x the single-thread in-process rate (target >= ${targets.minThroughputRatio}x)`);
      if (!report.acceptance.undisturbed) problems.push(`the machine was busy with other work (${report.cpuDuringLoad?.others ?? '?'} core during the load, ${report.cpuDuringBaseline?.others ?? '?'} during the baseline; at most ${targets.maxOtherCores}): the figures are not comparable`);
      return problems.length === 0 ? undefined : problems.join('; ');
    },
  },
];

const HERE = path.dirname(fileURLToPath(import.meta.url));

function moduleFile(name: string): string {
  return path.join(HERE, `${name}.js`);
}

function usage(): string {
  const lines = BENCHES.map((b) => `  ${b.name.padEnd(11)}${b.description}${existsSync(moduleFile(b.name)) ? '' : ' (not present)'}`);
  return `usage: node dist/bench/run.js [name...]\n\nbenchmarks:\n${lines.join('\n')}\n\nVC_BENCH_HTTP_SECONDS=N shortens the HTTP load run (default 30).\n`;
}

/** Runs the selected benchmarks and returns the report (one entry per benchmark). */
export async function runBenchmarks(names: string[], progress: (line: string) => void): Promise<{ report: Record<string, unknown>; failed: boolean }> {
  const unknown = names.filter((name) => !BENCHES.some((b) => b.name === name));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')} (known: ${BENCHES.map((b) => b.name).join(', ')})`);
  const selected = BENCHES.filter((b) => (names.length === 0 ? existsSync(moduleFile(b.name)) : names.includes(b.name)));
  const results: Record<string, unknown> = {};
  let failed = false;
  for (const bench of selected) {
    const file = moduleFile(bench.name);
    if (!existsSync(file)) throw new Error(`benchmark ${bench.name} is not built (${file} is missing; run npm run build)`);
    progress(`${bench.name}: running`);
    const started = process.hrtime.bigint();
    try {
      const module = (await import(pathToFileURL(file).href)) as BenchModule;
      const result = await bench.run(module);
      results[bench.name] = result;
      const problem = bench.unacceptable?.(result);
      if (problem !== undefined) failed = true;
      progress(`${bench.name}: done in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s${problem === undefined ? '' : ` (NOT acceptable: ${problem})`}`);
    } catch (error) {
      failed = true;
      results[bench.name] = { error: error instanceof Error ? error.message : String(error) };
      progress(`${bench.name}: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
  const cpus = os.cpus();
  return {
    report: {
      node: process.version,
      cpu: { model: cpus[0]?.model, cores: cpus.length, arch: process.arch, platform: process.platform, totalMemoryMiB: Math.round(os.totalmem() / 2 ** 20) },
      date: new Date().toISOString(),
      results,
    },
    failed,
  };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(usage());
  } else {
    runBenchmarks(args, (line) => process.stderr.write(`[bench] ${line}\n`))
      .then(({ report, failed }) => {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        if (failed) process.exitCode = 1;
      })
      .catch((error: unknown) => {
        process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage()}`);
        process.exitCode = 2;
      });
  }
}
