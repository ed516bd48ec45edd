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
import { InputError, NetworkError, describeError } from '../errors.js';
import type { WalletStore } from '../store/store.js';
import type { Iden3Modules } from './modules.js';

const RHS_NODES_NS = 'iden3.rhs.nodes';

/**
 * Base URL written into credentialStatus.id when RHS_URL is unset: the default address of the
 * issuer service (`vc serve --role issuer`), which serves the embedded RHS at /node.
 */
export const EMBEDDED_RHS_URL = 'http://127.0.0.1:3000';

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
      const computed = hashElems(children.map((c) => HashClass.fromHex(c).bigInt())).hex();
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
  ) {}

  async publish(params: { nodes: Array<{ toJSON(): RhsNode }> }): Promise<void> {
    const json = params.nodes.map((n) => n.toJSON());
    this.nodes.saveNodes(json);
    if (this.remoteUrl === undefined) return;
    let response: Response;
    try {
      response = await fetch(`${this.remoteUrl}/node`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
    } catch (error) {
      throw new NetworkError(`cannot publish tree nodes to the reverse hash service RHS_URL=${this.remoteUrl}: ${describeError(error)}`, { field: 'RHS_URL', cause: error });
    }
    if (!response.ok) {
      throw new NetworkError(`the reverse hash service RHS_URL=${this.remoteUrl} refused the tree nodes (HTTP ${response.status})`, { field: 'RHS_URL' });
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
    const { core, mt, sdk } = this.modules;
    const id = core.DID.idFromDID(issuerDID);
    try {
      const info = await this.states.getLatestStateById(id.bigInt());
      if (info.state === undefined || info.state === 0n) throw new Error('the State contract returned an empty state');
      return mt.Hash.fromBigInt(info.state);
    } catch (error) {
      if (!sdk.isIdentityDoesNotExistError(error)) throw error;
      // Never published: only the genesis state (derivable from the DID itself) is acceptable.
      const stateHex = new URL(status.id).searchParams.get('state');
      if (stateHex === null) throw new Error(`issuer ${issuerDID.string()} has no state on chain and the status id names none`);
      const state = mt.Hash.fromHex(stateHex);
      if (!sdk.isGenesisState(issuerDID, state.bigInt())) {
        throw new Error(`issuer ${issuerDID.string()} has no state on chain and ${stateHex} is not its genesis state`);
      }
      return state;
    }
  }

  private async fetchNode(rhsBase: string, hash: Hash): Promise<RhsNode> {
    const local = this.nodes.getNode(hash.hex());
    if (local !== undefined) return local;
    let response: Response;
    try {
      response = await fetch(`${rhsBase}/node/${hash.hex()}`);
    } catch (error) {
      throw new NetworkError(`reverse hash service ${rhsBase} unreachable while resolving node ${hash.hex()}: ${describeError(error)}`, { cause: error });
    }
    if (!response.ok) throw new NetworkError(`reverse hash service ${rhsBase} has no node ${hash.hex()} (HTTP ${response.status})`);
    const body = (await response.json()) as Partial<RhsNodeResponse>;
    const node = body.node;
    if (node === undefined || !Array.isArray(node.children)) throw new NetworkError(`reverse hash service ${rhsBase} returned a malformed node for ${hash.hex()}`);
    // Content addressing: a remote node is only used when its children hash to what we asked for.
    this.nodes.saveNodes([{ hash: hash.hex(), children: node.children }]);
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
