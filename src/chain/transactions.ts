/**
 * Sending transactions: serialised per wallet (a per-process queue plus an inter-process lock, so
 * no two `vc` processes race for a nonce), with reverts decoded by name from the ABIs of the
 * iden3 contracts (e.g. ProofAlreadyVerified(requestId, sender)) and RPC failures reported as
 * NetworkError (exit 4).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Interface, InterfaceAbi, TransactionReceipt, TransactionRequest } from 'ethers';
import { ServiceKey, type Context } from '../context.js';
import { ConfigError, NetworkError, VerificationError, describeError, type VcErrorOptions } from '../errors.js';
import { connectChain, forgetConnectionIfNodeFailed, type ChainConnection } from './connection.js';
import { checkpointLocalChain } from './node/snapshots.js';

/** A transaction rejected by a contract, with the decoded custom error when known. */
export class TransactionRevertedError extends VerificationError {
  override readonly code: string = 'transaction_reverted';
  /** Custom error name (ProofAlreadyVerified), 'Error' for require strings, 'Panic', or undefined. */
  readonly revertName: string | undefined;
  /** Decoded arguments of the custom error, by name when the ABI names them. */
  readonly revertArgs: Record<string, unknown>;
  /** Raw revert data (hex). */
  readonly revertData: string | undefined;

  constructor(message: string, revert: DecodedRevert | undefined, options: VcErrorOptions = {}) {
    super(message, options);
    this.revertName = revert?.name;
    this.revertArgs = revert?.args ?? {};
    this.revertData = revert?.data;
  }
}

export interface DecodedRevert {
  name: string | undefined;
  args: Record<string, unknown>;
  /** e.g. ProofAlreadyVerified(requestId=1, sender=0xf39F...). */
  text: string;
  data: string | undefined;
}

export interface SendTransactionOptions {
  /** What the transaction does, for messages ("register request 7 on the UniversalVerifier"). */
  description: string;
  /** Extra ABIs to decode reverts with (the iden3 artifacts are always used). */
  abis?: InterfaceAbi[];
  /** Save the local chain state after the receipt (default true; deployment batches it). */
  checkpoint?: boolean;
  /** How long to wait for the receipt (default 60 s embedded, 300 s external; plus 15 s for each confirmation beyond the first). */
  receiptTimeoutMs?: number;
  /**
   * Called once the transaction is broadcast, before waiting for its receipt, with its hash and the
   * block the chain was at: lets a caller journal it, so a crash while waiting can be reconciled.
   */
  onSent?: (sent: { hash: string; fromBlock: number }) => void;
  /**
   * Called with the transaction's hash once it is signed, before it is broadcast: a caller that
   * journals it here leaves no window in which a transaction is out and its record is not (a
   * record of one that never left is found unknown to the chain by the next run).
   */
  onSigned?: (signed: { hash: string }) => void;
  /** Called (and awaited) once the receipt shows success, before the local chain is saved. */
  onMined?: (receipt: TransactionReceipt) => void | Promise<void>;
}

export interface SentTransaction {
  hash: string;
  blockNumber: number;
  gasUsed: bigint;
  /** Address of the created contract, for deployments. */
  contractAddress: string | undefined;
  receipt: TransactionReceipt;
}

export interface ContractCall {
  /** Contract address. */
  address: string;
  abi: InterfaceAbi;
  method: string;
  args: readonly unknown[];
  value?: bigint;
}

/** A custom error of a contract ABI: its 4-byte selector and full signature. */
interface ErrorFragmentText {
  selector: string;
  text: string;
}

function errorFragmentsOf(ethers: typeof import('ethers'), abi: InterfaceAbi): ErrorFragmentText[] {
  const found: ErrorFragmentText[] = [];
  ethers.Interface.from(abi).forEachError((fragment) => found.push({ selector: fragment.selector, text: fragment.format('full') }));
  return found;
}

/**
 * The custom errors of every iden3 contract artifact (some eighty files), read on the first
 * decoded failure of this context and kept for its lifetime: a server decodes many reverts.
 */
const ERROR_FRAGMENTS_KEY = new ServiceKey<ErrorFragmentText[]>('chain.iden3ErrorFragments');

