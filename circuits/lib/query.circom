pragma circom 2.1.5;

// The query of an atomic query circuit: which value of the claim it is about (a slot, or a path of
// the merklized JSON-LD document), the operator check, and the query hash the verifier compares
// with its request.

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/mux3.circom";
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/smt/smtverifier.circom";

// a < b for field elements taken as integers in [0, p), the order the js-sdk compares query values
// in. circomlib's LessThan(252) alone is only meaningful below 2^252, so the top two bits are
// compared separately.
template FieldLessThan() {
    signal input in[2];
    signal output out;

    signal aBits[254] <== Num2Bits_strict()(in[0]);
    signal bBits[254] <== Num2Bits_strict()(in[1]);

    var aLow = 0;
    var bLow = 0;
    for (var i = 0; i < 252; i++) {
        aLow += aBits[i] * (1 << i);
        bLow += bBits[i] * (1 << i);
    }
    signal aHigh <== aBits[252] + 2 * aBits[253];
    signal bHigh <== bBits[252] + 2 * bBits[253];

    signal lowLess <== LessThan(252)([aLow, bLow]);
    signal highLess <== LessThan(2)([aHigh, bHigh]);
    signal highEqual <== IsEqual()([aHigh, bHigh]);
    out <== highLess + highEqual * lowLess;
}

// 1 when `in` is one of `values`.
template IsInSet(size) {
    signal input in;
    signal input values[size];
    signal output out;

    signal isEqual[size];
    var matches = 0;
    for (var i = 0; i < size; i++) {
        isEqual[i] <== IsEqual()([in, values[i]]);
        matches += isEqual[i];
    }
    signal noMatch <== IsZero()(matches);
    out <== 1 - noMatch;
}

// Operator codes of the js-sdk (QueryOperators): $noop 0, $eq 1, $lt 2, $gt 3, $in 4, $nin 5,
// $ne 6. Scalar operators compare with values[0]; $in/$nin look at the whole (zero-padded) array.
// Any other operator fails.
template QueryOperator(valueArraySize) {
    signal input in;
    signal input values[valueArraySize];
    signal input operator;
    signal output out;

    signal equal <== IsEqual()([in, values[0]]);
    signal less <== FieldLessThan()([in, values[0]]);
    signal greater <== FieldLessThan()([values[0], in]);
    signal inSet <== IsInSet(valueArraySize)(in, values);

    signal operatorBits[3] <== Num2Bits(3)(operator);
    component select = Mux3();
    select.c[0] <== 1;
    select.c[1] <== equal;
    select.c[2] <== less;
    select.c[3] <== greater;
    select.c[4] <== inSet;
    select.c[5] <== 1 - inSet;
    select.c[6] <== 1 - equal;
    select.c[7] <== 0;
    select.s <== operatorBits;
    out <== select.out;
}

// Value of claim slot `slotIndex` (0..7). With `enabled` = 0 the index is not constrained.
template ClaimSlotValue() {
    signal input enabled;
    signal input claim[8];
    signal input slotIndex;
    signal output out;

    var selected = 0;
    var value = 0;
    signal isSlot[8];
    signal picked[8];
    for (var i = 0; i < 8; i++) {
        isSlot[i] <== IsEqual()([slotIndex, i]);
        picked[i] <== isSlot[i] * claim[i];
        selected += isSlot[i];
        value += picked[i];
    }
    enabled * (1 - selected) === 0;
    out <== value;
}

// `claimPathValue` is at `claimPathKey` in the merklized document with root `root`, or (when
// `claimPathNotExists`) nothing is at that path. Checked only when enabled.
template ValueAtMerklizedPath(levels) {
    signal input enabled;
    signal input root;
    signal input claimPathNotExists;
    signal input claimPathMtp[levels];
    signal input claimPathMtpNoAux;
    signal input claimPathMtpAuxHi;
    signal input claimPathMtpAuxHv;
    signal input claimPathKey;
    signal input claimPathValue;

    claimPathNotExists * (claimPathNotExists - 1) === 0;
    claimPathMtpNoAux * (claimPathMtpNoAux - 1) === 0;

    component smt = SMTVerifier(levels);
    smt.enabled <== enabled;
    smt.fnc <== claimPathNotExists;
    smt.root <== root;
    smt.siblings <== claimPathMtp;
    smt.oldKey <== claimPathMtpAuxHi;
    smt.oldValue <== claimPathMtpAuxHv;
    smt.isOld0 <== claimPathMtpNoAux;
    smt.key <== claimPathKey;
    smt.value <== claimPathValue;
}

// Poseidon sponge over `size` inputs with a frame of `frame` elements, as
// Poseidon.spongeHashX (js-crypto) and SpongePoseidon (iden3 contracts) compute it: the first frame
// takes `frame` inputs, every next one the previous hash then `frame - 1` inputs, zero-padded.
template SpongeHash(size, frame) {
    signal input in[size];
    signal output out;

    var rounds = 1;
    if (size > frame) {
        rounds = 1 + (size - frame + frame - 2) \ (frame - 1);
    }
    component hashes[rounds];
    for (var r = 0; r < rounds; r++) {
        hashes[r] = Poseidon(frame);
        for (var k = 0; k < frame; k++) {
            var index = r == 0 ? k : frame + (r - 1) * (frame - 1) + (k - 1);
            if (r > 0 && k == 0) {
                hashes[r].inputs[0] <== hashes[r - 1].out;
            } else if (index < size) {
                hashes[r].inputs[k] <== in[index];
            } else {
                hashes[r].inputs[k] <== 0;
            }
        }
    }
    out <== hashes[rounds - 1].out;
}

// The query hash a verifier puts in its request (js-sdk calculateQueryHashV2): Poseidon of the
// schema, slot index, operator, claim path key, claimPathNotExists and the sponge hash of the
// 64 values.
template QueryHashV2(valueArraySize) {
    signal input claimSchema;
    signal input slotIndex;
    signal input operator;
    signal input claimPathKey;
    signal input claimPathNotExists;
    signal input values[valueArraySize];
    signal output out;

    signal valuesHash <== SpongeHash(valueArraySize, 6)(values);
    out <== Poseidon(6)([claimSchema, slotIndex, operator, claimPathKey, claimPathNotExists, valuesHash]);
}
