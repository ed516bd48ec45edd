/**
 * Parsing of configuration: pure. Takes the merged variables (environment over .env file) and
 * returns one typed Config with defaults, or throws one ConfigError listing every problem.
 */
import { checkSeedPhrase } from './seedPhrase.js';
import { ConfigError } from '../errors.js';

/** The chain id of the embedded local development network. */
export const LOCAL_CHAIN_ID = 152;
/** Chain ids treated as local development chains (dev verifiers may be deployed there). */
export const DEV_CHAIN_IDS: readonly number[] = [LOCAL_CHAIN_ID, 31337, 1337];
/**
 * Default CONFIRMATIONS on a chain that is not a development chain: a transaction is reported done
 * once 10 blocks hold it (as the issuer-node waits for its confirmation block count), so a short
 * reorganisation does not take back what vc reported.
 */
export const PUBLIC_CHAIN_CONFIRMATIONS = 10;

/**
 * The DID network (`<blockchain>:<network>`) of each chain id @iden3/js-iden3-core knows for the
 * polygonid method (a test checks this table against the library's). Any other chain needs
 * NETWORK_NAME, except development chains, which get a network of their own.
 */
export const KNOWN_CHAIN_DID_NETWORKS: Readonly<Record<number, string>> = {
  1: 'eth:main',
  11155111: 'eth:sepolia',
  137: 'polygon:main',
  80002: 'polygon:amoy',
  1101: 'polygon:zkevm',
  2442: 'polygon:cardona',
  21000: 'privado:main',
  21001: 'privado:test',
  59144: 'linea:main',
  59141: 'linea:sepolia',
  45056: 'billions:main',
  6913: 'billions:test',
  8453: 'base:main',
  84532: 'base:sepolia',
  56: 'bnb:main',
  97: 'bnb:test',
};

/**
 * The DID network of a chain when NETWORK_NAME is not set: the embedded chain's `polygon:local`,
 * `polygon:dev<id>` for another development chain (its own network, so its DIDs never pass for
 * another chain's), the library's network for a chain it knows, else undefined.
 */
export function defaultDidNetwork(chainId: number): { blockchain: string; network: string } | undefined {
  if (chainId === LOCAL_CHAIN_ID) return { blockchain: 'polygon', network: 'local' };
  if (DEV_CHAIN_IDS.includes(chainId)) return { blockchain: 'polygon', network: `dev${chainId}` };
  const known = KNOWN_CHAIN_DID_NETWORKS[chainId];
  if (known === undefined) return undefined;
  const [blockchain, network] = known.split(':') as [string, string];
  return { blockchain, network };
}

export interface ChainConfig {
  /** Chain id; 152 for the embedded node. */
  chainId: number;
  /** DID blockchain segment (e.g. polygon, privado). */
  didBlockchain: string;
  /** DID network segment (e.g. amoy, main, local). */
  didNetwork: string;
  /** JSON-RPC endpoint; undefined means the embedded local node managed by `vc`. */
  rpcUrl: string | undefined;
  /** Private key of the wallet that signs transactions; undefined means the local dev account. */
  walletKey: string | undefined;
  /** State contract (STATE_CONTRACT_ADDRESS). */
  stateContractAddress: string | undefined;
  /** Poseidon library / hashing contract (POSEIDON_ADDRESS). */
  poseidonAddress: string | undefined;
  /** CredentialAtomicQueryMTPV2Validator (MTP_ADDRESS). */
  mtpValidatorAddress: string | undefined;
  /** UniversalVerifier contract the holder submits proofs to (BSC_ADDRESS). */
  verifierAddress: string | undefined;
  /** CredentialAtomicQueryV3StableValidator (V3_ADDRESS): V3 requests on an external chain. */
  v3ValidatorAddress: string | undefined;
  /** IdentityTreeStore, the on-chain reverse hash service (IDENTITY_TREE_STORE_ADDRESS): `--status onchain` on an external chain. */
  identityTreeStoreAddress: string | undefined;
  /**
   * VC_CHAIN_IDLE_MINUTES: minutes without a request from vc after which the embedded node stops
   * itself, its state saved (0: never; `vc chain up` keeps it up until `vc chain down`).
   */
  nodeIdleMinutes: number;
  /**
   * CONFIRMATIONS: blocks a transaction must have (its own included) before vc reports it done.
   * 1 on development chains (the embedded node saves every block before showing it), more on others.
   */
  confirmations: number;
}

