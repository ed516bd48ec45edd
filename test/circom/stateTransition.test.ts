/**
 * Witness tests of circuits/stateTransition.circom with inputs the js-sdk marshals
 * (StateTransitionInputs, assembled the way IdentityWallet.transitState assembles them).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { StateTransitionInputs, StateTransitionPubSignals, byteDecoder, byteEncoder, type TreeState } from '@0xpolygonid/js-sdk';
import { poseidon } from '@iden3/js-crypto';
import { Claim, ClaimOptions, SchemaHash } from '@iden3/js-iden3-core';
import type { Proof } from '@iden3/js-merkletree';
import { compileCircuit, publicSignals, type CompiledCircuit } from './support/compile.js';
import {
  addClaim,
  claimProof,
  createIdentity,
  createWallets,
  revocationProof,
  revokeNonce,
  signChallenge,
  treeState,
  type TestIdentity,
  type Wallets,
} from './support/identities.js';

let circuit: CompiledCircuit;

beforeAll(async () => {
  circuit = await compileCircuit('stateTransition');
});

interface Transition {
  identity: TestIdentity;
  oldState: TreeState;
  newState: TreeState;
  authIncProof: Proof;
  authNonRevProof: Proof;
  newAuthIncProof: Proof;
}

/** An identity whose old state is the genesis one, then a claim added: the new state. */
async function genesisTransition(wallets: Wallets, seed: number): Promise<Transition> {
  const identity = await createIdentity(wallets, seed);
  const oldState = await treeState(wallets, identity.did);
  const authIncProof = await claimProof(wallets, identity.did, identity.authClaim);
  const authNonRevProof = await revocationProof(wallets, identity.did, identity.authClaim.getRevocationNonce());
  const claim = Claim.newClaim(
    SchemaHash.newSchemaHashFromInt(123456789n),
    ClaimOptions.withIndexDataInts(42n, 43n),
    ClaimOptions.withRevocationNonce(1000n + BigInt(seed)),
  );
  await addClaim(wallets, identity.did, claim);
  const newState = await treeState(wallets, identity.did);
  const newAuthIncProof = await claimProof(wallets, identity.did, identity.authClaim);
  return { identity, oldState, newState, authIncProof, authNonRevProof, newAuthIncProof };
}

/** Marshals the circuit inputs with the js-sdk, signing Poseidon(old state, new state). */
async function marshal(
  wallets: Wallets,
  transition: Transition,
  changes: { isOldStateGenesis?: boolean; challenge?: bigint; signer?: TestIdentity; newAuthIncProof?: Proof } = {},
): Promise<Record<string, unknown>> {
  const { identity, oldState, newState } = transition;
  const challenge = changes.challenge ?? poseidon.hash([oldState.state.bigInt(), newState.state.bigInt()]);
  const inputs = new StateTransitionInputs();
  inputs.id = identity.id;
  inputs.oldTreeState = oldState;
  inputs.newTreeState = newState;
  inputs.isOldStateGenesis = changes.isOldStateGenesis ?? true;
  inputs.authClaim = {
    claim: identity.authClaim,
    incProof: { proof: transition.authIncProof, treeState: oldState },
    nonRevProof: { proof: transition.authNonRevProof, treeState: oldState },
  };
  inputs.authClaimNewStateIncProof = changes.newAuthIncProof ?? transition.newAuthIncProof;
  inputs.signature = await signChallenge(wallets, changes.signer ?? identity, challenge);
  return JSON.parse(byteDecoder.decode(inputs.inputsMarshal())) as Record<string, unknown>;
}

describe('stateTransition circuit', () => {
  it('proves a genesis transition and outputs the public signals State.transitState passes', async () => {
    const wallets = createWallets();
    const transition = await genesisTransition(wallets, 11);
    const input = await marshal(wallets, transition);

    const witness = await circuit.calculateWitness(input);
    const signals = publicSignals(witness, 4);
    expect(signals).toEqual([
      transition.identity.id.bigInt().toString(),
      transition.oldState.state.bigInt().toString(),
      transition.newState.state.bigInt().toString(),
      '1',
    ]);
    const decoded = new StateTransitionPubSignals().pubSignalsUnmarshal(byteEncoder.encode(JSON.stringify(signals)));
    expect(decoded.userId.string()).toBe(transition.identity.id.string());
    expect(decoded.isOldStateGenesis).toBe(true);
    expect(await circuit.checkConstraints(input)).toBe(true);
  });

  it('proves a transition from a published (non-genesis) state', async () => {
    const wallets = createWallets();
    const first = await genesisTransition(wallets, 12);
    const { identity } = first;
    // second transition: from the state after the first one
    const oldState = await treeState(wallets, identity.did);
    const authIncProof = await claimProof(wallets, identity.did, identity.authClaim);
    const authNonRevProof = await revocationProof(wallets, identity.did, identity.authClaim.getRevocationNonce());
    await revokeNonce(wallets, identity.did, 777n);
    const newState = await treeState(wallets, identity.did);
    const newAuthIncProof = await claimProof(wallets, identity.did, identity.authClaim);
    const transition = { identity, oldState, newState, authIncProof, authNonRevProof, newAuthIncProof };

    const input = await marshal(wallets, transition, { isOldStateGenesis: false });
    const signals = publicSignals(await circuit.calculateWitness(input), 4);
    expect(signals[3]).toBe('0');
    expect(signals[1]).toBe(oldState.state.bigInt().toString());

    // the same old state is not the genesis state of the id
    await expect(circuit.calculateWitness(await marshal(wallets, transition, { isOldStateGenesis: true }))).rejects.toThrow(/Assert Failed/);
  });

  it('rejects a signature by another key', async () => {
    const wallets = createWallets();
    const transition = await genesisTransition(wallets, 13);
    const stranger = await createIdentity(wallets, 14);
    await expect(circuit.calculateWitness(await marshal(wallets, transition, { signer: stranger }))).rejects.toThrow(/Assert Failed/);
  });

  it('rejects a signature of another challenge', async () => {
    const wallets = createWallets();
    const transition = await genesisTransition(wallets, 15);
    await expect(circuit.calculateWitness(await marshal(wallets, transition, { challenge: 5n }))).rejects.toThrow(/Assert Failed/);
  });

  it('rejects a new state that drops the auth claim', async () => {
    const wallets = createWallets();
    const transition = await genesisTransition(wallets, 16);
    // a proof of the auth claim against the old claims tree does not open the new root
    await expect(
      circuit.calculateWitness(await marshal(wallets, transition, { newAuthIncProof: transition.authIncProof })),
    ).rejects.toThrow(/Assert Failed/);
  });

  it('rejects a genesis claim for an id that does not derive from the old state', async () => {
    const wallets = createWallets();
    const transition = await genesisTransition(wallets, 17);
    const other = await createIdentity(wallets, 18);
    await expect(circuit.calculateWitness(await marshal(wallets, { ...transition, identity: { ...transition.identity, id: other.id } }))).rejects.toThrow(/Assert Failed/);
  });

  it('rejects an unchanged state', async () => {
    const wallets = createWallets();
    const transition = await genesisTransition(wallets, 19);
    const unchanged = { ...transition, newState: transition.oldState, newAuthIncProof: transition.authIncProof };
    await expect(circuit.calculateWitness(await marshal(wallets, unchanged))).rejects.toThrow(/Assert Failed/);
  });
});
