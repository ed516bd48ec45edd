/**
 * Iden3commRevocationStatusV1.0: the credential's status is answered by its issuer's iden3comm
 * agent. The holder POSTs a plain iden3comm message `revocation/1.0/request-status` with the
 * revocation nonce to the URL in the status id; the agent answers `revocation/1.0/status` with the
 * issuer's tree roots and a Merkle proof of the nonce in its revocation tree (as the Privado ID
 * issuer node and the js-sdk's RevocationStatusHandler do, and the js-sdk's AgentResolver reads).
 *
 * Both sides live here:
 * - `answerRevocationStatus`: vc's issuer answers at the state the chain holds for it (its latest
 *   published state, also while that publication is being recorded or after a crash left it
 *   unrecorded, or its genesis state), never at a state not yet published, because the holder's
 *   proof must name a state the verifier finds on chain; and not at all when the chain holds no
 *   state for an issuer that published (a replaced chain forgot its revocations).
 * - `AgentStatusResolver`: vc's holder asks the agent (or, when the issuer's identity is in the same
 *   wallet, answers itself without a request) and uses the answer only once it holds: the three
 *   roots hash to the state, that state is the issuer's on chain (or its genesis state when it
 *   never published), and the proof, of revocation or of non-revocation, leads to the revocation
 *   root (an agent, or whoever stands between it and the holder, cannot say "revoked" untruly).
 * The request has a time and size limit and follows no redirect (src/boundedFetch.ts).
 */
import { randomUUID } from 'node:crypto';
import type { CredentialStatus, CredentialStatusResolveOptions, CredentialStatusResolver, IDataStorage, IdentityWallet, RevocationStatus } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { Hash } from '@iden3/js-merkletree';
import { boundedFetch, type FetchLimits } from '../boundedFetch.js';
import type { Context } from '../context.js';
import { ConflictError, NetworkError, NotFoundError, UnprocessableError, VerificationError, describeError } from '../errors.js';
import { latestStateOnChain } from './chainState.js';
import type { Iden3Modules } from './modules.js';
import { PENDING_PUBLICATIONS_NS, knownTreeState, treeStateRecords, type KnownTreeState } from './storage.js';

/** The status type, as credentials carry it. */
export const IDEN3COMM_STATUS_TYPE = 'Iden3commRevocationStatusV1.0';
/** Where the issuer service answers iden3comm messages, under its base URL (VC_ISSUER_URL). */
export const AGENT_PATH = '/agent';
/** The plain (unencrypted, unsigned) iden3comm media type. */
export const PLAIN_MEDIA_TYPE = 'application/iden3comm-plain-json';
export const REVOCATION_STATUS_REQUEST_TYPE = 'https://iden3-communication.io/revocation/1.0/request-status';
export const REVOCATION_STATUS_RESPONSE_TYPE = 'https://iden3-communication.io/revocation/1.0/status';

/** Time allowed for one agent request (connect, answer and body). */
export const AGENT_TIMEOUT_MS = 10_000;
/** Largest agent answer read (a status is a few KB: three roots and at most 40 siblings). */
export const AGENT_MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_LIMITS: FetchLimits = { timeoutMs: AGENT_TIMEOUT_MS, maxBytes: AGENT_MAX_RESPONSE_BYTES };

/** The body of a `revocation/1.0/status` message: the issuer's roots (hex) and the nonce's proof (js-merkletree JSON). */
export interface RevocationStatusBody {
  issuer: { state: string; claimsTreeRoot: string; revocationTreeRoot: string; rootOfRoots: string };
  mtp: { existence: boolean; siblings: string[]; node_aux?: { key: string; value: string } };
}

/** A plain iden3comm message (the fields vc reads or writes). */
export interface PlainMessage {
  id: string;
  typ?: string;
  type: string;
  thid?: string;
  from?: string;
  to?: string;
  body?: unknown;
}

/** The `revocation/1.0/request-status` message a holder `from` sends to the issuer `to`. */
export function revocationStatusRequest(from: string | undefined, to: string, nonce: number): PlainMessage {
  const id = randomUUID();
  return { id, typ: PLAIN_MEDIA_TYPE, type: REVOCATION_STATUS_REQUEST_TYPE, thid: id, body: { revocation_nonce: nonce }, ...(from === undefined ? {} : { from }), to };
}

/** What answering needs of the wallet: the js-sdk's identity wallet and storage, the chain's states. */
export interface AgentWallet {
  ctx: Context;
  modules: Iden3Modules;
  identityWallet: IdentityWallet;
  dataStorage: IDataStorage;
}

