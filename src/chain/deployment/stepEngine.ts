/**
 * The step engine of the deployment: runs a recipe (./recipe.ts) step by step on a connection.
 *
 * Every contract is a step whose fingerprint is a hash of its exact creation data (bytecode with
 * linked library addresses and constructor arguments). A step is skipped when the recorded
 * contract has that fingerprint (the caller dropped the ones without code on chain); otherwise it
 * is (re)deployed, and since dependants embed its address, they are redeployed too. Progress is
 * recorded in the address book after every step, so an interrupted deployment resumes where it
 * stopped. Configuration steps read the contract first and send their transaction only when
 * needed.
 */
import type { InterfaceAbi } from 'ethers';
import type { Context } from '../../context.js';
import { NetworkError, describeError } from '../../errors.js';
import { saveAddressBook, type AddressBook, type ContractKey } from '../addressBook.js';
import { type Artifact, bytecodeHash, iden3Artifact, linkBytecode, openZeppelinArtifact, poseidonLibrary, requiredLibraries } from '../artifacts.js';
import type { ChainConnection } from '../connection.js';
import { EIP1967_ADMIN_SLOT, EIP1967_IMPLEMENTATION_SLOT, readProxySlot } from '../proxySlots.js';
import { readContract, sendContractTransaction, sendTransaction } from '../transactions.js';
import type { CreationCode, DeploymentStep, RecipeInputs, Text } from './recipe.js';

/** Library names of the linked artifacts, and the step that provides each. */
const LIBRARY_KEYS: Record<string, ContractKey> = {
  PoseidonUnit1L: 'poseidon1',
  PoseidonUnit2L: 'poseidon2',
  PoseidonUnit3L: 'poseidon3',
  PoseidonUnit4L: 'poseidon4',
  PoseidonUnit5L: 'poseidon5',
  PoseidonUnit6L: 'poseidon6',
  SpongePoseidon: 'spongePoseidon',
  SmtLib: 'smtLib',
  StateLib: 'stateLib',
  VerifierLib: 'verifierLib',
};

interface StepPlan {
  key: ContractKey;
  label: string;
  /** Creation data: linked bytecode + encoded constructor arguments. */
  data: string;
  /** What identifies this contract; defaults to a hash of `data`. */
  fingerprint: string;
}

export class Deployment {
  readonly deployed: ContractKey[] = [];
  readonly configured: string[] = [];
  private done = 0;
  private readonly totalSteps: number;

  constructor(
    private readonly ctx: Context,
    private readonly connection: ChainConnection,
    private readonly ethers: typeof import('ethers'),
    readonly book: AddressBook,
    private readonly inputs: Omit<RecipeInputs, 'address'>,
    private readonly steps: readonly DeploymentStep[],
    /** What is being done now, and the fraction of the steps done. */
    private readonly onProgress: (text: string, fraction: number) => void,
  ) {
    this.totalSteps = steps.filter((step) => step.kind === 'contract' || step.kind === 'proxy').length;
  }

  /** Runs every step of the recipe in order. */
  async runAll(): Promise<void> {
    const inputs: RecipeInputs = { ...this.inputs, address: (key) => this.address(key) };
    let configuring = false;
    for (const step of this.steps) {
      if (step.kind === 'configure') {
        if (!configuring) this.onProgress('configuring the contracts', 0.97);
        configuring = true;
        const artifact = iden3Artifact(step.artifact);
        const address = this.address(step.contract);
        const current = await this.read(address, artifact, step.unless.method, step.unless.args?.(inputs) ?? []);
        if (!step.unless.holds(current, inputs)) await this.configure(text(step.label, inputs), address, artifact, step.call.method, step.call.args(inputs));
      } else if (step.kind === 'upgrade') {
        await this.upgrade(text(step.label, inputs), this.address(step.proxy), this.address(step.implementation));
      } else if (step.kind === 'contract') {
        await this.run(this.plan(step.key, text(step.label, inputs), await this.creationCode(step.code, inputs)));
      } else {
        const initData = step.initializer === undefined ? '0x' : this.encode(iden3Artifact(step.initializer.artifact), 'initialize', step.initializer.args(inputs));
        await this.run(this.proxy(step.key, step.label, this.address(step.implementation), initData, step.identity?.(inputs)));
      }
    }
  }

