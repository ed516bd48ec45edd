/**
 * Nothing lost under faults: `vc issuer issue` and `vc issuer revoke` killed (SIGKILL, through the
 * VC_CRASH_AT crash points) at every step of their publication, and the embedded node killed after
 * the receipt (VC_KILL_NODE_AT). For each: the next command succeeds, no claim is duplicated, every
 * credential reported issued proves on chain (its Merkle proof against a state the State contract
 * holds, published by a successful transaction), and the interrupted credential is either completed
 * or cleanly absent. One recovered credential also goes through a real prove-submit.
 *
 * The tests share one wallet and run in order. The kills of a single issuance are chained: each
 * killed command is also the command after the previous kill (it reconciles the journal that kill
 * left, completing its credential, before its own issuance), which halves the issuances (each a
 * state-transition proof) while every step is still killed at and recovered from.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { getIden3 } from '../../../src/iden3/wallet.js';
import { getChain } from '../../../src/chain/chainClient.js';
import { listIssuedCredentials, revocationNonces } from '../../../src/core/pbq/pbqIssuance.js';
import { COMPLETED_BATCHES_NS, issuedRecords, pendingPublication, type CompletedBatch, type IssuedRecord, type PendingPublication } from '../../../src/core/pbq/publication.js';
import { resolveIssuerDid } from '../../../src/core/pbq/identities.js';
import { CRASH_POINTS, type CrashPointName } from '../../../src/faults.js';
import { runVc, tempDir, templateHome, type VcRun } from '../../helpers.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const tmp = tempDir('vc-pbq-recovery-');
const home = templateHome(path.join(tmp.dir, 'home'));
const file = (name: string): string => path.join(tmp.dir, name);
const env: Record<string, string | undefined> = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
let holderDid: string;
let issuerDid: string;
/** Every credential a command reported as issued (exit 0 with the credential written). */
const reported: string[] = [];
/** The crash points a run was killed at (checked against the list src/faults.ts exports). */
const killedAt = new Set<string>();

/** Runs a command with VC_CRASH_AT=step and checks that it was killed there. */
function killedRun(step: CrashPointName, run: (env: Record<string, string>) => VcRun): VcRun {
  const crashed = run({ VC_CRASH_AT: step });
  expect(crashed.signal, `${step}: ${crashed.stderr}`).toBe('SIGKILL');
  killedAt.add(step);
  return crashed;
}

function vc(args: string[], extraEnv: Record<string, string | undefined> = {}): VcRun {
  return runVc(['--json', ...args], { home, env: { ...env, ...extraEnv } });
}

function issue(name: string, extraEnv: Record<string, string | undefined> = {}, more: string[] = []): VcRun {
  const run = vc(['issuer', 'issue', '--holder', holderDid, ...more, '-o', file(name)], extraEnv);
  if (run.status === 0) reported.push((JSON.parse(readFileSync(file(name), 'utf8')) as { credential: Json }).credential.id as string);
  return run;
}

interface Listing {
  recovered?: { kind: string; txId: string; credentials: string[]; revokedNonces: number[] };
  credentials: Array<{ id: string; revocationNonce: number; revoked: boolean }>;
}

function listing(): Listing {
  const run = vc(['issuer', 'credentials']);
  expect(run.status, run.stderr).toBe(0);
  return run.json<Listing>();
}

/**
 * The listing the last test left when it completed its checks (undefined once a test starts, until
 * it completes them): a test starts from it instead of asking the wallet again, and from a fresh
 * listing (which also reconciles whatever a failed test left) after a failure.
 */
let lastListing: Listing | undefined;

