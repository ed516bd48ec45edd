/**
 * The heavy iden3 libraries, loaded on first use with dynamic imports so that `vc --help` and
 * commands that never touch iden3 stay fast. The js-sdk and the iden3 libraries it depends on
 * must be the same module instances (the DID network registry of js-iden3-core is module state),
 * which the ESM builds loaded here guarantee.
 */

export type Sdk = typeof import('@0xpolygonid/js-sdk');
export type Core = typeof import('@iden3/js-iden3-core');
export type MerkleTreeLib = typeof import('@iden3/js-merkletree');

export interface Iden3Modules {
  sdk: Sdk;
  core: Core;
  mt: MerkleTreeLib;
}

/** Loads the js-sdk, js-iden3-core and js-merkletree (Node caches the modules after the first call). */
export async function loadIden3Modules(): Promise<Iden3Modules> {
  const [sdk, core, mt] = await Promise.all([import('@0xpolygonid/js-sdk'), import('@iden3/js-iden3-core'), import('@iden3/js-merkletree')]);
  return { sdk, core, mt };
}
