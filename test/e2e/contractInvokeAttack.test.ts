/**
 * attack-s36b: failing tests of `vc holder respond` answering a contract-invoke-request on the
 * embedded chain of one home (a signature credential, so no state transition):
 *  - a request naming no accept profile (the js-sdk's default: authV2) whose scope holds a V3 item
 *    and an MTP on-chain item: vc submits the V3 proof (a transaction) and only then refuses the
 *    MTP item ("auth: authV2 is for credentialAtomicQueryV3OnChain requests", field "auth", which
 *    the command does not have; the credential given has no MTP proof either, also checked only
 *    after the first submission); every refusal must come before any proof, as the module promises;
 *  - a journaled submission whose transaction the chain does not know (a node restarted from its
 *    checkpoint, a transaction dropped from the pool) makes every re-run say "not mined yet; run
 *    again once it is", forever: the request can never be answered.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { getChain } from '../../src/chain/chainClient.js';
import { isRequestProofVerified } from '../../src/chain/universalVerifier.js';
import { jsonError, runVcInProcess, tempDir, templateHome } from '../helpers.js';

type Json = Record<string, unknown>;
type Invoke = Json & { id: string; body: Json & { scope: Json[]; accept?: string[] } };

/** anvil's first development account (public test key): the default submitter. */
const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const V3 = 'credentialAtomicQueryV3OnChain';
const LONG = 900_000;

const tmp = tempDir('vc-attack-s36b-');
const home = templateHome(path.join(tmp.dir, 'home'));
const file = (name: string): string => path.join(tmp.dir, name);
const env: Record<string, string | undefined> = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE };

function vc(args: string[]) {
  return runVcInProcess(['--json', ...args], { home, env });
}

async function ok(args: string[]): Promise<Json> {
  const run = await vc(args);
  expect(run.status, run.stderr).toBe(0);
  const output = args.indexOf('-o');
  if (output >= 0) return JSON.parse(readFileSync(args[output + 1]!, 'utf8')) as Json;
  return run.stdout.trim() === '' ? {} : run.json<Json>();
}

/** A contract-invoke-request made by `vc verifier contract-request` for a new bound V3 signature request. */
async function invokeFor(name: string): Promise<{ invoke: Invoke; requestId: number }> {
  const request = await ok(['verifier', 'request', '--circuit', V3, '--bind-verifier', '--proof-type', 'sig', '--op', '$eq', '--value', '19900101', '-o', file(`${name}-request.json`)]);
  const invoke = (await ok(['verifier', 'contract-request', '--id', String(request.id), '-o', file(`${name}-invoke.json`)])) as Invoke;
  return { invoke, requestId: Number(request.id) };
}

let ctx: Context;

beforeAll(async () => {
  const holderDid = String((await ok(['holder', 'did', 'create'])).did_String);
  await ok(['issuer', 'did', 'create']);
  await ok(['issuer', 'issue', '--proof', 'sig', '--holder', holderDid, '-o', file('signed.json')]);
  ctx = new Context({ config: parseConfig({}, home) });
}, LONG);

afterAll(async () => {
  await ctx?.close();
  await vc(['chain', 'down']);
  tmp.cleanup();
});

describe('contract-invoke: what the wallet cannot do is refused before any proof', () => {
  it('a request naming no accept profile (authV2) with a V3 item and an MTP on-chain item is answered whole or refused before anything is submitted', async () => {
    const { invoke, requestId } = await invokeFor('mixed');
    const mtp = await ok(['verifier', 'request', '-o', file('mtp.json')]);
    invoke.body.scope.push({ id: mtp.id, circuitId: mtp.circuitId, query: mtp.query, ...(mtp.params === undefined ? {} : { params: mtp.params }) });
    delete invoke.body.accept;
    writeFileSync(file('mixed.json'), JSON.stringify(invoke));
    const chain = await getChain(ctx);
    const before = await chain.provider.getBlockNumber();

    const run = await vc(['holder', 'respond', '--credential', file('signed.json'), '--request', file('mixed.json')]);
    if (run.status === 0) {
      // Answered (each item with an auth the contract takes): both proofs on chain.
      expect(await isRequestProofVerified(ctx, DEV_ADDRESS, requestId)).toBe(true);
      expect(await isRequestProofVerified(ctx, DEV_ADDRESS, Number(mtp.id))).toBe(true);
      return;
    }
    expect(run.stdout).toBe('');
    // Refused: then nothing reached the chain, no transaction, no verified proof of the V3 item
    // left behind (found: the V3 proof submitted with an authV2 proof, then the MTP item refused).
    expect(await chain.provider.getBlockNumber(), run.stderr).toBe(before);
    expect(await isRequestProofVerified(ctx, DEV_ADDRESS, requestId)).toBe(false);
    // About the request (its accept profile against its MTP item; the credential given has no MTP
    // proof either), named as the other refusals of the request are: found field "auth" (exit 2), a
    // field holder respond has not.
    expect(jsonError(run.stderr).field).toBe('--request');
  }, LONG);
});

describe('contract-invoke: a journaled submission the chain does not know', () => {
  it('does not hold the request unanswerable ("not mined yet", forever): it is submitted anew', async () => {
    const { invoke, requestId } = await invokeFor('lost');
    // What a run killed after broadcasting leaves when the node then restarts from its checkpoint
    // (or the pool drops the transaction): a journal entry whose transaction no block holds.
    const lost = `0x${randomBytes(32).toString('hex')}`;
    ctx.store.put('iden3comm.contractSubmissions', JSON.stringify([invoke.id, requestId]), {
      sender: DEV_ADDRESS,
      txHash: lost,
      response: { id: requestId, circuitId: `${V3}-16-16-64-16-32`, proof: {}, pub_signals: [] },
      sentAt: new Date().toISOString(),
    });
    const chain = await getChain(ctx);
    expect(await chain.provider.getTransaction(lost)).toBeNull();
    expect(await chain.provider.getTransactionReceipt(lost)).toBeNull();

    const first = await vc(['holder', 'respond', '--credential', file('signed.json'), '--request', file('lost-invoke.json')]);
    const second = first.status === 0 ? first : await vc(['holder', 'respond', '--credential', file('signed.json'), '--request', file('lost-invoke.json')]);
    // Found: exit 4 both times, "its submission 0x… by an earlier run is not mined yet; run again once it is".
    expect(second.status, second.stderr).toBe(0);
    const response = second.json<{ body: { scope: Array<{ id: number; txHash: string }> } }>();
    expect(response.body.scope[0]!.txHash).not.toBe(lost);
    expect(await isRequestProofVerified(ctx, DEV_ADDRESS, requestId)).toBe(true);
  }, LONG);
});
