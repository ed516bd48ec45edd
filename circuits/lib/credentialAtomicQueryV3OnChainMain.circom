pragma circom 2.1.5;

// credentialAtomicQueryV3OnChain: the holder proves, for an on-chain verifier
// (CredentialAtomicQueryV3StableValidator of @iden3/contracts), that a credential issued to them
// satisfies a query (lib/credentialV3.circom), and (when isBJJAuthEnabled) that they control the
// identity: an auth claim of their state, current in the GIST, signed the challenge
// (lib/authV3.circom). Identities without a BJJ key (Ethereum-based) prove with
// isBJJAuthEnabled = 0 and profile nonce 0; the verifier then authenticates the sender instead.
// The query is private and committed to by circuitQueryHash, which the verifier compares with the
// hash of its request.
//
// Inputs are named as @0xpolygonid/js-sdk AtomicQueryV3OnChainInputs.inputsMarshal writes them.
// Public signals, in the order AtomicQueryV3OnChainPubSignals and the validator read them:
//   userID, circuitQueryHash, issuerState, linkID, nullifier, operatorOutput, proofType,
//   requestID, challenge, gistRoot, issuerID, issuerClaimNonRevState, timestamp, isBJJAuthEnabled

include "authV3.circom";
include "credentialV3.circom";
include "queryV3.circom";