/** True when the identity `did` (its keys and trees) is in this wallet. */
export async function holdsIdentity(wallet: AgentWallet, did: DID): Promise<boolean> {
  return (await wallet.dataStorage.identity.getIdentity(did.string())) !== undefined;
}

/**
 * The answer of this wallet's issuer `did` about revocation nonce `nonce`: its roots at the state
 * the chain holds for it and the nonce's proof in its revocation tree at that state. NotFoundError
 * when `did` is not an identity of this wallet; ConflictError when the chain holds a state this
 * wallet never published.
 */
export async function answerRevocationStatus(wallet: AgentWallet, did: DID, nonce: bigint): Promise<RevocationStatusBody> {
  const { mt } = wallet.modules;
  if (!(await holdsIdentity(wallet, did))) throw new NotFoundError(`${did.string()} is not an issuer of this wallet`, { field: 'to' });
  const onChain = await latestStateOnChain(wallet.dataStorage.states, wallet.modules, did);
  const records = treeStateRecords(wallet.ctx.store, did.string());
  // A publication whose transaction landed is recorded only after the receipt (and, on the
  // embedded node, after its state is saved), or by the next command after a crash there: until
  // then the state the chain holds is the one its journal names.
  const pending = wallet.ctx.store.get<{ newState?: KnownTreeState }>(PENDING_PUBLICATIONS_NS, did.string())?.newState;
  const published = records.filter((r) => r.txId !== undefined);
  if (onChain === undefined && published.length > 0) {
    // The chain forgot the states this issuer published (and the revocations in them): its genesis
    // state would say "not revoked" of every credential revoked since.
    throw new ConflictError(`the State contract holds no state for ${did.string()}, though this wallet published ${published.length} (was the chain replaced?)`);
  }
  const stateHex = onChain === undefined ? undefined : mt.Hash.fromBigInt(onChain).hex();
  const record = knownTreeState(wallet.ctx.store, did.string(), stateHex, pending, records);
  const treeState = {
    state: mt.Hash.fromHex(record.state),
    claimsRoot: mt.Hash.fromHex(record.claimsRoot),
    revocationRoot: mt.Hash.fromHex(record.revocationRoot),
    rootOfRoots: mt.Hash.fromHex(record.rootOfRoots),
  };
  const { proof } = await wallet.identityWallet.generateNonRevocationMtpWithNonce(did, nonce, treeState);
  return {
    issuer: { state: record.state, claimsTreeRoot: record.claimsRoot, revocationTreeRoot: record.revocationRoot, rootOfRoots: record.rootOfRoots },
    mtp: proof.toJSON() as RevocationStatusBody['mtp'],
  };
}

const HEX_HASH = /^[0-9a-f]{64}$/;
const DECIMAL = /^\d{1,78}$/;
const ROOT_NAMES = ['state', 'claimsTreeRoot', 'revocationTreeRoot', 'rootOfRoots'] as const;
/** The BN254 scalar field's modulus: a hash is below it. */
const FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/** True when the decimal string `value` is below the field modulus (a Merkle tree hash or key). */
function isFieldElement(value: string): boolean {
  return BigInt(value) < FIELD_MODULUS;
}

/** The reason a refusing agent gives: vc's JSON error message, or the start of its body on one line. */
function refusalReason(text: string): string {
  let reason: unknown;
  try {
    reason = (JSON.parse(text) as { error?: { message?: unknown } } | null)?.error?.message;
  } catch {
    // not JSON: the text itself
  }
  return (typeof reason === 'string' ? reason : text).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 300);
}

/** An answer about another state than the one the chain holds (an older one, or the chain moved on since). */
class StaleAnswerError extends VerificationError {}

/** Resolves Iden3commRevocationStatusV1.0 statuses (see the module comment). */
export class AgentStatusResolver implements CredentialStatusResolver {
  private wallet: AgentWallet | undefined;

  constructor(
    private readonly modules: Iden3Modules,
    private readonly limits: FetchLimits = DEFAULT_LIMITS,
  ) {}

  /** The wallet whose own issuers are answered without a request (set once the wallet exists). */
  attach(wallet: AgentWallet): void {
    this.wallet = wallet;
  }

