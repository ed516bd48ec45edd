/**
 * Issuing a credential for proof by query (spec 2.3) and revoking one: the js-sdk builds the
 * credential from its JSON schema and JSON-LD context (resolved offline), signs its core claim
 * with the issuer's BJJ key (BJJSignature2021), adds the claim to the issuer's claims tree,
 * publishes the tree nodes to the reverse hash service and the new state on chain (state
 * transition proof), and attaches the Iden3SparseMerkleTreeProof carrying the transaction id.
 */
import { randomUUID } from 'node:crypto';
import type { W3CCredential } from '@0xpolygonid/js-sdk';
import type { Context } from '../context.js';
import { ConflictError, InputError, NotFoundError, UnprocessableError, describeError } from '../../errors.js';
import { PASSPORT_TYPE } from '../../iden3/documents.js';
import { samplePassportSubject } from '../sd/issue.js';
import { getIden3 } from '../../iden3/wallet.js';
import { resolveIssuerDid } from './did.js';
import { currentTreeState, isPublishedState, publishIdentityState } from './issuerState.js';
import type { IssueOptions } from './schemas.js';

/** Spec 2.3 response. */
export interface IssueResult {
  message: string;
  credential: Record<string, unknown>;
}

/** Result of a revocation. */
export interface RevokeResult {
  message: string;
  issuer: string;
  nonce: number;
  txId: string;
  state: string;
}

/** Serialises a js-sdk credential to its JSON form (proof classes have their own toJSON). */
export function credentialJson(credential: W3CCredential): Record<string, unknown> {
  return JSON.parse(JSON.stringify(credential)) as Record<string, unknown>;
}

/** The address proofs will be submitted from (WALLET_KEY or the local development account). */
async function submitterAddress(ctx: Context): Promise<string> {
  const { LOCAL_DEV_ACCOUNT_KEY } = await import('../../chain/client.js');
  const { computeAddress } = await import('ethers');
  return computeAddress(ctx.config.chain.walletKey ?? LOCAL_DEV_ACCOUNT_KEY);
}

/**
 * The sample PassportCredential subject (fixtures/subjects/passport.json, shared with selective
 * disclosure) with a fresh customer reference and the holder's submitting address as publicAddress.
 */
async function samplePbqPassportSubject(ctx: Context): Promise<Record<string, unknown>> {
  return { ...samplePassportSubject(), customerReference: randomUUID(), publicAddress: await submitterAddress(ctx) };
}

/** `vc issuer issue --holder DID` / POST /generate-pbq-credentials: spec 2.3 `{message, credential}`. */
export async function issuePbqCredential(ctx: Context, options: IssueOptions): Promise<IssueResult> {
  const iden3 = await getIden3(ctx);
  const { core, sdk } = iden3.modules;
  const typeName = options.type ?? PASSPORT_TYPE;
  const type = iden3.documents.typeInfo(typeName);

  let holder;
  try {
    holder = core.DID.parse(options.holderDid);
    core.DID.idFromDID(holder);
  } catch (error) {
    throw new InputError(`holder DID ${options.holderDid} is not a valid iden3 DID: ${describeError(error)}`, { field: 'did' });
  }

  let subject: Record<string, unknown>;
  if (options.subject !== undefined) subject = { ...options.subject };
  else if (typeName === PASSPORT_TYPE) subject = await samplePbqPassportSubject(ctx);
  else throw new InputError(`a subject is required for type ${typeName} (--subject FILE)`, { field: 'subject' });
  delete subject.type;
  subject.id = holder.string();

  const issuerDidString = await resolveIssuerDid(ctx);
  const issuerDid = core.DID.parse(issuerDidString);
  const loader = iden3.documents.loader();

  // One issuance at a time per wallet: each one moves the issuer's trees and on-chain state.
  return ctx.store.withLock('iden3.issuer', async () => {
    let credential: W3CCredential;
    try {
      credential = await iden3.identityWallet.issueCredential(
        issuerDid,
        {
          credentialSchema: type.schemaUrl,
          type: type.type,
          credentialSubject: subject as never,
          revocationOpts: { type: sdk.CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, id: iden3.rhsUrl },
        },
        { documentLoader: loader as never },
      );
    } catch (error) {
      // Schema validation and merklization failures are about the subject the caller gave.
      throw new UnprocessableError(`cannot issue ${type.type}: ${describeError(error).replace(/^Error create w3c credential /, '')}`, { field: 'subject', cause: error });
    }
    await iden3.dataStorage.credential.saveCredential(credential);
    await iden3.identityWallet.addCredentialsToMerkleTree([credential], issuerDid);
    const { txId } = await publishIdentityState(ctx, issuerDid);
    const [withMtp] = await iden3.identityWallet.generateIden3SparseMerkleTreeProof(issuerDid, [credential], txId);
    await iden3.dataStorage.credential.saveCredential(withMtp!);
    return { message: 'credential successfully generated', credential: credentialJson(withMtp!) };
  });
}

/**
 * `vc issuer revoke --nonce N`: adds the nonce to the revocation tree and publishes the new state.
 * A nonce already in the tree whose state was never published (the publication failed: RHS or
 * chain down) is published now, so a failed revocation can be retried; only a revocation that is
 * already on chain is a conflict.
 */
export async function revokePbqCredential(ctx: Context, options: { nonce: number }): Promise<RevokeResult> {
  const iden3 = await getIden3(ctx);
  const { core, sdk } = iden3.modules;
  const issuerDidString = await resolveIssuerDid(ctx);
  const issuerDid = core.DID.parse(issuerDidString);
  const issued = (await iden3.dataStorage.credential.listCredentials()).some(
    (c) => c.issuer === issuerDidString && c.credentialStatus.revocationNonce === options.nonce,
  );
  if (!issued) throw new NotFoundError(`issuer ${issuerDidString} issued no credential with revocation nonce ${options.nonce} from this wallet`, { field: 'nonce' });

  return ctx.store.withLock('iden3.issuer', async () => {
    const model = await iden3.identityWallet.getDIDTreeModel(issuerDid);
    const present = (await model.revocationTree.generateProof(BigInt(options.nonce))).proof.existence;
    if (present) {
      const current = await currentTreeState(iden3, issuerDid);
      if (isPublishedState(ctx, issuerDidString, current.state)) {
        throw new ConflictError(`revocation nonce ${options.nonce} is already revoked by ${issuerDidString}`, { field: 'nonce' });
      }
    } else {
      await iden3.dataStorage.mt.addToMerkleTree(issuerDidString, sdk.MerkleTreeType.Revocations, BigInt(options.nonce), 0n);
    }
    const { txId, state } = await publishIdentityState(ctx, issuerDid, [options.nonce]);
    return { message: 'credential successfully revoked', issuer: issuerDidString, nonce: options.nonce, txId, state: state.state };
  });
}
