#!/usr/bin/env node
// Regenerates the test vectors of test/circom/vectors/*.json from a local clone of iden3/circuits
// (and of the js-sdk repository): the inputs of every case of the official tests, and the outputs the
// OFFICIAL circuits give on them (or the fact that they fail), computed by compiling and running
// the official circuits here. The tests compare vc's own circuits with these files; they never run
// this script. See README.md.
//
//   node test/circom/vectors/generate.mjs --circuits <iden3/circuits clone> --jssdk <js-sdk git dir> [--build <dir>]
//
// The official sources are exported (git archive) into the build directory (default: the OS temp
// dir), next to a copy of the project's circomlib, and compiled there with the project's circom2
// (--O2, as vc compiles its own), once per commit. Nothing of theirs is written into this repository
// except their test inputs.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OP, nonMerklizedInputs, padStrings } from './testvectorgen.mjs';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');

/** The reference commits. */
export const REF = {
  circuits: '360715607a240041f49eb46c543fc450051c4cb7', // iden3/circuits master, 2026-01-16
  authV2: '49992281e57db10fd6cd5e401932254c32de1219', // d0d2073^: the last commit with circuits/authV2.circom
  historical: 'a0c36a0^', // the last commit with the Go generator's vectors committed (2024-02-16)
};

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1];
  if (fallback !== undefined) return fallback;
  throw new Error(`missing --${name}`);
}

const CIRCUITS_REPO = arg('circuits');
const JSSDK_REPO = arg('jssdk');
const BUILD = arg('build', path.join(tmpdir(), 'vc-official-circuits'));

function git(repo, ...args) {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
}
const JSSDK_COMMIT = git(JSSDK_REPO, 'rev-parse', 'HEAD').trim();
const HISTORICAL_COMMIT = git(CIRCUITS_REPO, 'rev-parse', REF.historical).trim();

/* ---------------------------------------------------------------- official circuits */

/** The official circuits to run: our circuit id -> official commit, main file and template parameters. */
const OFFICIAL = {
  authV2: { commit: REF.authV2, main: 'authV2.circom', sizes: { idOwnershipLevels: 40, onChainLevels: 64 } },
  authV3: { commit: REF.circuits, main: 'authV3.circom', sizes: { idOwnershipLevels: 40, onChainLevels: 64 } },
  credentialAtomicQueryV3: { commit: REF.circuits, main: 'credentialAtomicQueryV3.circom', sizes: { issuerLevels: 40, claimLevels: 32, valueArraySize: 64 } },
  credentialAtomicQueryV3OnChain: {
    commit: REF.circuits,
    main: 'credentialAtomicQueryV3OnChain.circom',
    sizes: { issuerLevels: 40, claimLevels: 32, valueArraySize: 64, idOwnershipLevels: 40, onChainLevels: 64 },
  },
};

/** Which template parameter sizes each array input. */
const ARRAY_SIZES = {
  authClaimIncMtp: 'idOwnershipLevels',
  authClaimNonRevMtp: 'idOwnershipLevels',
  gistMtp: 'onChainLevels',
  issuerClaimMtp: 'issuerLevels',
  issuerClaimNonRevMtp: 'issuerLevels',
  issuerAuthClaimMtp: 'issuerLevels',
  issuerAuthClaimNonRevMtp: 'issuerLevels',
  claimPathMtp: 'claimLevels',
  value: 'valueArraySize',
};

/**
 * The inputs resized for a circuit of the given sizes: arrays of Merkle siblings and query values
 * padded with zeros or cut, the cut only dropping zeros (so the input means the same). Returns
 * undefined when a non-zero element would be cut.
 */
export function resizeInputs(inputs, sizes) {
  const out = { ...inputs };
  for (const [key, param] of Object.entries(ARRAY_SIZES)) {
    if (!(key in out) || !(param in sizes)) continue;
    const size = sizes[param];
    const values = out[key].map(String);
    if (values.slice(size).some((v) => v !== '0')) return undefined;
    out[key] = padStrings(values.slice(0, size), size);
  }
  return out;
}