  async resolve(credentialStatus: CredentialStatus, options?: CredentialStatusResolveOptions): Promise<RevocationStatus> {
    const issuerDID = options?.issuerDID;
    if (issuerDID === undefined || this.wallet === undefined) throw new Error(`the issuer DID and the wallet are required to resolve an ${IDEN3COMM_STATUS_TYPE} status`);
    const nonce = credentialStatus.revocationNonce as unknown;
    if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce) || nonce < 0) {
      throw new UnprocessableError(`${IDEN3COMM_STATUS_TYPE} status: its revocationNonce ${JSON.stringify(nonce) ?? String(nonce)} is not a whole number`, { field: 'credentialStatus.revocationNonce' });
    }
    const local = await holdsIdentity(this.wallet, issuerDID);
    // An issuer publishing between its agent's answer and the check makes that answer stale: asked once more.
    for (let attempt = 1; ; attempt += 1) {
      const body = local ? await answerRevocationStatus(this.wallet, issuerDID, BigInt(nonce)) : await this.ask(String(credentialStatus.id), options?.userDID?.string(), issuerDID.string(), nonce);
      try {
        return await this.checked(body, issuerDID, nonce, String(credentialStatus.id));
      } catch (error) {
        if (!(error instanceof StaleAnswerError) || attempt === 2) throw error;
      }
    }
  }

  /** POSTs the request to the agent at `url` and reads its `revocation/1.0/status` answer. */
  private async ask(url: string, from: string | undefined, to: string, nonce: number): Promise<RevocationStatusBody> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UnprocessableError(`${IDEN3COMM_STATUS_TYPE} status: its id ${JSON.stringify(url.slice(0, 200))} is not the URL of the issuer's agent`, { field: 'credentialStatus.id' });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new UnprocessableError(`${IDEN3COMM_STATUS_TYPE} status: its id ${url.slice(0, 200)} is not an http(s) URL`, { field: 'credentialStatus.id' });
    }
    const request = revocationStatusRequest(from, to, nonce);
    const { status, text, errorText } = await boundedFetch(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(request) },
      this.limits,
      (detail, cause) => new NetworkError(`the issuer's agent ${url}: ${detail}`, cause === undefined ? {} : { cause }),
    );
    if (text === undefined) {
      const reason = errorText === undefined || errorText === '' ? '' : `: ${refusalReason(errorText)}`;
      throw new NetworkError(`the issuer's agent ${url} answered HTTP ${status} to the revocation status request${reason}`);
    }
    const malformed = (what: string): NetworkError => new NetworkError(`the issuer's agent ${url} gave no revocation status: ${what}`);
    let message: PlainMessage;
    try {
      message = JSON.parse(text) as PlainMessage;
    } catch (error) {
      throw malformed(`the answer is not JSON (${describeError(error)})`);
    }
    if (typeof message !== 'object' || message === null) throw malformed('the answer is not a message');
    if (message.type !== REVOCATION_STATUS_RESPONSE_TYPE) throw malformed(`the answer's type is ${JSON.stringify(message.type)}, not ${REVOCATION_STATUS_RESPONSE_TYPE}`);
    if (message.thid !== undefined && message.thid !== request.thid) throw malformed(`the answer is about thread ${JSON.stringify(message.thid)}, not ${request.thid}`);
    const body = message.body as Partial<RevocationStatusBody> | undefined;
    const issuer = body?.issuer;
    const mtp = body?.mtp;
    if (issuer === undefined || issuer === null || !ROOT_NAMES.every((k) => typeof issuer[k] === 'string' && (HEX_HASH.test(issuer[k]) || DECIMAL.test(issuer[k])))) {
      throw malformed('its body.issuer does not hold the four roots (state, claimsTreeRoot, revocationTreeRoot, rootOfRoots) as hashes');
    }
    if (mtp === undefined || mtp === null || typeof mtp.existence !== 'boolean' || !Array.isArray(mtp.siblings) || mtp.siblings.length > 256 || !mtp.siblings.every((s) => typeof s === 'string' && DECIMAL.test(s))) {
      throw malformed('its body.mtp is not a Merkle proof (existence, siblings)');
    }
    if (mtp.siblings.some((s) => !isFieldElement(s))) throw malformed(`its body.mtp.siblings hold a number that is not a field element (at least the modulus ${FIELD_MODULUS})`);
    if (mtp.node_aux !== undefined && (typeof mtp.node_aux?.key !== 'string' || !DECIMAL.test(mtp.node_aux.key) || typeof mtp.node_aux.value !== 'string' || !DECIMAL.test(mtp.node_aux.value))) {
      throw malformed('its body.mtp.node_aux is not a key and a value');
    }
    if (mtp.node_aux !== undefined && (!isFieldElement(mtp.node_aux.key) || !isFieldElement(mtp.node_aux.value))) {
      throw malformed(`its body.mtp.node_aux holds a number that is not a field element (at least the modulus ${FIELD_MODULUS})`);
    }
    return { issuer, mtp: { existence: mtp.existence, siblings: mtp.siblings, ...(mtp.node_aux === undefined ? {} : { node_aux: mtp.node_aux }) } };
  }

  /** The answer as a js-sdk RevocationStatus, once it is shown to hold (see the module comment). */
  private async checked(body: RevocationStatusBody, issuerDID: DID, nonce: number, url: string): Promise<RevocationStatus> {
    const { mt, sdk } = this.modules;
    const wrong = (what: string): VerificationError => new VerificationError(`${IDEN3COMM_STATUS_TYPE} status: the answer of the issuer's agent ${url} does not hold: ${what}`, { field: 'credentialStatus' });
    const hashes = this.rootsOf(body.issuer);
    if (hashes === undefined) throw wrong('its three roots do not hash to its state');
    const state = hashes.state.bigInt();
    const onChain = await latestStateOnChain(this.wallet!.dataStorage.states, this.modules, issuerDID);
    if (onChain === undefined) {
      if (!sdk.isGenesisState(issuerDID, state)) throw wrong(`the issuer has no state on chain and ${hashes.state.hex()} is not its genesis state`);
    } else if (onChain !== state) {
      throw new StaleAnswerError(`${IDEN3COMM_STATUS_TYPE} status: the answer of the issuer's agent ${url} does not hold: it is about state ${hashes.state.hex()}; the chain holds ${mt.Hash.fromBigInt(onChain).hex()} for the issuer`, { field: 'credentialStatus' });
    }
    let proof;
    try {
      proof = mt.Proof.fromJSON(body.mtp);
    } catch (error) {
      throw wrong(`its proof cannot be read (${describeError(error)})`);
    }
    // Either way only a proof that holds: the nonce's leaf (nonce, 0) in the revocation tree at
    // that state, or its absence there. An agent (or whoever stands between it and the holder)
    // cannot turn a credential away as revoked without the revocation on chain.
    if (!(await mt.verifyProof(hashes.revocationTreeRoot, proof, BigInt(nonce), 0n))) {
      throw wrong(`its proof that nonce ${nonce} is ${body.mtp.existence ? '' : 'not '}revoked does not lead to the revocation root of the state`);
    }
    const issuer = { state: hashes.state.hex(), claimsTreeRoot: hashes.claimsTreeRoot.hex(), revocationTreeRoot: hashes.revocationTreeRoot.hex(), rootOfRoots: hashes.rootOfRoots.hex() };
    return { mtp: proof, issuer };
  }

  /**
   * The four roots of an answer as hashes: written as 64 hex digits (the iden3 agents' wire form,
   * vc's and the issuer-node's) or as decimal numbers (the js-sdk's RevocationStatusHandler writes
   * those). A 64-digit string may be read either way, so the reading whose roots hash to its state
   * is the one taken; undefined when none does.
   */
  private rootsOf(issuer: RevocationStatusBody['issuer']): Record<(typeof ROOT_NAMES)[number], Hash> | undefined {
    const { mt } = this.modules;
    const readings: Array<(value: string) => Hash> = [];
    if (ROOT_NAMES.every((name) => HEX_HASH.test(issuer[name]))) readings.push((value) => mt.Hash.fromHex(value));
    if (ROOT_NAMES.every((name) => DECIMAL.test(issuer[name]) && BigInt(issuer[name]) < FIELD_MODULUS)) readings.push((value) => mt.Hash.fromBigInt(BigInt(value)));
    for (const read of readings) {
      try {
        const roots = { state: read(issuer.state), claimsTreeRoot: read(issuer.claimsTreeRoot), revocationTreeRoot: read(issuer.revocationTreeRoot), rootOfRoots: read(issuer.rootOfRoots) };
        if (mt.hashElems([roots.claimsTreeRoot.bigInt(), roots.revocationTreeRoot.bigInt(), roots.rootOfRoots.bigInt()]).bigInt() === roots.state.bigInt()) return roots;
      } catch {
        // not a field element in this reading (a hex value above the modulus): try the next
      }
    }
    return undefined;
  }
}
