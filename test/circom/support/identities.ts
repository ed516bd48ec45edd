/**
 * Real iden3 identities, claims and trees for the circuit tests, built in memory with the js-sdk:
 * IdentityWallet creates the identities (BJJ auth claim, claims/revocation/roots trees, genesis
 * state) and signs challenges; claims are js-iden3-core claims in the issuer's js-sdk merkle
 * trees; the GIST is a real js-merkletree keyed as the State contract keys it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BjjProvider,
  CredentialStatusResolverRegistry,
  CredentialStatusType,
  CredentialStorage,
  CredentialWallet,
  IdentityStorage,
  IdentityWallet,
  InMemoryDataSource,
  InMemoryMerkleTreeStorage,
  InMemoryPrivateKeyStore,
  KMS,
  KmsKeyType,
  MerkleTreeType,
  type IDataStorage,
  type TreeState,
  type W3CCredential,
} from '@0xpolygonid/js-sdk';
import { poseidon, type Signature } from '@iden3/js-crypto';
import { Claim, DID, Id } from '@iden3/js-iden3-core';
import { Merklizer } from '@iden3/js-jsonld-merklization';
import { Hash, InMemoryDB, Merkletree, Proof, str2Bytes } from '@iden3/js-merkletree';
import { ROOT } from '../../helpers.js';

/** The js-sdk wallets over in-memory storage (no chain: nothing here publishes). */
export interface Wallets {
  identityWallet: IdentityWallet;
  dataStorage: IDataStorage;
}

/** An identity created by the js-sdk IdentityWallet. */
export interface TestIdentity {
  did: DID;
  id: Id;
  authCredential: W3CCredential;
  authClaim: Claim;
}

/** Creates the js-sdk identity and credential wallets over in-memory data sources. */
export function createWallets(): Wallets {
  const kms = new KMS();
  kms.registerKeyProvider(KmsKeyType.BabyJubJub, new BjjProvider(KmsKeyType.BabyJubJub, new InMemoryPrivateKeyStore()));
  const dataStorage = {
    credential: new CredentialStorage(new InMemoryDataSource()),
    identity: new IdentityStorage(new InMemoryDataSource(), new InMemoryDataSource()),
    mt: new InMemoryMerkleTreeStorage(40),
    // IdentityWallet wants a provider for its transaction service; these tests never publish.
    states: { getRpcProvider: () => ({}) },
  } as unknown as IDataStorage;
  const credentialWallet = new CredentialWallet(dataStorage, new CredentialStatusResolverRegistry());
  const identityWallet = new IdentityWallet(kms, dataStorage, credentialWallet);
  return { identityWallet, dataStorage };
}

/** Creates an identity from a deterministic seed (so failures reproduce). */
export async function createIdentity(wallets: Wallets, seedByte: number, revocationNonce = 0): Promise<TestIdentity> {
  const { did, credential } = await wallets.identityWallet.createIdentity({
    seed: new Uint8Array(32).fill(seedByte),
    revocationOpts: { type: CredentialStatusType.SparseMerkleTreeProof, id: 'http://localhost/revocation', nonce: revocationNonce },
  });
  const authClaim = credential.getCoreClaimFromProof('Iden3SparseMerkleTreeProof' as never);
  if (!authClaim) throw new Error('auth credential has no core claim');
  return { did, id: DID.idFromDID(did), authCredential: credential, authClaim };
}

/** The identity's current tree state (state = Poseidon(claims root, revocation root, roots root)). */
export async function treeState(wallets: Wallets, did: DID): Promise<TreeState> {
  const model = await wallets.identityWallet.getDIDTreeModel(did);
  return {
    state: model.state,
    claimsRoot: await model.claimsTree.root(),
    revocationRoot: await model.revocationTree.root(),
    rootOfRoots: await model.rootsTree.root(),
  };
}

/** Adds a claim to the identity's claims tree (what issuing by Merkle tree proof does). */
export async function addClaim(wallets: Wallets, did: DID, claim: Claim): Promise<void> {
  const { hi, hv } = claim.hiHv();
  await wallets.dataStorage.mt.addToMerkleTree(did.string(), MerkleTreeType.Claims, hi, hv);
}

