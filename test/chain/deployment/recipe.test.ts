/**
 * The deployment recipe as data: every contract vc records in an address book is deployed by
 * exactly one step, after what it needs. `isDeploymentCurrent` redeploys a home whose book lacks
 * any of CONTRACT_KEYS, so a key no step deploys would redeploy on every command.
 */
import { describe, expect, it } from 'vitest';
import { CONTRACT_KEYS, type ContractKey } from '../../../src/chain/addressBook.js';
import { iden3Artifact } from '../../../src/chain/artifacts.js';
import { DEPLOYMENT_RECIPE, ETH_IDENTITY_METHOD } from '../../../src/chain/deployment/recipe.js';

const deploying = DEPLOYMENT_RECIPE.flatMap((step, index) => (step.kind === 'configure' ? [] : [{ key: step.key, index, step }]));

describe('deployment recipe', () => {
  it('deploys every contract key exactly once, and nothing else', () => {
    const keys = deploying.map(({ key }) => key);
    expect([...keys].sort()).toEqual([...CONTRACT_KEYS].sort());
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('deploys a proxy after its implementation, and configures only contracts deployed before', () => {
    const position = new Map<ContractKey, number>(deploying.map(({ key, index }) => [key, index]));
    DEPLOYMENT_RECIPE.forEach((step, index) => {
      if (step.kind === 'proxy') expect(position.get(step.implementation)!, step.key).toBeLessThan(index);
      if (step.kind === 'configure') expect(position.get(step.contract)!, String(step.label)).toBeLessThan(index);
    });
  });

  it('registers the ethIdentity auth method with the EthIdentityValidator proxy, whose artifact verifies a sender against the user id', () => {
    const proxy = DEPLOYMENT_RECIPE.find((step) => step.kind === 'proxy' && step.key === 'ethIdentityValidator');
    expect(proxy).toMatchObject({ artifact: 'EthIdentityValidator', implementation: 'ethIdentityValidatorImplementation' });
    const abi = iden3Artifact('EthIdentityValidator').abi as Array<{ type: string; name?: string; inputs?: Array<{ type: string }> }>;
    expect(abi.find((item) => item.type === 'function' && item.name === 'verify')?.inputs?.map((input) => input.type)).toEqual(['address', 'bytes', 'bytes']);
    const configure = DEPLOYMENT_RECIPE.find((step) => step.kind === 'configure' && step.call.method === 'setAuthMethod' && String(step.label).includes(ETH_IDENTITY_METHOD));
    expect(configure).toBeDefined();
    const inputs = { owner: '0x1', defaultIdType: '0x0212', zeroAddress: '0x0', verifiers: {} as never, address: (key: ContractKey) => `address of ${key}` };
    expect(configure!.kind === 'configure' && configure!.call.args(inputs)).toEqual([{ authMethod: 'ethIdentity', validator: 'address of ethIdentityValidator', params: '0x' }]);
  });
});
