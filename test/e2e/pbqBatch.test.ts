/**
 * Group commit from the command line: `vc issuer issue --batch FILE` issues every line with ONE
 * state transition (one StateUpdated event of the issuer on the State contract, every
 * credential's Iden3SparseMerkleTreeProof naming that transaction), and every credential of the
 * batch then proves on chain: a real credentialAtomicQueryMTPV2OnChain proof per credential,
 * submitted to the UniversalVerifier and verified by it, for two different holders. A bad line is
 * reported by its number and nothing is issued. A long batch lets timers run between its steps.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { getChain } from '../../src/chain/chainClient.js';
import { iden3Artifact } from '../../src/chain/artifacts.js';
import { getIden3 } from '../../src/iden3/wallet.js';
import { invokeOperation } from '../../src/core/operation.js';
import { pbqIssueBatch } from '../../src/core/operations/pbqOperations.js';
import { runVc, runVcInProcess, tempDir, templateHome, type VcRun } from '../helpers.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const tmp = tempDir('vc-pbq-batch-');
const home = templateHome(path.join(tmp.dir, 'home'));
const file = (name: string): string => path.join(tmp.dir, name);
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
let holders: string[] = [];
let issuerDid: string;

/** In this process (no node start-up): these tests are about what the commands do. */
function vc(args: string[]): Promise<VcRun> {
  return runVcInProcess(['--json', ...args], { home, env });
}

function walletContext(): Context {
  return new Context({ config: parseConfig(env.CIRCUITS_PATH !== undefined ? { CIRCUITS_PATH: env.CIRCUITS_PATH } : {}, home) });
}

/**
 * The transactions that moved the issuer's state (its StateUpdated events on the State contract;
 * a first transition also records the genesis state, in the same transaction), oldest first.
 */
async function stateTransitions(): Promise<string[]> {
  const ctx = walletContext();
  try {
    const chain = await getChain(ctx);
    const iden3 = await getIden3(ctx);
    const { Interface } = await import('ethers');
    const events = new Interface(iden3Artifact('StateLib').abi as never);
    const event = events.getEvent('StateUpdated')!;
    const id = iden3.modules.core.DID.idFromDID(iden3.modules.core.DID.parse(issuerDid)).bigInt();
    const logs = await chain.provider.getLogs({ address: chain.addresses.state, topics: [event.topicHash], fromBlock: 0, toBlock: 'latest' });
    return [...new Set(logs.filter((log) => BigInt(events.parseLog(log)!.args.id as bigint) === id).map((log) => log.transactionHash))];
  } finally {
    await ctx.close();
  }
}

function readLines(name: string): Json[] {
  return readFileSync(file(name), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Json);
}

beforeAll(async () => {
  const first = await vc(['holder', 'did', 'create']);
  expect(first.status, first.stderr).toBe(0);
  const second = await vc(['holder', 'did', 'create', '--new']);
  expect(second.status, second.stderr).toBe(0);
  holders = [first.json<{ did_String: string }>().did_String, second.json<{ did_String: string }>().did_String];
  expect(holders[0]).not.toBe(holders[1]);
  const issuer = await vc(['issuer', 'did', 'create']);
  expect(issuer.status, issuer.stderr).toBe(0);
  const { payload } = issuer.json<{ payload: { method: string; id: string } }>();
  issuerDid = `did:${payload.method}:${payload.id}`;
}, LONG);

