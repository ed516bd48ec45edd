pragma circom 2.1.5;

// The credential part of the V3 atomic query circuits (credentialAtomicQueryV3 and its on-chain
// variant): a claim issued to the holder (their genesis id or one of their profiles), of the
// requested schema, unexpired, issued by the issuer either with a BJJ signature of an auth key in
// the issuer's state (proofType 1, BJJSignature2021) or as a leaf of the issuer's claims tree
// (proofType 2, Iden3SparseMerkleTreeProof), optionally not revoked, and satisfying the query. It
// also derives the holder's presented id, the link id and the nullifier.

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/smt/smtverifier.circom";
include "authV3.circom";
include "claimsV3.circom";
include "ids.circom";
include "ownership.circom";
include "queryV3.circom";

// (a, b) chosen by `select` (0 -> a, 1 -> b); select must be 0 or 1.
template Pick() {
    signal input select;
    signal input in[2];
    signal output out;

    out <== select * (in[1] - in[0]) + in[0];
}

// 0 when the link nonce is 0 (no linking), else Poseidon(claim hash, nonce): equal for proofs of
// the same claim with the same nonce (linked proofs).
template LinkIdOf() {
    signal input claimHash;
    signal input linkNonce;
    signal output out;

    signal noLink <== IsZero()(linkNonce);
    signal hash <== Poseidon(2)([claimHash, linkNonce]);
    out <== (1 - noLink) * hash;
}

// Sybil-resistant id of the holder for a verifier's session: Poseidon(genesis id, subject profile
// nonce, schema, verifier id, session id), or 0 when the profile nonce, the verifier id or the
// session id is 0.
template NullifierOf() {
    signal input genesisID;
    signal input claimSubjectProfileNonce;
    signal input claimSchema;
    signal input verifierID;
    signal input nullifierSessionID;
    signal output out;

    signal noProfile <== IsZero()(claimSubjectProfileNonce);
    signal noVerifier <== IsZero()(verifierID);
    signal noSession <== IsZero()(nullifierSessionID);
    signal bothSet <== (1 - noProfile) * (1 - noVerifier);
    signal allSet <== bothSet * (1 - noSession);
    signal hash <== Poseidon(5)([genesisID, claimSubjectProfileNonce, claimSchema, verifierID, nullifierSessionID]);
    out <== allSet * hash;
}

