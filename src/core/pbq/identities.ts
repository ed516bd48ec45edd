/**
 * DID creation (spec 2.2): iden3 identities (BJJ auth key, claims/revocation/roots trees) kept in
 * the wallet. The holder's and the issuer's default identities are remembered in the store
 * (namespace iden3.roles), so `did create` is idempotent: it returns the stored identity, and
 * `--new` creates another one that becomes the default. A profile DID (`--profile-nonce N`) is
 * another DID of the holder's identity, Id.profileId(genesis id, N), kept in the wallet's profiles
 * (the js-sdk's IdentityStorage): credentials issued to it give a nullifier to V3 requests that ask
 * for one, and the holder proves with the genesis identity's keys.
 */
import type { Context } from '../../context.js';
import { ConfigError, InputError, NotFoundError } from '../../errors.js';
import { didObject, type DidObject } from '../../iden3/did.js';
import { IDENTITIES_NS, PROFILES_NS, ROLES_NS } from '../../iden3/storage.js';
import { getIden3 } from '../../iden3/wallet.js';
import { recordGenesisState } from './issuerState.js';

export type IdentityRole = 'holder' | 'issuer' | 'verifier';

/**
 * Spec 2.2 holder response, and whether this call created the identity (false: the stored one was
 * returned). `message` is the spec's text either way.
 */
export interface HolderDidResult {
  message: string;
  did: DidObject;
  did_String: string;
  created: boolean;
  /** With --profile-nonce: the identity the profile belongs to, and the profile's nonce. */
  genesisDid?: string;
  profileNonce?: string;
}

/** A profile DID as the js-sdk's IdentityStorage keeps it (namespace iden3.profiles, by id). */
export interface ProfileRecord {
  id: string;
  nonce: number | string;
  genesisIdentifier: string;
  verifier: string;
}

/** Spec 2.2 issuer response `{payload}`, with the DID as a string (as the holder's) and whether this call created it. */
export interface IssuerDidResult {
  payload: DidObject;
  did_String: string;
  created: boolean;
}

interface RoleRecord {
  did: string;
  createdAt: string;
}

/** The default DID of a role in this wallet, if one was created. */
export function defaultDid(ctx: Context, role: IdentityRole): string | undefined {
  return ctx.store.get<RoleRecord>(ROLES_NS, role)?.did;
}

/** True when the wallet holds the identity (and its keys and trees). */
export function walletHasIdentity(ctx: Context, did: string): boolean {
  return ctx.store.get<unknown>(IDENTITIES_NS, did) !== undefined;
}

/** The wallet's profile `did` (a profile of one of its identities), if it is one. */
export function walletProfile(ctx: Context, did: string): ProfileRecord | undefined {
  const profile = ctx.store.get<ProfileRecord>(PROFILES_NS, did);
  return profile !== undefined && walletHasIdentity(ctx, profile.genesisIdentifier) ? profile : undefined;
}

async function createIdentity(ctx: Context): Promise<string> {
  const iden3 = await getIden3(ctx);
  const { sdk } = iden3.modules;
  const step = ctx.progress.start('creating an iden3 identity (BJJ key, claims/revocation/roots trees)');
  try {
    const { did } = await iden3.identityWallet.createIdentity({
      method: iden3.didNetwork.method,
      blockchain: iden3.didNetwork.blockchain,
      networkId: iden3.didNetwork.network,
      revocationOpts: { id: iden3.rhsUrl, type: sdk.CredentialStatusType.Iden3ReverseSparseMerkleTreeProof },
    });
    await recordGenesisState(ctx, did.string());
    step.succeed(`created ${did.string()}`);
    return did.string();
  } catch (error) {
    step.fail();
    throw error;
  }
}

/** The role's default identity, when the wallet holds it. */
function existingRoleIdentity(ctx: Context, role: IdentityRole): string | undefined {
  const existing = defaultDid(ctx, role);
  return existing !== undefined && walletHasIdentity(ctx, existing) ? existing : undefined;
}

