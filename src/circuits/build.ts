/**
 * The circuit build pipeline: circom2 compile -> development Groth16 setup -> verification key
 * -> Solidity verifier compiled with solc, per circuit, cached by content hash in a per-user
 * directory. Output layout is the official circuits directory's (`<dir>/<circuitId>/circuit.wasm`,
 * `circuit_final.zkey`, `verification_key.json`), plus `verifier.sol`, `verifier.json`,
 * `build.json` and the `dev-setup.json` marker of development keys.
 *
 * Cache layout: `<cache>/<circuitId>-<key>/` holds one built circuit; `<cache>/<setKey>/` is the
 * directory handed to the js-sdk, with one symlink per circuit. Builds run in `<cache>/.tmp-*`
 * and are renamed into place, so a killed build never leaves a half entry; a lock file in the
 * cache serialises concurrent builds across processes.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ServiceKey, type Context } from '../context.js';
import { ConfigError, NotFoundError, StoreError, describeError } from '../errors.js';
import { compileCircuit, type CircomOptimisation, type CircuitStatistics, type CompileResult } from './compile.js';
import { writeDevelopmentZkey } from './devSetup.js';
import { chooseProver } from './nativeProver.js';
import { compileVerifier, renderVerifierSource, type VerifierArtifact } from './solidity.js';
import {
  PIPELINE_VERSION,
  AUTH_V3_CIRCUIT_IDS,
  IDEN3COMM_CIRCUIT_IDS,
  ON_DEMAND_CIRCUIT_IDS,
  PROJECT_CIRCUIT_IDS,
  buildKey,
  circomLibraryDir,
  collectSources,
  defaultCacheRoot,
  projectCircuits,
  toolVersions,
  type CircuitSource,
  type OnDemandCircuitId,
} from './sources.js';

export type { VerifierArtifact } from './solidity.js';

/** File names of the official circuits layout (what the js-sdk's FSCircuitStorage reads). */
export const CIRCUIT_FILES = {
  wasm: 'circuit.wasm',
  /** The constraint system: kept beside the wasm so the circuit tests check witnesses against it without compiling again. */
  r1cs: 'circuit.r1cs',
  zkey: 'circuit_final.zkey',
  verificationKey: 'verification_key.json',
  verifierSolidity: 'verifier.sol',
  verifierArtifact: 'verifier.json',
  manifest: 'build.json',
  devMarker: 'dev-setup.json',
} as const;

/** Step durations of one circuit build, in milliseconds. */
export interface BuildTimings {
  compile: number;
  setupFieldArithmetic: number;
  setupGroupMultiplications: number;
  setupWrite: number;
  verificationKey: number;
  solidity: number;
  total: number;
}

/** build.json: what was built from what. */
export interface BuildManifest {
  circuitId: string;
  key: string;
  pipelineVersion: number;
  tools: Record<string, string>;
  optimisation: CircomOptimisation;
  sources: Array<{ name: string; sha256: string }>;
  statistics: CircuitStatistics;
  domainSize: number;
  publicSignals: number;
  timings: BuildTimings;
  builtAt: string;
}

/** One circuit's files in a circuits directory. */
export interface CircuitFiles {
  id: string;
  dir: string;
  /** Paths of the files that exist (undefined = missing). */
  wasm: string | undefined;
  zkey: string | undefined;
  verificationKey: string | undefined;
  verifierSolidity: string | undefined;
  verifierArtifact: string | undefined;
  /** True when all three files the prover and verifier need are present. */
  complete: boolean;
  /** True when the directory carries our dev-setup.json marker (development keys). */
  development: boolean;
  /** The cache key (built circuits only). */
  key: string | undefined;
  /** Constraint counts from the build (built circuits only). */
  statistics: CircuitStatistics | undefined;
  /** Number of public signals, from the verification key. */
  publicSignals: number | undefined;
  /** Step timings of the build that produced the files (built circuits only). */
  timings: BuildTimings | undefined;
}