export interface ServerConfig {
  /** PORT: overrides the role's default port when a single role is served. */
  port: number | undefined;
  host: string;
  /** VC_API_TOKEN: bearer token required on every route but /healthz when set. */
  apiToken: string | undefined;
  /** VC_BODY_LIMIT: maximum request body size in bytes. */
  bodyLimit: number;
  /** VC_BODY_TIMEOUT: seconds within which a whole request (headers and body) must arrive. */
  bodyTimeoutSeconds: number;
  /** VC_CORS_ORIGIN: allowed CORS origin; CORS is off when undefined. */
  corsOrigin: string | undefined;
  /**
   * VC_WORKERS: worker threads running the BBS+ work of `vc serve` (0: on the main thread, as the
   * commands do, proofs included; otherwise proofs run in a prover process of their own); undefined
   * means one per core (`os.availableParallelism()`).
   */
  workers: number | undefined;
}

export interface Config {
  /** The wallet/data directory. */
  home: string;
  chain: ChainConfig;
  /** RHS_URL: reverse hash service; undefined means the embedded one. */
  rhsUrl: string | undefined;
  /** CIRCUITS_PATH: directory of circuit files; undefined means the project's own built circuits. */
  circuitsPath: string | undefined;
  issuer: {
    /** IDP_BLS_SIGN_SEED_PHRASE (secret: never print). */
    blsSeedPhrase: string | undefined;
    /** ISSUER_DID: selects an existing issuer identity in the wallet. */
    did: string | undefined;
    /**
     * VC_ISSUER_URL: the issuer service's public base URL. Status list credentials are named
     * `${VC_ISSUER_URL}/status-lists/<id>`, and a verifier fetches status lists from it only when
     * it is on this machine (loopback). Undefined: the served issuer's own address, or
     * http://127.0.0.1:3000 from the command line.
     */
    publicUrl: string | undefined;
  };
  verifier: {
    /** VC_TRUSTED_ISSUERS: issuer DIDs / verification methods trusted for BBS+ credentials, or ['*']. */
    trustedIssuers: string[];
    /** VC_REQUIRE_NONCE: every verification requires a nonce this verifier issued (a request cannot lift it). */
    requireNonce: boolean;
  };
  server: ServerConfig;
}

export type RawVariables = Partial<Record<string, string | undefined>>;

/** Most worker threads VC_WORKERS may ask for (each holds its own BBS+ libraries, about 40 MiB). */
export const MAX_WORKERS = 64;

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const PRIVATE_KEY_RE = /^(0x)?[0-9a-fA-F]{64}$/;
const NAME_RE = /^[a-z0-9][a-z0-9_-]*$/i;

class Problems {
  readonly list: string[] = [];
  add(name: string, value: string, expected: string, secret = false): void {
    const shown = secret ? '(hidden)' : JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
    this.list.push(`${name}=${shown}: expected ${expected}`);
  }
}

function text(vars: RawVariables, name: string): string | undefined {
  const value = vars[name];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function integer(vars: RawVariables, name: string, problems: Problems, min: number, max: number): number | undefined {
  const value = text(vars, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    problems.add(name, value, `an integer from ${min} to ${max}`);
    return undefined;
  }
  return Number(value);
}

/** A non-negative decimal number (`0.5`, `30`) from 0 to max. */
function decimal(vars: RawVariables, name: string, problems: Problems, max: number): number | undefined {
  const value = text(vars, name);
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) > max) {
    problems.add(name, value, `a number of minutes from 0 to ${max} (0: never; decimals allowed, e.g. 0.5)`);
    return undefined;
  }
  return Number(value);
}

/** Default of VC_CHAIN_IDLE_MINUTES. */
export const DEFAULT_NODE_IDLE_MINUTES = 30;

function boolean(vars: RawVariables, name: string, problems: Problems): boolean | undefined {
  const value = text(vars, name);
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (lower !== 'true' && lower !== 'false') {
    problems.add(name, value, 'true or false');
    return undefined;
  }
  return lower === 'true';
}

function address(vars: RawVariables, name: string, problems: Problems): string | undefined {
  const value = text(vars, name);
  if (value === undefined) return undefined;
  if (!ADDRESS_RE.test(value)) {
    problems.add(name, value, 'a 0x-prefixed 20-byte hex address');
    return undefined;
  }
  return value;
}

