/**
 * The heavy iden3 libraries, loaded on first use with dynamic imports so that `vc --help` and
 * commands that never touch iden3 stay fast. The js-sdk and the iden3 libraries it depends on
 * must be the same module instances (the DID network registry of js-iden3-core is module state),
 * which the ESM builds loaded here guarantee.
 */
import { merklizeOnce } from './merklizeOnce.js';
import { acceleratePoseidon } from './poseidon.js';

export type Sdk = typeof import('@0xpolygonid/js-sdk');
export type Core = typeof import('@iden3/js-iden3-core');
export type MerkleTreeLib = typeof import('@iden3/js-merkletree');

export interface Iden3Modules {
  sdk: Sdk;
  core: Core;
  mt: MerkleTreeLib;
}

/**
 * Loads the js-sdk, js-iden3-core and js-merkletree (Node caches the modules after the first call),
 * with their Poseidon faster and remembering (./poseidon.ts) and each credential merklized once
 * (./merklizeOnce.ts).
 */
export async function loadIden3Modules(): Promise<Iden3Modules> {
  const [sdk, core, mt, crypto, merklization] = await Promise.all([
    import('@0xpolygonid/js-sdk'),
    import('@iden3/js-iden3-core'),
    import('@iden3/js-merkletree'),
    import('@iden3/js-crypto'),
    import('@iden3/js-jsonld-merklization'),
  ]);
  acceleratePoseidon(crypto);
  merklizeOnce(merklization);
  return { sdk, core, mt };
}
