/**
 * Storage adapters that put the js-sdk's data onto our WalletStore, so identities, credentials,
 * BJJ private keys and every merkle tree node persist across `vc` invocations (the js-sdk only
 * ships in-memory and browser storages). Namespaces used (all prefixed `iden3.`):
 *   iden3.identities   DID -> Identity entity        iden3.profiles     id -> Profile
 *   iden3.credentials  id  -> W3C credential JSON     iden3.keys         alias -> private key (secret)
 *   iden3.mt.meta      identifier -> tree meta list   iden3.mt.roots     treeId -> root hash (hex)
 *   iden3.mt.nodes     `${treeId}/${nodeKeyHex}` -> node
 */
import type { CredentialStorage, IDataSource, IMerkleTreeStorage, IdentityMerkleTreeMetaInformation, MerkleTreeType, ProofQuery, W3CCredential } from '@0xpolygonid/js-sdk';
import type { Bytes, Hash, ITreeStorage, Merkletree, Node } from '@iden3/js-merkletree';
import { ConflictError } from '../errors.js';
import type { WalletStore } from '../store/store.js';
import type { Iden3Modules } from './modules.js';

export const IDENTITIES_NS = 'iden3.identities';
export const PROFILES_NS = 'iden3.profiles';
export const CREDENTIALS_NS = 'iden3.credentials';
export const KEYS_NS = 'iden3.keys';
/** vc's own: the default identity of each role (holder, issuer), by role (src/core/pbq/identities.ts). */
export const ROLES_NS = 'iden3.roles';
/** The tree states an identity has had: its genesis state and every state it published (`<did>/<state hex>`). */
export const TREE_STATES_NS = 'iden3.treeStates';

/** A tree state as stored (hex hashes). */
export interface TreeStateRecord {
  state: string;
  claimsRoot: string;
  revocationRoot: string;
  rootOfRoots: string;
  /** Transaction that published it; undefined for the genesis state. */
  txId: string | undefined;
  at: string;
}
/**
 * The journal of an issuer's publication under way or interrupted (src/core/pbq/publication.ts), by
 * issuer DID. Its `newState` (once its trees are updated) is the state its transaction publishes:
 * the chain may hold it before the publication is recorded in TREE_STATES_NS.
 */
export const PENDING_PUBLICATIONS_NS = 'iden3.pendingPublications';

/** A tree state as recorded, or as a publication's journal names it (no transaction or date yet). */
export type KnownTreeState = Omit<TreeStateRecord, 'txId' | 'at'> & Partial<Pick<TreeStateRecord, 'txId' | 'at'>>;

/** Every tree state of `did` this wallet recorded: its genesis state and the states it published. */
export function treeStateRecords(store: WalletStore, did: string): TreeStateRecord[] {
  return store.list<TreeStateRecord>(TREE_STATES_NS, `${did}/`).map((record) => record.value);
}

/**
 * The tree state of `did` at `state` (hex) as this wallet knows it: the genesis state when `state`
 * is undefined (the identity never published), otherwise a state it published, or `pending`, the
 * state its interrupted publication's journal names, when that is the one. A ConflictError when the
 * wallet does not know it (a chain that is not the one it published to). `records`: the wallet's
 * records of `did`, when the caller has them already.
 */
export function knownTreeState(store: WalletStore, did: string, state: string | undefined, pending?: KnownTreeState, records = treeStateRecords(store, did)): KnownTreeState {
  if (state === undefined) {
    const genesis = records.find((record) => record.txId === undefined);
    if (genesis === undefined) throw new ConflictError(`the genesis tree state of ${did} is not recorded in this wallet`);
    return genesis;
  }
  const known = records.find((record) => record.state === state) ?? (pending?.state === state ? pending : undefined);
  if (known === undefined) throw new ConflictError(`the State contract holds state ${state} for ${did}, which this wallet never published (was the chain replaced?)`);
  return known;
}
const MT_META_NS = 'iden3.mt.meta';
const MT_ROOTS_NS = 'iden3.mt.roots';
const MT_NODES_NS = 'iden3.mt.nodes';

/** Depth of the claims, revocation and roots trees (the value the iden3 circuits are built for). */
export const MERKLE_TREE_DEPTH = 40;

/**
 * A key/value data source over one store namespace. Records are keyed by their primary field
 * (`did` for identities, `id` otherwise); lookups by another field scan the namespace.
 */
export class StoreDataSource<T extends object> implements IDataSource<T> {
  constructor(
    private readonly store: WalletStore,
    private readonly ns: string,
    private readonly primaryKey: string,
  ) {}

  async load(): Promise<T[]> {
    return this.store.list<T>(this.ns).map((record) => record.value);
  }