function compileOfficial(id) {
  const spec = OFFICIAL[id];
  const dir = path.join(BUILD, spec.commit.slice(0, 12));
  const name = path.basename(spec.main, '.circom');
  const out = path.join(dir, 'build', name);
  if (!existsSync(path.join(dir, 'circuits'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${CIRCUITS_REPO}" archive ${spec.commit} circuits | tar -x -C "${dir}"`]);
    cpSync(path.dirname(require.resolve('circomlib/package.json')), path.join(dir, 'node_modules', 'circomlib'), { recursive: true });
  }
  if (!existsSync(path.join(out, 'done'))) {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const started = Date.now();
    // circom2 (WASI) sees only its working directory and below: the official includes are relative
    // ("../../node_modules/circomlib/..."), so it runs from the exported tree.
    execFileSync('nice', ['-n', '15', process.execPath, require.resolve('circom2/cli.js'), `circuits/${spec.main}`, '--r1cs', '--wasm', '--sym', '--O2', '-o', `build/${name}`], {
      cwd: dir,
      stdio: 'inherit',
    });
    writeFileSync(path.join(out, 'done'), `${Math.round((Date.now() - started) / 1000)}\n`);
  }
  return { dir: out, name };
}

/** Public signal names (snarkjs order: outputs, then public inputs) from the .r1cs header and .sym. */
function publicSignalNames(dir, name) {
  const r1cs = readFileSync(path.join(dir, `${name}.r1cs`));
  let offset = 12;
  const sections = r1cs.readUInt32LE(8);
  let header;
  for (let s = 0; s < sections; s++) {
    const type = r1cs.readUInt32LE(offset);
    const size = Number(r1cs.readBigUInt64LE(offset + 4));
    if (type === 1) header = offset + 12;
    offset += 12 + size;
  }
  const n8 = r1cs.readUInt32LE(header);
  const base = header + 4 + n8;
  const nOutputs = r1cs.readUInt32LE(base + 4);
  const nPubInputs = r1cs.readUInt32LE(base + 8);
  const constraints = r1cs.readUInt32LE(base + 12 + 4 + 8);
  const byWire = new Map();
  for (const line of readFileSync(path.join(dir, `${name}.sym`), 'utf8').split('\n')) {
    const [, wire, , signal] = line.split(',');
    if (signal && Number(wire) > 0 && Number(wire) <= nOutputs + nPubInputs && !byWire.has(Number(wire))) byWire.set(Number(wire), signal.replace(/^main\./, ''));
  }
  const names = [];
  for (let w = 1; w <= nOutputs + nPubInputs; w++) names.push(byWire.get(w));
  return { names, nOutputs, constraints };
}

const silentLogger = { info() {}, warn() {}, debug() {}, error() {} };

async function runOfficial(id, cases) {
  const { dir, name } = compileOfficial(id);
  const { names, nOutputs, constraints } = publicSignalNames(dir, name);
  const builder = require(path.join(dir, `${name}_js`, 'witness_calculator.js'));
  const wasm = readFileSync(path.join(dir, `${name}_js`, `${name}.wasm`));
  const snarkjs = await import('snarkjs');
  const sizes = OFFICIAL[id].sizes;
  for (const c of cases) {
    const inputs = resizeInputs(c.inputs, sizes);
    if (!inputs) throw new Error(`${id}: ${c.name} does not fit the official sizes`);
    // A fresh instance per case: a failed witness leaves the WebAssembly instance unusable.
    const calculator = await builder(wasm);
    try {
      const witness = await calculator.calculateWitness(inputs, true);
      const wtns = { type: 'mem' };
      await snarkjs.wtns.calculate(inputs, path.join(dir, `${name}_js`, `${name}.wasm`), wtns);
      const ok = await snarkjs.wtns.check(path.join(dir, `${name}.r1cs`), wtns, silentLogger);
      if (!ok) throw new Error('official R1CS not satisfied by its own witness');
      c.expected = { publicSignals: names.map((n, i) => [n, witness[1 + i].toString()]) };
    } catch (error) {
      const message = String(error.message ?? error);
      // The witness calculator names every template on the failing path, innermost first.
      const templates = [...message.matchAll(/Error in template (\w+?)(_\d+)? line/g)].map((m) => m[1]);
      c.expected = { fails: true, officialError: templates.length > 0 ? templates.map((t) => `Error in template ${t}`).join(' < ') : message.split('\n')[0] };
    }
    process.stdout.write(`${id} ${c.name}: ${c.expected.fails ? c.expected.officialError : 'ok'}\n`);
  }
  return { names, nOutputs, constraints, compileSeconds: Number(readFileSync(path.join(dir, 'done'), 'utf8')) };
}

/* ---------------------------------------------------------------- sources of the inputs */

/** The `tests` array literal of an official mocha test (the auth tests keep their vectors inline). */
function inlineTests(commit, file) {
  const source = git(CIRCUITS_REPO, 'show', `${commit}:${file}`);
  const start = source.indexOf('const tests = [');
  const end = source.indexOf('];', start);
  const body = source.slice(start + 'const tests = ['.length, end).trim().replace(/,\s*$/, '');
  return JSON.parse(`[${body}]`);
}

function historical(file) {
  return JSON.parse(git(CIRCUITS_REPO, 'show', `${HISTORICAL_COMMIT}:testvectorgen/credentials/${file}.json`));
}

function jsSdkData(file) {
  return JSON.parse(git(JSSDK_REPO, 'show', `${JSSDK_COMMIT}:tests/circuits/data/${file}`));
}

const circuitsSource = (commit, file) => ({ repository: 'github.com/iden3/circuits', commit, file });
const jsSdkSource = (file) => ({ repository: 'github.com/0xPolygonID/js-sdk', commit: JSSDK_COMMIT, file: `tests/circuits/data/${file}` });

function authCases(commit, testFile, jsSdkFiles) {
  const cases = inlineTests(commit, testFile).map((t, i) => ({
    name: `official-${i + 1}`,
    desc: t.desc,
    source: { ...circuitsSource(commit, testFile), note: `tests[${i}], written for the test main ${testFile.includes('V2') ? 'AuthV2' : 'AuthV3'}(32, 32)` },
    inputs: t.inputs,
    officialExpOut: t.expOut,
  }));
  for (const file of jsSdkFiles) {
    cases.push({ name: `js-sdk-${path.basename(file, '.json')}`, desc: `js-sdk test inputs ${file}`, source: jsSdkSource(file), inputs: jsSdkData(file) });
  }
  return cases;
}

/** Brings a historical (2024-02) vector's inputs to the current inputs of the circuits. */
function adaptHistorical(inputs, onChain) {
  const out = { ...inputs };
  // 1907e18 removed the claimPathNotExists input ($exists carries it now)
  delete out.claimPathNotExists;
  // 00260c3 -> 3dd94b9: authEnabled became isBJJAuthEnabled
  if (onChain && 'authEnabled' in out) {
    out.isBJJAuthEnabled = out.authEnabled;
    delete out.authEnabled;
  }
  return out;
}

function sameInputs(a, b) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/**
 * The cases of test/offchain/credentialAtomicQueryV3OffChain.test.ts (onChain false) or
 * test/onchain/credentialAtomicQueryV3OnChain.test.ts (onChain true) at the reference commit, with
 * the parameters their Go generator passes (testvectorgen/credentials/{v3,onchain/v3}/v3_test.go).
 */
function queryCaseList(onChain) {
  const jsonld = (userProfile, subjectProfile) => ({ merklized: true, isUserIDProfile: userProfile, isSubjectIDProfile: subjectProfile });
  const common = {
    claimIssuedOnUserID: jsonld(false, false),
    claimIssuedOnProfileID2: jsonld(true, true),
    claimNonMerklized: {},
    claimWithLinkNonce: { linkNonce: '6321' },
    between_operator: { operator: OP.BETWEEN, value: ['8', '10'] },
    less_than_eq_operator: { operator: OP.LTE, value: ['10'] },
    selective_disclosure: { isUserIDProfile: true, isSubjectIDProfile: true, operator: OP.SD, value: [] },
    nullify: { isUserIDProfile: true, isSubjectIDProfile: true, nullifierSessionID: '123', operator: OP.NOOP, value: [] },
    revoked_claim_without_revocation_check: { isRevoked: true, isRevocationChecked: 0 },
    jsonld_non_inclusion: { merklized: true, sigOnly: true, nonInclusion: true },
    noop_operator: { operator: OP.NOOP, value: [] },
    revoked_claim_with_revocation_check: { isRevoked: true, isRevocationChecked: 1, officialFails: 'Error in template checkClaimNotRevoked' },
  };
  // The off-chain and on-chain generators name the two profile cases the other way round.
  const specific = onChain
    ? {
        claimIssuedOnProfileID: jsonld(false, true),
        profileID_subject_userid: jsonld(true, false),
        onchainIdentity: { operator: OP.LT, value: ['11'], isBJJAuthEnabled: 0 },
      }
    : {
        claimIssuedOnProfileID: jsonld(true, false),
        profileID_subject: jsonld(false, true),
        not_between_operator: { operator: OP.NOT_BETWEEN, value: ['1', '9'] },
        in_operator: { operator: OP.IN, value: ['8', '9', '10'] },
        in_operator_failed_0: { operator: OP.IN, value: ['1', '2', '3'], isZeroSubjClaim: true, officialFails: 'Error in template ProcessQueryWithModifiers' },
      };
  return { ...common, ...specific };
}

async function queryCases(onChain) {
  const testFile = onChain ? 'test/onchain/credentialAtomicQueryV3OnChain.test.ts' : 'test/offchain/credentialAtomicQueryV3OffChain.test.ts';
  const generator = onChain ? 'testvectorgen/credentials/onchain/v3/v3_test.go' : 'testvectorgen/credentials/v3/v3_test.go';
  const historicalDir = onChain ? 'onchain/v3/testdata' : 'v3/testdata';
  const listed = git(CIRCUITS_REPO, 'show', `${REF.circuits}:${testFile}`);
  const cases = [];
  for (const proofType of ['sig', 'mtp']) {
    for (const [name, params] of Object.entries(queryCaseList(onChain))) {
      if (params.sigOnly && proofType !== 'sig') continue;
      if (!listed.includes(`${proofType}BasePath}/${name}.json`)) throw new Error(`${testFile} does not list ${proofType}/${name}`);
      const file = `${historicalDir}/${proofType}/${name}`;
      const historicalFile = `testvectorgen/credentials/${file}.json`;
      let old;
      try {
        old = historical(file);
      } catch {
        old = undefined;
      }
      const entry = { name: `${proofType}/${name}`, source: { ...circuitsSource(REF.circuits, testFile), generator: `${generator} @ ${REF.circuits}` } };
      if (params.officialFails) entry.officialExpectedError = params.officialFails;
      if (params.merklized) {
        // JSON-LD documents cannot be merklized here (their contexts are remote): the inputs are
        // the committed ones, brought to the current inputs.
        if (!old) throw new Error(`no historical vector for ${file}`);
        const inputs = adaptHistorical(old.inputs, onChain);
        if (params.nonInclusion) {
          // Test_JSON_LD_Proof_non_inclusion at the reference commit: on chain $exists false
          // (value [0], size 1, ea5b5a1/ef8e494), off chain $noop with no values.
          Object.assign(inputs, onChain ? { operator: OP.EXISTS, value: padStrings(['0'], 64), valueArraySize: 1 } : { operator: OP.NOOP, value: padStrings([], 64), valueArraySize: 0 });
        }
        entry.desc = old.desc;
        entry.source.inputs = { repository: 'github.com/iden3/circuits', commit: HISTORICAL_COMMIT, file: historicalFile, adapted: 'claimPathNotExists removed, authEnabled renamed isBJJAuthEnabled' + (params.nonInclusion ? (onChain ? ', operator $exists with value [0] and valueArraySize 1' : ', valueArraySize 0') : '') };
        entry.inputs = inputs;
        entry.historicalExpOut = old.expOut;
      } else {
        const inputs = await nonMerklizedInputs({ onChain, proofType, ...params });
        entry.desc = old?.desc ?? name;
        entry.source.inputs = { generatedBy: 'test/circom/vectors/testvectorgen.mjs (a transcription of the Go generator)' };
        if (old) {
          const adapted = adaptHistorical(old.inputs, onChain);
          // Test_Nullify passed the values ["94313"] before dcf3429 and [] since.
          if (name === 'nullify') adapted.value = padStrings([], 64);
          const differing = sameInputs(adapted, inputs);
          if (differing.length > 0) throw new Error(`${file}: transcription differs from the committed vector in ${differing.join(', ')}`);
          entry.source.inputs.checkedAgainst = { repository: 'github.com/iden3/circuits', commit: HISTORICAL_COMMIT, file: historicalFile };
          entry.historicalExpOut = old.expOut;
        }
        entry.inputs = inputs;
      }
      cases.push(entry);
    }
  }
  const jsSdkFiles = onChain ? ['atomic-query-v3-mtp-on-chain.json', 'atomic-query-v3-sig-on-chain.json'] : ['atomic-query-v3-mtp.json', 'atomic-query-v3-sig.json'];
  for (const file of jsSdkFiles) cases.push({ name: `js-sdk-${path.basename(file, '.json')}`, desc: `js-sdk test inputs ${file}`, source: jsSdkSource(file), inputs: jsSdkData(file) });
  return cases;
}

/* ---------------------------------------------------------------- derived cases */

/**
 * Mutations of official cases at the edges of the circuits' rules (operators, value-array sizes,
 * flags, ranges), whose outcome is whatever the official circuit gives: they extend "fails where
 * the official circuit fails" beyond the official tests' few failing cases.
 */
function derivedCases(id, cases) {
  const byName = Object.fromEntries(cases.map((c) => [c.name, c]));
  const derive = (baseName, name, desc, change) => {
    const base = byName[baseName];
    const inputs = JSON.parse(JSON.stringify(base.inputs));
    change(inputs);
    return { name: `derived/${name}`, desc, source: { derivedFrom: base.name, change: desc }, inputs };
  };
  const setValues = (values, size = values.length) => (i) => {
    i.value = padStrings(values, i.value.length);
    i.valueArraySize = size;
  };
  if (id === 'authV2' || id === 'authV3') {
    return [
      derive('official-1', 'other-challenge', 'challenge not the signed one', (i) => (i.challenge = '12346')),
      derive('official-1', 'profile', 'profile nonce 7', (i) => (i.profileNonce = '7')),
      derive('official-1', 'other-gist-root', 'gistRoot not the proof\'s root', (i) => (i.gistRoot = '1')),
      derive('official-1', 'bad-checksum', 'genesisID with a wrong checksum byte', (i) => (i.genesisID = (BigInt(i.genesisID) ^ (1n << 240n)).toString())),
      derive('official-3', 'genesis-as-published', 'genesis state with a GIST inclusion proof of nothing', (i) => Object.assign(i, { gistMtpAuxHi: '0', gistMtpAuxHv: '0', gistMtpNoAux: '1' })),
    ];
  }
  const onChain = id === 'credentialAtomicQueryV3OnChain';
  const out = [
    derive('sig/claimNonMerklized', 'operator-12', 'operator 12 (unassigned query operator)', (i) => (i.operator = 12)),
    derive('sig/selective_disclosure', 'operator-17', 'operator 17 (unassigned modifier)', (i) => (i.operator = 17)),
    derive('sig/claimNonMerklized', 'operator-32', 'operator 32 (beyond 5 bits)', (i) => (i.operator = 32)),
    derive('mtp/claimNonMerklized', 'eq-size-2', '$eq with valueArraySize 2', setValues(['10', '0'])),
    derive('mtp/claimNonMerklized', 'eq-size-0', '$eq with valueArraySize 0', setValues([], 0)),
    derive('mtp/claimNonMerklized', 'noop-size-1', '$noop with valueArraySize 1', (i) => Object.assign(i, { operator: 0, valueArraySize: 1 })),
    derive('mtp/claimNonMerklized', 'in-size-64', '$in with 64 values', (i) => Object.assign(i, { operator: 4, value: Array.from({ length: 64 }, (_, k) => String(k === 63 ? 10 : 100 + k)), valueArraySize: 64 })),
    derive('mtp/claimNonMerklized', 'in-size-65', '$in with valueArraySize 65', (i) => Object.assign(i, { operator: 4, valueArraySize: 65 })),
    derive('mtp/claimNonMerklized', 'nin-size-minus-1', '$nin with valueArraySize p-1', (i) => Object.assign(i, { operator: 5, valueArraySize: '21888242871839275222246405745257275088548364400416034343698204186575808495616' })),
    derive('mtp/claimNonMerklized', 'nin-holds', '$nin [1, 2, 3]', (i) => Object.assign(i, { operator: 5 }, { value: padStrings(['1', '2', '3'], i.value.length), valueArraySize: 3 })),
    derive('mtp/claimNonMerklized', 'nin-fails', '$nin [9, 10]', (i) => Object.assign(i, { operator: 5 }, { value: padStrings(['9', '10'], i.value.length), valueArraySize: 2 })),
    derive('mtp/claimNonMerklized', 'ne-fails', '$ne 10', (i) => (i.operator = 6)),
    derive('mtp/claimNonMerklized', 'lt-fails', '$lt 10', (i) => (i.operator = 2)),
    derive('mtp/claimNonMerklized', 'gt-holds', '$gt 9', (i) => Object.assign(i, { operator: 3, value: padStrings(['9'], i.value.length) })),
    derive('mtp/claimNonMerklized', 'gte-holds', '$gte 10', (i) => (i.operator = 8)),
    derive('mtp/claimNonMerklized', 'gt-field-top', '$gt p-1 (values compare as integers below p)', (i) => Object.assign(i, { operator: 3, value: padStrings(['21888242871839275222246405745257275088548364400416034343698204186575808495616'], i.value.length) })),
    derive('mtp/claimNonMerklized', 'lt-field-top', '$lt p-1', (i) => Object.assign(i, { operator: 2, value: padStrings(['21888242871839275222246405745257275088548364400416034343698204186575808495616'], i.value.length) })),
    derive('mtp/claimNonMerklized', 'between-fails', '$between 11..20', (i) => Object.assign(i, { operator: 9, value: padStrings(['11', '20'], i.value.length), valueArraySize: 2 })),
    derive('mtp/claimNonMerklized', 'exists-non-merklized', '$exists on a non-merklized claim', (i) => Object.assign(i, { operator: 11, value: padStrings(['1'], i.value.length) })),
    derive('mtp/claimNonMerklized', 'slot-8', 'slotIndex 8', (i) => (i.slotIndex = 8)),
    derive('mtp/claimNonMerklized', 'slot-3', 'slotIndex 3 (an empty slot, $eq 10)', (i) => (i.slotIndex = 3)),
    derive('mtp/claimIssuedOnUserID', 'merklized-slot-8', 'merklized claim with slotIndex 8', (i) => (i.slotIndex = 8)),
    derive('mtp/claimIssuedOnUserID', 'merklized-noop-any-path', '$noop on a merklized claim with an unproven path value', (i) => Object.assign(i, { operator: 0, claimPathValue: '5', value: padStrings([], i.value.length), valueArraySize: 0 })),
    derive('mtp/claimIssuedOnUserID', 'merklized-sd', '$sd of the path value', (i) => Object.assign(i, { operator: 16, value: padStrings([], i.value.length), valueArraySize: 0 })),
    derive('mtp/claimIssuedOnUserID', 'exists-true', '$exists true of a present path', (i) => Object.assign(i, { operator: 11, value: padStrings(['1'], i.value.length), valueArraySize: 1 })),
    derive('mtp/claimIssuedOnUserID', 'exists-2', '$exists with value 2', (i) => Object.assign(i, { operator: 11, value: padStrings(['2'], i.value.length), valueArraySize: 1 })),
    derive('sig/jsonld_non_inclusion', 'exists-false', '$exists false of an absent path', (i) => Object.assign(i, { operator: 11, value: padStrings(['0'], i.value.length), valueArraySize: 1 })),
    derive('mtp/claimNonMerklized', 'proof-type-3', 'proofType 3', (i) => (i.proofType = '3')),
    derive('mtp/claimNonMerklized', 'proof-type-1-with-mtp', 'proofType 1 with the inputs of a claims-tree proof', (i) => (i.proofType = '1')),
    derive('mtp/claimNonMerklized', 'revocation-check-2', 'isRevocationChecked 2', (i) => (i.isRevocationChecked = 2)),
    derive('mtp/claimNonMerklized', 'expired', 'timestamp after the expiration', (i) => (i.timestamp = '1669884011')),
    derive('mtp/claimNonMerklized', 'at-expiry', 'timestamp equal to the expiration', (i) => (i.timestamp = '1669884010')),
    derive('mtp/claimNonMerklized', 'timestamp-65-bits', 'timestamp of 65 bits', (i) => (i.timestamp = (1n << 64n).toString())),
    derive('mtp/claimNonMerklized', 'wrong-schema', 'claimSchema not the claim\'s', (i) => (i.claimSchema = '1')),
    derive('mtp/claimNonMerklized', 'wrong-subject-nonce', 'claimSubjectProfileNonce not the subject\'s', (i) => (i.claimSubjectProfileNonce = '5')),
    derive('mtp/claimNonMerklized', 'other-issuer-state', 'issuerClaimIdenState not the roots\' state', (i) => (i.issuerClaimIdenState = '1')),
    derive('mtp/claimNonMerklized', 'nonrev-state-unchecked', 'non-revocation state wrong, revocation not checked (MTP)', (i) => Object.assign(i, { isRevocationChecked: 0, issuerClaimNonRevState: '1' })),
    derive('sig/claimNonMerklized', 'sig-nonrev-state-unchecked', 'non-revocation state wrong, revocation not checked (signature)', (i) => Object.assign(i, { isRevocationChecked: 0, issuerClaimNonRevState: '1' })),
    derive('sig/claimNonMerklized', 'bad-signature', 'issuer signature S changed', (i) => (i.issuerClaimSignatureS = (BigInt(i.issuerClaimSignatureS) + 1n).toString())),
    derive('sig/claimNonMerklized', 's-253-bits', 'issuer signature S of 254 bits', (i) => (i.issuerClaimSignatureS = (1n << 253n).toString())),
    derive('mtp/claimNonMerklized', 'mtp-s-253-bits', 'unused signature S of 254 bits (MTP)', (i) => (i.issuerClaimSignatureS = (1n << 253n).toString())),
    derive('mtp/nullify', 'nullify-no-verifier', 'nullifier session with verifierID 0', (i) => (i.verifierID = '0')),
    derive('mtp/claimWithLinkNonce', 'link-nonce-p-1', 'linkNonce p-1', (i) => (i.linkNonce = '21888242871839275222246405745257275088548364400416034343698204186575808495616')),
    derive('mtp/claimNonMerklized', 'genesis-id-249-bits', 'userGenesisID of 249 bits', (i) => (i.userGenesisID = (BigInt(i.userGenesisID) + (1n << 248n)).toString())),
  ];
  if (onChain) {
    out.push(
      derive('mtp/claimNonMerklized', 'bjj-auth-2', 'isBJJAuthEnabled 2', (i) => (i.isBJJAuthEnabled = 2)),
      derive('mtp/onchainIdentity', 'no-auth-profile', 'isBJJAuthEnabled 0 with profile nonce 3', (i) => (i.profileNonce = '3')),
      derive('mtp/claimNonMerklized', 'auth-other-challenge', 'challenge not the signed one', (i) => (i.challenge = '12346')),
      derive('mtp/claimNonMerklized', 'auth-disabled-bjj-identity', 'isBJJAuthEnabled 0 for a BJJ identity (ownership unchecked)', (i) => (i.isBJJAuthEnabled = 0)),
      derive('mtp/onchainIdentity', 'no-auth-any-challenge', 'isBJJAuthEnabled 0 with another challenge', (i) => (i.challenge = '1')),
      derive('mtp/claimNonMerklized', 'auth-other-gist-root', 'gistRoot not the proof\'s root', (i) => (i.gistRoot = '1')),
    );
  }
  return out;
}

/* ---------------------------------------------------------------- main */

const which = process.argv.includes('--only') ? arg('only').split(',') : Object.keys(OFFICIAL);
for (const id of which) {
  let cases;
  if (id === 'authV2') cases = authCases(REF.authV2, 'test/auth/authV2.test.ts', ['auth-v2-inputs.json']);
  else if (id === 'authV3') cases = authCases(REF.circuits, 'test/auth/authV3.test.ts', ['auth-v3-inputs.json', 'auth-v3-8-32-inputs.json']);
  else if (id === 'credentialAtomicQueryV3') cases = await queryCases(false);
  else cases = await queryCases(true);
  cases.push(...derivedCases(id, cases));

  const official = await runOfficial(id, cases);
  for (const c of cases) {
    if (c.officialExpectedError && !(c.expected.fails && c.expected.officialError.includes(c.officialExpectedError))) {
      throw new Error(`${id} ${c.name}: the official test expects "${c.officialExpectedError}", the official circuit gave ${JSON.stringify(c.expected)}`);
    }
    if (c.officialExpOut && !c.expected.fails) {
      const got = Object.fromEntries(c.expected.publicSignals);
      for (const [k, v] of Object.entries(c.officialExpOut)) if (got[k] !== String(v)) throw new Error(`${id} ${c.name}: official test expects ${k}=${v}, circuit gave ${got[k]}`);
    }
    delete c.officialExpectedError;
    // The committed 2024 outputs still hold where the circuits did not change them: everything
    // but the on-chain query hash (valueArraySize joined it in dcf3429).
    if (c.historicalExpOut && !c.expected.fails) {
      const got = Object.fromEntries(c.expected.publicSignals);
      for (const [k, v] of Object.entries(c.historicalExpOut)) {
        if (k in got && k !== 'circuitQueryHash' && got[k] !== String(v)) throw new Error(`${id} ${c.name}: committed vector has ${k}=${v}, circuit gave ${got[k]}`);
      }
    }
  }
  const spec = OFFICIAL[id];
  const file = {
    circuit: id,
    official: {
      repository: 'github.com/iden3/circuits',
      commit: spec.commit,
      main: `circuits/${spec.main}`,
      sizes: spec.sizes,
      compiler: `circom2@${require('circom2/package.json').version} --O2, circomlib@${require('circomlib/package.json').version}`,
      constraints: official.constraints,
      publicSignals: official.names,
      outputs: official.nOutputs,
    },
    generatedBy: 'test/circom/vectors/generate.mjs',
    cases,
  };
  writeFileSync(path.join(HERE, `${id}.json`), `${JSON.stringify(file, null, 1)}\n`);
  process.stdout.write(`${id}: ${cases.length} cases, official ${official.constraints} constraints\n`);
}
void ROOT;
// snarkjs leaves its curve's worker threads running.
process.exit(0);