function iden3ErrorFragments(ctx: Context, ethers: typeof import('ethers')): Promise<ErrorFragmentText[]> {
  return ctx.lazy(ERROR_FRAGMENTS_KEY, async () => {
    const require = createRequire(import.meta.url);
    const dir = path.join(path.dirname(require.resolve('@iden3/contracts/package.json')), 'build', 'contracts');
    const fragments: ErrorFragmentText[] = [];
    for (const file of readdirSync(dir)) {
      if (!file.endsWith('.json')) continue;
      const artifact = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { abi?: InterfaceAbi };
      if (artifact.abi !== undefined) fragments.push(...errorFragmentsOf(ethers, artifact.abi));
    }
    return fragments;
  });
}

/** One interface with the custom errors of the caller's ABIs first, then those of the iden3 artifacts. */
async function errorInterface(ctx: Context, ethers: typeof import('ethers'), extra: InterfaceAbi[]): Promise<Interface> {
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const fragment of [...extra.flatMap((abi) => errorFragmentsOf(ethers, abi)), ...(await iden3ErrorFragments(ctx, ethers))]) {
    if (seen.has(fragment.selector)) continue;
    seen.add(fragment.selector);
    texts.push(fragment.text);
  }
  return new ethers.Interface(texts);
}

function formatValue(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  return String(value);
}

/** Decodes revert data into a readable custom error, require string or panic. */
export async function decodeRevertData(ctx: Context, data: string | undefined, abis: InterfaceAbi[] = []): Promise<DecodedRevert> {
  const ethers = await import('ethers');
  if (data === undefined || data === '0x' || data.length < 10) {
    return { name: undefined, args: {}, text: 'reverted without a reason', data };
  }
  const selector = data.slice(0, 10).toLowerCase();
  const coder = ethers.AbiCoder.defaultAbiCoder();
  try {
    if (selector === '0x08c379a0') {
      const [message] = coder.decode(['string'], ethers.dataSlice(data, 4));
      return { name: 'Error', args: { message }, text: String(message), data };
    }
    if (selector === '0x4e487b71') {
      const [code] = coder.decode(['uint256'], ethers.dataSlice(data, 4));
      return { name: 'Panic', args: { code }, text: `Panic(0x${(code as bigint).toString(16)})`, data };
    }
    const iface = await errorInterface(ctx, ethers, abis);
    const parsed = iface.parseError(data);
    if (parsed !== null) {
      const args: Record<string, unknown> = {};
      parsed.fragment.inputs.forEach((input, i) => {
        args[input.name || String(i)] = parsed.args[i];
      });
      const shown = parsed.fragment.inputs.map((input, i) => `${input.name ? `${input.name}=` : ''}${formatValue(parsed.args[i])}`);
      return { name: parsed.name, args, text: `${parsed.name}(${shown.join(', ')})`, data };
    }
  } catch {
    // undecodable payload: fall through to the raw selector
  }
  return { name: undefined, args: {}, text: `unknown custom error ${selector}`, data };
}

/** Finds revert data in the various shapes ethers and JSON-RPC servers report it. */
function revertDataOf(error: unknown): string | undefined {
  const visit = (value: unknown, depth: number): string | undefined => {
    if (depth > 5 || value === null || typeof value !== 'object') return undefined;
    const record = value as Record<string, unknown>;
    const data = record.data;
    if (typeof data === 'string' && /^0x[0-9a-fA-F]*$/.test(data) && data.length >= 10) return data;
    if (typeof data === 'object') {
      const nested = visit(data, depth + 1);
      if (nested !== undefined) return nested;
    }
    return visit(record.error, depth + 1) ?? visit(record.info, depth + 1) ?? visit(record.cause, depth + 1);
  };
  return visit(error, 0);
}

/** A one-line reason from an ethers error (its full message embeds the whole transaction). */
export function chainErrorReason(error: unknown): string {
  const e = error as { shortMessage?: unknown; info?: { error?: { message?: unknown } }; error?: { message?: unknown } };
  const inner = e.info?.error?.message ?? e.error?.message;
  if (typeof e.shortMessage === 'string') return typeof inner === 'string' && inner !== e.shortMessage ? `${e.shortMessage} (${inner})` : e.shortMessage;
  return describeError(error);
}

