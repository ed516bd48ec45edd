/**
 * The js-sdk storage adapters on the wallet store: merkle trees persist across store reopenings
 * and match js-merkletree's in-memory reference; RHS nodes are accepted only when their hash is
 * the Poseidon hash of their children; private keys and data sources round-trip.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WalletStore } from '../../src/store/store.js';
import { loadIden3Modules } from '../../src/iden3/modules.js';
import { StoreDataSource, StoreMerkleTreeStorage, StorePrivateKeyStore } from '../../src/iden3/storage.js';
import { RhsNodeStore } from '../../src/iden3/rhs.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-pbq-storage-');
afterAll(() => tmp.cleanup());

describe('StoreMerkleTreeStorage', () => {
  it('persists trees across reopenings with the same roots and proofs as an in-memory tree', async () => {
    const modules = await loadIden3Modules();
    const { mt, sdk } = modules;
    const home = `${tmp.dir}/mt`;
    const entries: Array<[bigint, bigint]> = [
      [1n, 11n],
      [2n, 22n],
      [77n, 0n],
      [123456789n, 987654321n],
    ];

    let store = WalletStore.open(home);
    let storage = new StoreMerkleTreeStorage(store, modules);
    await storage.createIdentityMerkleTrees('tmp-id');
    await storage.bindMerkleTreeToNewIdentifier('tmp-id', 'did:example:x');
    for (const [k, v] of entries) await storage.addToMerkleTree('did:example:x', sdk.MerkleTreeType.Revocations, k, v);
    const root = await (await storage.getMerkleTreeByIdentifierAndType('did:example:x', sdk.MerkleTreeType.Revocations)).root();
    store.close();

    const reference = new mt.Merkletree(new mt.InMemoryDB(mt.str2Bytes('ref')), true, 40);
    for (const [k, v] of entries) await reference.add(k, v);
    expect(root.hex()).toBe((await reference.root()).hex());

    store = WalletStore.open(home);
    storage = new StoreMerkleTreeStorage(store, modules);
    const reopened = await storage.getMerkleTreeByIdentifierAndType('did:example:x', sdk.MerkleTreeType.Revocations);
    expect((await reopened.root()).hex()).toBe(root.hex());
    expect((await reopened.generateProof(77n)).proof.existence).toBe(true);
    expect((await reopened.generateProof(78n)).proof.existence).toBe(false);
    const claims = await storage.getMerkleTreeByIdentifierAndType('did:example:x', sdk.MerkleTreeType.Claims);
    expect((await claims.root()).bigInt()).toBe(0n);
    await expect(storage.getMerkleTreeByIdentifierAndType('tmp-id', sdk.MerkleTreeType.Claims)).rejects.toThrow(/not found/);
    store.close();
  });
});

describe('RhsNodeStore', () => {
  it('accepts the nodes the js-sdk publishes and rejects a node whose hash does not match', async () => {
    const modules = await loadIden3Modules();
    const { mt, sdk } = modules;
    const store = WalletStore.open(`${tmp.dir}/rhs`);
    const tree = (name: string) => new mt.Merkletree(new mt.InMemoryDB(mt.str2Bytes(name)), true, 40);
    const claimsTree = tree('c');
    const revocationTree = tree('r');
    const rootsTree = tree('o');
    await claimsTree.add(5n, 6n);
    await revocationTree.add(42n, 0n);
    await rootsTree.add((await claimsTree.root()).bigInt(), 0n);
    const state = mt.hashElems([(await claimsTree.root()).bigInt(), (await revocationTree.root()).bigInt(), (await rootsTree.root()).bigInt()]);
    const nodes = await sdk.getNodesRepresentation([42], { claimsTree, revocationTree, rootsTree, state }, state);

    const rhs = new RhsNodeStore(store, modules);
    expect(rhs.saveNodes(nodes.map((n) => n.toJSON()))).toBe(nodes.length);
    const stateNode = rhs.getNode(state.hex());
    expect(stateNode?.children).toEqual([(await claimsTree.root()).hex(), (await revocationTree.root()).hex(), (await rootsTree.root()).hex()]);

    const forged = { ...nodes[0]!.toJSON(), hash: mt.Hash.fromBigInt(12345n).hex() };
    expect(() => rhs.saveNodes([forged])).toThrow(/does not match its children/);
    expect(rhs.getNode(forged.hash)).toBeUndefined();
    store.close();
  });
});

describe('StorePrivateKeyStore and StoreDataSource', () => {
  it('round-trip keys and records, and look records up by another field', async () => {
    const store = WalletStore.open(`${tmp.dir}/kv`);
    const keys = new StorePrivateKeyStore(store);
    await keys.importKey({ alias: 'BJJ:abc', key: 'deadbeef' });
    expect(await keys.get({ alias: 'BJJ:abc' })).toBe('deadbeef');
    await expect(keys.get({ alias: 'BJJ:missing' })).rejects.toThrow(/no private key/);
    expect(await keys.list()).toEqual([{ alias: 'BJJ:abc', key: 'deadbeef' }]);

    const source = new StoreDataSource<{ id: string; verifier: string }>(store, 'test.profiles', 'id');
    await source.save('p1', { id: 'p1', verifier: 'v1' });
    await source.save('p2', { id: 'p2', verifier: 'v2' });
    expect(await source.get('v2', 'verifier')).toEqual({ id: 'p2', verifier: 'v2' });
    await source.delete('p1');
    expect(await source.load()).toEqual([{ id: 'p2', verifier: 'v2' }]);
    await expect(source.delete('p1')).rejects.toThrow(/not found/);
    store.close();
  });
});
