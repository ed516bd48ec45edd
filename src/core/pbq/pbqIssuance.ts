/**
 * Issuing a credential for proof by query (spec 2.3) and revoking one: the js-sdk builds the
 * credential from its JSON schema and JSON-LD context (resolved offline), signs its core claim
 * with the issuer's BJJ key (BJJSignature2021), adds the claim to the issuer's claims tree,
 * publishes the tree nodes to the reverse hash service and the new state on chain (state
 * transition proof), and attaches the Iden3SparseMerkleTreeProof carrying the transaction id.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { CredentialStatusType, W3CCredential } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { Context } from '../../context.js';
import { joinPath, plainFieldNames, type FieldNamer } from '../validate.js';
import { ConfigError, ConflictError, InputError, NotFoundError, UnprocessableError, describeError, didYouMean, isVcError } from '../../errors.js';
import { PASSPORT_TYPE, type CredentialTypeInfo } from '../../iden3/documents.js';
import { checkAgainstSchema, contextFieldsOfType, subjectSchemaOf } from '../../iden3/typeFields.js';
import { samplePassportSubject } from '../sd/sdIssuance.js';
import { crashPoint } from '../../faults.js';
import { getIden3, type Iden3 } from '../../iden3/wallet.js';
import { CREDENTIALS_NS } from '../../iden3/storage.js';
import { AGENT_PATH } from '../../iden3/agentStatus.js';
import { issuerBaseUrl } from '../status/issuerStatusLists.js';
import { resolveIssuerDid, signerAddress } from './identities.js';
import { currentTreeState, isPublishedState } from './issuerState.js';
import { letEventLoopRun } from '../../eventLoop.js';
import { COMPLETED_BATCHES_NS, ISSUED_NS, NONCES_NS, isIssued, issuedRecords, publishRecoverably, recordIssued, recoverPendingPublication, type CompletedBatch, type NonceRecord } from './publication.js';
import { keepIssuedCredential } from '../holder/holderStore.js';
import type { IssueOptions, IssueStatusKind } from './pbqSchemas.js';

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

/**
 * The sample PassportCredential subject (fixtures/subjects/passport.json, shared with selective
 * disclosure) with a fresh customer reference and the holder's submitting address as publicAddress.
 */
async function samplePbqPassportSubject(ctx: Context): Promise<Record<string, unknown>> {
  return { ...samplePassportSubject(), customerReference: randomUUID(), publicAddress: await signerAddress(ctx) };
}

/**
 * Registers a credential type that is not bundled (a JSON schema with iden3 $metadata and its
 * JSON-LD context) for this process, so it can be issued; returns the type name.
 */
export async function registerCredentialType(ctx: Context, options: { schema: unknown; context: unknown; type?: string | undefined; names?: FieldNamer }): Promise<{ type: string }> {
  const names = options.names ?? plainFieldNames;
  const info = (await getIden3(ctx)).documents.register(options.schema, options.context, { schema: names('schema'), context: names('context'), type: names('type') }, options.type);
  return { type: info.type };
}

/** One credential to issue: the holder, the type and the subject, with how its fields are named. */
export interface IssueItem extends IssueOptions {
  names?: FieldNamer;
  /** The item's path in the caller's input (`batch[3]` for a line of a batch), '' for a single one. */
  base?: string;
}

/** An item checked and completed, ready to be signed. */
export interface PreparedItem {
  holder: string;
  type: { type: string; schemaUrl: string };
  subject: Record<string, unknown>;
  names: FieldNamer;
  base: string;
  /**
   * The status its credential names: the reverse hash service (Iden3ReverseSparseMerkleTreeProof),
   * the chain's IdentityTreeStore (Iden3OnchainSparseMerkleTreeProof2023) or the issuer's agent
   * (Iden3commRevocationStatusV1.0), by type and the address the js-sdk builds its id from.
   */
  status: { type: CredentialStatusType; id: string };
}

/**
 * Checks an item without touching the wallet (the holder DID, the type, the subject's presence)
 * and completes its subject (the sample passport when none is given for PassportCredential).
 */
