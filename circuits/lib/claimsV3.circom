pragma circom 2.1.5;

// Claim fields as the current generation of iden3 circuits (V3, authV3) reads them. Unlike the
// V2 templates of claims.circom, a slot is decomposed strictly (every field element has exactly
// one 254-bit decomposition), so any slot value is accepted and no part can be aliased: these
// circuits accept exactly the claims the official ones accept. Layout: see claims.circom.

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/mux3.circom";
include "circomlib/circuits/poseidon.circom";

// Schema hash (bits 0-127 of i_0) and the claim's flags (bits 128-159).
template ClaimSchemaAndFlags() {
    signal input slot0;
    signal output schema;
    signal output flags[32];

    signal bits[254] <== Num2Bits_strict()(slot0);
    var value = 0;
    for (var i = 0; i < 128; i++) {
        value += bits[i] * (1 << i);
    }
    schema <== value;
    for (var i = 0; i < 32; i++) {
        flags[i] <== bits[128 + i];
    }
}

// Revocation nonce (bits 0-63 of v_0) and expiration time (bits 64-127).
template ClaimNonceAndExpiry() {
    signal input slot4;
    signal output revNonce;
    signal output expiration;

    signal bits[254] <== Num2Bits_strict()(slot4);
    var nonce = 0;
    var expiry = 0;
    for (var i = 0; i < 64; i++) {
        nonce += bits[i] * (1 << i);
        expiry += bits[64 + i] * (1 << i);
    }
    revNonce <== nonce;
    expiration <== expiry;
}

// Revocation nonce only.
template ClaimNonce() {
    signal input slot4;
    signal output revNonce;

    signal bits[254] <== Num2Bits_strict()(slot4);
    var nonce = 0;
    for (var i = 0; i < 64; i++) {
        nonce += bits[i] * (1 << i);
    }
    revNonce <== nonce;
}

// Claim hash signed by issuers: Poseidon(hi, hv), with hi, hv the claim's tree key and value.
template ClaimHashes() {
    signal input claim[8];
    signal output hi;
    signal output hv;
    signal output hash;

    hi <== Poseidon(4)([claim[0], claim[1], claim[2], claim[3]]);
    hv <== Poseidon(4)([claim[4], claim[5], claim[6], claim[7]]);
    hash <== Poseidon(2)([hi, hv]);
}

// 1 when the three flag bits read as the number `position` (flags[0] least significant).
template FlagsEqual(position) {
    signal input flags[3];
    signal output out;

    // The product of the three bits or their complements, in two multiplications.
    var b0 = (position & 1) == 1 ? flags[0] : 1 - flags[0];
    var b1 = (position & 2) == 2 ? flags[1] : 1 - flags[1];
    var b2 = (position & 4) == 4 ? flags[2] : 1 - flags[2];
    signal low <== b0 * b1;
    out <== low * b2;
}

// The id a claim names as its subject: i_1 for subject position 2 (flag bits 0-2), v_1 for 3, and 0
// for every other position (self claims have no id to compare).
template ClaimSubjectOrZero() {
    signal input claim[8];
    signal input flags[32];
    signal output id;

    signal inIndex <== FlagsEqual(2)([flags[0], flags[1], flags[2]]);
    signal inValue <== FlagsEqual(3)([flags[0], flags[1], flags[2]]);
    signal fromIndex <== inIndex * claim[1];
    id <== fromIndex + inValue * claim[5];
}

// The merklized-root position (flag bits 5-7): 1 root in i_2, 2 root in v_2, 0 not merklized.
// `merklized` is 1 for every non-zero position, and the root is 0 for positions other than 1 and 2.
template ClaimMerklizedRootV3() {
    signal input claim[8];
    signal input flags[32];
    signal output merklized;
    signal output root;

    signal inIndex <== FlagsEqual(1)([flags[5], flags[6], flags[7]]);
    signal inValue <== FlagsEqual(2)([flags[5], flags[6], flags[7]]);
    signal notMerklized <== FlagsEqual(0)([flags[5], flags[6], flags[7]]);
    merklized <== 1 - notMerklized;
    signal fromIndex <== inIndex * claim[2];
    root <== fromIndex + inValue * claim[6];
}

// Value of slot `index`; the index must be 0..7 whatever the claim (checked always).
template ClaimSlot() {
    signal input claim[8];
    signal input index;
    signal output out;

    component select = Mux3();
    select.s <== Num2Bits(3)(index);
    select.c <== claim;
    out <== select.out;
}

// An expiring claim (flag 3 set) expires at or after `timestamp`. The timestamp must be a 64-bit
// number whether or not the claim expires.
template ClaimNotExpiredAt() {
    signal input expirationFlag;
    signal input expiration;
    signal input timestamp;

    signal timestampBits[64] <== Num2Bits(64)(timestamp);
    signal notExpired <== LessEqThan(64)([timestamp, expiration]);
    expirationFlag * (1 - notExpired) === 0;
}