/**
 * A URL variable in its one normal form (`scheme://host/path`, lower-case scheme and host, no
 * trailing slash), so that everything printing it later recognises it as a URL and masks it.
 * Spellings URL parsers repair (`http:/host`, `https:host`, backslashes) are refused, and a
 * refused value is never echoed: these URLs often carry an API key.
 */
function url(vars: RawVariables, name: string, problems: Problems, protocols: string[]): string | undefined {
  const value = text(vars, name);
  if (value === undefined) return undefined;
  const expected = `a URL such as ${protocols[protocols.length - 1]!.replace(':', '')}://host/path (${protocols.map((p) => p.replace(':', '')).join(', ')})`;
  try {
    const parsed = new URL(value);
    if (!protocols.includes(parsed.protocol) || !new RegExp(`^${parsed.protocol}//[^/\\\\]`, 'i').test(value) || value.includes('\\')) throw new Error('form');
    return parsed.href.replace(/\/+$/, '');
  } catch {
    problems.add(name, value, expected, true);
    return undefined;
  }
}

/**
 * A base URL that other URLs are made from by appending a path (VC_ISSUER_URL: its status lists are
 * `${base}/status-lists/<id>`, signed into every credential): http or https, with neither user
 * nor password (they would be signed into credentials), query nor fragment (a path appended
 * after them would not be a path).
 */
function baseUrl(vars: RawVariables, name: string, problems: Problems): string | undefined {
  const value = url(vars, name, problems, ['http:', 'https:']);
  if (value === undefined) return undefined;
  const parsed = new URL(value);
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '' || value.includes('?') || value.includes('#')) {
    problems.add(name, text(vars, name)!, 'a base URL such as https://issuer.example/vc: http or https, without user, password, query or fragment (it is signed into credentials)', parsed.username !== '' || parsed.password !== '');
    return undefined;
  }
  return value;
}

