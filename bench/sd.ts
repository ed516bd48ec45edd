/**
 * Selective-disclosure benchmark: sign, derive and verify the passport credential (median of many
 * runs) three ways in the same run:
 * - vc: our core operations (issue with the JSON-LD term check, disclose, verify with every check);
 * - suite: the MATTR JSON-LD suites alone (jsonld-signatures sign / deriveProof / verify);
 * - library: the raw BBS+ calls (blsSign / blsCreateProof / blsVerifyProof) on the same canonical
 *   statements, with the copy of bbs-signatures the suite itself loads: the floor every JSON-LD
 *   layer builds on;
 * - bbs2023: the same core operations on the W3C successor (VC 2.0, bbs-2023 DataIntegrityProof,
 *   Digital Bazaar's libraries), the same subject and revealed fields, in a wallet of its own.
 * Operations are interleaved round by round so every layer sees the same machine load.
 * Run: node dist/bench/sd.js [runs]
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { createStaticDocumentLoader } from '../src/sd/documentLoader.js';
import { deriveBlsKeyPair } from '../src/sd/suites/bbs2020/bbs2020Keys.js';
import { bbsLibraries } from '../src/sd/library.js';
import { deriveBbsProof, signBbsCredential, verifyDerivedBbsProof } from '../src/sd/suites/bbs2020/bbs2020Suite.js';
import { type JsonLdDocument } from '../src/sd/proofOutcome.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../src/core/sd/index.js';
import { keepHeldCredential } from '../src/core/holder/holderStore.js';
import { issueBbs2023SelectiveDisclosureCredential } from '../src/core/sd/sdIssuance.js';
import { median, round, timeRuns, runIfMain } from './stats.js';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const REVEALED_KEYS = ['id', 'name', 'nationality'];
const HIDDEN_PREDICATE = /#(passportNumber|birthDate|customerReference|expiryDate|publicAddress)>/;

export interface StepMedians {
  sign: number;
  derive: number;
  verify: number;
}

export interface SdBenchReport {
  benchmark: 'sd';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  runs: number;
  credential: { type: 'PassportCredential'; subjectFields: number; statements: number; revealedStatements: number; revealedKeys: string[] };
  /** Version of @mattrglobal/bbs-signatures behind both the suite and the baseline. */
  bbsSignaturesVersion: string;
  /** Median milliseconds per operation. */
  vc: StepMedians;
  suite: StepMedians;
  library: StepMedians;
  /** The same operations with bbs-2023 (sign: issue, derive: disclose, verify: verify with every check). */
  bbs2023: StepMedians;
  /** vc / library and suite / library: the cost of JSON-LD canonicalisation and our checks; bbs2023 / vc: the W3C suite against BbsBlsSignature2020. */
  ratios: { vcToLibrary: StepMedians; suiteToLibrary: StepMedians; bbs2023ToBbs2020: StepMedians };
  /**
   * The cost of fresh randomness: the raw calls with the random source of src/sd/library.ts
   * (node:crypto) against the same calls in a worker thread that loads the library without it (the
   * old behaviour: an all-zero seed), interleaved call by call.
   */
  randomness: { fresh: StepMedians; zeroSeed: StepMedians; freshToZeroSeed: StepMedians };
}

interface RawInputs {
  keyPair: { secretKey: Uint8Array; publicKey: Uint8Array };
  publicKey: Uint8Array;
  messages: Uint8Array[];
  signature: Uint8Array;
  revealed: number[];
  nonce: Uint8Array;
  proof: Uint8Array;
  revealedMessages: Uint8Array[];
}