export async function prepareItem(ctx: Context, iden3: Iden3, item: IssueItem): Promise<PreparedItem> {
  const names = item.names ?? plainFieldNames;
  const base = item.base ?? '';
  const { core } = iden3.modules;
  const typeName = item.type ?? PASSPORT_TYPE;
  let type;
  try {
    type = iden3.documents.typeInfo(typeName);
  } catch (error) {
    if (!isVcError(error) || base === '') throw error;
    throw new (error.constructor as typeof InputError)(`${names(joinPath(base, 'type'))}: ${error.message}`, { field: joinPath(base, 'type'), cause: error });
  }
  let holder;
  try {
    holder = core.DID.parse(item.holderDid);
    // idFromDID hashes a DID of another method into an id: the holder could never prove with it.
    const { method, blockchain, networkId } = core.DID.decodePartsFromId(core.DID.idFromDID(holder));
    if (core.DID.isUnsupported(method, blockchain, networkId)) throw new Error(`its method ${holder.method} is not an iden3 method`);
  } catch (error) {
    throw new InputError(`${base === '' ? '' : `${names(joinPath(base, 'did'))}: `}holder DID ${item.holderDid} is not a valid iden3 DID: ${describeError(error)}`, { field: joinPath(base, 'did') });
  }
  let subject: Record<string, unknown>;
  if (item.subject !== undefined) subject = { ...item.subject };
  else if (typeName === PASSPORT_TYPE) subject = await samplePbqPassportSubject(ctx);
  else throw new InputError(`a subject is required for type ${typeName}: give its fields (${names(joinPath(base, 'subject'))})`, { field: joinPath(base, 'subject') });
  delete subject.type;
  subject.id = holder.string();
  checkSubjectFields(iden3, type, subject, names, joinPath(base, 'subject'));
  return {
    holder: holder.string(),
    type,
    subject,
    names,
    base,
    status: await statusOf(ctx, iden3, item.status ?? 'rhs', names),
  };
}

/** The status an item of `kind` names (see PreparedItem.status). */
async function statusOf(ctx: Context, iden3: Iden3, kind: IssueStatusKind, names: FieldNamer): Promise<PreparedItem['status']> {
  const types = iden3.modules.sdk.CredentialStatusType;
  switch (kind) {
    case 'onchain':
      return { type: types.Iden3OnchainSparseMerkleTreeProof2023, id: await identityTreeStoreOf(ctx, names) };
    case 'agent':
      return { type: types.Iden3commRevocationStatusV1, id: `${await issuerBaseUrl(ctx)}${AGENT_PATH}` };
    case 'rhs':
      return { type: types.Iden3ReverseSparseMerkleTreeProof, id: iden3.rhsUrl };
  }
}

/** The IdentityTreeStore of the configured chain, which an on-chain status names; refused when the chain has none. */
async function identityTreeStoreOf(ctx: Context, names: FieldNamer): Promise<string> {
  const { getChain } = await import('../../chain/chainClient.js');
  const chain = await getChain(ctx);
  const address = chain.addresses.identityTreeStore;
  if (address === undefined) {
    throw new ConfigError(`${names('status')} onchain: the configured chain ${chain.chainId} has no IdentityTreeStore: set IDENTITY_TREE_STORE_ADDRESS (the deploying party's \`vc chain env\` gives it), or \`vc chain deploy\` deploys one; issue with the reverse hash service instead (rhs)`, { field: 'status' });
  }
  const { requireContractKind } = await import('../../chain/contractKind.js');
  await requireContractKind(ctx, 'identityTreeStore', address, chain.addresses);
  return address;
}

/**
 * Refuses, naming the field and what was expected, a subject the type's documents do not allow: a
 * field its JSON-LD context does not define (with the closest one), or a value its JSON schema
 * refuses (type, required field, enumeration, pattern, bounds). The js-sdk would refuse both, but
 * without saying where ("must be integer", "term is not defined").
 */
function checkSubjectFields(iden3: Iden3, type: CredentialTypeInfo, subject: Record<string, unknown>, names: FieldNamer, at: string): void {
  const fields = iden3.documents.fieldsOf(type.type, type.contextUrl);
  const context = iden3.documents.document(type.contextUrl);
  const defined = context === undefined ? undefined : contextFieldsOfType(context, type.type);
  if (defined !== undefined) {
    for (const field of Object.keys(subject)) {
      if (field === 'id' || defined.includes(field)) continue;
      throw new UnprocessableError(`${names(joinPath(at, field))}: not a field of ${type.type}${didYouMean(field, fields ?? defined)}; its fields: ${(fields ?? defined).join(', ')}`, {
        field: joinPath(at, field),
      });
    }
  }
  const node = subjectSchemaOf(iden3.documents.document(type.schemaUrl));
  const problem = node === undefined ? undefined : checkAgainstSchema(subject, node);
  if (problem !== undefined) {
    const field = joinPath(at, problem.path);
    throw new UnprocessableError(`${names(field)}: ${problem.problem} (the JSON schema of ${type.type})`, { field });
  }
}