template CredentialAtomicQueryV3OnChain(issuerLevels, claimLevels, maxValueArraySize, idOwnershipLevels, onChainLevels) {
    signal output userID;
    signal output circuitQueryHash;

    signal input proofType;
    // ties the proof to a request; no constraint
    signal input requestID;

    signal input userGenesisID;
    signal input profileNonce;

    signal input userState;
    signal input userClaimsTreeRoot;
    signal input userRevTreeRoot;
    signal input userRootsTreeRoot;

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
    signal input gistMtp[onChainLevels];
    signal input gistMtpAuxHi;
    signal input gistMtpAuxHv;
    signal input gistMtpNoAux;

    signal input claimSubjectProfileNonce;

    // bound by the verifier (allowed issuers, issuer state); no constraint here
    signal input issuerID;
    signal input issuerClaim[8];

    signal input isRevocationChecked;
    signal input issuerClaimNonRevMtp[issuerLevels];
    signal input issuerClaimNonRevMtpNoAux;
    signal input issuerClaimNonRevMtpAuxHi;
    signal input issuerClaimNonRevMtpAuxHv;
    signal input issuerClaimNonRevClaimsTreeRoot;
    signal input issuerClaimNonRevRevTreeRoot;
    signal input issuerClaimNonRevRootsTreeRoot;
    signal input issuerClaimNonRevState;

    signal input timestamp;

    signal input claimSchema;
    signal input claimPathMtp[claimLevels];
    signal input claimPathMtpNoAux;
    signal input claimPathMtpAuxHi;
    signal input claimPathMtpAuxHv;
    signal input claimPathKey;
    signal input claimPathValue;
    signal input slotIndex;
    signal input operator;
    signal input value[maxValueArraySize];
    signal input valueArraySize;

    signal input issuerClaimMtp[issuerLevels];
    signal input issuerClaimClaimsTreeRoot;
    signal input issuerClaimRevTreeRoot;
    signal input issuerClaimRootsTreeRoot;
    signal input issuerClaimIdenState;

    signal input issuerAuthClaim[8];
    signal input issuerAuthClaimMtp[issuerLevels];
    signal input issuerAuthClaimsTreeRoot;
    signal input issuerAuthRevTreeRoot;
    signal input issuerAuthRootsTreeRoot;
    signal input issuerAuthState;
    signal input issuerAuthClaimNonRevMtp[issuerLevels];
    signal input issuerAuthClaimNonRevMtpNoAux;
    signal input issuerAuthClaimNonRevMtpAuxHi;
    signal input issuerAuthClaimNonRevMtpAuxHv;
    signal input issuerClaimSignatureR8x;
    signal input issuerClaimSignatureR8y;
    signal input issuerClaimSignatureS;

    signal output issuerState;

    signal input linkNonce;
    signal output linkID;

    signal input verifierID;
    signal input nullifierSessionID;
    signal output nullifier;

    signal output operatorOutput;

    signal input isBJJAuthEnabled;

    component credential = CredentialV3(issuerLevels, claimLevels, maxValueArraySize);
    credential.proofType <== proofType;
    credential.userGenesisID <== userGenesisID;
    credential.profileNonce <== profileNonce;
    credential.claimSubjectProfileNonce <== claimSubjectProfileNonce;
    credential.isRevocationChecked <== isRevocationChecked;
    credential.issuerClaimNonRevMtp <== issuerClaimNonRevMtp;
    credential.issuerClaimNonRevMtpNoAux <== issuerClaimNonRevMtpNoAux;
    credential.issuerClaimNonRevMtpAuxHi <== issuerClaimNonRevMtpAuxHi;
    credential.issuerClaimNonRevMtpAuxHv <== issuerClaimNonRevMtpAuxHv;
    credential.issuerClaimNonRevClaimsTreeRoot <== issuerClaimNonRevClaimsTreeRoot;
    credential.issuerClaimNonRevRevTreeRoot <== issuerClaimNonRevRevTreeRoot;
    credential.issuerClaimNonRevRootsTreeRoot <== issuerClaimNonRevRootsTreeRoot;
    credential.issuerClaimNonRevState <== issuerClaimNonRevState;
    credential.timestamp <== timestamp;
    credential.claimSchema <== claimSchema;
    credential.claimPathMtp <== claimPathMtp;
    credential.claimPathMtpNoAux <== claimPathMtpNoAux;
    credential.claimPathMtpAuxHi <== claimPathMtpAuxHi;
    credential.claimPathMtpAuxHv <== claimPathMtpAuxHv;
    credential.claimPathKey <== claimPathKey;
    credential.claimPathValue <== claimPathValue;
    credential.slotIndex <== slotIndex;
    credential.operator <== operator;
    credential.value <== value;
    credential.valueArraySize <== valueArraySize;
    credential.issuerClaim <== issuerClaim;
    credential.issuerClaimMtp <== issuerClaimMtp;
    credential.issuerClaimClaimsTreeRoot <== issuerClaimClaimsTreeRoot;
    credential.issuerClaimRevTreeRoot <== issuerClaimRevTreeRoot;
    credential.issuerClaimRootsTreeRoot <== issuerClaimRootsTreeRoot;
    credential.issuerClaimIdenState <== issuerClaimIdenState;
    credential.issuerAuthClaim <== issuerAuthClaim;
    credential.issuerAuthClaimMtp <== issuerAuthClaimMtp;
    credential.issuerAuthClaimsTreeRoot <== issuerAuthClaimsTreeRoot;
    credential.issuerAuthRevTreeRoot <== issuerAuthRevTreeRoot;
    credential.issuerAuthRootsTreeRoot <== issuerAuthRootsTreeRoot;
    credential.issuerAuthState <== issuerAuthState;
    credential.issuerAuthClaimNonRevMtp <== issuerAuthClaimNonRevMtp;
    credential.issuerAuthClaimNonRevMtpNoAux <== issuerAuthClaimNonRevMtpNoAux;
    credential.issuerAuthClaimNonRevMtpAuxHi <== issuerAuthClaimNonRevMtpAuxHi;
    credential.issuerAuthClaimNonRevMtpAuxHv <== issuerAuthClaimNonRevMtpAuxHv;
    credential.issuerClaimSignatureR8x <== issuerClaimSignatureR8x;
    credential.issuerClaimSignatureR8y <== issuerClaimSignatureR8y;
    credential.issuerClaimSignatureS <== issuerClaimSignatureS;
    credential.linkNonce <== linkNonce;
    credential.verifierID <== verifierID;
    credential.nullifierSessionID <== nullifierSessionID;

    userID <== credential.userID;
    issuerState <== credential.issuerState;
    linkID <== credential.linkID;
    nullifier <== credential.nullifier;
    operatorOutput <== credential.operatorOutput;

    /* Ownership of the identity, unless it has no BJJ key (then it presents its genesis id). */
    isBJJAuthEnabled * (isBJJAuthEnabled - 1) === 0;
    (1 - isBJJAuthEnabled) * profileNonce === 0;

    AuthV3CheckIf(idOwnershipLevels, onChainLevels)(
        isBJJAuthEnabled,
        userGenesisID, credential.idGenesis, credential.idChecksum, credential.idComputedChecksum,
        userState, userClaimsTreeRoot, userRevTreeRoot, userRootsTreeRoot,
        authClaim, authClaimIncMtp, authClaimNonRevMtp,
        authClaimNonRevMtpNoAux, authClaimNonRevMtpAuxHi, authClaimNonRevMtpAuxHv,
        challenge, challengeSignatureR8x, challengeSignatureR8y, challengeSignatureS,
        gistRoot, gistMtp, gistMtpAuxHi, gistMtpAuxHv, gistMtpNoAux
    );

    /* The query, committed to. */
    circuitQueryHash <== QueryHashV3(maxValueArraySize)(
        value, claimSchema, slotIndex, operator, claimPathKey, valueArraySize,
        credential.merklized, isRevocationChecked, verifierID, nullifierSessionID
    );
}
