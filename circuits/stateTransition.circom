pragma circom 2.1.5;

// stateTransition: the identity `userID` moves from `oldUserState` to `newUserState`, authorised by
// an auth key of the old state, which signs Poseidon(oldUserState, newUserState) (as the js-sdk's
// IdentityWallet.transitState does). For a genesis old state the id must derive from that state.
// The new state must keep the auth claim in its claims tree, so the identity stays controllable.
//
// Inputs are named as @0xpolygonid/js-sdk StateTransitionInputs.inputsMarshal writes them. Public
// signals, in the order State.transitState passes them to the verifier:
//   0 userID, 1 oldUserState, 2 newUserState, 3 isOldStateGenesis

include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";
include "lib/ids.circom";
include "lib/claims.circom";
include "lib/ownership.circom";

template StateTransition(levels) {
    signal input userID;
    signal input oldUserState;
    signal input newUserState;
    signal input isOldStateGenesis;

    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;

    signal input authClaim[8];
    signal input authClaimMtp[levels];
    signal input authClaimNonRevMtp[levels];
    signal input authClaimNonRevMtpNoAux;
    signal input authClaimNonRevMtpAuxHi;
    signal input authClaimNonRevMtpAuxHv;

    signal input signatureR8x;
    signal input signatureR8y;
    signal input signatureS;

    signal input newClaimsTreeRoot;
    signal input newRevTreeRoot;
    signal input newRootsTreeRoot;
    signal input newAuthClaimMtp[levels];

    isOldStateGenesis * (isOldStateGenesis - 1) === 0;

    // A genesis old state must be the state the id was derived from.
    component id = IdParts();
    id.id <== userID;
    component genesis = IsGenesisState();
    genesis.idGenesis <== id.genesis;
    genesis.state <== oldUserState;
    isOldStateGenesis * (1 - genesis.out) === 0;

    // A transition must change the state.
    signal unchanged <== IsEqual()([oldUserState, newUserState]);
    unchanged === 0;

    signal challenge <== Poseidon(2)([oldUserState, newUserState]);

    component ownership = IdentityOwnership(levels);
    ownership.state <== oldUserState;
    ownership.claimsTreeRoot <== claimsTreeRoot;
    ownership.revTreeRoot <== revTreeRoot;
    ownership.rootsTreeRoot <== rootsTreeRoot;
    ownership.authClaim <== authClaim;
    ownership.authClaimIncMtp <== authClaimMtp;
    ownership.authClaimNonRevMtp <== authClaimNonRevMtp;
    ownership.authClaimNonRevMtpNoAux <== authClaimNonRevMtpNoAux;
    ownership.authClaimNonRevMtpAuxHi <== authClaimNonRevMtpAuxHi;
    ownership.authClaimNonRevMtpAuxHv <== authClaimNonRevMtpAuxHv;
    ownership.challenge <== challenge;
    ownership.signatureR8x <== signatureR8x;
    ownership.signatureR8y <== signatureR8y;
    ownership.signatureS <== signatureS;

    component keptAuthClaim = LeafInTree(levels);
    keptAuthClaim.key <== ownership.authClaimHi;
    keptAuthClaim.value <== ownership.authClaimHv;
    keptAuthClaim.root <== newClaimsTreeRoot;
    keptAuthClaim.mtp <== newAuthClaimMtp;

    component newRoots = StateMatchesRoots();
    newRoots.claimsTreeRoot <== newClaimsTreeRoot;
    newRoots.revTreeRoot <== newRevTreeRoot;
    newRoots.rootsTreeRoot <== newRootsTreeRoot;
    newRoots.state <== newUserState;
}

component main {public [userID, oldUserState, newUserState, isOldStateGenesis]} = StateTransition(40);