  /** The recorded address of a contract deployed by an earlier step. */
  address(key: ContractKey): string {
    const entry = this.book.contracts[key];
    if (entry === undefined) throw new Error(`internal: ${key} used before it was deployed`);
    return entry.address;
  }

  private async creationCode(code: CreationCode, inputs: RecipeInputs): Promise<string> {
    if ('poseidon' in code) return (await poseidonLibrary(code.poseidon)).bytecode;
    if ('linked' in code) return this.link(iden3Artifact(code.linked));
    if ('verifier' in code) return inputs.verifiers[code.verifier].artifact.bytecode;
    return iden3Artifact(code.artifact).bytecode;
  }

  private link(artifact: Artifact): string {
    const libraries: Record<string, string> = {};
    for (const library of requiredLibraries(artifact)) {
      const key = LIBRARY_KEYS[library];
      if (key === undefined) throw new Error(`internal: no deployment step provides library ${library}`);
      libraries[library] = this.address(key);
    }
    return linkBytecode(artifact, libraries);
  }

  private plan(key: ContractKey, label: string, bytecode: string, constructorTypes: string[] = [], constructorArgs: unknown[] = [], fingerprintParts?: unknown[]): StepPlan {
    const args = constructorTypes.length === 0 ? '' : this.ethers.AbiCoder.defaultAbiCoder().encode(constructorTypes, constructorArgs).slice(2);
    const data = `${bytecode}${args}`;
    const fingerprint = fingerprintParts === undefined ? bytecodeHash(data) : bytecodeHash(this.ethers.id(JSON.stringify(fingerprintParts)));
    return { key, label, data, fingerprint };
  }

  /** Deploys a planned contract unless an identical one is recorded (the caller checked its code). */
  private async run(step: StepPlan): Promise<string> {
    this.onProgress(`deploying ${step.label}`, this.done / this.totalSteps);
    const existing = this.book.contracts[step.key];
    if (existing === undefined || existing.fingerprint !== step.fingerprint) {
      const sent =
        (await this.landedEarlier(step)) ??
        (await sendTransaction(
          this.ctx,
          { data: step.data },
          {
            description: `deploying ${step.label}`,
            checkpoint: false,
            // Recorded before it is broadcast: see landedEarlier.
            onSigned: ({ hash }) => {
              this.book.pendingDeployments = { ...this.book.pendingDeployments, [step.key]: { txHash: hash, fingerprint: step.fingerprint } };
              this.save();
            },
          },
        ));
      if (sent.contractAddress === undefined) throw new NetworkError(`deploying ${step.label}: the receipt has no contract address (tx ${sent.hash})`);
      this.book.contracts[step.key] = { address: sent.contractAddress, fingerprint: step.fingerprint, txHash: sent.hash, blockNumber: sent.blockNumber };
      this.forgetPending(step.key);
      this.deployed.push(step.key);
      this.save();
    }
    this.done++;
    return this.address(step.key);
  }

