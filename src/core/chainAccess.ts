/**
 * The chain operations users reach (`vc chain status|down|reset|deploy`, and stopping the node a
 * server started): core's door to the chain layer, so the CLI and HTTP adapters never import it.
 */
import type { Context } from '../context.js';
import type { VerifierCircuit } from '../chain/verifiers.js';
export { chainDeploy, chainDown, chainPs, chainReset, chainStatus } from '../chain/manage.js';
export type { ChainDeployResult, ChainDownResult, ChainPsResult, ChainResetResult, ChainStatusResult } from '../chain/manage.js';
export { stopLocalNodeIfStartedHere } from '../chain/connection.js';
export { fixLocalNodeAddress, keepLocalNodeUp } from '../chain/node/lifecycle.js';

/**
 * The Groth16 verifiers to deploy so that proofs of the circuits in use verify: on a development
 * chain (the embedded node, or chain id 152, 31337, 1337) with development circuits, their own
 * verifiers; otherwise none (deployContracts then deploys the official @iden3/contracts ones).
 * May build the circuits first (cached).
 */
export async function verifiersMatchingCircuits(ctx: Context): Promise<Partial<Record<VerifierCircuit, { abi: unknown[]; bytecode: string }>>> {
  const { isDevChain } = await import('../chain/deployment/deployContracts.js');
  const { VERIFIER_CIRCUITS } = await import('../chain/verifiers.js');
  if (!isDevChain(ctx.config.chain.chainId, ctx.config.chain.rpcUrl === undefined)) return {};
  const { availableOnDemandCircuits, ensureCircuits, loadVerifierArtifact } = await import('../circuits/build.js');
  // The V3 circuits count when already built: they are not built for a deployment.
  const options = { extra: await availableOnDemandCircuits(ctx) };
  const info = await ensureCircuits(ctx, options);
  if (!info.development) return {};
  const verifiers: Partial<Record<VerifierCircuit, { abi: unknown[]; bytecode: string }>> = {};
  for (const circuit of VERIFIER_CIRCUITS.filter((id) => info.circuits.some((c) => c.id === id && c.development))) {
    const artifact = await loadVerifierArtifact(ctx, circuit, options);
    verifiers[circuit] = { abi: artifact.abi, bytecode: artifact.bytecode };
  }
  return verifiers;
}