/**
 * Builds and signs one credential (BJJSignature2021) against the issuer's current state; nothing
 * is stored and no tree changes. Schema and merklization failures are about the item's subject.
 */
export async function signItem(iden3: Iden3, issuerDid: DID, item: PreparedItem, nonce: number): Promise<W3CCredential> {
  // Between two signatures, the lock's keep-alive and a server's other requests get their turn.
  await letEventLoopRun();
  try {
    return await iden3.identityWallet.issueCredential(
      issuerDid,
      {
        credentialSchema: item.type.schemaUrl,
        type: item.type.type,
        credentialSubject: item.subject as never,
        revocationOpts: { ...item.status, nonce },
      },
      // The same Poseidon, remembering the hashes credentials of one type share.
      { documentLoader: iden3.documents.loader() as never, hasher: iden3.hasher } as never,
    );
  } catch (error) {
    const field = joinPath(item.base, 'subject');
    const ours = isVcError(error) ? error : undefined;
    if (ours !== undefined) throw ours;
    throw new UnprocessableError(`${item.names(field)}: cannot issue ${item.type.type}: ${describeError(error).replace(/^Error create w3c credential /, '')}`, { field, cause: error });
  }
}

/** The fields of a stored iden3 credential that revocation nonces are read from. */
interface StoredCredentialFields {
  issuer?: string;
  credentialStatus?: { revocationNonce?: number | string };
}

/**
 * Store namespace marking the issuers whose nonce index (NONCES_NS) is complete: `<issuer DID>` →
 * when it was built and how many more nonces it held than the issuer had issued records (its auth
 * key's, stored copies').
 */
export const NONCE_INDEX_NS = 'iden3.revocationNonces.indexed';

interface NonceIndexMarker {
  at: string;
  extra: number;
}

/**
 * Builds `issuer`'s nonce index when it is not known complete: the issuer's first issuance, a
 * wallet of an earlier vc, or one an earlier vc issued from since the index was built (its issued
 * records outnumber what the marker allows: every issuance of this vc adds one issued record and
 * one nonce, recordIssued). The index holds every nonce its issued credentials use, and those of
 * every stored credential of that issuer (its auth key's among them). Checking is two counts by
 * the database; building reads every credential once. Call with the issuer's lock held.
 */
function indexRevocationNonces(ctx: Context, issuer: string): void {
  const prefix = `${issuer}/`;
  const marker = ctx.store.get<Partial<NonceIndexMarker>>(NONCE_INDEX_NS, issuer);
  const extra = (): number => ctx.store.countPrefix(NONCES_NS, prefix) - ctx.store.countPrefix(ISSUED_NS, prefix);
  if (marker !== undefined && marker !== null && marker.extra === extra()) return;
  const used = new Map<number, string>();
  for (const record of issuedRecords(ctx, issuer)) used.set(record.revocationNonce, record.id);
  // The stored credentials as stored (the js-sdk's listCredentials would parse each into a W3CCredential).
  for (const { key, value } of ctx.store.list<StoredCredentialFields>(CREDENTIALS_NS)) {
    if (value.issuer === issuer && value.credentialStatus?.revocationNonce !== undefined) used.set(Number(value.credentialStatus.revocationNonce), key);
  }
  ctx.store.transaction(() => {
    for (const [nonce, id] of used) ctx.store.put<NonceRecord>(NONCES_NS, `${prefix}${nonce}`, { id });
    ctx.store.put<NonceIndexMarker>(NONCE_INDEX_NS, issuer, { at: ctx.now().toISOString(), extra: extra() });
  });
}

/**
 * Revocation nonces for new credentials: random 32-bit values (as the js-sdk draws them) that no
 * credential of the issuer uses yet, its own auth key included, nor an earlier one of the same
 * group. Two credentials sharing a nonce would be revoked together; with thousands of
 * credentials a collision of random draws alone is likely. Each draw is checked with one read of
 * the issuer's nonce index (reading every credential of a wallet of 10,000 took 0.6 s per
 * issuance). Call with the issuer's lock held.
 */
