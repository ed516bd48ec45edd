/**
 * Interop, Iden3OnchainSparseMerkleTreeProof2023: an issuer built directly on @0xpolygonid/js-sdk
 * (not through vc's code) issues a KYCAgeCredential (the official documents of
 * test/fixtures/iden3-official) whose status lives on vc's chain: its revocation tree nodes are
 * published to the IdentityTreeStore contract vc deployed (the js-sdk's
 * Iden3OnchainSmtCredentialStatusPublisher over its OnChainRevocationStorage, from the issuer's
 * own account) and its state to the State contract (the js-sdk's state transition). The vc holder:
 * - refuses a copy whose status names another chain id, or a contract that is not the chain's
 *   IdentityTreeStore, with the reason (it never reads a status anywhere but the configured chain);
 * - imports it (`vc holder credentials import`, every proof and the status checked) and proves it
 *   on chain (`vc holder prove-submit --id`, verified by the UniversalVerifier);
 * - after the js-sdk issuer revokes it and publishes the revocation (nodes, then state), refuses it
 *   as revoked, at import and at prove-submit; the js-sdk's own OnChainResolver agrees both times.
 * One issuance, one revocation, one query proof: the two state transitions and the proof are the slow steps.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CredentialStatusPublisherRegistry,
  CredentialStatusResolverRegistry,
  CredentialStatusType,
  EthStateStorage,
  FSCircuitStorage,
  Iden3OnchainSmtCredentialStatusPublisher,
  OnChainResolver,
  OnChainRevocationStorage,
  ProofService,
  W3CCredential,
  defaultEthConnectionConfig,
  type CredentialWallet,
  type EthConnectionConfig,
  type IdentityWallet,
} from '@0xpolygonid/js-sdk';
import { DID } from '@iden3/js-iden3-core';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOnchainStatusId } from '../../src/iden3/onchainStatus.js';
import { jsonError, runVc, runVcInProcess, tempDir, templateHome, type VcRun } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, ISSUER_ACCOUNT_KEY, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader, jsSdkWallets, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const ONCHAIN = CredentialStatusType.Iden3OnchainSparseMerkleTreeProof2023;

const tmp = tempDir('vc-js-sdk-onchain-status-');
const home = templateHome(path.join(tmp.dir, 'home'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
const file = (name: string, content: unknown): string => {
  const target = path.join(tmp.dir, name);
  writeFileSync(target, JSON.stringify(content, null, 2));
  return target;
};
/** In this process (no node start-up): these tests are about what the commands do. */
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home, env });
const ok = (run: VcRun): VcRun => {
  expect(run.status, run.stderr).toBe(0);
  return run;
};

let chain: { rpcUrl: string; chainId: number; contracts: { state: string; identityTreeStore: string } };
let issuer: DID;
let identityWallet: IdentityWallet;
let credentialWallet: CredentialWallet;
let proofService: ProofService;
let states: EthStateStorage;
let treeStore: OnChainRevocationStorage;
let signer: Wallet;
let provider: JsonRpcProvider | undefined;
let credential: W3CCredential;
let credentialFile: string;
let heldId: string;
let holderDid: string;

/** A request of the verifier on the credential's type, registered on chain; its file. */
async function registeredRequest(name: string): Promise<{ id: number; file: string }> {
  const request = ok(await vc(['verifier', 'request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$lt', '--value', '20000101'])).json<{ id: number }>();
  return { id: request.id, file: file(name, request) };
}