function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (code === 'NETWORK_ERROR' || code === 'TIMEOUT' || code === 'SERVER_ERROR' || code === 'ECONNREFUSED' || code === 'ECONNRESET') return true;
  return /ECONNREFUSED|ECONNRESET|socket hang up|fetch failed|network|timeout/i.test(chainErrorReason(error));
}

/**
 * Turns a failure of a call or transaction into our error: a decoded revert becomes a
 * TransactionRevertedError (exit 1), an unreachable RPC a NetworkError (exit 4). A connection
 * failure on the embedded chain whose node died also drops the cached connection, so the next
 * request restarts the node.
 */
export async function toChainError(ctx: Context, error: unknown, description: string, connection: ChainConnection, abis: InterfaceAbi[] = []): Promise<Error> {
  if (error instanceof VerificationError || error instanceof NetworkError || error instanceof ConfigError) return error;
  const code = (error as { code?: unknown }).code;
  const data = revertDataOf(error);
  if (code === 'CALL_EXCEPTION' || data !== undefined) {
    const decoded = await decodeRevertData(ctx, data, abis);
    const reason = data === undefined && typeof (error as { reason?: unknown }).reason === 'string' ? String((error as { reason: string }).reason) : decoded.text;
    return new TransactionRevertedError(`${description} was rejected by the contract: ${reason}`, decoded, { cause: error });
  }
  if (code === 'INSUFFICIENT_FUNDS') {
    return new NetworkError(`${description}: wallet ${connection.signer.address} has insufficient funds on ${connection.rpcUrl}`, { cause: error, field: 'WALLET_KEY' });
  }
  if (isConnectionFailure(error)) {
    await forgetConnectionIfNodeFailed(ctx, connection);
    return new NetworkError(`${description}: the chain RPC endpoint ${connection.rpcUrl} failed: ${chainErrorReason(error)}`, { cause: error });
  }
  return new NetworkError(`${description} failed: ${chainErrorReason(error)}`, { cause: error });
}

/**
 * Waits until transaction `hash` is mined and has `confirmations` blocks (its own included). The
 * receipt is read again once enough blocks followed, so a transaction moved or dropped by a
 * reorganisation meanwhile is waited for again (and, if it never comes back, the deadline passes:
 * NetworkError, and the next command publishes again from its journal).
 */
async function waitForReceipt(connection: ChainConnection, hash: string, timeoutMs: number, confirmations = 1): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  const pause = connection.embedded ? 20 : 1_000;
  let failures = 0;
  let mined: TransactionReceipt | undefined;
  while (Date.now() < deadline) {
    try {
      const receipt = await connection.provider.getTransactionReceipt(hash);
      if (receipt !== null && confirmations <= 1) return receipt;
      if (receipt !== null) {
        mined = receipt;
        const head = await connection.provider.getBlockNumber();
        if (head - receipt.blockNumber + 1 >= confirmations) return receipt;
      } else {
        mined = undefined;
      }
      failures = 0;
    } catch (error) {
      // Tolerate a few transient RPC failures while waiting; give up on a lasting outage.
      if (++failures >= 5) throw error;
    }
    await sleep(pause);
  }
  if (mined !== undefined) {
    throw new NetworkError(`transaction ${hash} was mined in block ${mined.blockNumber} but did not reach ${confirmations} confirmations within ${Math.round(timeoutMs / 1000)} s on ${connection.rpcUrl}`);
  }
  throw new NetworkError(`transaction ${hash} was not mined within ${Math.round(timeoutMs / 1000)} s on ${connection.rpcUrl}`);
}

/**
 * Runs `fn` while no other transaction of this wallet is in flight, in this process (queue) or
 * in another `vc` process on the same home (store lock).
 */
export async function withWalletLock<T>(ctx: Context, connection: ChainConnection, fn: () => Promise<T>): Promise<T> {
  const previous = connection.txQueue.tail;
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  connection.txQueue.tail = previous.then(() => mine);
  await previous.catch(() => undefined);
  try {
    return await ctx.store.withLock(`chain-tx-${connection.chainId}-${connection.signer.address.toLowerCase()}`, fn);
  } finally {
    release();
  }
}

