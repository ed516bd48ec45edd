pragma circom 2.1.5;

// The query of the V3 atomic query circuits: the operators of the js-sdk's QueryOperators, the
// number of values each takes, the JSON-LD path proof, and the selective-disclosure output.
//
// Operators: 0 $noop, 1 $eq, 2 $lt, 3 $gt, 4 $in, 5 $nin, 6 $ne, 7 $lte, 8 $gte, 9 $between,
// 10 $nonbetween, 11 $exists; 16 $sd (modifier: the queried value becomes `operatorOutput`). Any
// other operator fails. Comparisons read field elements as integers in [0, p).

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/smt/smtverifier.circom";
include "query.circom";

// a < b for field elements as integers, from their strict (254-bit) decompositions: the top two
// bits compared apart, as circomlib's LessThan works below 2^252 only.
template LessThanBits() {
    signal input a[254];
    signal input b[254];
    signal output out;

    var aLow = 0;
    var bLow = 0;
    for (var i = 0; i < 252; i++) {
        aLow += a[i] * (1 << i);
        bLow += b[i] * (1 << i);
    }
    signal lowLess <== LessThan(252)([aLow, bLow]);
    signal highLess <== LessThan(2)([a[252] + 2 * a[253], b[252] + 2 * b[253]]);
    signal highEqual <== IsEqual()([a[252] + 2 * a[253], b[252] + 2 * b[253]]);
    out <== highLess + highEqual * lowLess;
}

// 1 when `in` equals one of the first `size` values. The position test is circomlib's 9-bit
// LessThan, so every size the array-size rule lets through (see QueryV3) reads as it does in the
// official circuits, a "negative" one (p - k) as no value at all.
template InFirstValues(maxValueArraySize) {
    signal input in;
    signal input values[maxValueArraySize];
    signal input size;
    signal output out;

    assert(maxValueArraySize <= 256);
    signal equal[maxValueArraySize];
    signal inRange[maxValueArraySize];
    signal counted[maxValueArraySize];
    var found = 0;
    for (var i = 0; i < maxValueArraySize; i++) {
        equal[i] <== IsEqual()([in, values[i]]);
        inRange[i] <== LessThan(9)([i, size]);
        counted[i] <== equal[i] * inRange[i];
        found += counted[i];
    }
    signal none <== IsZero()(found);
    out <== 1 - none;
}

// The operator as a one-hot selector over 0..15, its modifier bit (16..31) and the $sd flag.
template OperatorDecoder() {
    signal input operator;
    signal output isOp[16];
    signal output isModifier;
    signal output isSD;

    signal bits[5] <== Num2Bits(5)(operator);
    // Pairs of the two low bits and of the two next ones, multiplied.
    signal low[4];
    signal high[4];
    for (var k = 0; k < 4; k++) {
        var b0 = (k & 1) == 1 ? bits[0] : 1 - bits[0];
        var b1 = (k & 2) == 2 ? bits[1] : 1 - bits[1];
        var b2 = (k & 1) == 1 ? bits[2] : 1 - bits[2];
        var b3 = (k & 2) == 2 ? bits[3] : 1 - bits[3];
        low[k] <== b0 * b1;
        high[k] <== b2 * b3;
    }
    for (var k = 0; k < 16; k++) {
        isOp[k] <== high[k \ 4] * low[k % 4];
    }
    isModifier <== bits[4];
    isSD <== isModifier * isOp[0];
}

// The value-array size each operator requires: none for $noop and $sd, one for the scalar
// operators and $exists, two for $between/$nonbetween, 1..maxValueArraySize for $in/$nin.
// (circomlib's 8-bit LessThan bounds the size as in the official circuits.)
template ValueArraySizeOk(maxValueArraySize) {
    signal input isOp[16];
    signal input isModifier;
    signal input size;
    signal output out;

    assert(maxValueArraySize <= 256);
    signal isZero <== IsZero()(size);
    signal isOne <== IsEqual()([size, 1]);
    signal isTwo <== IsEqual()([size, 2]);
    signal notAboveMax <== LessThan(8)([size, maxValueArraySize + 1]);
    signal inRange <== (1 - isZero) * notAboveMax;

    var scalar = isOp[1] + isOp[2] + isOp[3] + isOp[6] + isOp[7] + isOp[8] + isOp[11];
    var none = isOp[0] + isOp[12] + isOp[13] + isOp[14] + isOp[15];
    signal forScalar <== scalar * isOne;
    signal forSet <== (isOp[4] + isOp[5]) * inRange;
    signal forRange <== (isOp[9] + isOp[10]) * isTwo;
    signal forNone <== none * isZero;
    signal queryOk <== forScalar + forSet + forRange + forNone;
    // modifiers (16..31) take no values
    out <== queryOk + isModifier * (isZero - queryOk);
}

