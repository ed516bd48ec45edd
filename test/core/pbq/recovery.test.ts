/**
 * Nothing lost under faults: `vc issuer issue` and `vc issuer revoke` killed (SIGKILL, through the
 * VC_CRASH_AT crash points) at every step of their publication, and the embedded node killed after
 * the receipt (VC_KILL_NODE_AT). For each: the next command succeeds, no claim is duplicated, every
 * credential reported issued proves on chain (its Merkle proof against a state the State contract
 * holds, published by a successful transaction), the interrupted credential is either completed or
 * cleanly absent, and a retry never does work twice (no claim added twice, one state transition per
 * publication, counted on chain). One recovered credential also goes through a real prove-submit.
 *
 * The tests share one wallet and run in order. The kills are chained so that one publication (one
 * state-transition proof) is killed at several steps: a command killed at a step leaves a journal,
 * and the next command, which first resumes that journal, is killed at a later step of the same
 * publication (a resumed publication passes every step after the one it stopped at, and never
 * stops again at one it passed). Every crash point src/faults.ts lists is killed at and recovered
 * from; between kills the wallet is read without the lock (walletAsLeft), since any vc command
 * would reconcile the journal. Only killed commands and the one whose exit code is the subject
 * start a `vc` process; the others run in this process (runVcInProcess), sparing node start-up.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { getIden3 } from '../../../src/iden3/wallet.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { iden3Artifact } from '../../../src/chain/artifacts.js';
import { readAddressBook } from '../../../src/chain/addressBook.js';
import { readNodeRecord } from '../../../src/chain/node/nodeRecord.js';
import { NONCE_INDEX_NS, listIssuedCredentials, revocationNonces } from '../../../src/core/pbq/pbqIssuance.js';
import { COMPLETED_BATCHES_NS, ISSUED_NS, NONCES_NS, issuedRecords, pendingPublication, type CompletedBatch, type IssuedRecord, type PendingPublication } from '../../../src/core/pbq/publication.js';
import { resolveIssuerDid } from '../../../src/core/pbq/identities.js';
import { CRASH_POINTS, type CrashPointName } from '../../../src/faults.js';
import { runVcAsync, runVcInProcess, tempDir, templateHome, type VcRun } from '../../helpers.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const tmp = tempDir('vc-pbq-recovery-');
const home = templateHome(path.join(tmp.dir, 'home'));
const file = (name: string): string => path.join(tmp.dir, name);
const env: Record<string, string | undefined> = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
let holderDid: string;
let issuerDid: string;
/** The issuer's identity as the State contract names it. */
let issuerId: bigint;
/** Every credential a command reported as issued (exit 0 with the credential written). */
const reported: string[] = [];
/** The crash points a run was killed at (checked against the list src/faults.ts exports). */
const killedAt = new Set<string>();

/** Runs a command with VC_CRASH_AT=step and checks that it was killed there. */
async function killedRun(step: CrashPointName, run: (env: Record<string, string>) => Promise<VcRun>): Promise<VcRun> {
  const crashed = await run({ VC_CRASH_AT: step });
  expect(crashed.signal, `${step}: ${crashed.stderr}`).toBe('SIGKILL');
  killedAt.add(step);
  return crashed;
}

/**
 * `vc --json ARGS` in a process of its own, for the commands that are killed or whose exit is the
 * subject; run asynchronously, so that this process keeps serving its own connections to the
 * node meanwhile.
 */
function vc(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<VcRun> {
  return runVcAsync(['--json', ...args], { home, env: { ...env, ...extraEnv } });
}

/** `vc --json ARGS` in this process (no node start-up): for every other command. */
function vcIn(args: string[]): Promise<VcRun> {
  return runVcInProcess(['--json', ...args], { home, env });
}

const issueArgs = (name: string, more: string[] = []): string[] => ['issuer', 'issue', '--holder', holderDid, ...more, '-o', file(name)];

/** Notes the credential of a successful issuance as reported. */
function noteIssued(name: string, run: VcRun): VcRun {
  if (run.status === 0) reported.push((JSON.parse(readFileSync(file(name), 'utf8')) as { credential: Json }).credential.id as string);
  return run;
}

/** A single issuance in its own process (killed, or with the node killed). */
async function issue(name: string, extraEnv: Record<string, string | undefined> = {}): Promise<VcRun> {
  return noteIssued(name, await vc(issueArgs(name), extraEnv));
}

/** A single issuance in this process. */
async function issueIn(name: string, more: string[] = []): Promise<VcRun> {
  return noteIssued(name, await vcIn(issueArgs(name, more)));
}

/** The credential ids of a `--batch` run's output file, in input order. */
function batchOutput(name: string): string[] {
  return readFileSync(file(name), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { credential: Json }).credential.id as string);
}

