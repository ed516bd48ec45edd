pragma circom 2.1.5;

// credentialAtomicQueryMTPV2OnChain: the holder of an identity proves, for an on-chain verifier,
// that a credential issued to them (to their genesis id or one of their profiles) satisfies a query,
// without revealing the credential. The issuer's claim is proven by a Merkle tree proof against the
// issuer's published state.
//
// Inputs are named as @0xpolygonid/js-sdk AtomicQueryMTPV2OnChainInputs.inputsMarshal writes them.
// Public signals, in the order CredentialAtomicQueryMTPV2Validator reads them:
//   0 merklized, 1 userID, 2 circuitQueryHash, 3 requestID, 4 challenge, 5 gistRoot, 6 issuerID,
//   7 issuerClaimIdenState, 8 isRevocationChecked, 9 issuerClaimNonRevState, 10 timestamp
// (outputs first, then public inputs in declaration order).

include "circomlib/circuits/bitify.circom";
include "lib/ids.circom";
include "lib/claims.circom";
include "lib/ownership.circom";
include "lib/query.circom";

template CredentialAtomicQueryMTPV2OnChain(issuerLevels, claimLevels, valueArraySize, idOwnershipLevels, gistLevels) {
    // 1 when the claim is merklized and the query is about a path of its JSON-LD document
    signal output merklized;
    // the holder's id for this verifier: the genesis id, or the profile id for profileNonce
    signal output userID;
    signal output circuitQueryHash;

    signal input requestID;

    // holder identity
    signal input userGenesisID;
    signal input profileNonce;
    signal input claimSubjectProfileNonce;

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
    signal input gistMtp[gistLevels];
    signal input gistMtpAuxHi;
    signal input gistMtpAuxHv;
    signal input gistMtpNoAux;

    // issuer and claim
    signal input issuerID;
    signal input issuerClaim[8];
    signal input issuerClaimMtp[issuerLevels];
    signal input issuerClaimClaimsTreeRoot;
    signal input issuerClaimRevTreeRoot;
    signal input issuerClaimRootsTreeRoot;
    signal input issuerClaimIdenState;

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

    // query
    signal input claimSchema;
    signal input claimPathNotExists;
    signal input claimPathMtp[claimLevels];
    signal input claimPathMtpNoAux;
    signal input claimPathMtpAuxHi;
    signal input claimPathMtpAuxHv;
    signal input claimPathKey;
    signal input claimPathValue;
    signal input slotIndex;
    signal input operator;
    signal input value[valueArraySize];

    // issuerID is bound by the verifier (allowed issuers, state of issuerID on chain); requestID
    // only ties the proof to a request. Neither takes part in a constraint.
    isRevocationChecked * (isRevocationChecked - 1) === 0;

    /* The holder owns the identity and its state is current. */
    component userId = IdParts();
    userId.id <== userGenesisID;

    component ownership = IdentityOwnership(idOwnershipLevels);
    ownership.state <== userState;
    ownership.claimsTreeRoot <== userClaimsTreeRoot;
    ownership.revTreeRoot <== userRevTreeRoot;
    ownership.rootsTreeRoot <== userRootsTreeRoot;
    ownership.authClaim <== authClaim;
    ownership.authClaimIncMtp <== authClaimIncMtp;
    ownership.authClaimNonRevMtp <== authClaimNonRevMtp;
    ownership.authClaimNonRevMtpNoAux <== authClaimNonRevMtpNoAux;
    ownership.authClaimNonRevMtpAuxHi <== authClaimNonRevMtpAuxHi;
    ownership.authClaimNonRevMtpAuxHv <== authClaimNonRevMtpAuxHv;
    ownership.challenge <== challenge;
    ownership.signatureR8x <== challengeSignatureR8x;
    ownership.signatureR8y <== challengeSignatureR8y;
    ownership.signatureS <== challengeSignatureS;

    component gist = StateInGist(gistLevels);
    gist.genesisId <== userGenesisID;
    gist.idGenesis <== userId.genesis;
    gist.state <== userState;
    gist.gistRoot <== gistRoot;
    gist.gistMtp <== gistMtp;
    gist.gistMtpNoAux <== gistMtpNoAux;
    gist.gistMtpAuxHi <== gistMtpAuxHi;
    gist.gistMtpAuxHv <== gistMtpAuxHv;

    userID <== SelectProfile()(userGenesisID, userId.typ, userId.typByteSum, profileNonce);

    /* The issuer issued the claim and has not revoked it. */
    component header = ClaimHeader();
    header.slot0 <== issuerClaim[0];

    component nonceAndExpiry = ClaimRevNonceAndExpiration();
    nonceAndExpiry.slot4 <== issuerClaim[4];

    component issuance = ClaimIssuedAndNotRevoked(issuerLevels);
    issuance.claim <== issuerClaim;
    issuance.revNonce <== nonceAndExpiry.revNonce;
    issuance.claimMtp <== issuerClaimMtp;
    issuance.claimsTreeRoot <== issuerClaimClaimsTreeRoot;
    issuance.revTreeRoot <== issuerClaimRevTreeRoot;
    issuance.rootsTreeRoot <== issuerClaimRootsTreeRoot;
    issuance.issuerState <== issuerClaimIdenState;
    issuance.isRevocationChecked <== isRevocationChecked;
    issuance.nonRevMtp <== issuerClaimNonRevMtp;
    issuance.nonRevMtpNoAux <== issuerClaimNonRevMtpNoAux;
    issuance.nonRevMtpAuxHi <== issuerClaimNonRevMtpAuxHi;
    issuance.nonRevMtpAuxHv <== issuerClaimNonRevMtpAuxHv;
    issuance.nonRevClaimsTreeRoot <== issuerClaimNonRevClaimsTreeRoot;
    issuance.nonRevRevTreeRoot <== issuerClaimNonRevRevTreeRoot;
    issuance.nonRevRootsTreeRoot <== issuerClaimNonRevRootsTreeRoot;
    issuance.nonRevState <== issuerClaimNonRevState;

    /* The claim is about the holder, of the requested schema, and not expired. */
    component subject = ClaimSubjectId();
    subject.claim <== issuerClaim;
    subject.flags <== header.flags;
    signal subjectProfile <== SelectProfile()(userGenesisID, userId.typ, userId.typByteSum, claimSubjectProfileNonce);
    subject.id === subjectProfile;

    header.schema === claimSchema;

    component notExpired = ClaimNotExpired();
    notExpired.expirationFlag <== header.flags[3];
    notExpired.expiration <== nonceAndExpiry.expiration;
    notExpired.timestamp <== timestamp;

    /* The query holds on the claim slot, or on the value at the merklized path. */
    component merklizedRoot = ClaimMerklizedRoot();
    merklizedRoot.claim <== issuerClaim;
    merklizedRoot.flags <== header.flags;
    merklized <== merklizedRoot.merklized;

    component pathValue = ValueAtMerklizedPath(claimLevels);
    pathValue.enabled <== merklized;
    pathValue.root <== merklizedRoot.root;
    pathValue.claimPathNotExists <== claimPathNotExists;
    pathValue.claimPathMtp <== claimPathMtp;
    pathValue.claimPathMtpNoAux <== claimPathMtpNoAux;
    pathValue.claimPathMtpAuxHi <== claimPathMtpAuxHi;
    pathValue.claimPathMtpAuxHv <== claimPathMtpAuxHv;
    pathValue.claimPathKey <== claimPathKey;
    pathValue.claimPathValue <== claimPathValue;

    signal slotValue <== ClaimSlotValue()(1 - merklized, issuerClaim, slotIndex);
    signal queriedValue <== merklized * (claimPathValue - slotValue) + slotValue;

    signal queryHolds <== QueryOperator(valueArraySize)(queriedValue, value, operator);
    queryHolds === 1;

    circuitQueryHash <== QueryHashV2(valueArraySize)(claimSchema, slotIndex, operator, claimPathKey, claimPathNotExists, value);
}

component main {public [requestID, challenge, gistRoot, issuerID, issuerClaimIdenState, isRevocationChecked, issuerClaimNonRevState, timestamp]} = CredentialAtomicQueryMTPV2OnChain(40, 32, 64, 40, 64);