afterAll(async () => {
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('vc issuer issue --batch', () => {
  it('refuses a batch with a bad line by its number, and issues nothing', async () => {
    const before = await stateTransitions();
    writeFileSync(file('bad.jsonl'), [JSON.stringify({ did: holders[0] }), '', JSON.stringify({ did: holders[1], subject: { birthDate: 'not a date' } })].join('\n'));
    const refused = await vc(['issuer', 'issue', '--batch', file('bad.jsonl'), '-o', file('bad-out.jsonl')]);
    expect(refused.status).toBe(2);
    const error = JSON.parse(refused.stderr.trim().split('\n').at(-1)!) as { error: { message: string; field: string } };
    // The subject's first problem by the type's schema, named by line and field.
    expect(error.error.message).toMatch(/^--batch \S+bad\.jsonl line 3: field subject\.name: missing: the schema requires it \(string\) \(the JSON schema of PassportCredential\)$/);
    expect(error.error.field).toBe('--batch line 3 subject.name');
    expect(await stateTransitions()).toEqual(before);
    const listed = await vc(['issuer', 'credentials']);
    expect(listed.json<{ credentials: unknown[] }>().credentials).toEqual([]);
  }, LONG);

  it('keeps the event loop turning while it signs and records (the lock keep-alive runs; a server stays responsive)', async () => {
    const ctx = walletContext();
    const gaps: number[] = [];
    let last = performance.now();
    // The issuer lock is refreshed by a timer every 2 s and taken as stale by others after 10 s.
    const ticker = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }, 50);
    try {
      const result = await invokeOperation(ctx, pbqIssueBatch, { batch: Array.from({ length: 40 }, () => ({ did: holders[0] })) });
      expect(result.credentials).toHaveLength(40);
      expect(new Set(result.credentials.map((c) => (c.credential as { credentialStatus: { revocationNonce: number } }).credentialStatus.revocationNonce)).size).toBe(40);
    } finally {
      clearInterval(ticker);
      await ctx.close();
    }
    // The timer ran all along (a batch that never yielded would let it fire once, at the end): the
    // loop turns between the credentials' signing and the proof's steps. How long its longest
    // stretch is depends on the machine, so no test asserts it.
    expect(gaps.length).toBeGreaterThan(20);
  }, LONG);

  it('issues every line with one state transition, and every credential proves on chain', async () => {
    const before = await stateTransitions();
    // Two lines, one per holder: each line is proved on chain below (a query proof each); many
    // credentials of one holder in one batch are issued by the test above.
    // The second line carries its own status (the body of POST /generate-pbq-credentials): on chain.
    const lines = [holders[0]!, holders[1]!];
    writeFileSync(file('batch.jsonl'), `${JSON.stringify({ did: lines[0] })}\n${JSON.stringify({ did: lines[1], status: 'onchain' })}\n`);
    const issued = await vc(['issuer', 'issue', '--batch', file('batch.jsonl'), '-o', file('issued.jsonl')]);
    expect(issued.status, issued.stderr).toBe(0);
    const results = readLines('issued.jsonl');
    expect(results).toHaveLength(lines.length);

    // One StateUpdated event of the issuer, named by every credential's Merkle proof.
    const after = await stateTransitions();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toHaveLength(before.length + 1);
    const txId = after.at(-1)!;
    results.forEach((result, index) => {
      expect(result.message).toBe('credential successfully generated');
      const credential = result.credential as Json;
      expect((credential.credentialSubject as Json).id, 'in input order').toBe(lines[index]);
      const mtp = (credential.proof as Json[]).find((p) => p.type === 'Iden3SparseMerkleTreeProof') as { issuerData: { state: { txId: string } } };
      expect(mtp.issuerData.state.txId).toBe(txId);
    });
    expect(new Set(results.map((r) => (r.credential as Json).id)).size).toBe(lines.length);
    expect(results.map((r) => ((r.credential as Json).credentialStatus as Json).type)).toEqual(['Iden3ReverseSparseMerkleTreeProof', 'Iden3OnchainSparseMerkleTreeProof2023']);

    // Each one proves on chain: a fresh request, a real proof by its holder, verified by the contract.
    for (const [index, result] of results.entries()) {
      writeFileSync(file(`credential-${index}.json`), JSON.stringify(result));
      const request = await vc(['verifier', 'request', '-o', file(`request-${index}.json`)]);
      expect(request.status, request.stderr).toBe(0);
      const proved = await vc(['holder', 'prove-submit', '--credential', file(`credential-${index}.json`), '--request', file(`request-${index}.json`)]);
      expect(proved.status, `credential ${index}: ${proved.stderr}`).toBe(0);
      const requestId = JSON.parse(readFileSync(file(`request-${index}.json`), 'utf8')) as { id: number };
      expect(proved.json<Json>()[String(requestId.id)]).toBe(true);
    }
  }, LONG);
});
