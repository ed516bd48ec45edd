pragma circom 2.1.5;

// iden3 claims (@iden3/js-iden3-core Claim): 8 slots, index i_0..i_3 then value v_0..v_3.
//   i_0: schema hash (128 bits) | flags (32 bits) | version (32 bits) | reserved
//        flags byte 0: bits 0-2 subject position (0 self, 2 id in i_1, 3 id in v_1),
//        bit 3 expiration set, bit 4 updatable, bits 5-7 merklized root (1 in i_2, 2 in v_2)
//   v_0: revocation nonce (64 bits) | expiration unix time (64 bits) | reserved
// A claim sits in a claims tree under key Poseidon(i_0..i_3) with value Poseidon(v_0..v_3); it is
// revoked when its revocation nonce is a key of the issuer's revocation tree.

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/smt/smtverifier.circom";
include "ids.circom";

// Schema hash and first flags byte of slot i_0.
template ClaimHeader() {
    signal input slot0;
    signal output schema;
    signal output flags[8];

    // 253 bits: unique (2^253 < p) and covers every defined field; a claim with reserved top bits
    // set is not a valid claim and is rejected.
    signal bits[253] <== Num2Bits(253)(slot0);
    var schemaValue = 0;
    for (var i = 0; i < 128; i++) {
        schemaValue += bits[i] * (1 << i);
    }
    schema <== schemaValue;
    for (var i = 0; i < 8; i++) {
        flags[i] <== bits[128 + i];
    }
}

// Revocation nonce and expiration time of slot v_0.
template ClaimRevNonceAndExpiration() {
    signal input slot4;
    signal output revNonce;
    signal output expiration;

    signal bits[253] <== Num2Bits(253)(slot4);
    var nonce = 0;
    var expiry = 0;
    for (var i = 0; i < 64; i++) {
        nonce += bits[i] * (1 << i);
        expiry += bits[64 + i] * (1 << i);
    }
    revNonce <== nonce;
    expiration <== expiry;
}

// The id a claim is about: i_1 for subject position 2, v_1 for 3. Self claims (0) and invalid
// positions have no other subject and are rejected.
template ClaimSubjectId() {
    signal input claim[8];
    signal input flags[8];
    signal output id;

    // position = flags[0] + 2 flags[1] + 4 flags[2]; 2 -> (0,1,0), 3 -> (1,1,0)
    flags[1] === 1;
    flags[2] === 0;
    signal inIndex <== 1 - flags[0];
    id <== inIndex * (claim[1] - claim[5]) + claim[5];
}

// Whether the claim is merklized and the root of its JSON-LD document.
template ClaimMerklizedRoot() {
    signal input claim[8];
    signal input flags[8];
    signal output merklized;
    signal output root;

    // Only "none" (000), "index" (100) and "value" (010) are defined for bits 5-7.
    flags[7] === 0;
    flags[5] * flags[6] === 0;
    merklized <== flags[5] + flags[6];
    signal rootInIndex <== flags[5] * claim[2];
    root <== rootInIndex + flags[6] * claim[6];
}

// Claim not expired at `timestamp` (unix seconds) when its expiration flag is set.
template ClaimNotExpired() {
    signal input expirationFlag;
    signal input expiration;
    signal input timestamp;

    // The public timestamp must be a 64-bit time for the comparison to mean anything.
    signal timestampBits[64] <== Num2Bits(64)(timestamp);
    signal notExpired <== LessEqThan(64)([timestamp, expiration]);
    expirationFlag * (1 - notExpired) === 0;
}

// Key (hash of the index) and value (hash of the value) of a claim's leaf.
template ClaimLeaf() {
    signal input claim[8];
    signal output hi;
    signal output hv;

    hi <== Poseidon(4)([claim[0], claim[1], claim[2], claim[3]]);
    hv <== Poseidon(4)([claim[4], claim[5], claim[6], claim[7]]);
}

