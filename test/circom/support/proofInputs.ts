/**
 * One realistic, satisfiable input per circuit for full proofs and benchmarks, marshalled by the
 * js-sdk for real identities and credentials: a holder with a published (non-genesis) state in
 * the GIST proves a merklized passport credential's birth date is before 2000 ($lt), and an
 * identity moves from its genesis state to a new one. Everything is seeded, so the inputs are
 * the same on every run (bench/inputs/*.json are these inputs, checked by proof.test.ts).
 */
import {
  AtomicQueryMTPV2OnChainInputs,
  Operators,
  Query,
  StateTransitionInputs,
  ValueProof,
  byteDecoder,
  type TreeState,
} from '@0xpolygonid/js-sdk';
import { poseidon } from '@iden3/js-crypto';
import { Claim, ClaimOptions, SchemaHash, type Id } from '@iden3/js-iden3-core';
import type { Hash } from '@iden3/js-merkletree';
import {
  addClaim,
  claimProof,
  createIdentity,
  createWallets,
  fixtureDocumentLoader,
  Gist,
  merklize,
  passportDocument,
  revocationProof,
  signChallenge,
  treeState,
} from './identities.js';

/** 2025-06-15: the proof's `timestamp` (fixed so the input is reproducible). */
export const PROOF_TIMESTAMP = 1_750_000_000;
export const PROOF_REQUEST_ID = 4242n;
export const PROOF_CHALLENGE = 0x5eed_c4a1_1e49en;
/** The query: credentialSubject.birthDate < 2000-01-01 (the passport says 1990-01-01). */
export const BIRTH_DATE_BEFORE = 20000101n;
const PASSPORT_SCHEMA = SchemaHash.newSchemaHashFromInt(0x9a55_0000_0000_0000_0000_0000_0000_0002n);

/** A credentialAtomicQueryMTPV2OnChain input with the public values it must prove. */
export interface MtpProofCase {
  input: Record<string, unknown>;
  userId: Id;
  issuerId: Id;
  issuerState: Hash;
  gistRoot: Hash;
  schema: SchemaHash;
  claimPathKey: bigint;
}

/** A stateTransition input with the public values it must prove. */
export interface StateTransitionProofCase {
  input: Record<string, unknown>;
  id: Id;
  oldState: Hash;
  newState: Hash;
}

/** The holder proves, against a published state, that a merklized passport's birth date is before 2000. */
export async function mtpV2OnChainProofCase(): Promise<MtpProofCase> {
  const wallets = createWallets();
  const user = await createIdentity(wallets, 21);
  const issuer = await createIdentity(wallets, 22);

  // The holder's state moves past genesis (a claim of its own) and is published, so the proof
  // goes through the GIST inclusion branch, as for any identity that has been used on chain.
  await addClaim(
    wallets,
    user.did,
    Claim.newClaim(SchemaHash.newSchemaHashFromInt(77n), ClaimOptions.withIndexDataInts(1n, 2n), ClaimOptions.withRevocationNonce(31n)),
  );
  const document = await merklize(passportDocument(user.did, issuer.did));
  const credential = Claim.newClaim(
    PASSPORT_SCHEMA,
    ClaimOptions.withIndexId(user.id),
    ClaimOptions.withIndexMerklizedRoot((await document.root()).bigInt()),
    ClaimOptions.withRevocationNonce(32n),
  );
  await addClaim(wallets, issuer.did, credential);

  const gist = new Gist();
  const userState = await treeState(wallets, user.did);
  const issuerState = await treeState(wallets, issuer.did);
  await gist.publish(issuer.id, issuerState.state);
  await gist.publish(user.id, userState.state);
  const gistProof = await gist.proof(user.id);

  const path = await document.resolveDocPath('credentialSubject.birthDate', { documentLoader: fixtureDocumentLoader as never });
  const { proof: valueMtp, value } = await document.proof(path);
  if (!value) throw new Error('the passport fixture has no birthDate');
  const valueProof = new ValueProof();
  valueProof.path = await path.mtEntry();
  valueProof.value = await value.mtEntry();
  valueProof.mtp = valueMtp;

  const query = new Query();
  query.operator = Operators.LT;
  query.slotIndex = 0;
  query.values = [BIRTH_DATE_BEFORE];
  query.valueProof = valueProof;

  const inputs = new AtomicQueryMTPV2OnChainInputs();
  inputs.id = user.id;
  inputs.profileNonce = 0n;
  inputs.claimSubjectProfileNonce = 0n;
  inputs.claim = {
    issuerID: issuer.id,
    claim: credential,
    incProof: { proof: await claimProof(wallets, issuer.did, credential), treeState: issuerState },
    nonRevProof: { proof: await revocationProof(wallets, issuer.did, credential.getRevocationNonce()), treeState: issuerState },
  };
  inputs.skipClaimRevocationCheck = false;
  inputs.requestID = PROOF_REQUEST_ID;
  inputs.currentTimeStamp = PROOF_TIMESTAMP;
  inputs.authClaim = user.authClaim;
  inputs.authClaimIncMtp = await claimProof(wallets, user.did, user.authClaim);
  inputs.authClaimNonRevMtp = await revocationProof(wallets, user.did, user.authClaim.getRevocationNonce());
  inputs.treeState = userState;
  inputs.gistProof = gistProof;
  inputs.challenge = PROOF_CHALLENGE;
  inputs.signature = await signChallenge(wallets, user, PROOF_CHALLENGE);
  inputs.query = query;

  return {
    input: JSON.parse(byteDecoder.decode(inputs.inputsMarshal())) as Record<string, unknown>,
    userId: user.id,
    issuerId: issuer.id,
    issuerState: issuerState.state,
    gistRoot: gistProof.root,
    schema: PASSPORT_SCHEMA,
    claimPathKey: valueProof.path,
  };
}

/** An identity's first transition: genesis state -> state with one more claim, signed by its auth key. */
export async function stateTransitionProofCase(): Promise<StateTransitionProofCase> {
  const wallets = createWallets();
  const identity = await createIdentity(wallets, 23);
  const oldState: TreeState = await treeState(wallets, identity.did);
  const authIncProof = await claimProof(wallets, identity.did, identity.authClaim);
  const authNonRevProof = await revocationProof(wallets, identity.did, identity.authClaim.getRevocationNonce());
  await addClaim(
    wallets,
    identity.did,
    Claim.newClaim(SchemaHash.newSchemaHashFromInt(123456789n), ClaimOptions.withIndexDataInts(42n, 43n), ClaimOptions.withRevocationNonce(1023n)),
  );
  const newState = await treeState(wallets, identity.did);

  // What IdentityWallet.transitState assembles: the auth claim against the old state, its
  // inclusion in the new claims tree, and the signature of Poseidon(old state, new state).
  const inputs = new StateTransitionInputs();
  inputs.id = identity.id;
  inputs.oldTreeState = oldState;
  inputs.newTreeState = newState;
  inputs.isOldStateGenesis = true;
  inputs.authClaim = {
    claim: identity.authClaim,
    incProof: { proof: authIncProof, treeState: oldState },
    nonRevProof: { proof: authNonRevProof, treeState: oldState },
  };
  inputs.authClaimNewStateIncProof = await claimProof(wallets, identity.did, identity.authClaim);
  inputs.signature = await signChallenge(wallets, identity, poseidon.hash([oldState.state.bigInt(), newState.state.bigInt()]));
  return {
    input: JSON.parse(byteDecoder.decode(inputs.inputsMarshal())) as Record<string, unknown>,
    id: identity.id,
    oldState: oldState.state,
    newState: newState.state,
  };
}
