/**
 * The deployment recipe as data: every contract vc records in an address book is deployed by
 * exactly one step, after what it needs. `isDeploymentCurrent` redeploys a home whose book lacks
 * any of CONTRACT_KEYS, so a key no step deploys would redeploy on every command.
 */
import { describe, expect, it } from 'vitest';
import { CONTRACT_KEYS, type ContractKey } from '../../../src/chain/addressBook.js';
import { iden3Artifact } from '../../../src/chain/artifacts.js';
import { AUTH_METHOD_CONTRACTS, DEPLOYMENT_RECIPE, ETH_IDENTITY_METHOD } from '../../../src/chain/deployment/recipe.js';

const deploying = DEPLOYMENT_RECIPE.flatMap((step, index) => (step.kind === 'contract' || step.kind === 'proxy' ? [{ key: step.key, index, step }] : []));
const inputs = { owner: '0x1', defaultIdType: '0x0212', zeroAddress: '0x0', verifiers: {} as never, address: (key: ContractKey) => `address of ${key}` };

describe('deployment recipe', () => {
  it('deploys every contract key exactly once, and nothing else', () => {
    const keys = deploying.map(({ key }) => key);
    expect([...keys].sort()).toEqual([...CONTRACT_KEYS].sort());
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('deploys a proxy after its implementation, and configures or upgrades only contracts deployed before', () => {
    const position = new Map<ContractKey, number>(deploying.map(({ key, index }) => [key, index]));
    DEPLOYMENT_RECIPE.forEach((step, index) => {
      if (step.kind === 'proxy') expect(position.get(step.implementation)!, step.key).toBeLessThan(index);
      if (step.kind === 'configure') expect(position.get(step.contract)!, String(step.label)).toBeLessThan(index);
      if (step.kind === 'upgrade') {
        expect(position.get(step.proxy)!, String(step.label)).toBeLessThan(index);
        expect(position.get(step.implementation)!, String(step.label)).toBeLessThan(index);
      }
    });
  });

  it("keeps the authV2 verifier's proxy (fixed identity) and upgrades it to the current verifier, so the AuthV2Validator and the UniversalVerifier never change with the verifier", () => {
    const at = (kind: string, key: string): number => DEPLOYMENT_RECIPE.findIndex((step) => step.kind === kind && 'key' in step && step.key === key);
    const implementation = DEPLOYMENT_RECIPE[at('contract', 'authV2VerifierImplementation')];
    expect(implementation).toMatchObject({ code: { verifier: 'authV2' } });
    const proxy = DEPLOYMENT_RECIPE[at('proxy', 'authV2Verifier')];
    expect(proxy?.kind === 'proxy' && proxy.initializer).toBeUndefined();
    // Its identity names neither the implementation nor the verifier: a change of either keeps the proxy.
    const identity = proxy?.kind === 'proxy' ? proxy.identity?.({ ...inputs, verifiers: { authV2: 'one' } as never }) : undefined;
    expect(identity).toEqual(proxy?.kind === 'proxy' ? proxy.identity?.({ ...inputs, verifiers: { authV2: 'another' } as never, address: () => 'elsewhere' }) : 'no identity');
    const upgrade = DEPLOYMENT_RECIPE.findIndex((step) => step.kind === 'upgrade');
    expect(DEPLOYMENT_RECIPE[upgrade]).toMatchObject({ proxy: 'authV2Verifier', implementation: 'authV2VerifierImplementation' });
    const validator = DEPLOYMENT_RECIPE[at('proxy', 'authV2Validator')];
    expect(validator?.kind === 'proxy' && validator.initializer?.args(inputs)).toEqual(['address of state', 'address of authV2Verifier', '0x1']);
    // The UniversalVerifier comes after the validator, and a new validator is not a new UniversalVerifier
    // (its requests stay): its identity is the default one, its creation data, which names no validator.
    const universalVerifier = DEPLOYMENT_RECIPE[at('proxy', 'universalVerifier')];
    expect(at('proxy', 'universalVerifier')).toBeGreaterThan(at('proxy', 'authV2Validator'));
    expect(universalVerifier?.kind === 'proxy' && universalVerifier.identity).toBeUndefined();
    expect(universalVerifier?.kind === 'proxy' && universalVerifier.initializer?.args(inputs)).toEqual(['address of state', '0x1']);
  });

  it('registers authV2 unless it exists (one an earlier vc bound to another validator stays: UniversalVerifier 2.3.0 cannot repoint it)', () => {
    const configure = DEPLOYMENT_RECIPE.find((step) => step.kind === 'configure' && step.call.method === 'setAuthMethod' && String(step.label).includes('(authV2)'));
    if (configure?.kind !== 'configure') throw new Error('no authV2 configure step');
    expect(configure.call.args(inputs)).toEqual([{ authMethod: 'authV2', validator: 'address of authV2Validator', params: '0x' }]);
    expect(configure.unless).toMatchObject({ method: 'authMethodExists' });
    expect(configure.unless.args?.(inputs)).toEqual(['authV2']);
    expect(configure.unless.holds(false, inputs)).toBe(false);
    expect(configure.unless.holds(true, inputs)).toBe(true);
  });

  it('gives authV3 and authV3-8-32 what authV2 has: the verifier behind a proxy of fixed identity upgraded in place, the validator of that circuit behind a proxy, setAuthMethod unless it exists', () => {
    const at = (kind: string, key: string): number => DEPLOYMENT_RECIPE.findIndex((step) => step.kind === kind && 'key' in step && step.key === key);
    for (const [circuit, prefix, artifact] of [
      ['authV3', 'authV3', 'AuthV3Validator'],
      ['authV3-8-32', 'authV3_8_32', 'AuthV3_8_32Validator'],
    ] as const) {
      expect(AUTH_METHOD_CONTRACTS[circuit]).toEqual({ verifier: `${prefix}Verifier`, validator: `${prefix}Validator`, artifact });
      expect(DEPLOYMENT_RECIPE[at('contract', `${prefix}VerifierImplementation`)]).toMatchObject({ code: { verifier: circuit } });
      const proxy = DEPLOYMENT_RECIPE[at('proxy', `${prefix}Verifier`)];
      if (proxy?.kind !== 'proxy') throw new Error(`no ${circuit} verifier proxy`);
      expect(proxy.initializer).toBeUndefined();
      expect(proxy.identity?.({ ...inputs, verifiers: { [circuit]: 'one' } as never })).toEqual(proxy.identity?.({ ...inputs, verifiers: { [circuit]: 'another' } as never, address: () => 'elsewhere' }));
      // Not the authV2 proxy's identity: each method has a proxy of its own.
      expect(proxy.identity?.(inputs)).not.toEqual((DEPLOYMENT_RECIPE[at('proxy', 'authV2Verifier')] as { identity: (i: typeof inputs) => unknown }).identity(inputs));
      const upgrade = DEPLOYMENT_RECIPE.findIndex((step) => step.kind === 'upgrade' && step.proxy === `${prefix}Verifier`);
      expect(DEPLOYMENT_RECIPE[upgrade]).toMatchObject({ implementation: `${prefix}VerifierImplementation` });
      expect(upgrade).toBeGreaterThan(at('proxy', `${prefix}Verifier`));
      const validator = DEPLOYMENT_RECIPE[at('proxy', `${prefix}Validator`)];
      expect(validator).toMatchObject({ implementation: `${prefix}ValidatorImplementation`, initializer: { artifact } });
      expect(validator?.kind === 'proxy' && validator.initializer?.args(inputs)).toEqual(['address of state', `address of ${prefix}Verifier`, '0x1']);
      // The validator's artifact verifies a proof as AuthV2Validator does (same ABI), under its own circuit id.
      const verify = (name: string): unknown => (iden3Artifact(name).abi as Array<{ type: string; name?: string; inputs?: unknown }>).find((item) => item.type === 'function' && item.name === 'verify')?.inputs;
      expect(verify(artifact)).toEqual(verify('AuthV2Validator'));
      const configure = DEPLOYMENT_RECIPE.find((step) => step.kind === 'configure' && step.call.method === 'setAuthMethod' && step.label === `UniversalVerifier.setAuthMethod(${circuit})`);
      if (configure?.kind !== 'configure') throw new Error(`no ${circuit} configure step`);
      expect(configure.call.args(inputs)).toEqual([{ authMethod: circuit, validator: `address of ${prefix}Validator`, params: '0x' }]);
      expect(configure.unless.args?.(inputs)).toEqual([circuit]);
      expect([configure.unless.holds(false, inputs), configure.unless.holds(true, inputs)]).toEqual([false, true]);
    }
  });

  it('deploys the authV3 methods after every contract an earlier vc deployed, so a home it deployed keeps each of them (their creation data unchanged)', () => {
    const keys = deploying.map(({ key }) => key);
    const firstNew = keys.findIndex((key) => key.startsWith('authV3'));
    expect(keys.slice(firstNew).every((key) => key.startsWith('authV3'))).toBe(true);
    expect(keys.slice(0, firstNew)).toEqual(CONTRACT_KEYS.filter((key) => !key.startsWith('authV3')).sort((a, b) => keys.indexOf(a) - keys.indexOf(b)));
    expect(keys.slice(0, firstNew)).toContain('ethIdentityValidator');
  });

  it('registers the ethIdentity auth method with the EthIdentityValidator proxy, whose artifact verifies a sender against the user id', () => {
    const proxy = DEPLOYMENT_RECIPE.find((step) => step.kind === 'proxy' && step.key === 'ethIdentityValidator');
    expect(proxy).toMatchObject({ initializer: { artifact: 'EthIdentityValidator' }, implementation: 'ethIdentityValidatorImplementation' });
    const abi = iden3Artifact('EthIdentityValidator').abi as Array<{ type: string; name?: string; inputs?: Array<{ type: string }> }>;
    expect(abi.find((item) => item.type === 'function' && item.name === 'verify')?.inputs?.map((input) => input.type)).toEqual(['address', 'bytes', 'bytes']);
    const configure = DEPLOYMENT_RECIPE.find((step) => step.kind === 'configure' && step.call.method === 'setAuthMethod' && String(step.label).includes(ETH_IDENTITY_METHOD));
    expect(configure).toBeDefined();
    expect(configure!.kind === 'configure' && configure!.call.args(inputs)).toEqual([{ authMethod: 'ethIdentity', validator: 'address of ethIdentityValidator', params: '0x' }]);
  });
});