beforeAll(async () => {
  holderDid = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  chain = ok(await vc(['chain', 'up'])).json<typeof chain>();
  expect(chain.contracts.identityTreeStore).toMatch(/^0x[0-9a-fA-F]{40}$/);
  const circuitsDir = ok(await vc(['circuits', 'status'])).json<{ dir: string }>().dir;
  ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
  ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));

  const { method, blockchain, networkId: network } = registerNetworkOf(holderDid, chain.chainId);

  // The js-sdk issuer: its trees in memory, its nodes to vc's chain's IdentityTreeStore, its statuses read back by the js-sdk's OnChainResolver.
  const connection: EthConnectionConfig = { ...defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.contracts.state, chainId: chain.chainId };
  provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  signer = new Wallet(ISSUER_ACCOUNT_KEY, provider);
  // No caches: the test changes the issuer's state and asks again at once (the js-sdk keeps a latest state for minutes by default).
  const stateStorageOptions = { disableCache: true };
  states = new EthStateStorage(connection, stateStorageOptions);
  treeStore = new OnChainRevocationStorage(connection, chain.contracts.identityTreeStore, signer);
  const resolvers = new CredentialStatusResolverRegistry();
  resolvers.register(ONCHAIN, new OnChainResolver([connection], { stateStorageOptions }));
  const publishers = new CredentialStatusPublisherRegistry();
  publishers.register(ONCHAIN, new Iden3OnchainSmtCredentialStatusPublisher(treeStore));
  ({ identityWallet, credentialWallet } = jsSdkWallets(states, { resolvers, publishers }));
  const revocationOpts = { type: ONCHAIN, id: chain.contracts.identityTreeStore };
  // Publishes the genesis state's nodes to the IdentityTreeStore (a transaction from the issuer's account).
  ({ did: issuer } = await identityWallet.createIdentity({ method, blockchain, networkId: network, seed: new Uint8Array(32).fill(9), revocationOpts }));

  const issued = await identityWallet.issueCredential(
    issuer,
    { credentialSchema: SCHEMA_URL, type: 'KYCAgeCredential', credentialSubject: { id: holderDid, birthday: 19960424, documentType: 2 }, revocationOpts },
    { documentLoader: issuerDocumentLoader } as never,
  );
  const { oldTreeState, credentials } = await identityWallet.addCredentialsToMerkleTree([issued], issuer);
  await identityWallet.publishRevocationInfoByCredentialStatusType(issuer, ONCHAIN);
  proofService = new ProofService(identityWallet, credentialWallet, new FSCircuitStorage({ dirname: circuitsDir }), states, { documentLoader: issuerDocumentLoader } as never);
  const txId = await proofService.transitState(issuer, oldTreeState, true, states, signer);
  [credential] = (await identityWallet.generateIden3SparseMerkleTreeProof(issuer, credentials, txId)) as [W3CCredential];
  credentialFile = file('kyc.json', credential);
}, LONG);

