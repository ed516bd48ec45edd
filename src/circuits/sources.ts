/**
 * Where the circuit sources, tools and cache live, and the content hash that keys the cache:
 * every circom file a circuit includes (followed recursively, resolved the way circom does), the
 * tool versions and the pipeline's own version.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { packageRoot } from '../paths.js';

const require = createRequire(import.meta.url);

/**
 * Version of this pipeline's output format and setup algorithm; bump it whenever a change must
 * invalidate every cached build.
 */
export const PIPELINE_VERSION = 2;

/** The circuits `vc` builds, by their official circuit ids (the js-sdk's directory names). */
export const PROJECT_CIRCUIT_IDS = ['credentialAtomicQueryMTPV2OnChain', 'stateTransition'] as const;

/**
 * The V3 on-chain query circuit at the parameters the js-sdk picks first (16, 16, 64, 16, 32:
 * issuer and user trees of 16 levels, the GIST of 32), which fits every identity a development
 * chain holds; the official full size (40, 32, 64, 40, 64) is the fallback the js-sdk picks
 * when a tree is deeper.
 */
export const V3_ON_CHAIN_SMALL_CIRCUIT = 'credentialAtomicQueryV3OnChain-16-16-64-16-32';
/** The V3 on-chain query circuit at the official parameters (40, 32, 64, 40, 64). */
export const V3_ON_CHAIN_CIRCUIT = 'credentialAtomicQueryV3OnChain';

/** The auth circuit of iden3comm JWZ tokens (authV2: 40 levels of identity trees, a GIST of 64). */
export const AUTH_V2_CIRCUIT = 'authV2';
/**
 * The off-chain V3 query circuit (iden3comm authorization responses) at the size the js-sdk picks
 * first (issuer and claim trees of 16 levels, 64 values); the official full size (40, 32, 64) is
 * its fallback for deeper trees.
 */
export const V3_SMALL_CIRCUIT = 'credentialAtomicQueryV3-16-16-64';
/** The off-chain V3 query circuit at the official parameters (40, 32, 64). */
export const V3_CIRCUIT = 'credentialAtomicQueryV3';
/** The circuits an iden3comm verifier checks JWZ answers with (each built on demand). */
export const IDEN3COMM_CIRCUIT_IDS = [AUTH_V2_CIRCUIT, V3_SMALL_CIRCUIT, V3_CIRCUIT] as const;
/**
 * The authV3 circuits (authV2's successor, which also takes Ethereum-based identities), at the
 * official size (40, 64) and the small one (8, 32): built by `vc circuits build --circuit ID`, or
 * on first use by an iden3comm answer or verification whose request accepts authV3 only.
 */
export const AUTH_V3_CIRCUIT_IDS = ['authV3', 'authV3-8-32'] as const;

/**
 * Circuits built only when needed (a V3 request or proof, an iden3comm verification, or `vc
 * circuits build --circuit ID`), so the MTP v2 flow and its build time stay as they are.
 */
export const ON_DEMAND_CIRCUIT_IDS = [V3_ON_CHAIN_SMALL_CIRCUIT, V3_ON_CHAIN_CIRCUIT, ...IDEN3COMM_CIRCUIT_IDS, ...AUTH_V3_CIRCUIT_IDS] as const;
export type OnDemandCircuitId = (typeof ON_DEMAND_CIRCUIT_IDS)[number];

/** True when `id` names a circuit built on demand. */
export function isOnDemandCircuit(id: string): id is OnDemandCircuitId {
  return (ON_DEMAND_CIRCUIT_IDS as readonly string[]).includes(id);
}

/** One circuit to build: its id (output directory name) and its main circom file. */
export interface CircuitSource {
  id: string;
  main: string;
}

/** The project root (holding circuits/): vc's package root, under the name the benchmarks use. */
export const projectRoot = packageRoot;

/** The circuits of the project (circuits/<id>.circom), with the on-demand ones named in `extra`. */
export function projectCircuits(extra: readonly OnDemandCircuitId[] = []): CircuitSource[] {
  const root = packageRoot();
  const ids = [...PROJECT_CIRCUIT_IDS, ...ON_DEMAND_CIRCUIT_IDS.filter((id) => extra.includes(id))];
  return ids.map((id) => ({ id, main: path.join(root, 'circuits', `${id}.circom`) }));
}

/** The directory holding circomlib, passed to circom as an include path. */
export function circomLibraryDir(): string {
  return path.dirname(path.dirname(require.resolve('circomlib/package.json')));
}

