pragma circom 2.1.5;

// Identity ids and states, laid out as @iden3/js-iden3-core builds them.
//
// An id is 31 bytes read as a little-endian number: 2 bytes of type, 27 bytes of genesis and a
// 2-byte checksum (the sum of the type and genesis bytes). A genesis id takes its genesis part
// from the 27 most significant bytes of the 32-byte little-endian identity state; a profile id
// takes it from the 27 least significant bytes of Poseidon(genesis id, nonce).

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";

// Splits an id into its type and genesis parts. Ids are below 2^248, so a 248-bit decomposition is
// unique and the prover cannot substitute an aliased one.
template IdParts() {
    signal input id;
    signal output typ;
    // Sum of the two type bytes: the type's share of a checksum.
    signal output typByteSum;
    signal output genesis;

    signal bits[248] <== Num2Bits(248)(id);

    var typValue = 0;
    var typBytes = 0;
    for (var i = 0; i < 16; i++) {
        typValue += bits[i] * (1 << i);
        typBytes += bits[i] * (1 << (i % 8));
    }
    var genesisValue = 0;
    for (var i = 0; i < 216; i++) {
        genesisValue += bits[16 + i] * (1 << i);
    }
    typ <== typValue;
    typByteSum <== typBytes;
    genesis <== genesisValue;
}

// 1 when `state` is the genesis state the id was derived from (id genesis part = state >> 40).
template IsGenesisState() {
    signal input idGenesis;
    signal input state;
    signal output out;

    // Strict decomposition: a state is any field element, and an aliased decomposition
    // (state + p) would otherwise let the prover claim any genesis part.
    signal bits[254] <== Num2Bits_strict()(state);
    var stateGenesis = 0;
    for (var i = 40; i < 254; i++) {
        stateGenesis += bits[i] * (1 << (i - 40));
    }
    out <== IsEqual()([idGenesis, stateGenesis]);
}

// The id a holder presents for `nonce`: the genesis id itself for nonce 0, otherwise the profile id
// Id.profileId(genesisId, nonce) of js-iden3-core (same type, genesis = low 27 bytes of
// Poseidon(genesisId, nonce), checksum recomputed).
template SelectProfile() {
    signal input genesisId;
    signal input typ;
    signal input typByteSum;
    signal input nonce;
    signal output out;

    signal hash <== Poseidon(2)([genesisId, nonce]);
    // Strict, otherwise the prover could pick the low bytes of hash + p.
    signal hashBits[254] <== Num2Bits_strict()(hash);

    var genesis = 0;
    var genesisBytes = 0;
    for (var i = 0; i < 216; i++) {
        genesis += hashBits[i] * (1 << i);
        genesisBytes += hashBits[i] * (1 << (i % 8));
    }
    signal profileId <== typ + genesis * (1 << 16) + (typByteSum + genesisBytes) * (1 << 232);

    signal isGenesis <== IsZero()(nonce);
    out <== isGenesis * (genesisId - profileId) + profileId;
}

// An identity state commits to its three tree roots.
template StateMatchesRoots() {
    signal input claimsTreeRoot;
    signal input revTreeRoot;
    signal input rootsTreeRoot;
    signal input state;

    signal computed <== Poseidon(3)([claimsTreeRoot, revTreeRoot, rootsTreeRoot]);
    computed === state;
}