/** The stored default identity of a role, creating it (under the wallet lock) when missing or when `fresh`. */
export async function ensureRoleIdentity(ctx: Context, role: IdentityRole, fresh = false): Promise<{ did: string; created: boolean }> {
  // An identity once recorded stays: found without the lock (2.5 ms of every issuance), it is the
  // one the lock would find.
  const known = fresh ? undefined : existingRoleIdentity(ctx, role);
  if (known !== undefined) return { did: known, created: false };
  return ctx.store.withLock('iden3.identities', async () => {
    const existing = existingRoleIdentity(ctx, role);
    if (!fresh && existing !== undefined) return { did: existing, created: false };
    const did = await createIdentity(ctx);
    ctx.store.put<RoleRecord>(ROLES_NS, role, { did, createdAt: ctx.now().toISOString() });
    return { did, created: true };
  });
}

async function parseDid(ctx: Context, did: string): Promise<DidObject> {
  const { modules } = await getIden3(ctx);
  return didObject(modules.core.DID.parse(did));
}

/** The signing address of each Context (its configuration, and so its key, does not change). */
const signerAddresses = new WeakMap<Context, string>();

/** The address this wallet sends transactions from (WALLET_KEY, or the embedded chain's development account). */
export async function signerAddress(ctx: Context): Promise<string> {
  const known = signerAddresses.get(ctx);
  if (known !== undefined) return known;
  const { LOCAL_DEV_ACCOUNT_KEY } = await import('../../chain/connection.js');
  const { computeAddress } = await import('ethers');
  // A public key from the private key: 1-3 ms, asked for at every sample credential.
  const address = computeAddress(ctx.config.chain.walletKey ?? LOCAL_DEV_ACCOUNT_KEY);
  signerAddresses.set(ctx, address);
  return address;
}

/**
 * The Ethereum address an iden3 DID is built from (an Ethereum-based identity: its id holds the
 * address, and the UniversalVerifier's ethIdentity auth method accepts a response sent from that
 * address as the user's), or undefined for a DID of a BJJ identity.
 */
export async function ethereumAddressOfDid(ctx: Context, did: string): Promise<string | undefined> {
  const { core, sdk } = (await getIden3(ctx)).modules;
  const parsed = core.DID.parse(did);
  if (!sdk.isEthereumIdentity(parsed)) return undefined;
  const { getAddress, hexlify } = await import('ethers');
  return getAddress(hexlify(core.Id.ethAddressFromId(core.DID.idFromDID(parsed))));
}

/**
 * The Ethereum-based identity of this wallet's signing address (no key of its own: the address
 * signs its transactions), kept in the wallet like the others and made the holder's default.
 */
async function ensureEthereumIdentity(ctx: Context): Promise<{ did: string; created: boolean }> {
  const iden3 = await getIden3(ctx);
  const { sdk, core, mt } = iden3.modules;
  const address = await signerAddress(ctx);
  const didType = core.buildDIDType(iden3.didNetwork.method, iden3.didNetwork.blockchain, iden3.didNetwork.network);
  const did = sdk.buildDIDFromEthAddress(didType, address.slice(2)).string();
  return ctx.store.withLock('iden3.identities', async () => {
    const created = !walletHasIdentity(ctx, did);
    if (created) {
      await iden3.dataStorage.mt.createIdentityMerkleTrees(did);
      await iden3.dataStorage.identity.saveIdentity({ did, state: mt.ZERO_HASH, isStatePublished: false, isStateGenesis: true });
    }
    if (defaultDid(ctx, 'holder') !== did) ctx.store.put<RoleRecord>(ROLES_NS, 'holder', { did, createdAt: ctx.now().toISOString() });
    return { did, created };
  });
}

/**
 * `vc holder did create [--new | --ethereum | --profile-nonce N]`: the holder's DID record (spec
 * 2.2); `--ethereum`: the DID of the address this wallet signs with, proved with the ethIdentity
 * auth method; with a profile nonce the record of that profile of the holder's default identity
 * (created once, then returned as it is).
 */