/** Where the circuit files are and what they are. */
export interface CircuitsInfo {
  /** The directory to hand to the js-sdk (FSCircuitStorage dirname). */
  dir: string;
  /** 'built' = our pipeline's cache; 'configured' = CIRCUITS_PATH, used as is. */
  source: 'built' | 'configured';
  /** True when any circuit carries development keys. */
  development: boolean;
  /** Key of the whole set (the cache directory name), for built circuits. */
  cacheKey: string | undefined;
  cacheRoot: string | undefined;
  circuits: CircuitFiles[];
  /** Ids built by this call (the rest came from the cache). */
  built: string[];
}

export interface BuildOptions {
  /** Rebuild even when the cache has the circuits. */
  force?: boolean;
  /** Cache root; default VC_CIRCUITS_CACHE, $XDG_CACHE_HOME/vc/circuits or ~/.cache/vc/circuits. */
  cacheDir?: string;
  /** Circuits to build; default the project's (circuits/<id>.circom). */
  circuits?: CircuitSource[];
  /** On-demand circuits (V3) to build and include in the set besides the project's default ones. */
  extra?: readonly OnDemandCircuitId[];
  /** circom optimisation level; default O2 (the level the official constraint counts refer to). */
  optimisation?: CircomOptimisation;
}

interface PlannedCircuit {
  source: CircuitSource;
  key: string;
  entryDir: string;
  sources: Array<{ name: string; sha256: string }>;
}

interface BuildPlan {
  cacheRoot: string;
  setKey: string;
  setDir: string;
  optimisation: CircomOptimisation;
  tools: Record<string, string>;
  circuits: PlannedCircuit[];
}

const LOCK_FILE = 'build.lock';