// The leaf (key, value) is in the tree with root `root`.
template LeafInTree(levels) {
    signal input key;
    signal input value;
    signal input root;
    signal input mtp[levels];

    component smt = SMTVerifier(levels);
    smt.enabled <== 1;
    smt.fnc <== 0;
    smt.root <== root;
    smt.siblings <== mtp;
    smt.oldKey <== 0;
    smt.oldValue <== 0;
    smt.isOld0 <== 0;
    smt.key <== key;
    smt.value <== value;
}

// The claim is a leaf of the claims tree with root `claimsTreeRoot`.
template ClaimInClaimsTree(levels) {
    signal input claim[8];
    signal input claimsTreeRoot;
    signal input mtp[levels];

    component leaf = ClaimLeaf();
    leaf.claim <== claim;

    component inTree = LeafInTree(levels);
    inTree.key <== leaf.hi;
    inTree.value <== leaf.hv;
    inTree.root <== claimsTreeRoot;
    inTree.mtp <== mtp;
}

// The revocation nonce is not a key of the revocation tree (checked only when enabled).
// The auxiliary node is the leaf met on the nonce's path, if any (noAux = 1 when the path ends empty).
template RevNonceNotRevoked(levels) {
    signal input enabled;
    signal input revNonce;
    signal input revTreeRoot;
    signal input mtp[levels];
    signal input mtpNoAux;
    signal input mtpAuxHi;
    signal input mtpAuxHv;

    mtpNoAux * (mtpNoAux - 1) === 0;

    component smt = SMTVerifier(levels);
    smt.enabled <== enabled;
    smt.fnc <== 1;
    smt.root <== revTreeRoot;
    smt.siblings <== mtp;
    smt.oldKey <== mtpAuxHi;
    smt.oldValue <== mtpAuxHv;
    smt.isOld0 <== mtpNoAux;
    smt.key <== revNonce;
    smt.value <== 0;
}

// The issuer's claim is in the issuer's claims tree at state `issuerState`, and (when
// `isRevocationChecked`) its revocation nonce is absent from the revocation tree of the
// non-revocation state `nonRevState`. Both states must commit to the roots given for them.
template ClaimIssuedAndNotRevoked(levels) {
    signal input claim[8];
    signal input revNonce;

    signal input claimMtp[levels];
    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;
    signal input issuerState;

    signal input isRevocationChecked;
    signal input nonRevMtp[levels];
    signal input nonRevMtpNoAux;
    signal input nonRevMtpAuxHi;
    signal input nonRevMtpAuxHv;
    signal input nonRevClaimsTreeRoot;
    signal input nonRevRevTreeRoot;
    signal input nonRevRootsTreeRoot;
    signal input nonRevState;

    component issued = ClaimInClaimsTree(levels);
    issued.claim <== claim;
    issued.claimsTreeRoot <== claimsTreeRoot;
    issued.mtp <== claimMtp;

    component issuanceState = StateMatchesRoots();
    issuanceState.claimsTreeRoot <== claimsTreeRoot;
    issuanceState.revTreeRoot <== revTreeRoot;
    issuanceState.rootsTreeRoot <== rootsTreeRoot;
    issuanceState.state <== issuerState;

    component notRevoked = RevNonceNotRevoked(levels);
    notRevoked.enabled <== isRevocationChecked;
    notRevoked.revNonce <== revNonce;
    notRevoked.revTreeRoot <== nonRevRevTreeRoot;
    notRevoked.mtp <== nonRevMtp;
    notRevoked.mtpNoAux <== nonRevMtpNoAux;
    notRevoked.mtpAuxHi <== nonRevMtpAuxHi;
    notRevoked.mtpAuxHv <== nonRevMtpAuxHv;

    // Always checked: the non-revocation state is public and the verifier checks it on chain.
    component nonRevStateRoots = StateMatchesRoots();
    nonRevStateRoots.claimsTreeRoot <== nonRevClaimsTreeRoot;
    nonRevStateRoots.revTreeRoot <== nonRevRevTreeRoot;
    nonRevStateRoots.rootsTreeRoot <== nonRevRootsTreeRoot;
    nonRevStateRoots.state <== nonRevState;
}