export async function createHolderIdentity(
  ctx: Context,
  options: { new?: boolean | undefined; ethereum?: boolean | undefined; profileNonce?: string | number | undefined } = {},
): Promise<HolderDidResult> {
  const { did, created } = options.ethereum === true ? await ensureEthereumIdentity(ctx) : await ensureRoleIdentity(ctx, 'holder', options.new === true);
  if (options.profileNonce === undefined) return { message: 'did successfully created', did: await parseDid(ctx, did), did_String: did, created };
  if ((await ethereumAddressOfDid(ctx, did)) !== undefined) {
    // Its proofs are authenticated by the sender's address, which is the identity's, not a profile's.
    throw new InputError(`the holder's default DID ${did} is an Ethereum-based identity, which has no profiles here; create a BJJ identity first (vc holder did create --new)`, { field: 'profileNonce' });
  }
  const nonce = BigInt(options.profileNonce).toString();
  const profile = await ensureHolderProfile(ctx, did, nonce);
  return { message: 'did successfully created', did: await parseDid(ctx, profile.did), did_String: profile.did, created: profile.created, genesisDid: did, profileNonce: nonce };
}

/** The profile of `genesisDid` with `nonce`, created (under the wallet lock) when missing. */
async function ensureHolderProfile(ctx: Context, genesisDid: string, nonce: string): Promise<{ did: string; created: boolean }> {
  const iden3 = await getIden3(ctx);
  const { sdk, core } = iden3.modules;
  const genesis = core.DID.parse(genesisDid);
  const did = sdk.generateProfileDID(genesis, nonce).string();
  return ctx.store.withLock('iden3.identities', async () => {
    if (walletProfile(ctx, did) !== undefined) return { did, created: false };
    // The js-sdk keeps one profile per "verifier" (and tags); vc's profiles are for any verifier,
    // so each is recorded under its own DID.
    await iden3.identityWallet.createProfile(genesis, nonce, did);
    return { did, created: true };
  });
}

/**
 * The issuer's DID: ISSUER_DID when set (it must be a BJJ identity of this wallet, not an
 * Ethereum-based one, which has no key to sign with), otherwise the
 * wallet's default issuer identity, created on first use.
 */
export async function resolveIssuerDid(ctx: Context): Promise<string> {
  return (await resolveIssuerIdentity(ctx)).did;
}

/** The issuer's DID (as resolveIssuerDid) and whether it was created now. */
async function resolveIssuerIdentity(ctx: Context): Promise<{ did: string; created: boolean }> {
  const configured = ctx.config.issuer.did;
  if (configured !== undefined) {
    if (!walletHasIdentity(ctx, configured)) {
      throw new ConfigError(`ISSUER_DID=${configured} is not an identity of the wallet ${ctx.config.home} (unset it to use or create the wallet's issuer identity)`, {
        field: 'ISSUER_DID',
      });
    }
    if ((await ethereumAddressOfDid(ctx, configured)) !== undefined) {
      throw new ConfigError(
        `ISSUER_DID=${configured} is an Ethereum-based identity (vc holder did create --ethereum), which has no BJJ key to sign credentials or publish states with; set ISSUER_DID to a BJJ identity of the wallet, or unset it to use or create the wallet's issuer identity`,
        { field: 'ISSUER_DID' },
      );
    }
    return { did: configured, created: false };
  }
  return ensureRoleIdentity(ctx, 'issuer');
}

/** `vc issuer did create`: the issuer's DID record `{payload}` (spec 2.2), with `did_String` and `created`. */
export async function createIssuerIdentity(ctx: Context): Promise<IssuerDidResult> {
  const { did, created } = await resolveIssuerIdentity(ctx);
  return { payload: await parseDid(ctx, did), did_String: did, created };
}

/** The holder identity to prove with: the credential subject, which must be in this wallet (an identity or a profile of one). */
export function requireWalletIdentity(ctx: Context, did: string, what: string): void {
  if (!walletHasIdentity(ctx, did) && walletProfile(ctx, did) === undefined) {
    throw new NotFoundError(`${what} ${did} is not an identity of the wallet ${ctx.config.home} (its keys are needed to prove)`, { field: 'verifiableCredential.credentialSubject.id' });
  }
}
