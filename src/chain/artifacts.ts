/**
 * Compiled contracts: the artifacts shipped in @iden3/contracts and @openzeppelin/contracts
 * (abi, bytecode, library link references) and the Poseidon hash libraries, whose bytecode is
 * generated with circomlibjs exactly as iden3 does (the Solidity sources only declare stubs).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { InputError } from '../errors.js';

type LinkReferences = Record<string, Record<string, Array<{ start: number; length: number }>>>;

export interface Artifact {
  contractName: string;
  abi: unknown[];
  /** Creation bytecode, 0x-prefixed, possibly with unlinked library placeholders. */
  bytecode: string;
  linkReferences: LinkReferences;
}

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return path.dirname(require.resolve(`${name}/package.json`));
}

function readArtifact(file: string): Artifact {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<Artifact>;
  if (raw.abi === undefined || typeof raw.bytecode !== 'string') throw new Error(`${file} is not a compiled contract artifact`);
  return { contractName: raw.contractName ?? path.basename(file, '.json'), abi: raw.abi, bytecode: raw.bytecode, linkReferences: raw.linkReferences ?? {} };
}

/** A compiled iden3 contract from @iden3/contracts/build/contracts. */
export function iden3Artifact(name: string): Artifact {
  return readArtifact(path.join(packageDir('@iden3/contracts'), 'build', 'contracts', `${name}.json`));
}

/** A compiled OpenZeppelin contract from @openzeppelin/contracts/build/contracts. */
export function openZeppelinArtifact(name: string): Artifact {
  return readArtifact(path.join(packageDir('@openzeppelin/contracts'), 'build', 'contracts', `${name}.json`));
}

/** The installed version of @iden3/contracts (recorded in the address book). */
export function iden3ContractsVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageDir('@iden3/contracts'), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Replaces the library placeholders of a creation bytecode with deployed library addresses. */
export function linkBytecode(artifact: Artifact, libraries: Record<string, string>): string {
  let hex = artifact.bytecode.startsWith('0x') ? artifact.bytecode.slice(2) : artifact.bytecode;
  for (const libs of Object.values(artifact.linkReferences)) {
    for (const [library, places] of Object.entries(libs)) {
      const address = libraries[library];
      if (address === undefined) throw new Error(`${artifact.contractName} needs library ${library}, which is not deployed`);
      const bare = address.toLowerCase().replace(/^0x/, '');
      for (const { start, length } of places) {
        if (length !== 20) throw new Error(`${artifact.contractName}: unexpected link reference length ${length}`);
        hex = hex.slice(0, start * 2) + bare + hex.slice((start + length) * 2);
      }
    }
  }
  if (hex.includes('__$')) throw new Error(`${artifact.contractName} still has unlinked libraries`);
  return `0x${hex}`;
}

/** The library names an artifact must be linked with. */
export function requiredLibraries(artifact: Artifact): string[] {
  return Object.values(artifact.linkReferences).flatMap((libs) => Object.keys(libs));
}

/** Creation bytecode and ABI of the Poseidon library for `inputs` inputs (PoseidonUnit<inputs>L). */
export async function poseidonLibrary(inputs: number): Promise<{ bytecode: string; abi: unknown[] }> {
  // circomlibjs ships no type declarations; the two functions used are typed here.
  const specifier: string = 'circomlibjs';
  const { poseidonContract } = (await import(specifier)) as {
    poseidonContract: { createCode(inputs: number): string; generateABI(inputs: number): unknown[] };
  };
  return { bytecode: poseidonContract.createCode(inputs), abi: poseidonContract.generateABI(inputs) };
}

/** A stable hash of a bytecode, to tell which verifier is deployed. */
export function bytecodeHash(bytecode: string): string {
  return createHash('sha256').update(bytecode.toLowerCase().replace(/^0x/, ''), 'hex').digest('hex');
}

/** Checks user-provided (dev) contract bytecode: 0x hex, non-empty, fully linked. */
export function checkBytecode(bytecode: unknown, what: string): string {
  if (typeof bytecode !== 'string' || !/^(0x)?[0-9a-fA-F]+$/.test(bytecode) || bytecode.replace(/^0x/, '').length % 2 !== 0) {
    throw new InputError(`${what}: bytecode must be a non-empty hex string of whole bytes (unlinked libraries are not supported)`, { field: what });
  }
  return bytecode.startsWith('0x') ? bytecode : `0x${bytecode}`;
}