/** Parses the merged variables into a Config; `home` is resolved by the caller (it needs I/O). */
export function parseConfig(vars: RawVariables, home: string): Config {
  const problems = new Problems();

  const chainId = integer(vars, 'CHAIN_ID', problems, 1, 2 ** 53 - 1) ?? LOCAL_CHAIN_ID;

  const fallback = defaultDidNetwork(chainId);
  let didBlockchain = fallback?.blockchain ?? 'polygon';
  let didNetwork = fallback?.network ?? 'amoy';
  const networkName = text(vars, 'NETWORK_NAME');
  if (networkName === undefined && fallback === undefined) {
    problems.add(
      'CHAIN_ID',
      String(chainId),
      `a chain whose DID network vc knows, or NETWORK_NAME set for chain ${chainId}: "<blockchain>:<network>" (registered for DIDs on this chain), e.g. NETWORK_NAME=mychain:test`,
    );
  }
  const rpcUrlGiven = text(vars, 'RPC_URL') !== undefined;
  if (!rpcUrlGiven && KNOWN_CHAIN_DID_NETWORKS[chainId] !== undefined) {
    problems.add(
      'CHAIN_ID',
      String(chainId),
      `a development chain id for the embedded node (152, 31337, 1337, or one of your own with NETWORK_NAME): ${chainId} is ${KNOWN_CHAIN_DID_NETWORKS[chainId]}, a public network; set RPC_URL and WALLET_KEY to use it`,
    );
  }
  if (networkName !== undefined) {
    const parts = networkName.split(':');
    if (parts.length > 2 || parts.some((p) => !NAME_RE.test(p))) {
      problems.add('NETWORK_NAME', networkName, 'a DID network name such as "amoy" or "<blockchain>:<network>" (letters, digits, - and _)');
    } else if (parts.length === 2) {
      didBlockchain = parts[0]!;
      didNetwork = parts[1]!;
    } else {
      didNetwork = parts[0]!;
    }
  }

  const walletKeyRaw = text(vars, 'WALLET_KEY');
  let walletKey: string | undefined;
  if (walletKeyRaw !== undefined) {
    if (PRIVATE_KEY_RE.test(walletKeyRaw)) walletKey = walletKeyRaw.startsWith('0x') ? walletKeyRaw : `0x${walletKeyRaw}`;
    else problems.add('WALLET_KEY', walletKeyRaw, 'a 32-byte hex private key (64 hex digits, optional 0x)', true);
  }

  const seedRaw = text(vars, 'IDP_BLS_SIGN_SEED_PHRASE');
  let blsSeedPhrase: string | undefined;
  if (seedRaw !== undefined) {
    const checked = checkSeedPhrase(seedRaw);
    if (checked.phrase === undefined) problems.add('IDP_BLS_SIGN_SEED_PHRASE', seedRaw, checked.expected, true);
    else blsSeedPhrase = checked.phrase;
  }

  const issuerDid = text(vars, 'ISSUER_DID');
  if (issuerDid !== undefined && !/^did:[a-z0-9]+:[^\s]+$/.test(issuerDid)) {
    problems.add('ISSUER_DID', issuerDid, 'a DID such as did:polygonid:polygon:amoy:2q...');
  }

  const trustedRaw = text(vars, 'VC_TRUSTED_ISSUERS');
  const trustedIssuers = trustedRaw === undefined ? ['*'] : trustedRaw.split(',').map((s) => s.trim()).filter(Boolean);
  if (trustedRaw !== undefined && trustedIssuers.length === 0) {
    problems.add('VC_TRUSTED_ISSUERS', trustedRaw, 'a comma-separated list of issuer DIDs, or *');
  }

  const bodyLimit = integer(vars, 'VC_BODY_LIMIT', problems, 1024, 64 * 1024 * 1024) ?? 1024 * 1024;
  const bodyTimeoutSeconds = integer(vars, 'VC_BODY_TIMEOUT', problems, 1, 3600) ?? 30;
  const corsOrigin = text(vars, 'VC_CORS_ORIGIN');
  const workers = integer(vars, 'VC_WORKERS', problems, 0, MAX_WORKERS);
  if (corsOrigin !== undefined && corsOrigin !== '*') url(vars, 'VC_CORS_ORIGIN', problems, ['http:', 'https:']);
  const apiToken = text(vars, 'VC_API_TOKEN');
  if (apiToken !== undefined && apiToken.length < 16) {
    problems.add('VC_API_TOKEN', apiToken, 'a token of at least 16 characters', true);
  }

  const config: Config = {
    home,
    chain: {
      chainId,
      didBlockchain,
      didNetwork,
      // WebSocket endpoints are refused: ethers' WebSocketProvider crashes the process on an unreachable one.
      rpcUrl: url(vars, 'RPC_URL', problems, ['http:', 'https:']),
      walletKey,
      stateContractAddress: address(vars, 'STATE_CONTRACT_ADDRESS', problems),
      poseidonAddress: address(vars, 'POSEIDON_ADDRESS', problems),
      mtpValidatorAddress: address(vars, 'MTP_ADDRESS', problems),
      verifierAddress: address(vars, 'BSC_ADDRESS', problems),
      v3ValidatorAddress: address(vars, 'V3_ADDRESS', problems),
      identityTreeStoreAddress: address(vars, 'IDENTITY_TREE_STORE_ADDRESS', problems),
      nodeIdleMinutes: decimal(vars, 'VC_CHAIN_IDLE_MINUTES', problems, 7 * 24 * 60) ?? DEFAULT_NODE_IDLE_MINUTES,
      confirmations: integer(vars, 'CONFIRMATIONS', problems, 1, 1000) ?? (rpcUrlGiven && !DEV_CHAIN_IDS.includes(chainId) ? PUBLIC_CHAIN_CONFIRMATIONS : 1),
    },
    rhsUrl: url(vars, 'RHS_URL', problems, ['http:', 'https:']),
    circuitsPath: text(vars, 'CIRCUITS_PATH'),
    issuer: { blsSeedPhrase, did: issuerDid, publicUrl: baseUrl(vars, 'VC_ISSUER_URL', problems) },
    verifier: { trustedIssuers, requireNonce: boolean(vars, 'VC_REQUIRE_NONCE', problems) ?? false },
    server: {
      port: integer(vars, 'PORT', problems, 0, 65535),
      host: text(vars, 'VC_HOST') ?? '127.0.0.1',
      apiToken,
      bodyLimit,
      bodyTimeoutSeconds,
      corsOrigin,
      workers,
    },
  };

  if (config.chain.rpcUrl !== undefined && config.chain.walletKey === undefined) {
    problems.list.push('WALLET_KEY: required when RPC_URL points to an external network');
  }

  if (problems.list.length > 0) {
    const message =
      problems.list.length === 1
        ? `invalid configuration: ${problems.list[0]}`
        : `invalid configuration (${problems.list.length} problems): ${problems.list.join('; ')}`;
    throw new ConfigError(message, { field: problems.list[0]?.split('=')[0] ?? '' });
  }
  return config;
}
