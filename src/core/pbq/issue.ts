/**
 * Issuing a credential for proof by query (spec 2.3) and revoking one: the js-sdk builds the
 * credential from its JSON schema and JSON-LD context (resolved offline), signs its core claim
 * with the issuer's BJJ key (BJJSignature2021), adds the claim to the issuer's claims tree,
 * publishes the tree nodes to the reverse hash service and the new state on chain (state
 * transition proof), and attaches the Iden3SparseMerkleTreeProof carrying the transaction id.
 */
import { randomUUID } from 'node:crypto';
import type { W3CCredential } from '@0xpolygonid/js-sdk';
import type { Context } from '../../context.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { ConflictError, InputError, NotFoundError, UnprocessableError, describeError } from '../../errors.js';
import { PASSPORT_TYPE } from '../../iden3/documents.js';
import { samplePassportSubject } from '../sd/issue.js';
import { getIden3 } from '../../iden3/wallet.js';
import { resolveIssuerDid } from './did.js';
import { currentTreeState, isPublishedState } from './issuerState.js';
import { issuedRecords, publishRecoverably, recoverPendingPublication } from './publication.js';
import type { IssueOptions } from './schemas.js';

/** Spec 2.3 response. */
export interface IssueResult {
  message: string;
  credential: Record<string, unknown>;
}

/** The type of an identity's own auth credential (its BJJ key claim). */
const AUTH_CREDENTIAL_TYPE = 'AuthBJJCredential';

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

/**
 * Registers a credential type that is not bundled (a JSON schema with iden3 $metadata and its
 * JSON-LD context) for this process, so it can be issued; returns the type name.
 */
export async function registerCredentialType(ctx: Context, options: { schema: unknown; context: unknown; names?: FieldNamer }): Promise<{ type: string }> {
  const names = options.names ?? plainFieldNames;
  const info = (await getIden3(ctx)).documents.register(options.schema, options.context, { schema: names('schema'), context: names('context') });
  return { type: info.type };
}

/** `vc issuer issue --holder DID` / POST /generate-pbq-credentials: spec 2.3 `{message, credential}`. */
export async function issuePbqCredential(ctx: Context, options: IssueOptions & { names?: FieldNamer }): Promise<IssueResult> {
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
  else throw new InputError(`a subject is required for type ${typeName}: give its fields (${(options.names ?? plainFieldNames)('subject')})`, { field: 'subject' });
  delete subject.type;
  subject.id = holder.string();

  const issuerDidString = await resolveIssuerDid(ctx);
  const issuerDid = core.DID.parse(issuerDidString);
  const loader = iden3.documents.loader();

  // One issuance at a time per wallet: each one moves the issuer's trees and on-chain state.
  return ctx.store.withLock('iden3.issuer', async () => {
    // An earlier command interrupted mid-publication is completed (or published again) first.
    await recoverPendingPublication(ctx, issuerDid);
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
    const published = await publishRecoverably(ctx, issuerDid, { kind: 'issue', credentials: [credential], revokedNonces: [] });
    return { message: 'credential successfully generated', credential: credentialJson(published.credentials[0]!) };
  });
}

/**
 * `vc issuer revoke --nonce N`: adds the nonce to the revocation tree and publishes the new state,
 * as a journaled publication: a revocation interrupted at any step is completed or published
 * again by the next command, so only a revocation that is already on chain is a conflict.
 */