  async save(key: string, value: T, keyName: string = this.primaryKey): Promise<void> {
    // JSON round trip: class instances (W3CCredential, Hash) are stored through their toJSON.
    const plain = JSON.parse(JSON.stringify(value)) as T;
    if (keyName === this.primaryKey) {
      this.store.put(this.ns, key, plain);
      return;
    }
    const existing = await this.findByField(key, keyName);
    const primary = existing?.key ?? String((plain as Record<string, unknown>)[this.primaryKey] ?? key);
    this.store.put(this.ns, primary, plain);
  }

  async get(key: string, keyName: string = this.primaryKey): Promise<T | undefined> {
    if (keyName === this.primaryKey) return this.store.get<T>(this.ns, key);
    return (await this.findByField(key, keyName))?.value;
  }

  async delete(key: string, keyName: string = this.primaryKey): Promise<void> {
    const primary = keyName === this.primaryKey ? key : (await this.findByField(key, keyName))?.key;
    if (primary === undefined || !this.store.delete(this.ns, primary)) {
      throw new Error(`item not found to delete: ${key}`);
    }
  }

  private async findByField(value: string, field: string): Promise<{ key: string; value: T } | undefined> {
    return this.store.list<T>(this.ns).find((record) => (record.value as Record<string, unknown>)[field] === value);
  }
}

/**
 * The js-sdk's credential storage over CREDENTIALS_NS, with its one hot query indexed: the js-sdk
 * looks up an identity's auth key credentials (getAllAuthBJJCredentials: type AuthBJJCredential,
 * one issuer) at every signature and proof, by reading and filtering every stored credential (0.3 s
 * of each issuance in a wallet of 10,000). That query is answered from the store's index of the
 * records mentioning the auth key type by issuer (WalletStore.authKeyCandidates), filtered with the
 * js-sdk's own query filters, so it gives what the js-sdk's scan gives; every other query is the
 * js-sdk's.
 */
export function credentialStorage(store: WalletStore, sdk: Iden3Modules['sdk']): CredentialStorage {
  const storage = new sdk.CredentialStorage(new StoreDataSource<W3CCredential>(store, CREDENTIALS_NS, 'id'));
  const scan = storage.findCredentialsByQuery.bind(storage);
  storage.findCredentialsByQuery = async (query: ProofQuery): Promise<W3CCredential[]> => {
    const issuers = query.allowedIssuers;
    if (query.type !== sdk.VerifiableConstants.AUTH.AUTH_BJJ_CREDENTIAL_TYPE || issuers === undefined || issuers.length === 0 || issuers.includes('*')) return scan(query);
    const filters = sdk.StandardJSONCredentialsQueryFilter(query);
    const found = new Map<string, W3CCredential>();
    for (const issuer of new Set(issuers)) for (const { key, value } of store.authKeyCandidates<W3CCredential>(CREDENTIALS_NS, issuer)) found.set(key, value);
    // In the store's order (SQLite compares keys as UTF-8 bytes), as the scan lists them.
    return [...found]
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      .map(([, value]) => value)
      .filter((credential) => filters.every((filter) => filter.execute(credential)))
      .map((credential) => sdk.W3CCredential.fromJSON(credential));
  };
  return storage;
}

interface StoredNode {
  type: number;
  /** Middle node children, hex. */
  childL?: string;
  childR?: string;
  /** Leaf entry [key, value], hex. */
  entry?: [string, string];
}

function bytesToHex(bytes: Bytes): string {
  return Buffer.from(bytes).toString('hex');
}

/** One sparse merkle tree's nodes and root in the store (js-merkletree ITreeStorage). */
export class StoreTreeStorage implements ITreeStorage {
  constructor(
    private readonly store: WalletStore,
    private readonly treeId: string,
    private readonly mt: Iden3Modules['mt'],
  ) {}

  async get(k: Bytes): Promise<Node | undefined> {
    const stored = this.store.get<StoredNode>(MT_NODES_NS, `${this.treeId}/${bytesToHex(k)}`);
    if (stored === undefined) return undefined;
    const { Hash: HashClass, NodeEmpty, NodeLeaf, NodeMiddle, NODE_TYPE_EMPTY, NODE_TYPE_LEAF, NODE_TYPE_MIDDLE } = this.mt;
    const hash = (hex: string): Hash => new HashClass(Uint8Array.from(Buffer.from(hex, 'hex')));
    switch (stored.type) {
      case NODE_TYPE_EMPTY:
        return new NodeEmpty();
      case NODE_TYPE_MIDDLE:
        return new NodeMiddle(hash(stored.childL!), hash(stored.childR!));
      case NODE_TYPE_LEAF:
        return new NodeLeaf(hash(stored.entry![0]), hash(stored.entry![1]));
      default:
        throw new Error(`merkle tree ${this.treeId}: stored node ${bytesToHex(k)} has unknown type ${stored.type}`);
    }
  }

