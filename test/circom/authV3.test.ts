/**
 * Witness tests of circuits/authV3.circom, circuits/authV2.circom (the same circuit under the id
 * AuthV2Validator uses) and circuits/authV3-8-32.circom against the official vectors
 * (test/circom/vectors/authV3.json, authV2.json): every case of the official tests and of the
 * js-sdk's input tests gives the official circuit's public signals.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCircuit, type BuiltCircuit } from './support/compileV3.js';
import { checkCase, loadVectors, resizeInputs, type Sizes, type VectorFile } from './support/vectors.js';

const variants: { circuit: string; vectors: string; sizes?: Sizes }[] = [
  { circuit: 'authV3', vectors: 'authV3' },
  { circuit: 'authV2', vectors: 'authV2' },
  { circuit: 'authV3-8-32', vectors: 'authV3', sizes: { idOwnershipLevels: 8, onChainLevels: 32 } },
];

for (const variant of variants) {
  const file: VectorFile = loadVectors(variant.vectors);
  const sizes = variant.sizes ?? file.official.sizes;

  describe(`${variant.circuit} against the official ${variant.vectors} vectors (iden3/circuits ${file.official.commit.slice(0, 7)})`, () => {
    let circuit: BuiltCircuit;

    beforeAll(async () => {
      circuit = await buildCircuit(variant.circuit);
    });

    it('has the public signals of the official circuit, in its order', () => {
      expect(circuit.publicSignalNames).toEqual(['userID', 'challenge', 'gistRoot']);
      expect(circuit.publicSignalNames).toEqual(file.official.publicSignals);
    });

    for (const c of file.cases) {
      const fits = resizeInputs(c.inputs, sizes) !== undefined;
      it.runIf(fits)(`${c.name}: ${c.desc}`, async () => {
        await checkCase(circuit, file, c, sizes);
      });
    }
  });
}