/** The worker: loads the library by its path without vc's door and times one raw call per message. */
const ZERO_SEED_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
process.env.BBS_SIGNATURES_MODE = 'WASM';
const bbs = require(workerData.library);
const i = workerData.inputs;
const ops = {
  sign: () => bbs.blsSign({ keyPair: i.keyPair, messages: i.messages }),
  derive: () => bbs.blsCreateProof({ signature: i.signature, publicKey: i.publicKey, messages: i.messages, nonce: i.nonce, revealed: i.revealed }),
  verify: () => bbs.blsVerifyProof({ proof: i.proof, publicKey: i.publicKey, messages: i.revealedMessages, nonce: i.nonce }),
};
parentPort.on('message', async (step) => {
  const start = process.hrtime.bigint();
  await ops[step]();
  parentPort.postMessage(Number(process.hrtime.bigint() - start) / 1e6);
});`;

async function timeRandomnessCost(library: string, inputs: RawInputs, runs: number): Promise<SdBenchReport['randomness']> {
  const { Worker } = await import('node:worker_threads');
  const { raw: bbs } = await bbsLibraries();
  const worker = new Worker(ZERO_SEED_WORKER, { eval: true, workerData: { library, inputs } });
  let failure: unknown;
  worker.on('error', (error) => (failure = error));
  const inWorker = (step: keyof StepMedians) =>
    new Promise<number>((resolve, reject) => {
      if (failure !== undefined) reject(failure);
      worker.once('message', resolve);
      worker.postMessage(step);
    });
  const local: Operations = {
    sign: () => bbs.blsSign({ keyPair: inputs.keyPair, messages: inputs.messages }),
    derive: () => bbs.blsCreateProof({ signature: inputs.signature, publicKey: inputs.publicKey, messages: inputs.messages, nonce: inputs.nonce, revealed: inputs.revealed }),
    verify: () => bbs.blsVerifyProof({ proof: inputs.proof, publicKey: inputs.publicKey, messages: inputs.revealedMessages, nonce: inputs.nonce }),
  };
  const fresh = { sign: [] as number[], derive: [] as number[], verify: [] as number[] };
  const zero = { sign: [] as number[], derive: [] as number[], verify: [] as number[] };
  try {
    for (let pass = -2; pass < runs; pass++) {
      for (const step of ['sign', 'derive', 'verify'] as const) {
        const [duration] = await timeRuns(local[step], 1, 0);
        const zeroDuration = await inWorker(step);
        if (pass >= 0) {
          fresh[step].push(duration!);
          zero[step].push(zeroDuration);
        }
      }
    }
  } finally {
    await worker.terminate();
  }
  const medians = (s: typeof fresh): StepMedians => ({ sign: round(median(s.sign), 2), derive: round(median(s.derive), 2), verify: round(median(s.verify), 2) });
  return { fresh: medians(fresh), zeroSeed: medians(zero), freshToZeroSeed: ratio(medians(fresh), medians(zero)) };
}

function ratio(a: StepMedians, b: StepMedians): StepMedians {
  return { sign: round(a.sign / b.sign, 2), derive: round(a.derive / b.derive, 2), verify: round(a.verify / b.verify, 2) };
}

type Operations = Record<keyof StepMedians, () => Promise<unknown>>;

/**
 * Times every operation of every layer once per round, round after round, so that all of them see
 * the same machine load (the medians stay comparable on a busy machine).
 */
async function timeInterleaved(layers: Operations[], runs: number): Promise<StepMedians[]> {
  const steps: Array<keyof StepMedians> = ['sign', 'derive', 'verify'];
  const samples = layers.map(() => ({ sign: [] as number[], derive: [] as number[], verify: [] as number[] }));
  for (let pass = -2; pass < runs; pass++) {
    for (const [index, layer] of layers.entries()) {
      for (const step of steps) {
        const [duration] = await timeRuns(layer[step], 1, 0);
        if (pass >= 0) samples[index]![step].push(duration!);
      }
    }
  }
  return samples.map((s) => ({ sign: round(median(s.sign), 2), derive: round(median(s.derive), 2), verify: round(median(s.verify), 2) }));
}

/** Runs the benchmark and returns the JSON report. */
export async function runSdBench(options: { runs?: number } = {}): Promise<SdBenchReport> {
  const runs = options.runs ?? 30;
  const home = mkdtempSync(path.join(os.tmpdir(), 'vc-bench-sd-'));
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE }, home) });
  // bbs-2023 in a wallet of its own: the holder keeps one credential per type.
  const ctx2023 = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: PHRASE }, path.join(home, 'bbs2023')) });
  try {
    // vc: the operations as the CLI and the server run them.
    // The holder discloses its stored credential (the spec's path; a credential given as a file is
    // first checked like an import, signature included).
    const credential = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bench' });
    // Held as the holder's own (did:example:bench is no DID of this wallet, so issuing kept nothing).
    keepHeldCredential(ctx, credential, { kind: 'bbs2020', source: 'issued' });
    const disclosed = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: REVEALED_KEYS })).vc;
    const vcOps: Operations = {
      sign: () => issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bench', store: false }),
      derive: () => deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: REVEALED_KEYS }),
      verify: async () => {
        if (!(await verifySelectiveDisclosure(ctx, { vc: disclosed })).verified) throw new Error('bench: verification failed');
      },
    };

    // suite: the MATTR suites on the same credential.
    const loader = createStaticDocumentLoader();
    const key = await deriveBlsKeyPair(PHRASE);
    const { proof: _signedProof, ...unsigned } = credential as JsonLdDocument;
    const frame: JsonLdDocument = {
      '@context': credential['@context'],
      type: credential.type,
      '@explicit': true,
      issuer: {},
      issuanceDate: {},
      credentialSchema: {},
      credentialSubject: { '@explicit': true, name: {}, nationality: {} },
    };
    const nonce = new Uint8Array(32).fill(9);
    const suiteOps: Operations = {
      sign: () => signBbsCredential(unsigned, key, loader, new Date()),
      derive: () => deriveBbsProof(credential as JsonLdDocument, frame, nonce, loader),
      verify: async () => {
        if (!(await verifyDerivedBbsProof(disclosed, loader)).verified) throw new Error('bench: suite verification failed');
      },
    };

    // library: the raw BBS+ calls on the canonical statements the suite signs, through the door
    // (the very copy of bbs-signatures the suite calls, with its random source from node:crypto).
    const suiteRequire = createRequire(fileURLToPath(import.meta.resolve('@mattrglobal/jsonld-signatures-bbs')));
    const { raw: bbs, bbs: suites } = await bbsLibraries();
    const { BbsBlsSignature2020 } = suites;
    const signedProof = credential.proof as Record<string, unknown>;
    const statements: string[] = await new BbsBlsSignature2020().createVerifyData({
      document: unsigned,
      // The suite signs the proof options compacted to security v2, where the type is sec:-prefixed.
      proof: { '@context': 'https://w3id.org/security/v2', ...signedProof, type: 'sec:BbsBlsSignature2020' },
      documentLoader: loader,
      compactProof: false,
    });
    const messages = statements.map((s) => new Uint8Array(Buffer.from(s)));
    const publicKey = new Uint8Array(key.keyPair.publicKeyBuffer);
    const keyPair = { secretKey: new Uint8Array(key.keyPair.privateKeyBuffer!), publicKey };
    const signature = new Uint8Array(Buffer.from(signedProof.proofValue as string, 'base64'));
    if (!(await bbs.blsVerify({ publicKey, messages, signature })).verified) {
      throw new Error('bench: the baseline statements differ from what the suite signed');
    }
    const revealed = statements.map((s, i) => (HIDDEN_PREDICATE.test(s) ? -1 : i)).filter((i) => i >= 0);
    const proof = await bbs.blsCreateProof({ signature, publicKey, messages, nonce, revealed });
    const revealedMessages = revealed.map((i) => messages[i]!);
    const libraryOps: Operations = {
      sign: () => bbs.blsSign({ keyPair, messages }),
      derive: () => bbs.blsCreateProof({ signature, publicKey, messages, nonce, revealed }),
      verify: async () => {
        if (!(await bbs.blsVerifyProof({ proof, publicKey, messages: revealedMessages, nonce })).verified) throw new Error('bench: raw proof failed');
      },
    };
    keepHeldCredential(ctx2023, await issueBbs2023SelectiveDisclosureCredential(ctx2023, { holder: 'did:example:bench' }), { kind: 'bbs2023', source: 'issued' });
    const disclosed2023 = (await deriveSelectiveDisclosure(ctx2023, { type: 'PassportCredential', keys: REVEALED_KEYS })).vc;
    const bbs2023Ops: Operations = {
      sign: () => issueBbs2023SelectiveDisclosureCredential(ctx2023, { holder: 'did:example:bench', store: false }),
      derive: () => deriveSelectiveDisclosure(ctx2023, { type: 'PassportCredential', keys: REVEALED_KEYS }),
      verify: async () => {
        if (!(await verifySelectiveDisclosure(ctx2023, { vc: disclosed2023 })).verified) throw new Error('bench: bbs-2023 verification failed');
      },
    };
    const [vc, suite, library, bbs2023] = (await timeInterleaved([vcOps, suiteOps, libraryOps, bbs2023Ops], runs)) as [StepMedians, StepMedians, StepMedians, StepMedians];
    const randomness = await timeRandomnessCost(suiteRequire.resolve('@mattrglobal/bbs-signatures'), { keyPair, publicKey, messages, signature, revealed, nonce, proof, revealedMessages }, runs);

    return {
      benchmark: 'sd',
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
      runs,
      credential: {
        type: 'PassportCredential',
        subjectFields: Object.keys(credential.credentialSubject).length,
        statements: statements.length,
        revealedStatements: revealed.length,
        revealedKeys: REVEALED_KEYS,
      },
      bbsSignaturesVersion: (suiteRequire('@mattrglobal/bbs-signatures/package.json') as { version: string }).version,
      vc,
      suite,
      library,
      bbs2023,
      ratios: { vcToLibrary: ratio(vc, library), suiteToLibrary: ratio(suite, library), bbs2023ToBbs2020: ratio(bbs2023, vc) },
      randomness,
    };
  } finally {
    await ctx.close();
    await ctx2023.close();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runSdBench(runs === undefined ? {} : { runs }));