export async function revocationNonces(ctx: Context, issuerDid: DID, draw: () => number = () => randomInt(1, 2 ** 32)): Promise<() => number> {
  const issuer = issuerDid.string();
  indexRevocationNonces(ctx, issuer);
  const drawn = new Set<number>();
  return () => {
    for (;;) {
      const nonce = draw();
      if (!drawn.has(nonce) && ctx.store.get<NonceRecord>(NONCES_NS, `${issuer}/${nonce}`) === undefined) {
        drawn.add(nonce);
        return nonce;
      }
    }
  };
}

/** The issuer's DID, parsed. */
export async function issuerDidOf(ctx: Context, iden3: Iden3): Promise<DID> {
  return iden3.modules.core.DID.parse(await resolveIssuerDid(ctx));
}

/** `vc issuer issue --holder DID` (one credential, one state transition): spec 2.3 `{message, credential}`. */
export async function issuePbqCredential(ctx: Context, options: IssueItem): Promise<IssueResult> {
  const { credentials } = await issuePbqBatch(ctx, [options]);
  return credentials[0]!;
}

/**
 * Store namespace of the signed credentials whose claims wait for the next `vc issuer publish`
 * (`--proof both`): `<issuer DID>/<credential id>`. An entry goes once the stored credential has
 * its Merkle proof (a publication completed, or recovered, with it).
 */
export const UNPUBLISHED_NS = 'iden3.unpublishedClaims';

/** One credential waiting for its claim's publication. */
interface UnpublishedClaim {
  id: string;
  queuedAt: string;
}

/**
 * `vc issuer issue --proof sig|both`: signs the credential (BJJSignature2021) with the issuer's
 * auth key, which its published (or genesis) state holds, and gives it at once: its claim enters
 * no tree and no state transition runs, so it costs a signature instead of a proof and a block. A
 * V3 request proves it with a signature proof (proofType 1); the spec's MTP v2 circuit cannot.
 * It is recorded as issued, so `vc issuer revoke` revokes it like any other (publishing the
 * revocation tree then). With `queue` (`--proof both`) its claim waits for `vc issuer publish`,
 * which adds its Iden3SparseMerkleTreeProof.
 */
export async function issueSignedPbqCredential(ctx: Context, item: IssueItem, options: { queue?: boolean } = {}): Promise<IssueResult> {
  const iden3 = await getIden3(ctx);
  const prepared = await prepareItem(ctx, iden3, item);
  const issuerDid = await issuerDidOf(ctx, iden3);
  return ctx.store.withLock('iden3.issuer', async () => {
    // An interrupted publication is completed first: the signature names the issuer's current
    // state, which must be the one on chain.
    await recoverPendingPublication(ctx, issuerDid);
    const nextNonce = await revocationNonces(ctx, issuerDid);
    const credential = await signItem(iden3, issuerDid, prepared, nextNonce());
    await iden3.dataStorage.credential.saveCredential(credential);
    ctx.store.transaction(() => {
      recordIssued(ctx, issuerDid.string(), credential);
      if (options.queue === true) ctx.store.put<UnpublishedClaim>(UNPUBLISHED_NS, `${issuerDid.string()}/${credential.id}`, { id: credential.id, queuedAt: ctx.now().toISOString() });
    });
    keepIssuedCredential(ctx, credentialJson(credential), 'iden3', { quiet: true });
    return issueResult(credential);
  });
}

/**
 * The credentials of `issuer` whose claims wait for a publication (`--proof both`), oldest first;
 * entries whose credential has its Merkle proof by now (a publication completed or recovered with
 * it) are dropped. Call with the issuer's lock held, after recovering its pending publication.
 */
export async function waitingClaims(ctx: Context, iden3: Iden3, issuer: string): Promise<W3CCredential[]> {
  const waiting: W3CCredential[] = [];
  const entries = ctx.store.list<UnpublishedClaim>(UNPUBLISHED_NS, `${issuer}/`).sort((a, b) => a.value.queuedAt.localeCompare(b.value.queuedAt));
  for (const entry of entries) {
    const stored = await iden3.dataStorage.credential.findCredentialById(entry.value.id);
    if (stored === undefined || stored.getIden3SparseMerkleTreeProof() !== undefined) ctx.store.delete(UNPUBLISHED_NS, entry.key);
    else waiting.push(stored);
  }
  return waiting;
}

