/**
 * EIP-1967's storage slots of a proxy (OpenZeppelin 5's TransparentUpgradeableProxy): the
 * implementation it delegates to, and its admin (the ProxyAdmin its constructor created).
 */
import { NetworkError, describeError } from '../errors.js';

export const EIP1967_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';
export const EIP1967_ADMIN_SLOT = '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103';

/** The address an EIP-1967 slot of `proxy` holds (the zero address when unset, as for a contract that is no proxy). */
export async function readProxySlot(provider: { getStorage(address: string, slot: string): Promise<string> }, proxy: string, slot: string, where: string): Promise<string> {
  let word: string;
  try {
    word = await provider.getStorage(proxy, slot);
  } catch (error) {
    throw new NetworkError(`cannot read the storage of ${proxy} on ${where}: ${describeError(error)}`, { cause: error });
  }
  return `0x${word.replace(/^0x/, '').padStart(64, '0').slice(-40)}`;
}

/** The contract whose code runs at `address`: its EIP-1967 implementation when it is such a proxy, else itself. */
export async function codeAddressOf(provider: { getStorage(address: string, slot: string): Promise<string> }, address: string, where: string): Promise<string> {
  const implementation = await readProxySlot(provider, address, EIP1967_IMPLEMENTATION_SLOT, where);
  return /^0x0{40}$/.test(implementation) ? address : implementation;
}
