/**
 * Witness tests of circuits/credentialAtomicQueryV3.circom and its 16-16-64 variant against the
 * official vectors (test/circom/vectors/credentialAtomicQueryV3.json): every case of the official
 * off-chain V3 test gives the official circuit's public signals, or fails where it fails; so do the
 * js-sdk's marshalled inputs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCircuit, type BuiltCircuit } from './support/compileV3.js';
import { checkCase, loadVectors, resizeInputs, type Sizes } from './support/vectors.js';

const file = loadVectors('credentialAtomicQueryV3');
const variants: { circuit: string; sizes: Sizes }[] = [
  { circuit: 'credentialAtomicQueryV3', sizes: file.official.sizes },
  { circuit: 'credentialAtomicQueryV3-16-16-64', sizes: { issuerLevels: 16, claimLevels: 16, valueArraySize: 64 } },
];

for (const variant of variants) {
  describe(`${variant.circuit} against the official vectors (iden3/circuits ${file.official.commit.slice(0, 7)})`, () => {
    let circuit: BuiltCircuit;

    beforeAll(async () => {
      circuit = await buildCircuit(variant.circuit);
    });

    it('has the public signals of the official circuit, in its order', () => {
      expect(circuit.publicSignalNames.slice(0, 16)).toEqual(['merklized', 'userID', 'issuerState', 'linkID', 'nullifier', 'operatorOutput', 'proofType', 'requestID', 'issuerID', 'isRevocationChecked', 'issuerClaimNonRevState', 'timestamp', 'claimSchema', 'claimPathKey', 'slotIndex', 'operator']);
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