template CredentialV3(issuerLevels, claimLevels, maxValueArraySize) {
    signal input proofType;
    signal input userGenesisID;
    signal input profileNonce;
    signal input claimSubjectProfileNonce;

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

    // proofType 2
    signal input issuerClaimMtp[issuerLevels];
    signal input issuerClaimClaimsTreeRoot;
    signal input issuerClaimRevTreeRoot;
    signal input issuerClaimRootsTreeRoot;
    signal input issuerClaimIdenState;

    // proofType 1
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

    signal input linkNonce;
    signal input verifierID;
    signal input nullifierSessionID;

    signal output merklized;
    signal output userID;
    // the issuer state the verifier checks: the auth claim's state (1) or the claim's (2)
    signal output issuerState;
    signal output linkID;
    signal output nullifier;
    signal output operatorOutput;
    // parts of userGenesisID, for the on-chain circuit's ownership check
    signal output idGenesis;
    signal output idChecksum;
    signal output idComputedChecksum;

    /* The holder's ids. */
    component id = IdPartsWithChecksum();
    id.id <== userGenesisID;
    idGenesis <== id.genesis;
    idChecksum <== id.checksum;
    idComputedChecksum <== id.computedChecksum;

    userID <== SelectProfile()(userGenesisID, id.typ, id.typByteSum, profileNonce);

    /* The claim: about the holder, of the schema, unexpired. */
    component header = ClaimSchemaAndFlags();
    header.slot0 <== issuerClaim[0];
    component v0 = ClaimNonceAndExpiry();
    v0.slot4 <== issuerClaim[4];

    signal subject <== ClaimSubjectOrZero()(issuerClaim, header.flags);
    signal subjectProfile <== SelectProfile()(userGenesisID, id.typ, id.typByteSum, claimSubjectProfileNonce);
    subject === subjectProfile;

    header.schema === claimSchema;

    ClaimNotExpiredAt()(header.flags[3], v0.expiration, timestamp);

    /* Issuance. */
    signal isSig <== IsEqual()([proofType, 1]);
    signal isMtp <== IsEqual()([proofType, 2]);
    isSig + isMtp === 1;

    component claimHashes = ClaimHashes();
    claimHashes.claim <== issuerClaim;

    // proofType 1: the issuer's auth claim (not revoked in the non-revocation state's tree)
    // signed the claim.
    component authHeader = ClaimSchemaAndFlags();
    authHeader.slot0 <== issuerAuthClaim[0];
    EqualIf()(isSig, [authHeader.schema, authSchemaHash()]);
    signal authRevNonce <== ClaimNonce()(issuerAuthClaim[4]);
    KeyNotInTreeIf(issuerLevels)(isSig, authRevNonce, issuerClaimNonRevRevTreeRoot, issuerAuthClaimNonRevMtp, issuerAuthClaimNonRevMtpNoAux, issuerAuthClaimNonRevMtpAuxHi, issuerAuthClaimNonRevMtpAuxHv);
    SignedIf()(isSig, issuerAuthClaim[2], issuerAuthClaim[3], issuerClaimSignatureR8x, issuerClaimSignatureR8y, issuerClaimSignatureS, claimHashes.hash);

    // The leaf in the issuer's claims tree at `issuerState`: the auth claim (1) or the claim (2).
    component authLeaf = ClaimLeaf();
    authLeaf.claim <== issuerAuthClaim;
    signal leafHi <== Pick()(isSig, [claimHashes.hi, authLeaf.hi]);
    signal leafHv <== Pick()(isSig, [claimHashes.hv, authLeaf.hv]);
    signal leafMtp[issuerLevels];
    for (var i = 0; i < issuerLevels; i++) {
        leafMtp[i] <== Pick()(isSig, [issuerClaimMtp[i], issuerAuthClaimMtp[i]]);
    }
    signal claimsRoot <== Pick()(isSig, [issuerClaimClaimsTreeRoot, issuerAuthClaimsTreeRoot]);
    signal revRoot <== Pick()(isSig, [issuerClaimRevTreeRoot, issuerAuthRevTreeRoot]);
    signal rootsRoot <== Pick()(isSig, [issuerClaimRootsTreeRoot, issuerAuthRootsTreeRoot]);
    issuerState <== Pick()(isSig, [issuerClaimIdenState, issuerAuthState]);

    LeafInTreeIf(issuerLevels)(1, leafHi, leafHv, claimsRoot, leafMtp);
    StateMatchesRootsIf()(1, claimsRoot, revRoot, rootsRoot, issuerState);

    // Revocation: the claim's nonce is not in the non-revocation state's revocation tree, when
    // asked. That state must commit to its roots whenever one of its trees is used.
    isRevocationChecked * (isRevocationChecked - 1) === 0;
    KeyNotInTreeIf(issuerLevels)(isRevocationChecked, v0.revNonce, issuerClaimNonRevRevTreeRoot, issuerClaimNonRevMtp, issuerClaimNonRevMtpNoAux, issuerClaimNonRevMtpAuxHi, issuerClaimNonRevMtpAuxHv);
    signal nonRevStateUsed <== isSig + isRevocationChecked - isSig * isRevocationChecked;
    StateMatchesRootsIf()(nonRevStateUsed, issuerClaimNonRevClaimsTreeRoot, issuerClaimNonRevRevTreeRoot, issuerClaimNonRevRootsTreeRoot, issuerClaimNonRevState);

    /* The query. */
    component root = ClaimMerklizedRootV3();
    root.claim <== issuerClaim;
    root.flags <== header.flags;
    merklized <== root.merklized;

    operatorOutput <== QueryV3(claimLevels, maxValueArraySize)(
        issuerClaim, root.merklized, root.root,
        claimPathMtp, claimPathMtpNoAux, claimPathMtpAuxHi, claimPathMtpAuxHv, claimPathKey, claimPathValue,
        slotIndex, operator, value, valueArraySize
    );

    /* Link id and nullifier. */
    linkID <== LinkIdOf()(claimHashes.hash, linkNonce);
    nullifier <== NullifierOf()(userGenesisID, claimSubjectProfileNonce, claimSchema, verifierID, nullifierSessionID);
}