/** A `--batch` input file of `count` lines for the holder. */
function writeBatch(name: string, count: number): string {
  writeFileSync(file(name), `${Array.from({ length: count }, () => JSON.stringify({ did: holderDid })).join('\n')}\n`);
  return file(name);
}

interface Listing {
  recovered?: { kind: string; txId: string; credentials: string[]; revokedNonces: number[] };
  credentials: Array<{ id: string; revocationNonce: number; revoked: boolean }>;
}

async function listing(): Promise<Listing> {
  const run = await vcIn(['issuer', 'credentials']);
  expect(run.status, run.stderr).toBe(0);
  return run.json<Listing>();
}

/**
 * The listing the last test left when it completed its checks (undefined once a test starts, until
 * it completes them): a test starts from it instead of asking the wallet again, and from a fresh
 * listing (which also reconciles whatever a failed test left) after a failure.
 */
let lastListing: Listing | undefined;

async function startingListing(): Promise<Listing> {
  const list = lastListing ?? (await listing());
  lastListing = undefined;
  return list;
}

function walletContext(): Context {
  return new Context({ config: parseConfig({ ...(env.CIRCUITS_PATH !== undefined ? { CIRCUITS_PATH: env.CIRCUITS_PATH } : {}) }, home) });
}

/** Checks a credential's Iden3SparseMerkleTreeProof against the chain, as the circuit and contract would. */
async function provesOnChain(ctx: Context, credential: Json): Promise<void> {
  const iden3 = await getIden3(ctx);
  const { core, mt } = iden3.modules;
  const proof = (credential.proof as Json[]).find((p) => p.type === 'Iden3SparseMerkleTreeProof') as
    | { coreClaim: string; mtp: Json; issuerData: { id: string; state: { value: string; claimsTreeRoot: string; revocationTreeRoot: string; rootOfRoots: string; txId: string } } }
    | undefined;
  expect(proof, `credential ${String(credential.id)} has no Iden3SparseMerkleTreeProof`).toBeDefined();
  const { state } = proof!.issuerData;
  // The state is the hash of the three roots, and the claim is in the claims tree under it.
  const roots = [state.claimsTreeRoot, state.revocationTreeRoot, state.rootOfRoots].map((h) => mt.Hash.fromHex(h).bigInt());
  expect(mt.hashElems(roots).hex()).toBe(state.value);
  const { hi, hv } = new core.Claim().fromHex(proof!.coreClaim).hiHv();
  expect(await mt.verifyProof(mt.Hash.fromHex(state.claimsTreeRoot), mt.Proof.fromJSON(proof!.mtp as never), hi, hv)).toBe(true);
  // The State contract knows that state for the issuer, and the named transaction published it.
  const id = core.DID.idFromDID(core.DID.parse(proof!.issuerData.id)).bigInt();
  const info = await iden3.states.getStateInfoByIdAndState(id, mt.Hash.fromHex(state.value).bigInt());
  expect(info.state).toBe(mt.Hash.fromHex(state.value).bigInt());
  const receipt = await (await getChain(ctx)).provider.getTransactionReceipt(state.txId);
  expect(receipt?.status).toBe(1);
}

/** Credentials already shown to prove on chain (their proofs do not change afterwards). */
const proven = new Set<string>();

/**
 * The invariants on the issuer's credentials: unique credentials and revocation nonces, every
 * credential reported issued among them, each with a proof that holds on chain. `credential`
 * gives one credential whole.
 */
