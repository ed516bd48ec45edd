pragma circom 2.1.5;

// The identity authorization circuit (authV2 and authV3 are the same circuit under two ids): the
// holder proves control of an identity (an auth claim of its current or genesis state signed the
// challenge) and presents it as its genesis id or as the profile for `profileNonce`.
//
// Inputs are named as @0xpolygonid/js-sdk AuthV2Inputs/AuthV3Inputs.inputsMarshal writes them.
// Public signals, in the order AuthV2Validator/AuthV3Validator read them:
//   0 userID, 1 challenge, 2 gistRoot

include "authV3.circom";
include "ids.circom";

template Auth(idOwnershipLevels, gistLevels) {
    signal input genesisID;
    signal input profileNonce;

    signal input state;
    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;

    signal input authClaim[8];
    signal input authClaimIncMtp[idOwnershipLevels];
    signal input authClaimNonRevMtp[idOwnershipLevels];
    signal input authClaimNonRevMtpNoAux;
    signal input authClaimNonRevMtpAuxHi;
    signal input authClaimNonRevMtpAuxHv;

    signal input challenge;
    signal input challengeSignatureR8x;
    signal input challengeSignatureR8y;
    signal input challengeSignatureS;

    signal input gistRoot;
    signal input gistMtp[gistLevels];
    signal input gistMtpAuxHi;
    signal input gistMtpAuxHv;
    signal input gistMtpNoAux;

    signal output userID;

    component id = IdPartsWithChecksum();
    id.id <== genesisID;

    AuthV3CheckIf(idOwnershipLevels, gistLevels)(
        1,
        genesisID, id.genesis, id.checksum, id.computedChecksum,
        state, claimsTreeRoot, revTreeRoot, rootsTreeRoot,
        authClaim, authClaimIncMtp, authClaimNonRevMtp,
        authClaimNonRevMtpNoAux, authClaimNonRevMtpAuxHi, authClaimNonRevMtpAuxHv,
        challenge, challengeSignatureR8x, challengeSignatureR8y, challengeSignatureS,
        gistRoot, gistMtp, gistMtpAuxHi, gistMtpAuxHv, gistMtpNoAux
    );

    userID <== SelectProfile()(genesisID, id.typ, id.typByteSum, profileNonce);
}
