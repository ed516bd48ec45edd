/**
 * Solidity verifiers for built circuits: snarkjs's Groth16 verifier template rendered for the
 * verification key, plus a wrapper exposing the dynamic-array `verify` the iden3 validators call
 * (IGroth16Verifier), compiled with the npm `solc` package into { abi, bytecode }.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** What the chain code deploys: the compiled verifier contract. */
export interface VerifierArtifact {
  contractName: string;
  abi: unknown[];
  /** Creation bytecode, 0x-prefixed. */
  bytecode: string;
  solcVersion: string;
  /** Number of public signals verifyProof takes. */
  publicSignals: number;
  /** Signatures of the verification entry points the contract exposes. */
  functions: string[];
  /** True when the proving key came from our development setup (unsafe outside local chains). */
  development: boolean;
}

/** Directory of the installed snarkjs package. */
export function snarkjsPackageDir(): string {
  // snarkjs's "exports" hides package.json; its CommonJS entry is build/main.cjs.
  return path.dirname(path.dirname(require.resolve('snarkjs')));
}

/** "credentialAtomicQueryMTPV2OnChain" -> "CredentialAtomicQueryMTPV2OnChain". */
function pascalCase(id: string): string {
  return id.replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase()).replace(/^./, (c) => c.toUpperCase());
}

/** Renders the verifier source for a zkey: the snarkjs contract renamed, and the wrapper. */
export async function renderVerifierSource(circuitId: string, zkeyPath: string, publicSignals: number): Promise<{ source: string; contractName: string }> {
  const moduleName: string = 'snarkjs';
  const snarkjs = (await import(moduleName)) as {
    zKey: { exportSolidityVerifier(zkey: string, templates: Record<string, string>): Promise<string> };
  };
  const generated = await snarkjs.zKey.exportSolidityVerifier(zkeyPath, { groth16: await verifierTemplate() });
  return wrapVerifierSource(circuitId, generated, publicSignals);
}

/** snarkjs's Groth16 verifier template (EJS), which exportSolidityVerifier renders with the verification key. */
export function verifierTemplate(): Promise<string> {
  return readFile(path.join(snarkjsPackageDir(), 'templates', 'verifier_groth16.sol.ejs'), 'utf8');
}

/** The verifier source from snarkjs's rendered template: its contract renamed, and the wrapper. */
export function wrapVerifierSource(circuitId: string, generated: string, publicSignals: number): { source: string; contractName: string } {
  const base = `${pascalCase(circuitId)}Groth16`;
  const contractName = `${pascalCase(circuitId)}Verifier`;
  if (!generated.includes('contract Groth16Verifier {')) throw new Error('unexpected snarkjs verifier template');
  const renamed = generated.replace('contract Groth16Verifier {', `contract ${base} {`);
  const wrapper = `
/// Adds the entry point of the iden3 validators (IGroth16Verifier.verify, dynamic signal array)
/// to the snarkjs verifier, whose verifyProof (fixed array) the State contract calls.
contract ${contractName} is ${base} {
    uint256 public constant PUBSIGNALS_LENGTH = ${publicSignals};

    error ExpectedArrayLength(uint256 expected, uint256 actual);

    function verify(
        uint256[2] calldata a,
        uint256[2][2] calldata b,
        uint256[2] calldata c,
        uint256[] calldata signals
    ) external view returns (bool r) {
        if (signals.length != PUBSIGNALS_LENGTH) {
            revert ExpectedArrayLength(PUBSIGNALS_LENGTH, signals.length);
        }
        uint256[PUBSIGNALS_LENGTH] memory fixedSignals;
        for (uint256 i = 0; i < PUBSIGNALS_LENGTH; i++) {
            fixedSignals[i] = signals[i];
        }
        // verifyProof takes calldata arrays, hence the external self-call.
        return this.verifyProof(a, b, c, fixedSignals);
    }
}
`;
  return { source: `${renamed.trimEnd()}\n${wrapper}`, contractName };
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

/**
 * Compiles a verifier source with solc (optimizer on): the named contract's ABI, creation bytecode
 * and runtime bytecode (what the chain holds once it is deployed), both 0x-prefixed.
 */
export function compileVerifierCode(source: string, contractName: string): { abi: unknown[]; bytecode: string; deployedBytecode: string; solcVersion: string } {
  const solc = require('solc') as { compile(input: string): string; version(): string };
  const input = {
    language: 'Solidity',
    sources: { 'verifier.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed on the ${contractName} verifier: ${errors[0]!.formattedMessage}`);
  const contract = output.contracts?.['verifier.sol']?.[contractName];
  if (!contract || contract.evm.bytecode.object.length === 0) throw new Error(`solc produced no bytecode for ${contractName}`);
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, deployedBytecode: `0x${contract.evm.deployedBytecode.object}`, solcVersion: solc.version() };
}

/** Compiles a verifier source with solc (optimizer on) and returns the named contract. */
export function compileVerifier(source: string, contractName: string, publicSignals: number, development: boolean): VerifierArtifact {
  const { abi, bytecode, solcVersion } = compileVerifierCode(source, contractName);
  return {
    contractName,
    abi,
    bytecode,
    solcVersion,
    publicSignals,
    functions: [
      `verifyProof(uint256[2],uint256[2][2],uint256[2],uint256[${publicSignals}])`,
      'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    ],
    development,
  };
}