async function checkCredentials(credentials: Array<{ id: string; revocationNonce: number }>, credential: (ctx: Context, id: string) => Promise<Json>): Promise<void> {
  const ids = credentials.map((c) => c.id);
  expect(new Set(ids).size, 'a credential is listed twice').toBe(ids.length);
  const nonces = credentials.map((c) => c.revocationNonce);
  expect(new Set(nonces).size, 'two credentials share a revocation nonce').toBe(nonces.length);
  for (const id of reported) expect(ids, `reported credential ${id} is missing`).toContain(id);
  const ctx = walletContext();
  try {
    for (const id of ids.filter((candidate) => !proven.has(candidate))) {
      await provesOnChain(ctx, await credential(ctx, id));
      proven.add(id);
    }
  } finally {
    await ctx.close();
  }
}

/**
 * The invariants after any recovery (checkCredentials) on what `vc issuer credentials` lists,
 * which reconciles any interrupted publication first; `list` is that listing when just taken.
 */
async function checkWallet(list?: Listing): Promise<Listing> {
  const checked = list ?? (await listing());
  await checkCredentials(checked.credentials, async (ctx, id) => (await listIssuedCredentials(ctx, { id })) as Json);
  lastListing = checked;
  return checked;
}

/**
 * The wallet as a killed command left it, read in this process without the issuer's lock, so
 * without reconciling its journal (every vc command, `vc issuer credentials` included, would):
 * the credentials of the issuer's completed publications, and its pending publication if any.
 */
async function walletAsLeft(): Promise<{ issued: IssuedRecord[]; pending: PendingPublication | undefined }> {
  const ctx = walletContext();
  try {
    return { issued: issuedRecords(ctx, issuerDid), pending: pendingPublication(ctx, issuerDid) };
  } finally {
    await ctx.close();
  }
}

/** The completed batches kept for a re-run (their output not yet written) that hold credential `id`. */
function completedBatchesHolding(id: string): CompletedBatch[] {
  const ctx = walletContext();
  try {
    return ctx.store.list<CompletedBatch>(COMPLETED_BATCHES_NS).map((entry) => entry.value).filter((batch) => batch.credentials.includes(id));
  } finally {
    void ctx.close();
  }
}

/** A stored credential of the wallet, whole, read without reconciling anything. */
async function storedCredential(ctx: Context, id: string): Promise<Json> {
  const found = await (await getIden3(ctx)).dataStorage.credential.findCredentialById(id);
  expect(found, `credential ${id} is recorded as issued but not stored`).toBeDefined();
  return JSON.parse(JSON.stringify(found)) as Json;
}

/**
 * How many of `credentials` (journaled, as W3C JSON) have their claim in the issuer's claims tree:
 * read from the wallet's trees only, without connecting to the chain (see stateTransitions).
 */
async function claimsInTree(credentials: Json[]): Promise<number> {
  const ctx = walletContext();
  try {
    const iden3 = await getIden3(ctx);
    const { core, sdk } = iden3.modules;
    const model = await iden3.identityWallet.getDIDTreeModel(core.DID.parse(issuerDid));
    let count = 0;
    for (const json of credentials) {
      const claim = sdk.W3CCredential.fromJSON(json).getCoreClaimFromProof(sdk.ProofType.BJJSignature);
      expect(claim, `journaled credential ${String(json.id)} has no core claim`).toBeDefined();
      if ((await model.claimsTree.generateProof(claim!.hiHv().hi)).proof.existence) count++;
    }
    return count;
  } finally {
    await ctx.close();
  }
}

/**
 * How many state transitions of the issuer the State contract has recorded (its StateUpdated
 * events), read straight from the node: a context of vc that connects to the embedded chain saves
 * the node's state when closed, which would take from the next command the checkpoint a kill left
 * it to do.
 */
async function stateTransitions(): Promise<number> {
  const ctx = walletContext();
  let rpcUrl: string;
  let stateAddress: string;
  try {
    rpcUrl = readNodeRecord(ctx)!.rpcUrl;
    stateAddress = readAddressBook(ctx)!.contracts.state!.address;
  } finally {
    await ctx.close();
  }
  const { Interface, JsonRpcProvider } = await import('ethers');
  const events = new Interface(iden3Artifact('StateLib').abi as never);
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    const logs = await provider.getLogs({ address: stateAddress, topics: [events.getEvent('StateUpdated')!.topicHash], fromBlock: 0, toBlock: 'latest' });
    return logs.filter((log) => BigInt(events.parseLog(log)!.args.id as bigint) === issuerId).length;
  } finally {
    provider.destroy();
  }
}