function cpuCount(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/** Runs the tasks with at most `limit` at a time, settling all of them. */
async function settleWithLimit<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<Array<PromiseSettledResult<T>>> {
  const results = new Array<PromiseSettledResult<T>>(tasks.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await tasks[index]!() };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

function planBuild(options: BuildOptions, env: NodeJS.ProcessEnv): BuildPlan {
  const cacheRoot = path.resolve(options.cacheDir ?? defaultCacheRoot(env));
  const optimisation = options.optimisation ?? 'O2';
  const tools = toolVersions();
  const libraries = [circomLibraryDir()];
  const circuits = (options.circuits ?? projectCircuits(options.extra)).map((source) => {
    const sources = collectSources(source.main, libraries).map(({ name, sha256 }) => ({ name, sha256 }));
    const key = buildKey({ circuitId: source.id, sources, optimisation, tools });
    return { source, key, sources, entryDir: path.join(cacheRoot, `${source.id}-${key}`) };
  });
  const setKey = buildKey({
    circuitId: 'set',
    sources: circuits.map((c) => ({ name: c.source.id, sha256: c.key })),
    optimisation,
    tools,
  });
  return { cacheRoot, setKey, setDir: path.join(cacheRoot, setKey), optimisation, tools, circuits };
}

function isComplete(dir: string): boolean {
  return [CIRCUIT_FILES.wasm, CIRCUIT_FILES.r1cs, CIRCUIT_FILES.zkey, CIRCUIT_FILES.verificationKey, CIRCUIT_FILES.manifest].every((f) => existsSync(path.join(dir, f)));
}

function setIsComplete(plan: BuildPlan): boolean {
  return plan.circuits.every((c) => isComplete(path.join(plan.setDir, c.source.id)));
}

/** The plan of the circuit set in use, made once per Context (see circuitsInUseComplete). */
const PLAN_IN_USE_KEY = new ServiceKey<BuildPlan>('circuits.planInUse');

/**
 * Whether the circuit files in use are all there (what a health probe asks, and `vc circuits
 * status` reports as upToDate): CIRCUITS_PATH's, or those of the built set. Making the set's plan
 * walks and stats every source file of every circuit (50-110 ms of a loaded server's event loop,
 * at every probe), so it is made once per Context: the sources of an installed vc do not change
 * under a running server. What is looked at each time is the set's files, as a proof reads them.
 */
export async function circuitsInUseComplete(ctx: Context): Promise<boolean> {
  if (ctx.config.circuitsPath !== undefined) return (await describeConfigured(ctx.config.circuitsPath)).circuits.every((c) => c.complete);
  const plan = await ctx.lazy(PLAN_IN_USE_KEY, () => Promise.resolve(planBuild({}, ctx.env)));
  // The set's files read as every proof reads them (ensureCircuits): a manifest cut short fails
  // the proofs, so it fails the probe too.
  await describeSet(plan, []);
  return setIsComplete(plan);
}

/** Reads what a circuits directory holds for one circuit id. */
export async function describeCircuitFiles(dir: string, id: string): Promise<CircuitFiles> {
  const circuitDir = path.join(dir, id);
  const present = (name: string): string | undefined => (existsSync(path.join(circuitDir, name)) ? path.join(circuitDir, name) : undefined);
  const verificationKey = present(CIRCUIT_FILES.verificationKey);
  let publicSignals: number | undefined;
  if (verificationKey) {
    try {
      publicSignals = (JSON.parse(await readFile(verificationKey, 'utf8')) as { nPublic?: number }).nPublic;
    } catch {
      publicSignals = undefined;
    }
  }
  const manifestPath = present(CIRCUIT_FILES.manifest);
  const manifest = manifestPath ? (JSON.parse(await readFile(manifestPath, 'utf8')) as BuildManifest) : undefined;
  const wasm = present(CIRCUIT_FILES.wasm);
  const zkey = present(CIRCUIT_FILES.zkey);
  return {
    id,
    dir: circuitDir,
    wasm,
    zkey,
    verificationKey,
    verifierSolidity: present(CIRCUIT_FILES.verifierSolidity),
    verifierArtifact: present(CIRCUIT_FILES.verifierArtifact),
    complete: wasm !== undefined && zkey !== undefined && verificationKey !== undefined,
    development: present(CIRCUIT_FILES.devMarker) !== undefined,
    key: manifest?.key,
    statistics: manifest?.statistics,
    publicSignals,
    timings: manifest?.timings,
  };
}

async function describeSet(plan: BuildPlan, built: string[]): Promise<CircuitsInfo> {
  const circuits = await Promise.all(plan.circuits.map((c) => describeCircuitFiles(plan.setDir, c.source.id)));
  return {
    dir: plan.setDir,
    source: 'built',
    development: circuits.some((c) => c.development),
    cacheKey: plan.setKey,
    cacheRoot: plan.cacheRoot,
    circuits,
    built,
  };
}

/** Serialises builds across processes with a lock file in the cache directory. */
async function withCacheLock<T>(cacheRoot: string, fn: () => Promise<T>): Promise<T> {
  const { default: lockfile } = await import('proper-lockfile');
  await mkdir(cacheRoot, { recursive: true });
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(cacheRoot, {
      lockfilePath: path.join(cacheRoot, LOCK_FILE),
      // A first build takes minutes: wait up to an hour for another process's build.
      retries: { retries: 1800, factor: 1, minTimeout: 2000, maxTimeout: 2000 },
      // The lock is refreshed every 10 s; CPU-heavy steps run in worker threads and child
      // processes, so the refresh timer keeps running during them.
      stale: 60_000,
      update: 10_000,
      onCompromised: (error) => {
        compromised = error;
      },
    });
  } catch (error) {
    throw new StoreError(`cannot lock the circuits cache ${cacheRoot}: ${describeError(error)}`, { cause: error });
  }
  try {
    const result = await fn();
    if (compromised) throw new StoreError(`the circuits cache lock was lost during the build: ${compromised.message}`);
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}

/** Removes build directories left by killed builds (only called while holding the lock). */
async function removeLeftovers(cacheRoot: string): Promise<void> {
  for (const name of await readdir(cacheRoot)) {
    if (name.startsWith('.tmp-')) await rm(path.join(cacheRoot, name), { recursive: true, force: true });
  }
}

interface CompiledInTemp {
  tmp: string;
  compileDir: string;
  compiled: CompileResult;
}

/** Compiles one circuit into a fresh temp directory of the cache (removed again on failure). */
async function compileInTemp(plan: BuildPlan, circuit: PlannedCircuit): Promise<CompiledInTemp> {
  const tmp = path.join(plan.cacheRoot, `.tmp-${circuit.source.id}-${randomBytes(6).toString('hex')}`);
  const compileDir = path.join(tmp, 'compile');
  await mkdir(compileDir, { recursive: true });
  try {
    const compiled = await compileCircuit({
      source: circuit.source.main,
      outDir: compileDir,
      includePaths: [circomLibraryDir()],
      optimisation: plan.optimisation,
      circuitId: circuit.source.id,
    });
    await copyFile(compiled.wasmPath, path.join(tmp, CIRCUIT_FILES.wasm));
    await copyFile(compiled.r1csPath, path.join(tmp, CIRCUIT_FILES.r1cs));
    return { tmp, compileDir, compiled };
  } catch (error) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** Runs the setup and verifier export of a compiled circuit and renames it to its cache entry. */
async function finishBuild(ctx: Context, plan: BuildPlan, circuit: PlannedCircuit, { tmp, compileDir, compiled }: CompiledInTemp, nativeBinary: string | undefined): Promise<void> {
  const { id } = circuit.source;
  const step = ctx.progress.start(`circuit ${id}: development trusted setup`);
  const started = Date.now() - compiled.milliseconds;
  try {
    const zkeyPath = path.join(tmp, CIRCUIT_FILES.zkey);
    const setup = await writeDevelopmentZkey({
      r1csPath: compiled.r1csPath,
      zkeyPath,
      ...(nativeBinary === undefined ? {} : { nativeBinary }),
      onProgress: (text, fraction) => step.update(`circuit ${id}: ${text}`, fraction),
    });

    step.update(`circuit ${id}: verification key and Solidity verifier`);
    const vkStarted = Date.now();
    const moduleName: string = 'snarkjs';
    const snarkjs = (await import(moduleName)) as { zKey: { exportVerificationKey(zkey: string): Promise<unknown> } };
    const verificationKey = await snarkjs.zKey.exportVerificationKey(zkeyPath);
    await writeFile(path.join(tmp, CIRCUIT_FILES.verificationKey), `${JSON.stringify(verificationKey, null, 1)}\n`);
    const solidityStarted = Date.now();
    const { source, contractName } = await renderVerifierSource(id, zkeyPath, setup.nPublic);
    await writeFile(path.join(tmp, CIRCUIT_FILES.verifierSolidity), source);
    const artifact = compileVerifier(source, contractName, setup.nPublic, true);
    await writeFile(path.join(tmp, CIRCUIT_FILES.verifierArtifact), `${JSON.stringify(artifact)}\n`);
    const finished = Date.now();

    const manifest: BuildManifest = {
      circuitId: id,
      key: circuit.key,
      pipelineVersion: PIPELINE_VERSION,
      tools: plan.tools,
      optimisation: plan.optimisation,
      sources: circuit.sources,
      statistics: compiled.statistics,
      domainSize: setup.domainSize,
      publicSignals: setup.nPublic,
      timings: {
        compile: compiled.milliseconds,
        setupFieldArithmetic: setup.milliseconds.fieldArithmetic,
        setupGroupMultiplications: setup.milliseconds.groupMultiplications,
        setupWrite: setup.milliseconds.write,
        verificationKey: solidityStarted - vkStarted,
        solidity: finished - solidityStarted,
        total: finished - started,
      },
      builtAt: new Date().toISOString(),
    };
    await writeFile(path.join(tmp, CIRCUIT_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeFile(
      path.join(tmp, CIRCUIT_FILES.devMarker),
      `${JSON.stringify(
        {
          development: true,
          warning: 'DEVELOPMENT KEYS: produced by vc\'s one-process trusted setup; whoever ran the build could forge proofs. Never use them on a public network.',
          secrets: 'tau, alpha, beta and delta drawn from crypto.randomBytes for this build, never written anywhere',
          zkeyCircuitHash: `blake2b-512 of the circuit's r1cs: ${setup.circuitHash}`,
          contributions: 0,
          createdAt: manifest.builtAt,
        },
        null,
        2,
      )}\n`,
    );
    await rm(compileDir, { recursive: true, force: true });
    await rm(circuit.entryDir, { recursive: true, force: true });
    await rename(tmp, circuit.entryDir);
    step.succeed(`circuit ${id}: built in ${((Date.now() - started) / 1000).toFixed(1)} s (${compiled.statistics.constraints} constraints)`);
  } catch (error) {
    step.fail(`circuit ${id}: build failed`);
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** Points `<setDir>/<id>` at each circuit's cache entry, replacing the set directory atomically. */
async function assembleSet(plan: BuildPlan): Promise<void> {
  const tmp = path.join(plan.cacheRoot, `.tmp-set-${randomBytes(6).toString('hex')}`);
  await mkdir(tmp);
  for (const circuit of plan.circuits) {
    await symlink(path.relative(plan.setDir, circuit.entryDir), path.join(tmp, circuit.source.id), 'dir');
  }
  await rm(plan.setDir, { recursive: true, force: true });
  await rename(tmp, plan.setDir);
}

async function runBuild(ctx: Context, plan: BuildPlan, force: boolean): Promise<CircuitsInfo> {
  return withCacheLock(plan.cacheRoot, async () => {
    await removeLeftovers(plan.cacheRoot);
    const pending = plan.circuits.filter((circuit) => force || !isComplete(circuit.entryDir));
    const built: string[] = [];
    if (pending.length > 0) {
      // circom is single-threaded: compile the circuits side by side (one per core), then run
      // the setups, which use every core themselves, one after the other.
      const step = ctx.progress.start(`compiling ${pending.map((c) => c.source.id).join(', ')} with circom2 (--${plan.optimisation})`);
      // The native prover meanwhile (g++, once per cache): its fixed-base mode makes the setups'
      // points with a fifth of the WebAssembly combs' work. Unavailable (no compiler, a failed
      // build, VC_PROVER=snarkjs), the setups use the WebAssembly combs.
      const setupProver = chooseProver(ctx.env, { build: true }).then(
        (choice) => (choice.prover === 'native' ? choice.binary : undefined),
        () => undefined,
      );
      const settled = await settleWithLimit(pending.map((circuit) => () => compileInTemp(plan, circuit)), cpuCount());
      const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) {
        step.fail('circom compilation failed');
        await Promise.all(settled.map((r) => (r.status === 'fulfilled' ? rm(r.value.tmp, { recursive: true, force: true }) : undefined)));
        throw failure.reason;
      }
      step.succeed(`compiled ${pending.map((c) => c.source.id).join(', ')}`);
      const compiled = settled.map((r) => (r as PromiseFulfilledResult<CompiledInTemp>).value);
      const nativeBinary = await setupProver;
      for (const [i, circuit] of pending.entries()) {
        try {
          await finishBuild(ctx, plan, circuit, compiled[i]!, nativeBinary);
        } catch (error) {
          for (const rest of compiled.slice(i + 1)) await rm(rest.tmp, { recursive: true, force: true }).catch(() => undefined);
          throw error;
        }
        built.push(circuit.source.id);
      }
    }
    if (built.length > 0 || !setIsComplete(plan)) await assembleSet(plan);
    return describeSet(plan, built);
  });
}

/** Builds the circuits (compile, development setup, verifier) unless cached; `force` rebuilds. */
export async function buildCircuits(ctx: Context, options: BuildOptions = {}): Promise<CircuitsInfo> {
  if (ctx.config.circuitsPath !== undefined && options.circuits === undefined) {
    throw new ConfigError(`CIRCUITS_PATH is set (${ctx.config.circuitsPath}): vc uses those circuit files as they are; unset it to build its own`, {
      field: 'CIRCUITS_PATH',
    });
  }
  return runBuild(ctx, planBuild(options, ctx.env), options.force === true);
}

/** Describes CIRCUITS_PATH (official files, used as is) for the project's circuit ids and the on-demand ones asked for. */
async function describeConfigured(dir: string, extra: readonly OnDemandCircuitId[] = []): Promise<CircuitsInfo> {
  const resolved = path.resolve(dir);
  if (!existsSync(resolved) || !(await stat(resolved)).isDirectory()) {
    throw new ConfigError(`CIRCUITS_PATH=${dir}: not a directory`, { field: 'CIRCUITS_PATH' });
  }
  const ids = [...PROJECT_CIRCUIT_IDS, ...ON_DEMAND_CIRCUIT_IDS.filter((id) => extra.includes(id))];
  const circuits = await Promise.all(ids.map((id) => describeCircuitFiles(resolved, id)));
  return { dir: resolved, source: 'configured', development: circuits.some((c) => c.development), cacheKey: undefined, cacheRoot: undefined, circuits, built: [] };
}

/**
 * The circuit files every proving or verifying command needs: CIRCUITS_PATH as is when
 * configured, otherwise the project's circuits, built on first use and cached. Memoised per Context.
 */
export function ensureCircuits(ctx: Context, options: BuildOptions = {}): Promise<CircuitsInfo> {
  const configured = ctx.config.circuitsPath;
  if (configured !== undefined && options.circuits === undefined) {
    const extra = options.extra ?? [];
    return ctx.lazy(new ServiceKey<CircuitsInfo>(`circuits.info${extra.length === 0 ? '' : `+${[...extra].sort().join('+')}`}`), async () => {
      const info = await describeConfigured(configured, extra);
      const missing = info.circuits.filter((c) => !c.complete).map((c) => c.id);
      if (missing.length > 0) {
        throw new ConfigError(`CIRCUITS_PATH=${configured} lacks ${missing.join(', ')} (expected <dir>/<circuitId>/circuit.wasm, circuit_final.zkey, verification_key.json)`, {
          field: 'CIRCUITS_PATH',
        });
      }
      return info;
    });
  }
  const extraKey = options.extra === undefined || options.extra.length === 0 ? '' : `+${[...options.extra].sort().join('+')}`;
  const lazyKey =
    options.circuits === undefined && options.cacheDir === undefined
      ? `circuits.info${extraKey}`
      : `circuits.info:${options.cacheDir ?? ''}:${(options.circuits ?? []).map((c) => c.id).join(',')}${extraKey}`;
  return ctx.lazy(new ServiceKey<CircuitsInfo>(lazyKey), async () => {
    const plan = planBuild(options, ctx.env);
    // Fast path without the lock: entries only ever appear by atomic rename.
    if (options.force !== true && setIsComplete(plan)) return describeSet(plan, []);
    return runBuild(ctx, plan, options.force === true);
  });
}

/** What status says of a circuit built only on demand (V3): whether the cache holds it. */
export interface OnDemandCircuitStatus extends CircuitFiles {
  /** How to build it. */
  build: string;
}

/** Status without building: where the files are (or would be), keys, counts, dev or official. */
export async function circuitsStatus(ctx: Context, options: BuildOptions = {}): Promise<CircuitsInfo & { upToDate: boolean; onDemand: OnDemandCircuitStatus[] }> {
  const buildHint = (id: string): string => {
    if ((AUTH_V3_CIRCUIT_IDS as readonly string[]).includes(id)) return `built by the first iden3comm answer or verification of a request accepting authV3 only, or \`vc circuits build --circuit ${id}\``;
    return `built by the first ${(IDEN3COMM_CIRCUIT_IDS as readonly string[]).includes(id) ? 'vc verifier verify (iden3comm)' : 'V3 request or proof'}, or \`vc circuits build --circuit ${id}\``;
  };
  if (ctx.config.circuitsPath !== undefined && options.circuits === undefined) {
    const info = await describeConfigured(ctx.config.circuitsPath);
    const onDemand = await Promise.all(ON_DEMAND_CIRCUIT_IDS.map(async (id) => ({ ...(await describeCircuitFiles(path.resolve(ctx.config.circuitsPath!), id)), build: `official files in CIRCUITS_PATH/${id}` })));
    return { ...info, upToDate: info.circuits.every((c) => c.complete), onDemand };
  }
  const plan = planBuild(options, ctx.env);
  const info = await describeSet(plan, []);
  // Report the planned keys even for circuits not built yet.
  info.circuits = info.circuits.map((c, i) => ({ ...c, key: c.key ?? plan.circuits[i]!.key }));
  const onDemand: OnDemandCircuitStatus[] = [];
  if (options.circuits === undefined) {
    // Each on-demand circuit is read from its own cache entry (the set directory holds the default ones).
    const inUse = new Set(plan.circuits.map((c) => c.source.id));
    const all = planBuild({ ...options, extra: ON_DEMAND_CIRCUIT_IDS }, ctx.env);
    for (const circuit of all.circuits.filter((c) => !inUse.has(c.source.id))) {
      const files = await describeCircuitFiles(path.dirname(circuit.entryDir), path.basename(circuit.entryDir));
      onDemand.push({ ...files, id: circuit.source.id, key: circuit.key, build: buildHint(circuit.source.id) });
    }
  }
  return { ...info, upToDate: setIsComplete(plan), onDemand };
}

/** The compiled Solidity verifier of a circuit, for the chain code to deploy. */
export async function loadVerifierArtifact(ctx: Context, circuitId: string, options: BuildOptions = {}): Promise<VerifierArtifact> {
  const info = await ensureCircuits(ctx, options);
  const circuit = info.circuits.find((c) => c.id === circuitId);
  if (!circuit) throw new NotFoundError(`no circuit ${circuitId} (known: ${info.circuits.map((c) => c.id).join(', ')})`);
  if (!circuit.verifierArtifact) {
    throw new NotFoundError(
      `${circuit.dir} has no ${CIRCUIT_FILES.verifierArtifact}: official circuit files come without a compiled verifier; use the official verifier contracts (@iden3/contracts) instead`,
    );
  }
  const artifact = JSON.parse(await readFile(circuit.verifierArtifact, 'utf8')) as VerifierArtifact;
  return { ...artifact, development: circuit.development };
}

/**
 * The on-demand circuits (V3) already at hand without building: complete in the cache (or in
 * CIRCUITS_PATH). Deployments include their verifiers, so a V3 proof later needs no redeployment.
 */
export async function availableOnDemandCircuits(ctx: Context): Promise<OnDemandCircuitId[]> {
  if (ctx.config.circuitsPath !== undefined) {
    const dir = path.resolve(ctx.config.circuitsPath);
    const found = await Promise.all(ON_DEMAND_CIRCUIT_IDS.map(async (id) => ((await describeCircuitFiles(dir, id)).complete ? id : undefined)));
    return found.filter((id): id is OnDemandCircuitId => id !== undefined);
  }
  const plan = planBuild({ extra: ON_DEMAND_CIRCUIT_IDS }, ctx.env);
  return plan.circuits.filter((c) => (ON_DEMAND_CIRCUIT_IDS as readonly string[]).includes(c.source.id) && isComplete(c.entryDir)).map((c) => c.source.id as OnDemandCircuitId);
}