/** Signs, sends and waits for one transaction; reverts and RPC failures become our errors. */
export async function sendTransaction(ctx: Context, request: TransactionRequest, options: SendTransactionOptions): Promise<SentTransaction> {
  const connection = await connectChain(ctx);
  const abis = options.abis ?? [];
  const sent = await withWalletLock(ctx, connection, async () => {
    let response;
    for (let attempt = 1; ; attempt++) {
      try {
        // ethers estimates gas first, which surfaces a revert (and its data) before anything is sent.
        const fromBlock = options.onSent === undefined ? 0 : await connection.provider.getBlockNumber();
        // What the signer's sendTransaction does (fill in, sign, broadcast), with onSigned between.
        const populated = await connection.signer.populateTransaction(request);
        delete populated.from;
        const signed = await connection.signer.signTransaction(populated);
        options.onSigned?.({ hash: (await import('ethers')).keccak256(signed) });
        response = await connection.provider.broadcastTransaction(signed);
        options.onSent?.({ hash: response.hash, fromBlock });
        break;
      } catch (error) {
        // Another program using the same key may have taken the nonce: one retry with a fresh one.
        const code = (error as { code?: unknown }).code;
        if (attempt === 1 && (code === 'NONCE_EXPIRED' || code === 'REPLACEMENT_UNDERPRICED')) continue;
        throw await toChainError(ctx, error, options.description, connection, abis);
      }
    }
    let receipt: TransactionReceipt;
    try {
      // CONFIRMATIONS: 1 on development chains, more on others (each further block may take a while).
      const confirmations = connection.embedded ? 1 : ctx.config.chain.confirmations;
      const timeoutMs = (options.receiptTimeoutMs ?? (connection.embedded ? 60_000 : 300_000)) + (confirmations - 1) * 15_000;
      receipt = await waitForReceipt(connection, response.hash, timeoutMs, confirmations);
    } catch (error) {
      throw await toChainError(ctx, error, options.description, connection, abis);
    }
    if (receipt.status !== 1) {
      // Mined but failed (state changed between estimate and inclusion): replay it for the reason.
      let replayError: unknown;
      try {
        await connection.provider.call({ ...request, from: connection.signer.address, blockTag: receipt.blockNumber });
      } catch (error) {
        replayError = error;
      }
      const decoded = await decodeRevertData(ctx, revertDataOf(replayError), abis);
      throw new TransactionRevertedError(`${options.description} was rejected by the contract: ${decoded.text} (tx ${receipt.hash})`, decoded);
    }
    await options.onMined?.(receipt);
    return receipt;
  });
  if (connection.embedded && options.checkpoint !== false) await checkpointLocalChain(ctx);
  return {
    hash: sent.hash,
    blockNumber: sent.blockNumber,
    gasUsed: sent.gasUsed,
    contractAddress: sent.contractAddress ?? undefined,
    receipt: sent,
  };
}

/** Calls a state-changing contract method as a transaction (see sendTransaction). */
export async function sendContractTransaction(ctx: Context, call: ContractCall, options: SendTransactionOptions): Promise<SentTransaction> {
  const ethers = await import('ethers');
  const iface = ethers.Interface.from(call.abi);
  const data = iface.encodeFunctionData(call.method, call.args as unknown[]);
  const request: TransactionRequest = { to: call.address, data };
  if (call.value !== undefined) request.value = call.value;
  return sendTransaction(ctx, request, { ...options, abis: [call.abi, ...(options.abis ?? [])] });
}

/** Calls a view function; reverts and RPC failures become our errors. */
export async function readContract<T = unknown>(ctx: Context, call: Omit<ContractCall, 'value'>, description: string): Promise<T> {
  const connection = await connectChain(ctx);
  const ethers = await import('ethers');
  const iface = ethers.Interface.from(call.abi);
  try {
    const raw = await connection.provider.call({ to: call.address, data: iface.encodeFunctionData(call.method, call.args as unknown[]) });
    const decoded = iface.decodeFunctionResult(call.method, raw);
    return (decoded.length === 1 ? decoded[0] : decoded) as T;
  } catch (error) {
    throw await toChainError(ctx, error, description, connection, [call.abi]);
  }
}