beforeAll(async () => {
  const holder = await vcIn(['holder', 'did', 'create']);
  expect(holder.status, holder.stderr).toBe(0);
  holderDid = holder.json<{ did_String: string }>().did_String;
  const issuer = await vcIn(['issuer', 'did', 'create']);
  expect(issuer.status, issuer.stderr).toBe(0);
  const { payload } = issuer.json<{ payload: { method: string; id: string } }>();
  issuerDid = `did:${payload.method}:${payload.id}`;
  const ctx = walletContext();
  try {
    const { core } = (await getIden3(ctx)).modules;
    issuerId = core.DID.idFromDID(core.DID.parse(issuerDid)).bigInt();
  } finally {
    await ctx.close();
  }
  // One issuance first, its status on chain (Iden3OnchainSparseMerkleTreeProof2023): the identity
  // has published once, and from then on every publication also saves its tree nodes in the
  // chain's IdentityTreeStore (the nodes-saved step, killed at below like every other).
  const first = await issueIn('first.json', ['--status', 'onchain']);
  expect(first.status, first.stderr).toBe(0);
}, LONG);

afterAll(async () => {
  await vcIn(['chain', 'down']);
  tmp.cleanup();
});

describe('vc issuer issue killed at each step of a publication, each kill completed by the next command', () => {
  // A batch of two (`elsewhere.jsonl`) is killed once journaled; each next single issuance first
  // resumes that publication and is killed at its next step, so its own credential is never made;
  // the issuance after the last of them completes the batch and is killed at its own signing,
  // before its journal. The batch is thus completed by other commands than its own (the next test
  // runs its file again).
  const steps: Array<{ step: CrashPointName; stage: PendingPublication['stage']; claims: number; transitions: number; what: string }> = [
    { step: 'issue:claim-added', stage: 'prepared', claims: 1, transitions: 0, what: 'between the batch\'s two claims: one in the claims tree, one not' },
    { step: 'issue:trees-updated', stage: 'prepared', claims: 2, transitions: 0, what: 'the other claim added, the first not again; the new state not yet recorded' },
    { step: 'issue:nodes-saved', stage: 'nodes-saved', claims: 2, transitions: 0, what: 'the tree nodes saved in the IdentityTreeStore, nothing proved or sent' },
    { step: 'issue:receipt', stage: 'mined', claims: 2, transitions: 1, what: 'the state transition proved, sent and mined, not recorded in the wallet' },
    { step: 'checkpoint:dumped', stage: 'mined', claims: 2, transitions: 1, what: 'the mined state found on chain, the node\'s state dumped and not saved' },
  ];
  let batchIds: string[] = [];
  let transitionsBefore = 0;
  it(
    `issue:prepared, then ${steps.map(({ step }) => step).join(', ')} while completing it, then issue:signed: the batch completed once, no killed issuance kept, one state transition; the next issuance succeeds`,
    async () => {
      const before = (await startingListing()).credentials.length;
      transitionsBefore = await stateTransitions();
      const batch = ['issuer', 'issue', '--batch', writeBatch('elsewhere.jsonl', 2), '-o', file('elsewhere-crashed.jsonl')];
      await killedRun('issue:prepared', (crashEnv) => vc(batch, crashEnv));
      expect(existsSync(file('elsewhere-crashed.jsonl'))).toBe(false);
      const journaled = await walletAsLeft();
      expect(journaled.pending?.kind).toBe('issue');
      expect(journaled.pending?.stage).toBe('prepared');
      expect(journaled.pending!.credentials).toHaveLength(2);
      const credentials = journaled.pending!.credentials;
      batchIds = credentials.map((credential) => String(credential.id));
      expect(journaled.issued.length).toBe(before);
      expect(await claimsInTree(credentials), 'issue:prepared comes before the trees').toBe(0);

      for (const { step, stage, claims, transitions, what } of steps) {
        await killedRun(step, (crashEnv) => issue(`crash-${step}.json`, crashEnv));
        expect(existsSync(file(`crash-${step}.json`))).toBe(false);
        const left = await walletAsLeft();
        // Still the batch's journal alone: the killed issuance kept nothing of its own.
        expect(left.pending?.credentials.map((c) => String(c.id)), `${step}: the journal`).toEqual(batchIds);
        expect(left.pending?.stage, `${step}: ${what}`).toBe(stage);
        expect(left.issued.length, `${step}: something was issued before the batch was completed`).toBe(before);
        expect(await claimsInTree(credentials), `${step}: ${what}`).toBe(claims);
        expect((await stateTransitions()) - transitionsBefore, `${step}: ${what}`).toBe(transitions);
        if (stage === 'mined') expect(left.pending?.txHash, `${step}: the journal names its transaction`).toMatch(/^0x[0-9a-f]{64}$/);
      }

      // The next issuance completes the batch (no new proof: its transition is on chain), then is
      // killed at its own signing, before its journal: nothing of its own is kept.
      await killedRun('issue:signed', (crashEnv) => issue('crash-issue-signed.json', crashEnv));
      expect(existsSync(file('crash-issue-signed.json'))).toBe(false);
      const completed = await walletAsLeft();
      expect(completed.pending, 'issue:signed comes before the journal: nothing may be pending').toBeUndefined();
      const ids = completed.issued.map((record) => record.id);
      for (const id of batchIds) expect(ids, `the batch's credential ${id} was not completed by the next command`).toContain(id);
      expect(completed.issued.length, 'the batch was not completed, or completed twice, or the killed issuance kept').toBe(before + 2);
      expect((await stateTransitions()) - transitionsBefore, 'completing the batch published again').toBe(1);
      await checkCredentials(completed.issued, storedCredential);

      // After the last kill an ordinary issuance succeeds: its own credential, issued once.
      const next = await issueIn('after-kills.json');
      expect(next.status, next.stderr).toBe(0);
      expect((await stateTransitions()) - transitionsBefore).toBe(2);
      const list = await checkWallet();
      expect(list.credentials.length).toBe(before + 3);
    },
    LONG,
  );

  it(
    'the batch completed by other commands: the next run of its file gives that batch, not a second one; the run after that issues anew',
    async () => {
      expect(batchIds, 'the kills above left no batch').toHaveLength(2);
      const before = (await startingListing()).credentials.length;
      const args = (out: string): string[] => ['issuer', 'issue', '--batch', file('elsewhere.jsonl'), '-o', file(out)];
      const again = await vcIn(args('elsewhere-1.jsonl'));
      expect(again.status, again.stderr).toBe(0);
      const ids = batchOutput('elsewhere-1.jsonl');
      // The journaled credentials, in input order, and nothing published for them.
      expect(ids).toEqual(batchIds);
      reported.push(...ids);
      expect((await stateTransitions()) - transitionsBefore, 'the batch was published a second time').toBe(2);
      expect((await listing()).credentials.length, 'the batch was issued a second time').toBe(before);

      // Given once: the same file now issues a new batch.
      const fresh = await vcIn(args('elsewhere-2.jsonl'));
      expect(fresh.status, fresh.stderr).toBe(0);
      const freshIds = batchOutput('elsewhere-2.jsonl');
      expect(freshIds).toHaveLength(2);
      expect(freshIds.filter((id) => ids.includes(id))).toEqual([]);
      reported.push(...freshIds);
      expect((await stateTransitions()) - transitionsBefore).toBe(3);
      const list = await checkWallet();
      expect(list.credentials.length).toBe(before + 2);
    },
    LONG,
  );
});

