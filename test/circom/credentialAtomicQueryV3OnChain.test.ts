/**
 * Witness tests of circuits/credentialAtomicQueryV3OnChain.circom and its 16-16-64-16-32 variant
 * against the official vectors (test/circom/vectors/credentialAtomicQueryV3OnChain.json): every
 * case of the official on-chain V3 test gives the official circuit's public signals, or fails where
 * it fails; so do the js-sdk's marshalled inputs. The query hash is also the one the js-sdk's
 * verifier computes from the request (calculateQueryHashV3), and the js-sdk reads the public
 * signals back as the inputs say.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AtomicQueryV3OnChainPubSignals, byteEncoder, calculateQueryHashV3 } from '@0xpolygonid/js-sdk';
import { SchemaHash } from '@iden3/js-iden3-core';
import { buildCircuit, type BuiltCircuit } from './support/compileV3.js';
import { checkCase, loadVectors, resizeInputs, type Sizes, type VectorCase } from './support/vectors.js';

const file = loadVectors('credentialAtomicQueryV3OnChain');
const variants: { circuit: string; sizes: Sizes }[] = [
  { circuit: 'credentialAtomicQueryV3OnChain', sizes: file.official.sizes },
  { circuit: 'credentialAtomicQueryV3OnChain-16-16-64-16-32', sizes: { issuerLevels: 16, claimLevels: 16, valueArraySize: 64, idOwnershipLevels: 16, onChainLevels: 32 } },
];

const PUBLIC_SIGNALS = ['userID', 'circuitQueryHash', 'issuerState', 'linkID', 'nullifier', 'operatorOutput', 'proofType', 'requestID', 'challenge', 'gistRoot', 'issuerID', 'issuerClaimNonRevState', 'timestamp', 'isBJJAuthEnabled'];

/** The request-side hash of the case's query, as the js-sdk verifier computes it. */
function requestQueryHash(c: VectorCase, merklized: string): bigint {
  const inputs = c.inputs as Record<string, string | number | string[]>;
  const scalar = (key: string): string => String(inputs[key]);
  const size = Number(scalar('valueArraySize'));
  return calculateQueryHashV3(
    (inputs.value as string[]).slice(0, size).map(BigInt),
    SchemaHash.newSchemaHashFromInt(BigInt(scalar('claimSchema'))),
    scalar('slotIndex'),
    scalar('operator'),
    scalar('claimPathKey'),
    size,
    merklized,
    scalar('isRevocationChecked'),
    scalar('verifierID'),
    scalar('nullifierSessionID'),
  );
}

for (const variant of variants) {
  describe(`${variant.circuit} against the official vectors (iden3/circuits ${file.official.commit.slice(0, 7)})`, () => {
    let circuit: BuiltCircuit;

    beforeAll(async () => {
      circuit = await buildCircuit(variant.circuit);
    });

    it('has the public signals of the official circuit, in its order', () => {
      expect(circuit.publicSignalNames).toEqual(PUBLIC_SIGNALS);
      expect(circuit.publicSignalNames).toEqual(file.official.publicSignals);
    });

    for (const c of file.cases) {
      const fits = resizeInputs(c.inputs, variant.sizes) !== undefined;
      it.runIf(fits)(`${c.name}: ${c.desc}${'fails' in c.expected ? ' (fails)' : ''}`, async () => {
        await checkCase(circuit, file, c, variant.sizes);
      });
    }
  });
}

describe('credentialAtomicQueryV3OnChain public signals as the js-sdk reads them', () => {
  // Requests come from the js-sdk: the official and js-sdk cases (the derived ones include sizes no
  // request has, such as p - 1).
  for (const c of file.cases) {
    if ('fails' in c.expected || c.name.startsWith('derived/')) continue;
    const signals = c.expected.publicSignals;
    it(`${c.name}: the query hash is the request's, the unmarshalled signals are the inputs'`, () => {
      const values = signals.map(([, value]) => value);
      const parsed = new AtomicQueryV3OnChainPubSignals().pubSignalsUnmarshal(byteEncoder.encode(JSON.stringify(values)));
      const inputs = c.inputs as Record<string, string>;
      expect(parsed.requestID).toBe(BigInt(inputs.requestID as string));
      expect(parsed.challenge).toBe(BigInt(inputs.challenge as string));
      expect(parsed.issuerID.bigInt()).toBe(BigInt(inputs.issuerID as string));
      expect(parsed.timestamp).toBe(Number(inputs.timestamp));
      expect(parsed.proofType).toBe(Number(inputs.proofType));
      expect(parsed.isBJJAuthEnabled).toBe(Number(inputs.isBJJAuthEnabled));
      // merklized is not public on chain: it is 1 exactly for cases with a claim path
      const merklized = BigInt(inputs.claimPathKey as string) === 0n ? '0' : '1';
      expect(parsed.circuitQueryHash).toBe(requestQueryHash(c, merklized));
    });
  }
});