/** Drops the queue entries of credentials a completed publication carried. */
export function publishedClaims(ctx: Context, issuer: string, credentials: readonly W3CCredential[]): void {
  ctx.store.transaction(() => {
    for (const credential of credentials) ctx.store.delete(UNPUBLISHED_NS, `${issuer}/${credential.id}`);
  });
}

/** What `vc issuer publish` did. */
export interface PublishQueuedResult {
  issuer: string;
  /** The credentials whose claims it published, now with their Iden3SparseMerkleTreeProof. */
  credentials: IssueResult[];
  /** The state transition, or undefined when nothing was waiting. */
  txId: string | undefined;
  state: string | undefined;
}

/**
 * `vc issuer publish` / POST /publish: publishes the claims of the credentials issued with
 * `--proof both` since the last publication, with one state transition (a journaled publication,
 * crash safe as any issuance), and gives them back with their Iden3SparseMerkleTreeProof; the
 * issuer's stored copies (and a holder of this wallet's) gain it. Nothing waiting: no transaction.
 */
export async function publishQueuedCredentials(ctx: Context): Promise<PublishQueuedResult> {
  const iden3 = await getIden3(ctx);
  const issuerDid = await issuerDidOf(ctx, iden3);
  const issuer = issuerDid.string();
  return ctx.store.withLock(
    'iden3.issuer',
    async () => {
      await recoverPendingPublication(ctx, issuerDid);
      const waiting = await waitingClaims(ctx, iden3, issuer);
      if (waiting.length === 0) return { issuer, credentials: [], txId: undefined, state: undefined };
      const published = await publishRecoverably(ctx, issuerDid, { kind: 'issue', credentials: waiting, revokedNonces: [] });
      publishedClaims(ctx, issuer, published.credentials);
      return { issuer, credentials: published.credentials.map(issueResult), txId: published.txId, state: published.state.state };
    },
    { resultStandsIfLost: (message) => ctx.progress.warn?.(message) },
  );
}

/** A batch issued with one state transition. */
export interface IssueBatchResult {
  /** Spec 2.3 responses, in input order. */
  credentials: IssueResult[];
  /** The state transition that published all of them. */
  txId: string;
  state: string;
  /** True when an earlier run of this very batch was interrupted and this call completed it. */
  recovered: boolean;
}

/** The most credentials one publication (one batch) holds. */
export const MAX_BATCH_CREDENTIALS = 1000;

/**
 * Issues `items` with ONE state transition (group commit): every item is checked and signed
 * first, so a bad one is reported (the first, with how many more failed) and nothing is issued;
 * then all claims go into the issuer's claims tree together and the new state is published as one
 * journaled publication (crash safe as a whole: see ./publication.ts); each credential then gets
 * its Iden3SparseMerkleTreeProof naming that transaction. With `batchKey` (a digest of the input),
 * running the same batch again returns the batch of the earlier run, completed, instead of issuing
 * it twice, until that result is delivered (forgetCompletedBatch, once `-o` is written): a run
 * killed at any step, even after the publication and before its output, is never issued twice.
 */
export async function issuePbqBatch(ctx: Context, items: IssueItem[], options: { batchKey?: string } = {}): Promise<IssueBatchResult> {
  if (items.length === 0) throw new InputError('nothing to issue: the batch is empty', { field: 'batch' });
  if (items.length > MAX_BATCH_CREDENTIALS) throw new InputError(`a batch holds at most ${MAX_BATCH_CREDENTIALS} credentials, not ${items.length}`, { field: 'batch' });
  const iden3 = await getIden3(ctx);
  const prepared = await everyOrFailures(items, (item) => prepareItem(ctx, iden3, item), 'checks');
  const issuerDid = await issuerDidOf(ctx, iden3);
  // One publication at a time per wallet: each one moves the issuer's trees and on-chain state.
  return ctx.store.withLock(
    'iden3.issuer',
    async () => {
      // An earlier command interrupted mid-publication is completed (or published again) first.
      await recoverPendingPublication(ctx, issuerDid);
      if (options.batchKey !== undefined) {
        // This very batch was issued by an earlier run (or completed since by that recovery or another
        // command) whose result never reached its output.
        const done = await completedBatch(ctx, iden3, issuerDid.string(), options.batchKey);
        if (done !== undefined) return done;
      }
      const nextNonce = await revocationNonces(ctx, issuerDid);
      const signed = await everyOrFailures(prepared, (item) => signItem(iden3, issuerDid, item, nextNonce()), 'schemas');
      crashPoint('issue:signed');
      // Completing it records the batch under its key (publication.ts): kept until its output is
      // written (forgetCompletedBatch), so a run killed before that gets it back when run again.
      const published = await publishRecoverably(ctx, issuerDid, { kind: 'issue', credentials: signed, revokedNonces: [], ...(options.batchKey === undefined ? {} : { batchKey: options.batchKey }) });
      return { credentials: published.credentials.map(issueResult), txId: published.txId, state: published.state.state, recovered: false };
    },
    // Once published and recorded, the credentials exist: losing the lock on the way does not undo that.
    { resultStandsIfLost: (message) => ctx.progress.warn?.(message) },
  );
}

