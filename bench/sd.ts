/**
 * Selective-disclosure benchmark: sign, derive and verify the passport credential (median of many
 * runs) three ways in the same run:
 * - vc: our core operations (issue with the JSON-LD term check, disclose, verify with every check);
 * - suite: the MATTR JSON-LD suites alone (jsonld-signatures sign / deriveProof / verify);
 * - library: the raw BBS+ calls (blsSign / blsCreateProof / blsVerifyProof) on the same canonical
 *   statements, with the copy of bbs-signatures the suite itself loads: the floor every JSON-LD
 *   layer builds on.
 * Operations are interleaved round by round so every layer sees the same machine load.
 * Run: node dist/bench/sd.js [runs]
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/core/context.js';
import { createStaticDocumentLoader } from '../src/bbs/documentLoader.js';
import { deriveBlsKeyPair } from '../src/bbs/keys.js';
import { deriveBbsProof, signBbsCredential, verifyDerivedBbsProof, type JsonLdDocument } from '../src/bbs/suite.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../src/core/sd/index.js';
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
  /** vc / library and suite / library: the cost of JSON-LD canonicalisation and our checks. */
  ratios: { vcToLibrary: StepMedians; suiteToLibrary: StepMedians };
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
  try {
    // vc: the operations as the CLI and the server run them.
    const credential = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bench', store: false });
    const disclosed = (await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: REVEALED_KEYS, credential })).vc;
    const vcOps: Operations = {
      sign: () => issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:bench', store: false }),
      derive: () => deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: REVEALED_KEYS, credential }),
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

    // library: the raw BBS+ calls on the canonical statements the suite signs.
    // The very copy of bbs-signatures the suite calls (jsonld-signatures-bbs pins its own version).
    const suiteRequire = createRequire(fileURLToPath(import.meta.resolve('@mattrglobal/jsonld-signatures-bbs')));
    const bbs = suiteRequire('@mattrglobal/bbs-signatures') as typeof import('@mattrglobal/bbs-signatures');
    const { BbsBlsSignature2020 } = (await import('@mattrglobal/jsonld-signatures-bbs')).default;
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
    const [vc, suite, library] = (await timeInterleaved([vcOps, suiteOps, libraryOps], runs)) as [StepMedians, StepMedians, StepMedians];

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
      ratios: { vcToLibrary: ratio(vc, library), suiteToLibrary: ratio(suite, library) },
    };
  } finally {
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runSdBench(runs === undefined ? {} : { runs }));
