/**
 * DID creation (spec 2.2): iden3 identities (BJJ auth key, claims/revocation/roots trees) kept in
 * the wallet. The holder's and the issuer's default identities are remembered in the store
 * (namespace iden3.roles), so `did create` is idempotent: it returns the stored identity, and
 * `--new` creates another one that becomes the default.
 */
import type { Context } from '../../context.js';
import { ConfigError, NotFoundError } from '../../errors.js';
import { didObject, type DidObject } from '../../iden3/did.js';
import { IDENTITIES_NS, ROLES_NS } from '../../iden3/storage.js';
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

/** The stored default identity of a role, creating it (under the wallet lock) when missing or when `fresh`. */
export async function ensureRoleIdentity(ctx: Context, role: IdentityRole, fresh = false): Promise<{ did: string; created: boolean }> {
  return ctx.store.withLock('iden3.identities', async () => {
    const existing = defaultDid(ctx, role);
    if (!fresh && existing !== undefined && walletHasIdentity(ctx, existing)) return { did: existing, created: false };
    const did = await createIdentity(ctx);
    ctx.store.put<RoleRecord>(ROLES_NS, role, { did, createdAt: ctx.now().toISOString() });
    return { did, created: true };
  });
}

async function parseDid(ctx: Context, did: string): Promise<DidObject> {
  const { modules } = await getIden3(ctx);
  return didObject(modules.core.DID.parse(did));
}

/** `vc holder did create [--new]`: the holder's DID record (spec 2.2). */
export async function createHolderIdentity(ctx: Context, options: { new?: boolean | undefined } = {}): Promise<HolderDidResult> {
  const { did, created } = await ensureRoleIdentity(ctx, 'holder', options.new === true);
  return { message: 'did successfully created', did: await parseDid(ctx, did), did_String: did, created };
}

/**
 * The issuer's DID: ISSUER_DID when set (it must be an identity of this wallet), otherwise the
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
    return { did: configured, created: false };
  }
  return ensureRoleIdentity(ctx, 'issuer');
}

/** `vc issuer did create`: the issuer's DID record `{payload}` (spec 2.2), with `did_String` and `created`. */
export async function createIssuerIdentity(ctx: Context): Promise<IssuerDidResult> {
  const { did, created } = await resolveIssuerIdentity(ctx);
  return { payload: await parseDid(ctx, did), did_String: did, created };
}

/** The holder identity to prove with: the credential subject, which must be in this wallet. */
export function requireWalletIdentity(ctx: Context, did: string, what: string): void {
  if (!walletHasIdentity(ctx, did)) {
    throw new NotFoundError(`${what} ${did} is not an identity of the wallet ${ctx.config.home} (its keys are needed to prove)`, { field: 'verifiableCredential.credentialSubject.id' });
  }
}
