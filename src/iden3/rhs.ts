/**
 * Reverse hash service (RHS) for Iden3ReverseSparseMerkleTreeProof credential statuses.
 *
 * An RHS maps a node hash to its children; an issuer publishes the nodes of its trees and state,
 * and anyone walks them from the issuer's on-chain state down to a revocation nonce to obtain a
 * (non-)membership proof. Nodes are content addressed (hash = Poseidon(children)), so a copy is
 * as good as the original: every published node is checked against its hash.
 *
 * How `vc` provides it:
 * - RHS_URL set: nodes are POSTed to `${RHS_URL}/node` (the js-sdk's publisher), and resolution
 *   reads `GET ${base}/node/{hash}` from the base in the credential's status id.
 * - RHS_URL unset (embedded): the nodes live in the wallet store (namespace iden3.rhs.nodes); the
 *   issuer service of `vc serve` exposes them as the same RHS API (POST /node, GET /node/:hash),
 *   and credentials name the issuer's default address (EMBEDDED_RHS_URL). Resolution always looks
 *   in the local store first and only then asks the URL, so a CLI holder sharing the home with the
 *   issuer needs no server, and any other holder can use the served API.
 */
import type { CredentialStatus, CredentialStatusResolveOptions, CredentialStatusResolver, IStateStorage, RevocationStatus } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { Hash, Proof } from '@iden3/js-merkletree';
import { ServiceKey, type Context } from '../context.js';
import { InputError, NetworkError, describeError } from '../errors.js';
import type { WalletStore } from '../store/store.js';
import { latestStateOnChain } from './chainState.js';
import type { Iden3Modules } from './modules.js';
import { boundedFetch, describeFetchFailure, type FetchLimits } from '../boundedFetch.js';

const RHS_NODES_NS = 'iden3.rhs.nodes';

/**
 * Base URL written into credentialStatus.id when RHS_URL is unset and no issuer service runs in
 * this process: the issuer service's DEFAULT address (`vc serve --role issuer` on port 3000),
 * which serves the embedded RHS at /node. A served issuer names its own address instead
 * (servedRhsUrl). Behind a proxy or on a wildcard address, set RHS_URL to the public base URL,
 * or holders outside this wallet home cannot resolve the status (holders sharing the home read
 * the nodes locally).
 */
export const EMBEDDED_RHS_URL = 'http://127.0.0.1:3000';

const SERVED_RHS_URL = new ServiceKey<string>('iden3.servedRhsUrl');

/**
 * Makes credentials issued by this process name `baseUrl` (the issuer service's own address) as
 * their reverse hash service. Must be called before the iden3 wallet of the context is created.
 */
export function useServedRhsUrl(ctx: Context, baseUrl: string): void {
  void ctx.lazy(SERVED_RHS_URL, () => Promise.resolve(baseUrl));
}

/** The RHS base URL credentials of this process name: RHS_URL, the served issuer's address, or the default. */
export async function embeddedRhsBaseUrl(ctx: Context): Promise<string> {
  return ctx.config.rhsUrl ?? (await ctx.peek(SERVED_RHS_URL)) ?? EMBEDDED_RHS_URL;
}

/** Time allowed for one reverse hash service request (connect, answer and body). */
export const RHS_TIMEOUT_MS = 10_000;
/** Largest reverse hash service response read (a node is ~200 bytes; anything bigger is refused). */
export const RHS_MAX_RESPONSE_BYTES = 1 << 20;

/** Limits of one reverse hash service request (tests shorten them). */
export type RhsFetchLimits = FetchLimits;

const DEFAULT_LIMITS: RhsFetchLimits = { timeoutMs: RHS_TIMEOUT_MS, maxBytes: RHS_MAX_RESPONSE_BYTES };

/**
 * GETs a JSON document from a reverse hash service with a timeout and a size limit (and no
 * redirect): the URL comes from a credential (possibly from an HTTP body), so a slow or endless
 * answer must not hold the caller. Returns the HTTP status and, for 2xx answers, the parsed body;
 * every failure is a NetworkError naming the URL.
 */
export async function fetchRhsJson(url: string, limits: RhsFetchLimits = DEFAULT_LIMITS): Promise<{ status: number; body: unknown }> {
  const { status, text } = await boundedFetch(url, {}, limits, (detail, cause) => new NetworkError(`reverse hash service request ${url} failed: ${detail}`, cause === undefined ? {} : { cause }));
  if (text === undefined) return { status, body: undefined };
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch (error) {
    throw new NetworkError(`reverse hash service ${url} did not answer with JSON: ${describeError(error)}`, { cause: error });
  }
}