export async function revokePbqCredential(ctx: Context, options: { nonce: number }): Promise<RevokeResult> {
  const iden3 = await getIden3(ctx);
  const { core } = iden3.modules;
  const issuerDidString = await resolveIssuerDid(ctx);
  const issuerDid = core.DID.parse(issuerDidString);
  return ctx.store.withLock('iden3.issuer', async () => {
    const recovered = await recoverPendingPublication(ctx, issuerDid);
    if (recovered?.revokedNonces.includes(options.nonce) === true) {
      // The interrupted command was this very revocation: it is on chain now.
      return { message: 'credential successfully revoked', issuer: issuerDidString, nonce: options.nonce, txId: recovered.txId, state: recovered.state.state };
    }
    // The issuer's own auth key claim, whatever any stored credential claims to be.
    const authNonces = (await iden3.dataStorage.credential.listCredentials())
      .filter((c) => c.issuer === issuerDidString && c.type.includes(AUTH_CREDENTIAL_TYPE))
      .map((c) => Number(c.credentialStatus.revocationNonce));
    if (authNonces.includes(options.nonce)) {
      throw new ConflictError(`revocation nonce ${options.nonce} is the issuer's own authentication key (${AUTH_CREDENTIAL_TYPE}); revoking it would leave ${issuerDidString} unable to publish any state`, { field: 'nonce' });
    }
    if (!issuedRecords(ctx, issuerDidString).some((record) => record.revocationNonce === options.nonce)) {
      throw new NotFoundError(`issuer ${issuerDidString} issued no credential with revocation nonce ${options.nonce} from this wallet`, { field: 'nonce' });
    }

    const model = await iden3.identityWallet.getDIDTreeModel(issuerDid);
    if ((await model.revocationTree.generateProof(BigInt(options.nonce))).proof.existence) {
      // In the tree: on chain already, unless an older wallet left it unpublished (then publish it now).
      const current = await currentTreeState(iden3, issuerDid);
      if (isPublishedState(ctx, issuerDidString, current.state)) {
        throw new ConflictError(`revocation nonce ${options.nonce} is already revoked by ${issuerDidString}`, { field: 'nonce' });
      }
    }
    const { txId, state } = await publishRecoverably(ctx, issuerDid, { kind: 'revoke', credentials: [], revokedNonces: [options.nonce] });
    return { message: 'credential successfully revoked', issuer: issuerDidString, nonce: options.nonce, txId, state: state.state };
  });
}

/** One credential the issuer of this wallet issued (without its proofs). */
export interface IssuedCredentialSummary {
  id: string;
  type: string[];
  holder: string | undefined;
  issuanceDate: string | undefined;
  revocationNonce: number;
  /** True when its revocation nonce is in the issuer's published revocation tree. */
  revoked: boolean;
}

export interface IssuedCredentialsResult {
  issuer: string;
  /** What an interrupted issuance or revocation completed during this call, if anything. */
  recovered: { kind: string; txId: string; credentials: string[]; revokedNonces: number[] } | undefined;
  credentials: IssuedCredentialSummary[];
}

/**
 * `vc issuer credentials` / GET /issued-credentials: reconciles an interrupted publication with the
 * chain (completing its credentials), then lists what the issuer issued, or returns one credential
 * whole (with its Merkle proof) when `id` is given.
 */
export async function listIssuedCredentials(ctx: Context, options: { id?: string | undefined } = {}): Promise<IssuedCredentialsResult | Record<string, unknown>> {
  const iden3 = await getIden3(ctx);
  const issuerDidString = await resolveIssuerDid(ctx);
  const issuerDid = iden3.modules.core.DID.parse(issuerDidString);
  return ctx.store.withLock('iden3.issuer', async () => {
    const recovered = await recoverPendingPublication(ctx, issuerDid);
    // Only what this issuer's completed publications recorded: the credential store also holds
    // credentials holders of this wallet received, and copies given to prove-submit.
    const issued: W3CCredential[] = [];
    for (const record of issuedRecords(ctx, issuerDidString)) {
      const stored = await iden3.dataStorage.credential.findCredentialById(record.id);
      if (stored !== undefined) issued.push(stored);
    }
    if (options.id !== undefined) {
      const found = issued.find((c) => c.id === options.id);
      if (found === undefined) throw new NotFoundError(`issuer ${issuerDidString} issued no credential ${options.id} from this wallet`, { field: 'id' });
      return credentialJson(found);
    }
    const model = await iden3.identityWallet.getDIDTreeModel(issuerDid);
    const credentials: IssuedCredentialSummary[] = [];
    for (const c of issued) {
      const nonce = Number(c.credentialStatus.revocationNonce);
      const subject = c.credentialSubject as Record<string, unknown>;
      credentials.push({
        id: c.id,
        type: c.type,
        holder: typeof subject.id === 'string' ? subject.id : undefined,
        issuanceDate: c.issuanceDate,
        revocationNonce: nonce,
        revoked: (await model.revocationTree.generateProof(BigInt(nonce))).proof.existence,
      });
    }
    return {
      issuer: issuerDidString,
      recovered:
        recovered === undefined
          ? undefined
          : { kind: recovered.credentials.length > 0 ? 'issue' : 'revoke', txId: recovered.txId, credentials: recovered.credentials.map((c) => c.id), revokedNonces: recovered.revokedNonces },
      credentials,
    };
  });
}
