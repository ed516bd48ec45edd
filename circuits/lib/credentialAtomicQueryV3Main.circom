pragma circom 2.1.5;

// credentialAtomicQueryV3: the holder proves, for an off-chain verifier, that a credential issued
// to them satisfies a query (lib/credentialV3.circom). The query itself is public, and the verifier
// compares it with its request.
//
// Inputs are named as @0xpolygonid/js-sdk AtomicQueryV3Inputs.inputsMarshal writes them. Public
// signals, in the order AtomicQueryV3PubSignals reads them (outputs, then the public inputs in
// declaration order):
//   merklized, userID, issuerState, linkID, nullifier, operatorOutput, proofType, requestID,
//   issuerID, isRevocationChecked, issuerClaimNonRevState, timestamp, claimSchema, claimPathKey,
//   slotIndex, operator, value[0..63], valueArraySize, verifierID, nullifierSessionID

include "credentialV3.circom";

template CredentialAtomicQueryV3(issuerLevels, claimLevels, maxValueArraySize) {
    signal output merklized;
    signal output userID;

    signal input proofType;
    // ties the proof to a request; no constraint
    signal input requestID;
    signal input userGenesisID;
    signal input profileNonce;
    signal input claimSubjectProfileNonce;

    // bound by the verifier (allowed issuers, issuer state); no constraint here
    signal input issuerID;
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
    signal input issuerClaim[8];

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

    merklized <== credential.merklized;
    userID <== credential.userID;
    issuerState <== credential.issuerState;
    linkID <== credential.linkID;
    nullifier <== credential.nullifier;
    operatorOutput <== credential.operatorOutput;
    // ownership is not proven off chain
    _ <== credential.idGenesis;
    _ <== credential.idChecksum;
    _ <== credential.idComputedChecksum;
}