/** A node as the RHS API exchanges it: hex hashes (64 hex digits, little-endian field elements). */
export interface RhsNode {
  hash: string;
  children: string[];
}

/** GET /node/{hash} response of the RHS API. */
export interface RhsNodeResponse {
  node: RhsNode;
  status: 'OK';
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/** The RHS node table in the wallet store, with hash verification on write. */
export class RhsNodeStore {
  constructor(
    private readonly store: WalletStore,
    private readonly modules: Iden3Modules,
  ) {}

  /** Verifies and saves nodes; throws InputError naming the first node whose hash does not match. */
  saveNodes(nodes: RhsNode[]): number {
    const { Hash: HashClass, hashElems } = this.modules.mt;
    for (const [index, node] of nodes.entries()) {
      const hash = node.hash.toLowerCase();
      const children = node.children.map((c) => c.toLowerCase());
      if (!HEX_HASH.test(hash) || children.length < 2 || children.length > 3 || !children.every((c) => HEX_HASH.test(c))) {
        throw new InputError(`node ${index}: expected {hash, children} with 2 or 3 children, each 64 hex digits`, { field: `[${index}]` });
      }
      const values = children.map((c) => HashClass.fromHex(c).bigInt());
      const outside = values.findIndex((v) => v >= this.modules.mt.FIELD_SIZE);
      if (outside !== -1) {
        throw new InputError(`node ${index}: child ${outside} (${children[outside]}) is not a field element (at least the modulus ${this.modules.mt.FIELD_SIZE})`, {
          field: `[${index}].children[${outside}]`,
        });
      }
      const computed = hashElems(values).hex();
      if (computed !== hash) {
        throw new InputError(`node ${index}: hash ${hash} does not match its children (expected ${computed})`, { field: `[${index}].hash` });
      }
    }
    this.store.transaction(() => {
      for (const node of nodes) this.store.put(RHS_NODES_NS, node.hash.toLowerCase(), node.children.map((c) => c.toLowerCase()));
    });
    return nodes.length;
  }

  /** The node with this hash, or undefined. */
  getNode(hash: string): RhsNode | undefined {
    const key = hash.toLowerCase();
    const children = this.store.get<string[]>(RHS_NODES_NS, key);
    return children === undefined ? undefined : { hash: key, children };
  }
}

/** A js-sdk credential status publisher: saves nodes locally and, when RHS_URL is set, posts them there. */
export class StoreRhsPublisher {
  constructor(
    private readonly nodes: RhsNodeStore,
    private readonly remoteUrl: string | undefined,
    private readonly timeoutMs: number = RHS_TIMEOUT_MS,
  ) {}

  /** Saves the nodes locally, then (RHS_URL set) posts them there within the RHS timeout. */
  async publish(params: { nodes: Array<{ toJSON(): RhsNode }> }): Promise<void> {
    const json = params.nodes.map((n) => n.toJSON());
    this.nodes.saveNodes(json);
    if (this.remoteUrl === undefined) return;
    let response: Response;
    try {
      response = await fetch(`${this.remoteUrl}/node`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(json),
        signal: AbortSignal.timeout(this.timeoutMs),
        // A redirect is an answer like any other: the nodes are never re-sent to another address.
        redirect: 'manual',
      });
    } catch (error) {
      throw new NetworkError(`cannot publish tree nodes to the reverse hash service RHS_URL=${this.remoteUrl}: ${describeFetchFailure(error, this.timeoutMs)}`, {
        field: 'RHS_URL',
        cause: error,
      });
    }
    // Only the status matters; release the connection instead of reading an answer of any size.
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok) {
      const redirected = response.status >= 300 && response.status < 400 ? ': it answered with a redirect, which vc does not follow (set RHS_URL to the final address)' : '';
      throw new NetworkError(`the reverse hash service RHS_URL=${this.remoteUrl} refused the tree nodes (HTTP ${response.status})${redirected}`, { field: 'RHS_URL' });
    }
  }
}

/**
 * Resolves Iden3ReverseSparseMerkleTreeProof statuses: the issuer's latest state from the State
 * contract (or the genesis state named in the status id when the issuer never published), then
 * the walk from that state's revocation root down to the credential's revocation nonce.
 */
export class RhsStatusResolver implements CredentialStatusResolver {
  constructor(
    private readonly nodes: RhsNodeStore,
    private readonly states: IStateStorage,
    private readonly modules: Iden3Modules,
    private readonly limits: RhsFetchLimits = DEFAULT_LIMITS,
  ) {}