afterAll(async () => {
  provider?.destroy();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('a credential of a js-sdk issuer with its status in the IdentityTreeStore of vc chain', () => {
  it("names vc's chain and its IdentityTreeStore, and the js-sdk's OnChainResolver reads it as not revoked", async () => {
    const status = credential.credentialStatus;
    expect(status.type).toBe(ONCHAIN);
    expect(status.id).toContain(`${issuer.string()}/credentialStatus?`);
    expect(status.id).toContain(`contractAddress=${chain.chainId}:${chain.contracts.identityTreeStore}`);
    expect((credential.proof as Array<{ type: string }>).map((proof) => proof.type)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
    // The signing key's status is on chain too (the genesis state's nodes, published at creation).
    expect((credential.proof as unknown as Array<{ issuerData: { credentialStatus: { type: string } } }>)[0]!.issuerData.credentialStatus.type).toBe(ONCHAIN);
    expect((await credentialWallet.getRevocationStatusFromCredential(credential)).mtp.existence).toBe(false);
  });

  it('a status naming another chain id, or a contract that is not the chain IdentityTreeStore, is refused with the reason', async () => {
    const request = await registeredRequest('request-refusals.json');
    const elsewhere = (name: string, id: string): string => file(name, { ...credential, credentialStatus: { ...credential.credentialStatus, id } });
    const otherChain = elsewhere('other-chain.json', credential.credentialStatus.id.replace(`contractAddress=${chain.chainId}:`, 'contractAddress=80002:'));
    const refusedChain = await vc(['holder', 'prove-submit', '--credential', otherChain, '--request', request.file]);
    expect(refusedChain.status, refusedChain.stderr).toBe(2);
    expect(jsonError(refusedChain.stderr).message).toBe(
      `--credential ${otherChain}: field credentialStatus: Iden3OnchainSparseMerkleTreeProof2023 status: it names chain 80002; vc reads statuses from the configured chain ${chain.chainId} only (never another network)`,
    );
    const otherContract = elsewhere('other-contract.json', credential.credentialStatus.id.replace(chain.contracts.identityTreeStore, chain.contracts.state));
    const refusedContract = await vc(['holder', 'prove-submit', '--credential', otherContract, '--request', request.file]);
    expect(refusedContract.status, refusedContract.stderr).toBe(2);
    expect(jsonError(refusedContract.stderr).message).toBe(
      `--credential ${otherContract}: field credentialStatus: Iden3OnchainSparseMerkleTreeProof2023 status: it names contract ${chain.contracts.state}, which is not the IdentityTreeStore ${chain.contracts.identityTreeStore} of the configured chain ${chain.chainId}`,
    );
  });

  it('vc holder credentials import keeps it (status read from the chain) and prove-submit --id proves it on chain', async () => {
    const imported = ok(await vc(['holder', 'credentials', 'import', credentialFile])).json<{ imported: Array<{ id: string; type: string; alreadyHeld: boolean }> }>();
    expect(imported.imported).toMatchObject([{ type: 'KYCAgeCredential', alreadyHeld: false }]);
    heldId = imported.imported[0]!.id;
    const request = await registeredRequest('request.json');
    const proved = ok(await vc(['holder', 'prove-submit', '--id', heldId, '--request', request.file])).json<Json>();
    expect(proved[String(request.id)]).toBe(true);
    expect(ok(await vc(['verifier', 'status', '--request', String(request.id), '--address', String(proved.sender)])).json<{ isVerified: boolean }>().isVerified).toBe(true);
  }, LONG);

  it('after the js-sdk issuer revokes it and publishes, vc refuses it as revoked, and the js-sdk agrees', async () => {
    const trees = await identityWallet.getDIDTreeModel(issuer);
    const before = { state: trees.state, claimsRoot: await trees.claimsTree.root(), revocationRoot: await trees.revocationTree.root(), rootOfRoots: await trees.rootsTree.root() };
    const nonce = await identityWallet.revokeCredential(issuer, credential);
    expect(nonce).toBe(credential.credentialStatus.revocationNonce);
    await identityWallet.publishRevocationInfoByCredentialStatusType(issuer, ONCHAIN, { revokedNonces: [nonce] });
    await proofService.transitState(issuer, before, false, states, signer);

    // The other side: the js-sdk's resolver, and the contract read through the js-sdk's storage.
    expect((await credentialWallet.getRevocationStatusFromCredential(credential)).mtp.existence).toBe(true);
    expect((await treeStore.getRevocationStatus(DID.idFromDID(issuer).bigInt(), nonce)).mtp.existence).toBe(true);

    const reimported = await vc(['holder', 'credentials', 'import', credentialFile]);
    expect(reimported.status, reimported.stderr).toBe(2);
    expect(jsonError(reimported.stderr).message).toBe(`${credentialFile}: field credentialStatus: the credential is revoked (revocation nonce ${nonce} is in the issuer's revocation tree)`);
    const request = await registeredRequest('request-after.json');
    const refused = await vc(['holder', 'prove-submit', '--id', heldId, '--request', request.file]);
    expect(refused.status, refused.stderr).toBe(1);
    expect(jsonError(refused.stderr).message).toBe(`the credential is revoked (revocation nonce ${nonce} is in the issuer's revocation tree)`);
  }, LONG);
});

describe('vc issuer issue --status onchain: the js-sdk resolves what vc publishes to the IdentityTreeStore', () => {
  it("a vc issuer's earlier revocation (published to the reverse hash service only) goes to the IdentityTreeStore with its first on-chain credential; revoked there later, both sides see it", async () => {
    const issued = async (name: string, more: string[] = []): Promise<Json> => {
      ok(await vc(['issuer', 'issue', '--holder', holderDid, ...more, '-o', path.join(tmp.dir, name)]));
      return (JSON.parse(readFileSync(path.join(tmp.dir, name), 'utf8')) as { credential: Json }).credential;
    };
    const nonceOf = (credential: Json): number => (credential.credentialStatus as { revocationNonce: number }).revocationNonce;
    const earlier = await issued('vc-rhs.json');
    expect((earlier.credentialStatus as Json).type).toBe('Iden3ReverseSparseMerkleTreeProof');
    ok(await vc(['issuer', 'revoke', '--revocation-nonce', String(nonceOf(earlier))]));

    const onchain = await issued('vc-onchain.json', ['--status', 'onchain']);
    const status = onchain.credentialStatus as { id: string; type: string };
    expect(status.type).toBe(ONCHAIN);
    expect(status.id).toContain(`contractAddress=${chain.chainId}:${chain.contracts.identityTreeStore}`);
    const vcIssuer = DID.parse(String(onchain.issuer));
    // The other side: the js-sdk's OnChainResolver walks vc's nodes from the issuer's latest state.
    const asJsSdk = W3CCredential.fromJSON(onchain as never);
    expect((await credentialWallet.getRevocationStatusFromCredential(asJsSdk)).mtp.existence).toBe(false);
    // The whole revocation tree went on chain the first time: the earlier revocation is there.
    expect((await treeStore.getRevocationStatus(DID.idFromDID(vcIssuer).bigInt(), nonceOf(earlier))).mtp.existence).toBe(true);
    const onchainFile = path.join(tmp.dir, 'vc-onchain-credential.json');
    writeFileSync(onchainFile, JSON.stringify(onchain));
    expect(ok(await vc(['holder', 'credentials', 'import', onchainFile])).json<{ imported: unknown[] }>().imported).toHaveLength(1);

    ok(await vc(['issuer', 'revoke', '--revocation-nonce', String(nonceOf(onchain))]));
    expect((await credentialWallet.getRevocationStatusFromCredential(asJsSdk)).mtp.existence).toBe(true);
    const refused = await vc(['holder', 'credentials', 'import', onchainFile]);
    expect(refused.status, refused.stderr).toBe(2);
    expect(jsonError(refused.stderr).message).toBe(`${onchainFile}: field credentialStatus: the credential is revoked (revocation nonce ${nonceOf(onchain)} is in the issuer's revocation tree)`);
  }, LONG);
});

describe('an on-chain status id vc cannot read', () => {
  const status = (id: string, revocationNonce = 5): never => ({ id, type: ONCHAIN, revocationNonce }) as never;
  const did = 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR';
  const address = '0x' + 'ab'.repeat(20);

  it('is refused with what is wrong in it', async () => {
    expect(parseOnchainStatusId(status(`${did}/credentialStatus?revocationNonce=5&contractAddress=80002:${address}`), did)).toEqual({ chainId: 80002, contractAddress: address, revocationNonce: 5, stateHex: undefined });
    expect(() => parseOnchainStatusId(status(`${did}/credentialStatus?revocationNonce=5&contractAddress=80002:${address}`), `${did}x`)).toThrow(`its id ${did}/credentialStatus?revocationNonce=5&contractAddress=80002:${address} is not ${did}x/credentialStatus?...`);
    expect(() => parseOnchainStatusId(status(`${did}/credentialStatus?revocationNonce=5`), did)).toThrow('its id has no contractAddress=<chainId>:<0x address> (found none)');
    expect(() => parseOnchainStatusId(status(`${did}/credentialStatus?contractAddress=${address}`), did)).toThrow(`(found "${address}")`);
    expect(() => parseOnchainStatusId(status(`${did}/credentialStatus?revocationNonce=6&contractAddress=1:${address}`), did)).toThrow('its id names revocation nonce 6, its revocationNonce is 5');
    expect(() => parseOnchainStatusId(status(`${did}/credentialStatus?contractAddress=1:${address}&state=zz`), did)).toThrow('its id\'s state "zz" is not a 32-byte hex hash');
  });
});