describe('vc issuer issue --batch killed at each step of its own runs, then run again', () => {
  it(
    'issue:signed (nothing kept), issue:tx-sent, output:pending, output:written: every run of the same file gives the same credentials, in input order, one state transition, until one writes them out; then the batch is let go',
    async () => {
      const before = (await startingListing()).credentials.length;
      const transitions = await stateTransitions();
      const args = ['issuer', 'issue', '--batch', writeBatch('output.jsonl', 3), '-o', file('output-out.jsonl')];

      // Killed after signing every line, before the journal: nothing kept.
      await killedRun('issue:signed', (crashEnv) => vc(args, crashEnv));
      expect(existsSync(file('output-out.jsonl'))).toBe(false);
      const signed = await walletAsLeft();
      expect(signed.pending, 'issue:signed comes before the journal: nothing may be pending').toBeUndefined();
      expect(signed.issued.length).toBe(before);

      // Run again: issued afresh (nothing had been kept), killed once its transaction is sent.
      await killedRun('issue:tx-sent', (crashEnv) => vc(args, crashEnv));
      expect(existsSync(file('output-out.jsonl'))).toBe(false);
      const sent = await walletAsLeft();
      expect(sent.pending?.stage).toBe('sent');
      expect(sent.pending!.credentials).toHaveLength(3);
      const journaled = sent.pending!.credentials.map((c) => String(c.id));
      expect(await claimsInTree(sent.pending!.credentials)).toBe(3);
      expect(sent.issued.length).toBe(before);

      // Run again: the sent batch is completed (no second publication), killed before -o is written.
      await killedRun('output:pending', (crashEnv) => vc(args, crashEnv));
      expect(existsSync(file('output-out.jsonl'))).toBe(false);
      const left = await walletAsLeft();
      expect(left.pending).toBeUndefined();
      expect(left.issued.length).toBe(before + 3);
      const ids = left.issued.map((record) => record.id);
      for (const id of journaled) expect(ids).toContain(id);
      // Kept for the next run of the same file.
      expect(completedBatchesHolding(journaled[0]!).map((batch) => [...batch.credentials].sort())).toEqual([[...journaled].sort()]);

      // Run again, killed once -o is written but before the batch is let go: the journaled
      // credentials in input order, and the batch still kept.
      await killedRun('output:written', (crashEnv) => vc(args, crashEnv));
      expect(batchOutput('output-out.jsonl')).toEqual(journaled);
      expect(completedBatchesHolding(journaled[0]!), 'let go before its output was confirmed').toHaveLength(1);

      // And again, to the end: the same credentials once more, one state transition for them all.
      const again = await vcIn(args);
      expect(again.status, again.stderr).toBe(0);
      expect(batchOutput('output-out.jsonl')).toEqual(journaled);
      const results = readFileSync(file('output-out.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { credential: Json });
      const txIds = results.map(({ credential }) => (credential.proof as Array<{ type: string; issuerData?: { state: { txId: string } } }>).find((p) => p.type === 'Iden3SparseMerkleTreeProof')?.issuerData?.state.txId);
      expect(new Set(txIds).size, 'one state transition for the batch').toBe(1);
      expect((await stateTransitions()) - transitions, 'the batch was published more than once').toBe(1);
      reported.push(...journaled);
      // Three credentials, not six or nine.
      const list = await checkWallet();
      expect(list.credentials.length, 'the batch was issued more than once').toBe(before + 3);
      // Written out: the batch is let go (the next run of a file issues anew, as shown above).
      expect(completedBatchesHolding(journaled[0]!)).toEqual([]);
    },
    LONG,
  );
});

describe('revocation nonces of new credentials', () => {
  it('skip every nonce the issuer uses (its credentials, its auth key) and every one drawn before', async () => {
    const ctx = walletContext();
    try {
      const iden3 = await getIden3(ctx);
      const issuer = iden3.modules.core.DID.parse(await resolveIssuerDid(ctx));
      const used = [...(lastListing ?? (await listing())).credentials.map((c) => c.revocationNonce)];
      const auth = (await iden3.dataStorage.credential.listCredentials()).filter((c) => c.issuer === issuer.string() && c.type.includes('AuthBJJCredential'));
      expect(auth.length).toBeGreaterThan(0);
      used.push(...auth.map((c) => Number(c.credentialStatus.revocationNonce)));
      // A draw that offers every used nonce, and repeats a fresh one, before other fresh ones.
      const [a, b, c] = [1, 2, 3].map((k) => Math.max(...used) + k) as [number, number, number];
      const offers = [...used, a, a, ...used, b, c];
      let index = 0;
      const next = await revocationNonces(ctx, issuer, () => offers[index++]!);
      expect([next(), next(), next()]).toEqual([a, b, c]);
      expect(index).toBe(offers.length);
      // Every used nonce is in the issuer's index (kept by each issuance since it was built).
      for (const nonce of used) expect(ctx.store.get(NONCES_NS, `${issuer.string()}/${nonce}`), `nonce ${nonce}`).toBeDefined();
      // A wallet of an earlier vc (no index): built again from its credentials at the next draw.
      for (const { key } of ctx.store.list(NONCES_NS, `${issuer.string()}/`)) ctx.store.delete(NONCES_NS, key);
      ctx.store.delete(NONCE_INDEX_NS, issuer.string());
      index = 0;
      const rebuilt = await revocationNonces(ctx, issuer, () => offers[index++]!);
      expect([rebuilt(), rebuilt(), rebuilt()]).toEqual([a, b, c]);
      expect(index).toBe(offers.length);
      // An earlier vc issuing from this home after the index was built (an issued record, no index
      // entry): its nonce is found all the same.
      const older = c + 1;
      ctx.store.put(ISSUED_NS, `${issuer.string()}/urn:uuid:issued-by-an-earlier-vc`, { id: 'urn:uuid:issued-by-an-earlier-vc', revocationNonce: older });
      const afterOlder = await revocationNonces(ctx, issuer, (() => { const draws = [older, older + 1]; return () => draws.shift()!; })());
      expect(afterOlder()).toBe(older + 1);
      expect(ctx.store.get(NONCES_NS, `${issuer.string()}/${older}`)).toBeDefined();
      ctx.store.delete(ISSUED_NS, `${issuer.string()}/urn:uuid:issued-by-an-earlier-vc`);
      ctx.store.delete(NONCES_NS, `${issuer.string()}/${older}`);
      // And with the real random draw, thousands of nonces stay distinct and unused.
      const random = await revocationNonces(ctx, issuer);
      const drawn = Array.from({ length: 20_000 }, () => random());
      expect(new Set(drawn).size).toBe(drawn.length);
      for (const nonce of used) expect(drawn).not.toContain(nonce);
    } finally {
      await ctx.close();
    }
  });
});

describe('vc issuer revoke killed at each step', () => {
  /** Kills `revoke --nonce` at each step in turn (each run resuming the previous one's journal); the next revoke reports it revoked, once. */
  async function killRevocation(steps: Array<{ step: CrashPointName; stage: PendingPublication['stage'] }>): Promise<void> {
    const target = (await startingListing()).credentials.find((c) => !c.revoked)!;
    const revoke = ['issuer', 'revoke', '--nonce', String(target.revocationNonce)];
    const transitions = await stateTransitions();
    for (const { step, stage } of steps) {
      await killedRun(step, (crashEnv) => vc(revoke, crashEnv));
      const left = await walletAsLeft();
      expect(left.pending?.kind, step).toBe('revoke');
      expect(left.pending?.revokedNonces, step).toEqual([target.revocationNonce]);
      expect(left.pending?.stage, step).toBe(stage);
      // Sent (the transaction broadcast, its receipt not awaited): mined or not yet, either may hold.
      if (stage !== 'sent') expect((await stateTransitions()) - transitions, `${step}: state transitions`).toBe(stage === 'mined' ? 1 : 0);
    }
    const retry = await vcIn(revoke);
    expect(retry.status, retry.stderr).toBe(0);
    expect(retry.json<{ message: string; nonce: number; txId: string }>()).toMatchObject({ message: 'credential successfully revoked', nonce: target.revocationNonce });
    expect((await stateTransitions()) - transitions, 'the revocation was published more than once').toBe(1);
    const again = await vcIn(revoke);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already revoked/);
    const list = await checkWallet();
    expect(list.credentials.find((c) => c.id === target.id)?.revoked).toBe(true);
  }

  it(
    'revoke:prepared, then revoke:trees-updated, revoke:nodes-saved, revoke:tx-sent while resuming it: the next revoke of the same nonce reports it revoked, once',
    () =>
      killRevocation([
        { step: 'revoke:prepared', stage: 'prepared' },
        { step: 'revoke:trees-updated', stage: 'prepared' },
        { step: 'revoke:nodes-saved', stage: 'nodes-saved' },
        { step: 'revoke:tx-sent', stage: 'sent' },
      ]),
    LONG,
  );

  it('revoke:receipt: the next revoke of the same nonce reports it revoked, once', () => killRevocation([{ step: 'revoke:receipt', stage: 'mined' }]), LONG);
});

describe('what the issuer lists and revokes is what it issued', () => {
  it('a tampered copy given to prove-submit is neither stored nor listed, and the auth key nonce cannot be revoked', async () => {
    const real = await vcIn(['issuer', 'credentials', '--id', reported[0]!, '-o', file('real.json')]);
    expect(real.status, real.stderr).toBe(0);
    const forged = JSON.parse(readFileSync(file('real.json'), 'utf8')) as Json;
    forged.id = 'a-forged';
    (forged.credentialStatus as Json).revocationNonce = 0;
    writeFileSync(file('forged.json'), JSON.stringify(forged));
    // The request is used again by the next test's real proof.
    const request = await vcIn(['verifier', 'request', '-o', file('request.json')]);
    expect(request.status, request.stderr).toBe(0);
    const proved = await vcIn(['holder', 'prove-submit', '--credential', file('forged.json'), '--request', file('request.json')]);
    expect(proved.status).not.toBe(0);
    expect(proved.status).not.toBe(70);
    const list = await listing();
    expect(list.credentials.map((c) => c.id)).not.toContain('a-forged');
    const revoke = await vcIn(['issuer', 'revoke', '--nonce', '0']);
    expect(revoke.status).toBe(2);
    expect(revoke.stderr).toMatch(/own authentication key/);
    lastListing = list;
  }, LONG);
});

describe('the embedded node killed after the receipt, before its state is saved', () => {
  it(
    'the command exits 4 instead of reporting success, and the next one publishes again; the credential (issued after the tampered copy) proves and submits',
    async () => {
      const before = (await startingListing()).credentials.length;
      const run = await issue('node-killed.json', { VC_KILL_NODE_AT: 'issue:receipt' });
      expect(run.status, run.stderr).toBe(4);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(file('node-killed.json'))).toBe(false);
      const list = await listing();
      expect(list.recovered?.kind).toBe('issue');
      expect(list.credentials.length).toBe(before + 1);
      await checkWallet(list);

      // A credential completed by recovery is a real credential: it proves and submits on chain.
      const recoveredId = list.recovered!.credentials[0]!;
      const fetched = await vcIn(['issuer', 'credentials', '--id', recoveredId, '-o', file('recovered.json')]);
      expect(fetched.status, fetched.stderr).toBe(0);
      const proved = await vcIn(['holder', 'prove-submit', '--credential', file('recovered.json'), '--request', file('request.json')]);
      expect(proved.status, proved.stderr).toBe(0);
      const requestId = String(JSON.parse(readFileSync(file('request.json'), 'utf8')).id);
      expect(proved.json<Json>()[requestId]).toBe(true);
    },
    LONG,
  );
});

describe('the on-chain status of the first credential, after every publication was killed and recovered', () => {
  it('is read from the IdentityTreeStore as the issuer left it: revoked exactly when the issuer lists it revoked', async () => {
    const first = JSON.parse(readFileSync(file('first.json'), 'utf8')) as { credential: Json };
    expect((first.credential.credentialStatus as Json).type).toBe('Iden3OnchainSparseMerkleTreeProof2023');
    const revoked = (lastListing ?? (await listing())).credentials.find((c) => c.id === first.credential.id)?.revoked;
    // The holder (of this same wallet) checks it as any import does: its proofs, then its status from the chain.
    const imported = await vcIn(['holder', 'credentials', 'import', file('first.json')]);
    if (revoked === true) {
      expect(imported.status, imported.stderr).toBe(2);
      expect(imported.stderr).toContain('the credential is revoked');
    } else {
      expect(imported.status, imported.stderr).toBe(0);
    }
  });
});

describe('every crash point', () => {
  it('src/faults.ts lists is killed at by this file', () => {
    expect([...killedAt].sort()).toEqual([...CRASH_POINTS].sort());
  });
});
