/**
 * An iden3 issuer built directly on @0xpolygonid/js-sdk (never through vc's code), for the interop
 * tests: the official KYCAgeCredential documents (test/fixtures/iden3-official, their source in
 * its README), a document loader that reads them from their files (nothing downloaded), and the
 * js-sdk's wallets over in-memory storage and the State contract of vc's chain.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BjjProvider,
  CredentialStatusResolverRegistry,
  CredentialStorage,
  CredentialWallet,
  IdentityStorage,
  IdentityWallet,
  InMemoryDataSource,
  InMemoryMerkleTreeStorage,
  InMemoryPrivateKeyStore,
  KMS,
  KmsKeyType,
  VerifiableConstants,
  cacheLoader,
  type CredentialStatusPublisherRegistry,
  type EthStateStorage,
} from '@0xpolygonid/js-sdk';
import { Id, registerDidMethodNetwork } from '@iden3/js-iden3-core';
import { ROOT } from '../../helpers.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'iden3-official');
export const CONTEXT_URL = 'https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json-ld/kyc-v3.json-ld';
export const SCHEMA_URL = 'https://raw.githubusercontent.com/iden3/claim-schema-vocab/main/schemas/json/KYCAgeCredential-v3.json';
export const CONTEXT_FILE = path.join(FIXTURES, 'kyc-v3.json-ld');
export const SCHEMA_FILE = path.join(FIXTURES, 'KYCAgeCredential-v3.json');
/** The second of anvil's well-known development accounts: the js-sdk issuer's own, apart from vc's. */
export const ISSUER_ACCOUNT_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** The issuer's document loader: the two official documents from their files, the js-sdk's embedded ones; nothing downloaded. */
export async function issuerDocumentLoader(url: string): Promise<{ document: unknown; documentUrl: string; contextUrl: null }> {
  const files: Record<string, string> = { [CONTEXT_URL]: CONTEXT_FILE, [SCHEMA_URL]: SCHEMA_FILE };
  const local = files[url];
  if (local !== undefined) return { document: JSON.parse(readFileSync(local, 'utf8')) as unknown, documentUrl: url, contextUrl: null };
  const embedded = [VerifiableConstants.JSONLD_SCHEMA.W3C_CREDENTIAL_2018, VerifiableConstants.JSONLD_SCHEMA.IDEN3_CREDENTIAL, VerifiableConstants.JSONLD_SCHEMA.IDEN3_DISPLAY_METHOD];
  if (!embedded.includes(url)) throw new Error(`the test issuer has no document ${url}`);
  const remote = await cacheLoader()(url);
  return { document: remote.document as unknown, documentUrl: url, contextUrl: null };
}

/**
 * Registers with the js-sdk the network a vc holder's DID names (its method, blockchain, network
 * and the id's type byte) on `chainId`, so the js-sdk issuer creates its identity there; returns
 * the parts of the DID that createIdentity takes.
 */
export function registerNetworkOf(holderDid: string, chainId: number): { method: string; blockchain: string; networkId: string } {
  const [, method, blockchain, network, idString] = holderDid.split(':') as [string, string, string, string, string];
  registerDidMethodNetwork({ method, blockchain, network, networkFlag: Id.fromString(idString).type()[1]!, chainId });
  return { method, blockchain, networkId: network };
}

/** The js-sdk's identity and credential wallets over in-memory storage, with `states` for the chain. */
export function jsSdkWallets(
  states: EthStateStorage,
  options: { resolvers?: CredentialStatusResolverRegistry; publishers?: CredentialStatusPublisherRegistry } = {},
): { identityWallet: IdentityWallet; credentialWallet: CredentialWallet } {
  const dataStorage = {
    credential: new CredentialStorage(new InMemoryDataSource()),
    identity: new IdentityStorage(new InMemoryDataSource(), new InMemoryDataSource()),
    mt: new InMemoryMerkleTreeStorage(40),
    states,
  };
  const credentialWallet = new CredentialWallet(dataStorage, options.resolvers ?? new CredentialStatusResolverRegistry());
  const kms = new KMS();
  kms.registerKeyProvider(KmsKeyType.BabyJubJub, new BjjProvider(KmsKeyType.BabyJubJub, new InMemoryPrivateKeyStore()));
  const identityWallet = new IdentityWallet(kms, dataStorage, credentialWallet, options.publishers === undefined ? undefined : { credentialStatusPublisherRegistry: options.publishers });
  return { identityWallet, credentialWallet };
}