/** Revokes a revocation nonce the way IdentityWallet.revokeCredential does. */
export async function revokeNonce(wallets: Wallets, did: DID, nonce: bigint): Promise<void> {
  const model = await wallets.identityWallet.getDIDTreeModel(did);
  await model.revocationTree.add(nonce, 0n);
}

/** Proof of the claim's leaf in the identity's current claims tree (an exclusion proof if absent). */
export async function claimProof(wallets: Wallets, did: DID, claim: Claim): Promise<Proof> {
  const model = await wallets.identityWallet.getDIDTreeModel(did);
  const { proof } = await model.claimsTree.generateProof(claim.hIndex());
  return proof;
}

/** Proof about the nonce in the identity's current revocation tree. */
export async function revocationProof(wallets: Wallets, did: DID, nonce: bigint): Promise<Proof> {
  const model = await wallets.identityWallet.getDIDTreeModel(did);
  const { proof } = await model.revocationTree.generateProof(nonce);
  return proof;
}

/** Signs a challenge with the identity's BJJ auth key (IdentityWallet.signChallenge). */
export function signChallenge(wallets: Wallets, identity: TestIdentity, challenge: bigint): Promise<Signature> {
  return wallets.identityWallet.signChallenge(challenge, identity.authCredential);
}

/** The global identity state tree of the State contract: Poseidon(id) -> latest state, 64 levels. */
export class Gist {
  private readonly tree = new Merkletree(new InMemoryDB(str2Bytes('gist')), true, 64);

  /** Records `state` as the identity's latest published state. */
  async publish(id: Id, state: Hash): Promise<void> {
    const key = poseidon.hash([id.bigInt()]);
    const { proof } = await this.tree.generateProof(key);
    if (proof.existence) await this.tree.update(key, state.bigInt());
    else await this.tree.add(key, state.bigInt());
  }

  /** Inclusion or exclusion proof for the identity, with the root it is against. */
  async proof(id: Id): Promise<{ root: Hash; proof: Proof }> {
    const { proof } = await this.tree.generateProof(poseidon.hash([id.bigInt()]));
    return { root: await this.tree.root(), proof };
  }
}

const CONTEXT_FILES: Record<string, string> = {
  'https://www.w3.org/2018/credentials/v1': 'credentials-v1.json',
  'https://schemas.vc.example/iden3/passport/v1/passport.jsonld': 'iden3-passport-v1.json',
};

/** JSON-LD document loader over the project's fixture contexts (the tests run offline). */
export async function fixtureDocumentLoader(url: string): Promise<{ document: unknown; documentUrl: string; contextUrl: null }> {
  const file = CONTEXT_FILES[url];
  if (!file) throw new Error(`no fixture context for ${url}`);
  const document = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'contexts', file), 'utf8')) as unknown;
  return { document, documentUrl: url, contextUrl: null };
}

/** A merklized passport credential document for `subjectDid` (without the fields in `omit`). */
export function passportDocument(subjectDid: DID, issuerDid: DID, omit: string[] = []): Record<string, unknown> {
  const subject: Record<string, unknown> = {
    id: subjectDid.string(),
    type: 'PassportCredential',
    ...(JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'subjects', 'passport.json'), 'utf8')) as Record<string, unknown>),
  };
  for (const field of omit) delete subject[field];
  return {
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld'],
    id: 'urn:uuid:5b2f6c1e-7f3a-4f0e-9d8c-2a1b3c4d5e6f',
    type: ['VerifiableCredential', 'PassportCredential'],
    issuer: issuerDid.string(),
    issuanceDate: '2025-01-01T00:00:00Z',
    credentialSubject: subject,
  };
}

/** Merklizes a JSON-LD document with the fixture contexts. */
export function merklize(document: Record<string, unknown>): Promise<Merklizer> {
  return Merklizer.merklizeJSONLD(JSON.stringify(document), { documentLoader: fixtureDocumentLoader as never });
}