// The query of a V3 circuit on the claim: the value it is about (claim slot `slotIndex`, or the
// value at `claimPathKey` in the merklized document `merklizedRoot`, proven by the path proof),
// the operator check, and `operatorOutput` (the value for $sd, else 0). Fails unless the operator
// holds (or is $sd) with the value-array size it requires.
template QueryV3(claimLevels, maxValueArraySize) {
    signal input claim[8];
    signal input merklized;
    signal input merklizedRoot;

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

    signal output operatorOutput;

    component op = OperatorDecoder();
    op.operator <== operator;

    // $exists: value[0] 1 asks for the path to be in the document, 0 for it to be absent; only a
    // merklized claim has paths.
    signal firstValueZero <== IsZero()(value[0]);
    signal existsAbsent <== op.isOp[11] * firstValueZero;
    op.isOp[11] * (1 - merklized) === 0;
    signal existsFlag <== op.isOp[11] * value[0];
    existsFlag * (value[0] - 1) === 0;

    // The path proof, for a merklized claim and any operator but $noop.
    component path = SMTVerifier(claimLevels);
    path.enabled <== merklized * (1 - op.isOp[0]);
    path.fnc <== existsAbsent;
    path.root <== merklizedRoot;
    path.siblings <== claimPathMtp;
    path.oldKey <== claimPathMtpAuxHi;
    path.oldValue <== claimPathMtpAuxHv;
    path.isOld0 <== claimPathMtpNoAux;
    path.key <== claimPathKey;
    path.value <== claimPathValue;

    signal slotValue <== ClaimSlot()(claim, slotIndex);
    signal fieldValue <== merklized * (claimPathValue - slotValue) + slotValue;

    // Comparisons with value[0] and value[1].
    signal inBits[254] <== Num2Bits_strict()(fieldValue);
    signal v0Bits[254] <== Num2Bits_strict()(value[0]);
    signal v1Bits[254] <== Num2Bits_strict()(value[1]);
    signal eq <== IsEqual()([fieldValue, value[0]]);
    signal lt <== LessThanBits()(inBits, v0Bits);
    signal aboveUpper <== LessThanBits()(v1Bits, inBits);
    // value[0] <= in <= value[1]
    signal between <== (1 - lt) * (1 - aboveUpper);
    signal inSet <== InFirstValues(maxValueArraySize)(fieldValue, value, valueArraySize);

    var holds[12];
    holds[0] = 1;
    holds[1] = eq;
    holds[2] = lt;
    holds[3] = 1 - lt - eq;
    holds[4] = inSet;
    holds[5] = 1 - inSet;
    holds[6] = 1 - eq;
    holds[7] = lt + eq;
    holds[8] = 1 - lt;
    holds[9] = between;
    holds[10] = 1 - between;
    holds[11] = 1;
    signal selected[12];
    var satisfied = 0;
    for (var k = 0; k < 12; k++) {
        selected[k] <== op.isOp[k] * holds[k];
        satisfied += selected[k];
    }
    // A query operator (0..15) must hold; 12..15 never do. Of the modifiers only $sd exists.
    satisfied * (1 - op.isModifier) + op.isSD === 1;

    signal sizeOk <== ValueArraySizeOk(maxValueArraySize)(op.isOp, op.isModifier, valueArraySize);
    sizeOk === 1;

    operatorOutput <== op.isSD * fieldValue;
}

// The query hash of the V3 circuits (js-sdk calculateQueryHashV3, the on-chain validators'
// request hash): Poseidon(Poseidon(schema, slotIndex, operator, claimPathKey, merklized,
// sponge(values)), valueArraySize, isRevocationChecked, verifierID, nullifierSessionID, 0).
template QueryHashV3(maxValueArraySize) {
    signal input value[maxValueArraySize];
    signal input claimSchema;
    signal input slotIndex;
    signal input operator;
    signal input claimPathKey;
    signal input valueArraySize;
    signal input merklized;
    signal input isRevocationChecked;
    signal input verifierID;
    signal input nullifierSessionID;
    signal output out;

    signal valuesHash <== SpongeHash(maxValueArraySize, 6)(value);
    signal queryPart <== Poseidon(6)([claimSchema, slotIndex, operator, claimPathKey, merklized, valuesHash]);
    out <== Poseidon(6)([queryPart, valueArraySize, isRevocationChecked, verifierID, nullifierSessionID, 0]);
}