  async resolve(credentialStatus: CredentialStatus, options?: CredentialStatusResolveOptions): Promise<RevocationStatus> {
    const issuerDID = options?.issuerDID;
    if (issuerDID === undefined) throw new Error('issuer DID is required to resolve a reverse hash service status');
    const { mt } = this.modules;
    const latestState = await this.latestState(issuerDID, credentialStatus);
    const rhsBase = credentialStatus.id.split('/node')[0] ?? credentialStatus.id;
    const stateNode = await this.fetchNode(rhsBase, latestState);
    if (stateNode.children.length !== 3) throw new Error(`reverse hash service: state node ${latestState.hex()} does not have 3 children`);
    const [claimsRoot, revocationRoot, rootOfRoots] = stateNode.children as [string, string, string];
    const nonce = mt.Hash.fromBigInt(BigInt(credentialStatus.revocationNonce ?? 0));
    const mtp = await this.proveFrom(rhsBase, mt.Hash.fromHex(revocationRoot), nonce);
    return {
      mtp,
      issuer: { state: latestState.hex(), claimsTreeRoot: claimsRoot, revocationTreeRoot: revocationRoot, rootOfRoots },
    };
  }

  private async latestState(issuerDID: DID, status: CredentialStatus): Promise<Hash> {
    const { mt, sdk } = this.modules;
    const onChain = await latestStateOnChain(this.states, this.modules, issuerDID);
    if (onChain !== undefined) return mt.Hash.fromBigInt(onChain);
    // Never published: only the genesis state (derivable from the DID itself) is acceptable.
    const stateHex = new URL(status.id).searchParams.get('state');
    if (stateHex === null) throw new Error(`issuer ${issuerDID.string()} has no state on chain and the status id names none`);
    const state = mt.Hash.fromHex(stateHex);
    if (!sdk.isGenesisState(issuerDID, state.bigInt())) {
      throw new Error(`issuer ${issuerDID.string()} has no state on chain and ${stateHex} is not its genesis state`);
    }
    return state;
  }

  private async fetchNode(rhsBase: string, hash: Hash): Promise<RhsNode> {
    const local = this.nodes.getNode(hash.hex());
    if (local !== undefined) return local;
    const url = `${rhsBase}/node/${hash.hex()}`;
    const { status, body } = await fetchRhsJson(url, this.limits);
    if (status < 200 || status > 299) throw new NetworkError(`reverse hash service ${rhsBase} has no node ${hash.hex()} (HTTP ${status} from ${url})`);
    const node = (body as Partial<RhsNodeResponse> | null)?.node;
    if (node === undefined || node === null || !Array.isArray(node.children) || !node.children.every((c) => typeof c === 'string')) {
      throw new NetworkError(`reverse hash service ${rhsBase} returned a malformed node for ${hash.hex()} (${url})`);
    }
    // Content addressing: a remote node is only used when its children hash to what we asked for.
    try {
      this.nodes.saveNodes([{ hash: hash.hex(), children: node.children }]);
    } catch (error) {
      throw new NetworkError(`reverse hash service ${rhsBase} returned a wrong node for ${hash.hex()}: ${describeError(error)}`, { cause: error });
    }
    return { hash: hash.hex(), children: node.children };
  }

  /** Walks from `root` along the bits of `key`, like a sparse merkle tree proof generation. */
  private async proveFrom(rhsBase: string, root: Hash, key: Hash): Promise<Proof> {
    const { mt } = this.modules;
    const siblings: Hash[] = [];
    let existence = false;
    let nodeAux: { key: Hash; value: Hash } | undefined;
    let next = root;
    const one = mt.Hash.fromBigInt(1n).hex();
    for (let depth = 0; depth < key.bytes.length * 8; depth += 1) {
      if (next.bytes.every((b) => b === 0)) break;
      const node = await this.fetchNode(rhsBase, next);
      const children = node.children.map((c) => mt.Hash.fromHex(c));
      if (children.length === 3 && node.children[2] === one) {
        if (children[0]!.hex() === key.hex()) existence = true;
        else nodeAux = { key: children[0]!, value: children[1]! };
        break;
      }
      if (children.length !== 2) throw new Error(`reverse hash service: unexpected node ${node.hash} in a revocation tree`);
      if (mt.testBit(key.bytes, depth)) {
        siblings.push(children[0]!);
        next = children[1]!;
      } else {
        siblings.push(children[1]!);
        next = children[0]!;
      }
      if (depth === key.bytes.length * 8 - 1) throw new Error('reverse hash service: tree depth exceeded');
    }
    return new mt.Proof({ siblings, existence, nodeAux });
  }
}