/** The credentials of the batch `batchKey` of `issuer` when an earlier run or another command completed it and its output was not written. */
async function completedBatch(ctx: Context, iden3: Iden3, issuer: string, batchKey: string): Promise<IssueBatchResult | undefined> {
  const done = ctx.store.get<CompletedBatch>(COMPLETED_BATCHES_NS, batchKey);
  if (done === undefined || done.issuer !== issuer) return undefined;
  const credentials: IssueResult[] = [];
  for (const id of done.credentials) {
    const stored = await iden3.dataStorage.credential.findCredentialById(id);
    if (stored === undefined) throw new ConflictError(`credential ${id} of an interrupted batch of ${done.issuer} is missing from the wallet`);
    credentials.push(issueResult(stored));
  }
  ctx.progress.info(`this batch was issued already (${done.at}, tx ${done.txId}) and its result never written: giving its ${credentials.length} credentials again`);
  return { credentials, txId: done.txId, state: done.state, recovered: true };
}

/**
 * Lets the batch `batchKey` go once its result is delivered (`-o` written): the next run of the
 * same input issues a new batch. Until then every run of it gets the same credentials.
 */
export function forgetCompletedBatch(ctx: Context, batchKey: string): void {
  ctx.store.delete(COMPLETED_BATCHES_NS, batchKey);
}

export function issueResult(credential: W3CCredential): IssueResult {
  return { message: 'credential successfully generated', credential: credentialJson(credential) };
}

/**
 * Runs `step` on every item (in order) and returns the results; when any failed with an input
 * error, throws the first failure, naming how many more items failed this stage (`stage`: the
 * checks, or the schemas when signing) and where. Items failing a later stage are not counted:
 * that stage runs once every item passes this one.
 */
async function everyOrFailures<I extends { names?: FieldNamer; base?: string }, T>(items: I[], step: (item: I) => Promise<T>, stage: string): Promise<T[]> {
  const results: T[] = [];
  const failures: Array<{ item: I; error: InputError }> = [];
  for (const item of items) {
    try {
      results.push(await step(item));
    } catch (error) {
      if (!isVcError(error) || error.httpStatus >= 500 || items.length === 1) throw error;
      failures.push({ item, error: error as InputError });
    }
  }
  if (failures.length === 0) return results;
  const first = failures[0]!.error;
  if (failures.length === 1) throw first;
  const others = failures.slice(1, 6).map(({ item }) => (item.names ?? plainFieldNames)(item.base ?? ''));
  const more = `; ${failures.length - 1} more failed the ${stage} (${others.join(', ')}${failures.length > 6 ? ', ...' : ''}); nothing was issued`;
  throw new (first.constructor as typeof InputError)(`${first.message}${more}`, { ...(first.field === undefined ? {} : { field: first.field }), cause: first });
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
    if (options.id !== undefined) {
      // One credential: its issued record and the credential, not every one the issuer issued.
      const found = isIssued(ctx, issuerDidString, options.id) ? await iden3.dataStorage.credential.findCredentialById(options.id) : undefined;
      if (found === undefined) throw new NotFoundError(`issuer ${issuerDidString} issued no credential ${options.id} from this wallet`, { field: 'id' });
      return credentialJson(found);
    }
    const issued: W3CCredential[] = [];
    for (const record of issuedRecords(ctx, issuerDidString)) {
      const stored = await iden3.dataStorage.credential.findCredentialById(record.id);
      if (stored !== undefined) issued.push(stored);
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
