/**
 * The iden3 DID type (2 bytes: DID method byte + network flag) of our identities, which the State
 * contract must know as its default id type. Networks unknown to @iden3/js-iden3-core (such as
 * polygon:local for the embedded chain 152) are registered here, with a network flag chosen
 * deterministically, so every module (the chain deployer, the js-sdk wiring) agrees on it.
 */
import type { Config } from '../config/parse.js';

/** The DID method of every identity `vc` creates. */
export const DID_METHOD = 'polygonid';

/** Low nibble of the network flag reserved for a blockchain's `local` network. */
const LOCAL_NETWORK_NIBBLE = 0x0f;
/** High nibble used for blockchains the library does not know (it uses 0x10..0xb0 so far). */
const CUSTOM_BLOCKCHAIN_NIBBLE = 0xe0;

export interface DidNetworkRegistration {
  method: string;
  blockchain: string;
  network: string;
  /** The byte js-iden3-core puts after the method byte in the id type. */
  networkFlag: number;
  chainId: number;
  /** True when this call (or an earlier one in this process) had to register the network. */
  custom: boolean;
}

export interface DidType {
  /** The two id type bytes. */
  bytes: Uint8Array;
  /** The same as a 0x-prefixed bytes2 for the State contract (e.g. 0x021f). */
  hex: string;
  registration: DidNetworkRegistration;
}

type Core = typeof import('@iden3/js-iden3-core');

function chooseNetworkFlag(core: Core, blockchain: string, network: string): number {
  const methodNetworks = core.DidMethodNetwork[DID_METHOD] ?? {};
  const used = new Set(Object.values(methodNetworks));
  const sameBlockchain = Object.entries(methodNetworks).find(([key]) => key.split(':')[0] === blockchain);
  const high = sameBlockchain !== undefined ? sameBlockchain[1] & 0xf0 : CUSTOM_BLOCKCHAIN_NIBBLE;
  const preferred = network === 'local' ? [LOCAL_NETWORK_NIBBLE] : [];
  // Other custom networks take the highest free low nibble, leaving low values to the library.
  const candidates = [...preferred, ...Array.from({ length: 14 }, (_, i) => 0x0e - i)];
  for (const low of candidates) {
    if (!used.has(high | low)) return high | low;
  }
  throw new Error(`no free DID network flag left for blockchain ${blockchain}`);
}

/**
 * Makes sure js-iden3-core knows the DID method/network of this configuration (registering it
 * with a network flag and the chain id when needed) and returns the registration. Idempotent.
 */
export async function registerDidNetwork(config: Config): Promise<DidNetworkRegistration> {
  const core = await import('@iden3/js-iden3-core');
  const { didBlockchain: blockchain, didNetwork: network, chainId } = config.chain;
  const key = `${blockchain}:${network}`;
  const methodNetworks = core.DidMethodNetwork[DID_METHOD] ?? {};
  const existing = methodNetworks[key];
  const custom = existing === undefined;
  const networkFlag = existing ?? chooseNetworkFlag(core, blockchain, network);
  const chainIdTaken = Object.entries(core.ChainIds).some(([k, id]) => id === chainId && k !== key);
  const chainIdKnown = core.ChainIds[key] !== undefined;
  core.registerDidMethodNetwork({
    method: DID_METHOD,
    blockchain,
    network,
    networkFlag,
    // A chain id already bound to another network (e.g. CHAIN_ID=80002 with a custom name) is left alone.
    ...(chainIdKnown || chainIdTaken ? {} : { chainId }),
  });
  return { method: DID_METHOD, blockchain, network, networkFlag, chainId: core.ChainIds[key] ?? chainId, custom };
}

/** The id type of identities on the configured DID network (registering the network if needed). */
export async function didTypeFor(config: Config): Promise<DidType> {
  const registration = await registerDidNetwork(config);
  const core = await import('@iden3/js-iden3-core');
  const bytes = core.buildDIDType(DID_METHOD, registration.blockchain, registration.network);
  const hex = `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  return { bytes, hex, registration };
}