  async put(k: Bytes, n: Node): Promise<void> {
    const stored: StoredNode = { type: n.type };
    // Read children through the node's fields rather than instanceof, which would break if two
    // copies of js-merkletree were ever loaded.
    const node = n as unknown as { childL?: Hash; childR?: Hash; entry?: [Hash, Hash] };
    if (n.type === this.mt.NODE_TYPE_MIDDLE) {
      stored.childL = bytesToHex(node.childL!.bytes);
      stored.childR = bytesToHex(node.childR!.bytes);
    } else if (n.type === this.mt.NODE_TYPE_LEAF) {
      stored.entry = [bytesToHex(node.entry![0].bytes), bytesToHex(node.entry![1].bytes)];
    }
    this.store.put(MT_NODES_NS, `${this.treeId}/${bytesToHex(k)}`, stored);
  }

  async getRoot(): Promise<Hash> {
    const hex = this.store.get<string>(MT_ROOTS_NS, this.treeId);
    return hex === undefined ? this.mt.ZERO_HASH : new this.mt.Hash(Uint8Array.from(Buffer.from(hex, 'hex')));
  }

  async setRoot(r: Hash): Promise<void> {
    this.store.put(MT_ROOTS_NS, this.treeId, bytesToHex(r.bytes));
  }
}

/** The js-sdk merkle tree storage: three trees per identity, persisted in the store. */
export class StoreMerkleTreeStorage implements IMerkleTreeStorage {
  constructor(
    private readonly store: WalletStore,
    private readonly modules: Iden3Modules,
    private readonly depth = MERKLE_TREE_DEPTH,
  ) {}

  async createIdentityMerkleTrees(identifier: string): Promise<IdentityMerkleTreeMetaInformation[]> {
    const existing = this.store.get<IdentityMerkleTreeMetaInformation[]>(MT_META_NS, identifier);
    if (existing !== undefined) return existing;
    const { MerkleTreeType: Types } = this.modules.sdk;
    const metas = [Types.Claims, Types.Revocations, Types.Roots].map((type) => ({ treeId: `${identifier}+${type}`, identifier, type }));
    this.store.put(MT_META_NS, identifier, metas);
    return metas;
  }

  async getIdentityMerkleTreesInfo(identifier: string): Promise<IdentityMerkleTreeMetaInformation[]> {
    return this.store.get<IdentityMerkleTreeMetaInformation[]>(MT_META_NS, identifier) ?? [];
  }

  async getMerkleTreeByIdentifierAndType(identifier: string, mtType: MerkleTreeType): Promise<Merkletree> {
    const meta = (await this.getIdentityMerkleTreesInfo(identifier)).find((m) => m.type === mtType);
    if (meta === undefined) throw new Error(`merkle tree not found for identifier ${identifier} and type ${mtType}`);
    return new this.modules.mt.Merkletree(new StoreTreeStorage(this.store, meta.treeId, this.modules.mt), true, this.depth);
  }

  async addToMerkleTree(identifier: string, mtType: MerkleTreeType, hindex: bigint, hvalue: bigint): Promise<void> {
    const tree = await this.getMerkleTreeByIdentifierAndType(identifier, mtType);
    await tree.add(hindex, hvalue);
  }

  async bindMerkleTreeToNewIdentifier(oldIdentifier: string, newIdentifier: string): Promise<void> {
    const metas = await this.getIdentityMerkleTreesInfo(oldIdentifier);
    if (metas.length === 0) throw new Error(`merkle tree meta not found for identifier ${oldIdentifier}`);
    this.store.transaction(() => {
      this.store.put(MT_META_NS, newIdentifier, metas.map((m) => ({ ...m, identifier: newIdentifier })));
      this.store.delete(MT_META_NS, oldIdentifier);
    });
  }
}

/** The js-sdk private key store (AbstractPrivateKeyStore) over the store's secret namespace. */
export class StorePrivateKeyStore {
  constructor(private readonly store: WalletStore) {}

  async importKey(args: { alias: string; key: string }): Promise<void> {
    this.store.put(KEYS_NS, args.alias, args.key);
  }

  async get(args: { alias: string }): Promise<string> {
    const key = this.store.get<string>(KEYS_NS, args.alias);
    // The alias is a public key path, never the secret, so it may appear in the message.
    if (key === undefined) throw new Error(`no private key in the wallet for ${args.alias}`);
    return key;
  }

  async list(): Promise<{ alias: string; key: string }[]> {
    return this.store.list<string>(KEYS_NS).map((record) => ({ alias: record.key, key: record.value }));
  }
}