  /**
   * The deployment of `step` an earlier run broadcast and was killed before it saw mined (the node
   * mines it all the same): its receipt once mined, so the step is not deployed twice (a second
   * contract, gas paid twice). Undefined when there is none, or when the chain does not know it
   * (a node restarted from an earlier snapshot, a dropped transaction) or it failed: then the
   * step is deployed anew.
   */
  private async landedEarlier(step: StepPlan): Promise<{ hash: string; contractAddress?: string | undefined; blockNumber: number } | undefined> {
    const pending = this.book.pendingDeployments?.[step.key];
    if (pending === undefined) return undefined;
    if (pending.fingerprint !== step.fingerprint) {
      // Sent for other creation data (another run's options): never this step's contract.
      this.forgetPending(step.key);
      this.save();
      return undefined;
    }
    const { provider } = this.connection;
    const what = `the deployment of ${step.label} by an earlier run (tx ${pending.txHash})`;
    const known = await provider.getTransaction(pending.txHash).catch((error: unknown) => {
      throw new NetworkError(`cannot read ${what}: ${describeError(error)}`, { cause: error });
    });
    let receipt = null;
    if (known !== null) {
      const confirmations = this.connection.embedded ? 1 : this.ctx.config.chain.confirmations;
      receipt = await provider.waitForTransaction(pending.txHash, confirmations, (this.connection.embedded ? 60_000 : 300_000) + (confirmations - 1) * 15_000).catch((error: unknown) => {
        throw new NetworkError(`${what} is not mined yet (${describeError(error)}); run again once it is mined, or once the chain has dropped or replaced it (the step is then deployed anew)`, { cause: error });
      });
    }
    if (receipt === null || receipt.status !== 1 || receipt.contractAddress === null) {
      this.forgetPending(step.key);
      this.save();
      return undefined;
    }
    return { hash: receipt.hash, contractAddress: receipt.contractAddress, blockNumber: receipt.blockNumber };
  }

  private forgetPending(key: ContractKey): void {
    const pending = this.book.pendingDeployments;
    if (pending === undefined) return;
    delete pending[key];
    if (Object.keys(pending).length === 0) delete this.book.pendingDeployments;
  }

  /** A transparent proxy of `implementation`, initialised by `initData` in its constructor. */
  private proxy(key: ContractKey, label: string, implementation: string, initData: string, fingerprintParts?: unknown[]): StepPlan {
    const proxy = openZeppelinArtifact('TransparentUpgradeableProxy');
    const owner = this.connection.signer.address;
    return this.plan(key, label, proxy.bytecode, ['address', 'address', 'bytes'], [implementation, owner, initData], fingerprintParts);
  }

  private encode(artifact: Artifact, method: string, args: unknown[]): string {
    return this.ethers.Interface.from(artifact.abi as InterfaceAbi).encodeFunctionData(method, args);
  }

  /**
   * Points `proxy` at `implementation` unless its EIP-1967 implementation slot names it already
   * (so a re-run after a kill, the upgrade mined or not, sends it at most once), through the
   * ProxyAdmin its constructor created (the slot's admin), owned by the deployer.
   */
  private async upgrade(label: string, proxy: string, implementation: string): Promise<void> {
    const current = await readProxySlot(this.connection.provider, proxy, EIP1967_IMPLEMENTATION_SLOT, this.connection.rpcUrl);
    if (sameAddress(current, implementation)) return;
    const admin = await readProxySlot(this.connection.provider, proxy, EIP1967_ADMIN_SLOT, this.connection.rpcUrl);
    const proxyAdmin = openZeppelinArtifact('ProxyAdmin');
    await sendContractTransaction(
      this.ctx,
      { address: admin, abi: proxyAdmin.abi as InterfaceAbi, method: 'upgradeAndCall', args: [proxy, implementation, '0x'] },
      { description: label, checkpoint: false },
    );
    this.configured.push(label);
  }

  private async configure(label: string, address: string, artifact: Artifact, method: string, args: unknown[]): Promise<void> {
    await sendContractTransaction(this.ctx, { address, abi: artifact.abi as InterfaceAbi, method, args }, { description: label, checkpoint: false });
    this.configured.push(label);
  }

  private async read<T>(address: string, artifact: Artifact, method: string, args: unknown[] = []): Promise<T> {
    return readContract<T>(this.ctx, { address, abi: artifact.abi as InterfaceAbi, method, args }, `reading ${artifact.contractName}.${method}`);
  }

  /** Records the address book as it is now. */
  save(): void {
    saveAddressBook(this.ctx, this.book);
  }
}

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function text(value: Text, inputs: RecipeInputs): string {
  return typeof value === 'string' ? value : value(inputs);
}