/** Version of an installed package, found from its entry point (some packages hide package.json). */
export function packageVersion(name: string): string {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === name && parsed.version) return parsed.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the version of ${name}`);
    dir = parent;
  }
}

/**
 * The per-user cache directory of built circuits: VC_CIRCUITS_CACHE, else
 * $XDG_CACHE_HOME/vc/circuits, else ~/.cache/vc/circuits.
 */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.VC_CIRCUITS_CACHE?.trim();
  if (explicit) return path.resolve(explicit);
  const xdg = env.XDG_CACHE_HOME?.trim();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'vc', 'circuits');
}

const INCLUDE_RE = /\binclude\s+"([^"]+)"\s*;/g;

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

/** A source file that is part of a circuit, with a location-independent name and content hash. */
export interface SourceFile {
  /** Absolute path. */
  file: string;
  /** Name used in the hash: relative to the main file's directory, or lib:<path> for libraries. */
  name: string;
  sha256: string;
}

/** What one source file says: its hash and its include targets, as of a size, mtime and inode. */
interface ScannedSource {
  stamp: string;
  sha256: string;
  includes: string[];
}

/**
 * Files already read, by absolute path. Circuit status is asked often (every GET /healthz) and
 * reading, hashing and scanning circomlib's large constant files takes tens of milliseconds of
 * the server's event loop; a file whose size, mtime and inode are unchanged is not read again.
 */
const scanned = new Map<string, ScannedSource>();

function scan(absolute: string): ScannedSource | undefined {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(absolute);
  } catch {
    return undefined;
  }
  const stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  const known = scanned.get(absolute);
  if (known?.stamp === stamp) return known;
  const content = readFileSync(absolute);
  const includes = [...stripComments(content.toString('utf8')).matchAll(INCLUDE_RE)].map((match) => match[1]!);
  const result = { stamp, sha256: createHash('sha256').update(content).digest('hex'), includes };
  if (scanned.size >= 1000) scanned.clear();
  scanned.set(absolute, result);
  return result;
}

/**
 * Every file the circuit includes, recursively. Resolution follows circom: relative to the
 * including file first, then each library directory.
 */
export function collectSources(main: string, libraryDirs: string[]): SourceFile[] {
  const mainDir = path.dirname(path.resolve(main));
  const seen = new Map<string, SourceFile>();
  const visit = (file: string, includedFrom: string | undefined): void => {
    const absolute = path.resolve(file);
    if (seen.has(absolute)) return;
    const source = scan(absolute);
    if (source === undefined) {
      throw new ConfigError(
        includedFrom === undefined ? `circuit source ${absolute} is missing` : `${includedFrom} includes ${file}, which does not exist`,
      );
    }
    const library = libraryDirs.find((dir) => absolute.startsWith(path.resolve(dir) + path.sep));
    const name = library !== undefined && !absolute.startsWith(mainDir + path.sep) ? `lib:${path.relative(library, absolute)}` : path.relative(mainDir, absolute);
    seen.set(absolute, { file: absolute, name: name.split(path.sep).join('/'), sha256: source.sha256 });
    for (const target of source.includes) {
      const candidates = [path.resolve(path.dirname(absolute), target), ...libraryDirs.map((dir) => path.resolve(dir, target))];
      const found = candidates.find((candidate) => existsSync(candidate));
      visit(found ?? candidates[0]!, absolute);
    }
  };
  visit(main, undefined);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Everything that determines a circuit's build output, hashed into its cache key. */
export interface BuildKeyInput {
  circuitId: string;
  sources: Array<{ name: string; sha256: string }>;
  optimisation: string;
  tools: Record<string, string>;
}

/** The versions of the tools whose output ends up in the build. */
export function toolVersions(): Record<string, string> {
  return {
    pipeline: String(PIPELINE_VERSION),
    circom2: packageVersion('circom2'),
    snarkjs: packageVersion('snarkjs'),
    ffjavascript: packageVersion('ffjavascript'),
    solc: packageVersion('solc'),
  };
}

/** The cache key of one circuit build (24 hex characters of a sha256). */
export function buildKey(input: BuildKeyInput): string {
  const canonical = JSON.stringify({
    circuitId: input.circuitId,
    optimisation: input.optimisation,
    tools: Object.entries(input.tools).sort(([a], [b]) => a.localeCompare(b)),
    sources: input.sources.map((s) => [s.name, s.sha256]),
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 24);
}