function startingListing(): Listing {
  const list = lastListing ?? listing();
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
async function checkWallet(list: Listing = listing()): Promise<Listing> {
  await checkCredentials(list.credentials, async (ctx, id) => (await listIssuedCredentials(ctx, { id })) as Json);
  lastListing = list;
  return list;
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

beforeAll(() => {
  const holder = vc(['holder', 'did', 'create']);
  expect(holder.status, holder.stderr).toBe(0);
  holderDid = holder.json<{ did_String: string }>().did_String;
  const issuer = vc(['issuer', 'did', 'create']);
  expect(issuer.status, issuer.stderr).toBe(0);
  const { payload } = issuer.json<{ payload: { method: string; id: string } }>();
  issuerDid = `did:${payload.method}:${payload.id}`;
  // One issuance first, its status on chain (Iden3OnchainSparseMerkleTreeProof2023): the identity
  // has published once, and from then on every publication also saves its tree nodes in the
  // chain's IdentityTreeStore (the nodes-saved step, killed at below like every other).
  const first = issue('first.json', {}, ['--status', 'onchain']);
  expect(first.status, first.stderr).toBe(0);
}, LONG);

afterAll(() => {
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('vc issuer issue killed at each step', () => {
  // Each killed run is also the next command after the previous kill: it first reconciles the
  // journal that kill left (completing that credential), then is killed at its own step in its
  // own issuance. The steps go from the last to the first because completing an interrupted
  // publication passes the steps after the one it stopped at, never an earlier one: so no run is
  // killed while completing the previous one. Between runs the wallet is read without the lock
  // (walletAsLeft), since any vc command would reconcile the journal. Every issuance step that
  // src/faults.ts lists is killed at, and the chain checkpoint's dump after the publication.
  const steps = CRASH_POINTS.filter((point) => point.startsWith('issue:') || point === 'checkpoint:dumped').reverse();
  /** Steps before the journal: a run killed there leaves nothing to complete (nothing was kept). */
  const beforeJournal = new Set<CrashPointName>(['issue:signed']);
  /** The credential the previous run was killed with, journaled and not yet completed. */
  let interrupted: { step: string; id: string } | undefined;
  for (const [index, step] of steps.entries()) {
    const previous = index === 0 ? 'an ordinary issuance' : `the run killed at ${steps[index - 1]!} (completed here)`;
    it(
      `${step}: killed after ${previous}; ${beforeJournal.has(step) ? 'nothing of its own is kept' : 'its credential is journaled, to be completed by the next command'}`,
      async () => {
        // Every step relies on the previous one's journal: after a failure, start afresh.
        if (interrupted === undefined && index > 0 && !beforeJournal.has(steps[index - 1]!)) listing();
        lastListing = undefined;
        const before = await walletAsLeft();
        expect(before.pending?.credentials.map((c) => c.id), 'the journal the previous kill left').toEqual(interrupted === undefined ? undefined : [interrupted.id]);
        const left = interrupted;
        interrupted = undefined;

        killedRun(step, (crashEnv) => issue(`crash-${step}.json`, crashEnv));
        expect(existsSync(file(`crash-${step}.json`))).toBe(false);

        const after = await walletAsLeft();
        const ids = after.issued.map((record) => record.id);
        // Once journaled, the interrupted credential is completed by the next command (it would be
        // cleanly absent had the crash come before the journal: nothing is written before it).
        if (left !== undefined) expect(ids, `the credential interrupted at ${left.step} was not completed by the next command`).toContain(left.id);
        expect(after.issued.length, 'the interrupted credential was not completed, or was completed twice').toBe(before.issued.length + (left === undefined ? 0 : 1));
        await checkCredentials(after.issued, storedCredential);
        if (beforeJournal.has(step)) {
          expect(after.pending, `${step} comes before the journal: nothing may be pending`).toBeUndefined();
          return;
        }
        // This run's own credential: journaled, not (yet) issued.
        expect(after.pending?.kind).toBe('issue');
        expect(after.pending!.credentials).toHaveLength(1);
        const own = String(after.pending!.credentials[0]!.id);
        expect(ids).not.toContain(own);
        interrupted = { step, id: own };
      },
      LONG,
    );
  }
  it(
    'after the last kill the next ordinary issuance succeeds: nothing pending, its own credential issued once',
    async () => {
      const before = await walletAsLeft();
      expect(before.pending, 'a kill before the journal left a pending publication').toBeUndefined();
      const next = issue('after-kills.json');
      expect(next.status, next.stderr).toBe(0);
      const list = await checkWallet();
      expect(list.credentials.length).toBe(before.issued.length + 1);
    },
    LONG,
  );
});

describe('vc issuer issue --batch killed at each step', () => {
  // The steps a batch adds to a single issuance: after signing every line (nothing journaled
  // yet), between two claims entering the trees (some in, some not), and after the transaction
  // (journaled, the publication's later steps are those of a single issuance, tested above).
  for (const step of ['issue:signed', 'issue:claim-added', 'issue:tx-sent'] as const) {
    it(
      `${step}: running the same batch again issues it once, with one state transition`,
      async () => {
        const before = startingListing().credentials.length;
        const name = step.replace(':', '-');
        writeFileSync(file(`${name}.jsonl`), `${Array.from({ length: 3 }, () => JSON.stringify({ did: holderDid })).join('\n')}\n`);
        const args = ['issuer', 'issue', '--batch', file(`${name}.jsonl`), '-o', file(`${name}-out.jsonl`)];
        killedRun(step, (crashEnv) => vc(args, crashEnv));
        expect(existsSync(file(`${name}-out.jsonl`))).toBe(false);
        // What the killed run journaled (nothing when killed before the journal).
        const journaled = (await walletAsLeft()).pending?.credentials.map((c) => c.id);
        expect(journaled === undefined ? 'nothing' : journaled.length).toBe(step === 'issue:signed' ? 'nothing' : 3);

        const again = vc(args);
        expect(again.status, again.stderr).toBe(0);
        const results = readFileSync(file(`${name}-out.jsonl`), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { credential: Json });
        expect(results).toHaveLength(3);
        // The same credentials the killed run journaled, in input order.
        if (journaled !== undefined) expect(results.map(({ credential }) => credential.id)).toEqual(journaled);
        const txIds = results.map(({ credential }) => (credential.proof as Array<{ type: string; issuerData?: { state: { txId: string } } }>).find((p) => p.type === 'Iden3SparseMerkleTreeProof')?.issuerData?.state.txId);
        expect(new Set(txIds).size, 'one state transition for the batch').toBe(1);
        for (const { credential } of results) reported.push(credential.id as string);
        // Three credentials, not six: the re-run returned the interrupted batch once journaled, and
        // issued it afresh when the crash came before the journal (then nothing had been kept).
        const list = await checkWallet();
        expect(list.credentials.length).toBe(before + 3);
      },
      LONG,
    );
  }
});

describe('vc issuer issue --batch killed after its publication, before or while its output is written', () => {
  it(
    'every run of the same file gives the same credentials until one writes them out: one batch in the wallet; then the batch is let go',
    async () => {
      const listed = startingListing().credentials.map((c) => c.id);
      const before = listed.length;
      writeFileSync(file('output.jsonl'), `${Array.from({ length: 3 }, () => JSON.stringify({ did: holderDid })).join('\n')}\n`);
      const args = ['issuer', 'issue', '--batch', file('output.jsonl'), '-o', file('output-out.jsonl')];
      const ids = (): string[] => readFileSync(file('output-out.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { credential: Json }).credential.id as string);

      // Published and completed, killed before -o: the credentials exist, the file does not.
      killedRun('output:pending', (crashEnv) => vc(args, crashEnv));
      expect(existsSync(file('output-out.jsonl'))).toBe(false);
      const left = await walletAsLeft();
      expect(left.pending).toBeUndefined();
      const issued = left.issued.map((record) => record.id).filter((id) => !listed.includes(id));
      expect(issued).toHaveLength(3);
      expect(left.issued.length).toBe(before + 3);
      // Kept for the next run of the same file.
      expect(completedBatchesHolding(issued[0]!).map((batch) => [...batch.credentials].sort())).toEqual([[...issued].sort()]);

      // Run again, killed once -o is written but before the batch is let go: the same credentials.
      killedRun('output:written', (crashEnv) => vc(args, crashEnv));
      const written = ids();
      expect([...written].sort()).toEqual([...issued].sort());

      // And again, to the end: the same credentials once more, still three in the wallet.
      const again = vc(args);
      expect(again.status, again.stderr).toBe(0);
      expect(ids()).toEqual(written);
      reported.push(...written);
      const list = await checkWallet();
      expect(list.credentials.length, 'the batch was issued more than once').toBe(before + 3);
      // Written out: the batch is let go (the next run of the file issues anew, as shown below).
      expect(completedBatchesHolding(issued[0]!)).toEqual([]);
    },
    LONG,
  );
});

describe('an interrupted batch completed by another command', () => {
  it(
    'the next run of the same file gives that batch, not a second one; the run after that issues anew',
    async () => {
      const before = startingListing().credentials.length;
      writeFileSync(file('elsewhere.jsonl'), `${JSON.stringify({ did: holderDid })}\n${JSON.stringify({ did: holderDid })}\n`);
      const args = (out: string): string[] => ['issuer', 'issue', '--batch', file('elsewhere.jsonl'), '-o', file(out)];
      killedRun('issue:tx-sent', (crashEnv) => vc(args('elsewhere-crashed.jsonl'), crashEnv));
      // A single issuance reconciles the journal first: the batch is completed by it.
      expect(issue('elsewhere-single.json').status).toBe(0);
      const recovered = listing();
      expect(recovered.credentials.length).toBe(before + 3);

      const again = vc(args('elsewhere-1.jsonl'));
      expect(again.status, again.stderr).toBe(0);
      const ids = readFileSync(file('elsewhere-1.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { credential: Json }).credential.id as string);
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(recovered.credentials.map((c) => c.id)).toContain(id);
      reported.push(...ids);
      expect(listing().credentials.length, 'the batch was not issued a second time').toBe(before + 3);

      // Given once: the same file now issues a new batch.
      const fresh = vc(args('elsewhere-2.jsonl'));
      expect(fresh.status, fresh.stderr).toBe(0);
      const freshIds = readFileSync(file('elsewhere-2.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { credential: Json }).credential.id as string);
      expect(freshIds.filter((id) => ids.includes(id))).toEqual([]);
      reported.push(...freshIds);
      const list = await checkWallet();
      expect(list.credentials.length).toBe(before + 5);
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
      const used = [...(lastListing ?? listing()).credentials.map((c) => c.revocationNonce)];
      const auth = (await iden3.dataStorage.credential.listCredentials()).filter((c) => c.issuer === issuer.string() && c.type.includes('AuthBJJCredential'));
      expect(auth.length).toBeGreaterThan(0);
      used.push(...auth.map((c) => Number(c.credentialStatus.revocationNonce)));
      // A draw that offers every used nonce, and repeats a fresh one, before other fresh ones.
      const [a, b, c] = [1, 2, 3].map((k) => Math.max(...used) + k) as [number, number, number];
      const offers = [...used, a, a, ...used, b, c];
      let index = 0;
      const next = await revocationNonces(ctx, iden3, issuer, () => offers[index++]!);
      expect([next(), next(), next()]).toEqual([a, b, c]);
      expect(index).toBe(offers.length);
      // And with the real random draw, thousands of nonces stay distinct and unused.
      const random = await revocationNonces(ctx, iden3, issuer);
      const drawn = Array.from({ length: 20_000 }, () => random());
      expect(new Set(drawn).size).toBe(drawn.length);
      for (const nonce of used) expect(drawn).not.toContain(nonce);
    } finally {
      await ctx.close();
    }
  });
});

describe('vc issuer revoke killed at each step', () => {
  // Every revocation step src/faults.ts lists.
  for (const step of CRASH_POINTS.filter((point) => point.startsWith('revoke:'))) {
    it(
      `${step}: the next revoke of the same nonce reports it revoked, once`,
      async () => {
        const target = startingListing().credentials.find((c) => !c.revoked)!;
        killedRun(step, (crashEnv) => vc(['issuer', 'revoke', '--nonce', String(target.revocationNonce)], crashEnv));
        const retry = vc(['issuer', 'revoke', '--nonce', String(target.revocationNonce)]);
        expect(retry.status, retry.stderr).toBe(0);
        const again = vc(['issuer', 'revoke', '--nonce', String(target.revocationNonce)]);
        expect(again.status).toBe(2);
        expect(again.stderr).toMatch(/already revoked/);
        const list = await checkWallet();
        expect(list.credentials.find((c) => c.id === target.id)?.revoked).toBe(true);
      },
      LONG,
    );
  }
});

describe('the embedded node killed after the receipt, before its state is saved', () => {
  it(
    'the command exits 4 instead of reporting success, and the next one publishes again',
    async () => {
      const before = startingListing().credentials.length;
      const run = issue('node-killed.json', { VC_KILL_NODE_AT: 'issue:receipt' });
      expect(run.status, run.stderr).toBe(4);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(file('node-killed.json'))).toBe(false);
      const list = listing();
      expect(list.recovered?.kind).toBe('issue');
      expect(list.credentials.length).toBe(before + 1);
      await checkWallet(list);

      // A credential completed by recovery is a real credential: it proves and submits on chain.
      const recoveredId = list.recovered!.credentials[0]!;
      const fetched = vc(['issuer', 'credentials', '--id', recoveredId, '-o', file('recovered.json')]);
      expect(fetched.status, fetched.stderr).toBe(0);
      const request = vc(['verifier', 'request', '-o', file('request.json')]);
      expect(request.status, request.stderr).toBe(0);
      const proved = vc(['holder', 'prove-submit', '--credential', file('recovered.json'), '--request', file('request.json')]);
      expect(proved.status, proved.stderr).toBe(0);
      const requestId = String(JSON.parse(readFileSync(file('request.json'), 'utf8')).id);
      expect(proved.json<Json>()[requestId]).toBe(true);
    },
    LONG,
  );
});

describe('what the issuer lists and revokes is what it issued', () => {
  it('a tampered copy given to prove-submit is neither stored nor listed, and the auth key nonce cannot be revoked', async () => {
    const real = vc(['issuer', 'credentials', '--id', reported[0]!, '-o', file('real.json')]);
    expect(real.status, real.stderr).toBe(0);
    const forged = JSON.parse(readFileSync(file('real.json'), 'utf8')) as Json;
    forged.id = 'a-forged';
    (forged.credentialStatus as Json).revocationNonce = 0;
    writeFileSync(file('forged.json'), JSON.stringify(forged));
    const request = vc(['verifier', 'request', '-o', file('request-forged.json')]);
    expect(request.status, request.stderr).toBe(0);
    const proved = vc(['holder', 'prove-submit', '--credential', file('forged.json'), '--request', file('request-forged.json')]);
    expect(proved.status).not.toBe(0);
    expect(proved.status).not.toBe(70);
    expect(listing().credentials.map((c) => c.id)).not.toContain('a-forged');
    const revoke = vc(['issuer', 'revoke', '--nonce', '0']);
    expect(revoke.status).toBe(2);
    expect(revoke.stderr).toMatch(/own authentication key/);
    // The issuer can still issue.
    expect(issue('after-forgery.json').status).toBe(0);
  }, LONG);
});

describe('the on-chain status of the first credential, after every publication was killed and recovered', () => {
  it('is read from the IdentityTreeStore as the issuer left it: revoked exactly when the issuer lists it revoked', () => {
    const first = JSON.parse(readFileSync(file('first.json'), 'utf8')) as { credential: Json };
    expect((first.credential.credentialStatus as Json).type).toBe('Iden3OnchainSparseMerkleTreeProof2023');
    const revoked = listing().credentials.find((c) => c.id === first.credential.id)?.revoked;
    // The holder (of this same wallet) checks it as any import does: its proofs, then its status from the chain.
    const imported = vc(['holder', 'credentials', 'import', file('first.json')]);
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
