// The number-theoretic transform over Fr on a domain of size n = 2^k, with snarkjs's roots.
//
// snarkjs (ffjavascript) takes nqr, the smallest quadratic non-residue mod r (5 for BN254's r),
// w[28] = nqr^t where r - 1 = 2^28 * t, and w[i] = w[i+1]^2, so w[i] is a primitive 2^i-th root
// of unity. Its FFT of size 2^k evaluates at w[k]^0, w[k]^1, ...; the Groth16 prover evaluates
// the quotient on the coset w[k+1] * <w[k]> (the odd powers of w[k+1]), which is where the H
// points of a .zkey are set. The same roots are used here, so evaluations line up with them.
#pragma once

#include <cstddef>
#include <vector>

#include "bn254.hpp"

namespace vcg {

// The primitive 2^k-th root of unity snarkjs uses (k <= 28).
Fr root_of_unity(unsigned k);

// Moves polynomials' evaluations on the domain <w> (n = 2^k points, w = root_of_unity(k)) to
// their evaluations on the coset shift * <w>: the inverse transform (coefficients), coefficient j
// times shift^j, the forward transform. Built once for n and shift (its tables are shared by the
// polynomials it moves, read only, so one object serves several threads at once).
//
// The two transforms need no bit-reversal permutation: the inverse one is a decimation in
// frequency (Gentleman-Sande butterflies), which takes its input in natural order and leaves the
// coefficients in bit-reversed order (coefficient j at position rev(j)); the forward one is a
// decimation in time (Cooley-Tukey butterflies), which takes its input in bit-reversed order and
// gives the evaluations in natural order. In between, position i is multiplied by
// shift^rev(i) / n (the 1/n of the inverse transform folded in), from a table in that order.
class CosetTransform {
 public:
  CosetTransform(std::size_t n, const Fr& shift);
  // values (n of them): evaluations on <w> in, evaluations on shift * <w> out.
  void apply(std::vector<Fr>& values) const;

 private:
  std::size_t n_;
  // Twiddles per butterfly stage, each stage's contiguous: stage half (butterflies half apart,
  // half = 1, 2, 4, ..., n/2) at [half, 2*half): w_(2 half)^j for j < half, w_m the m-th root.
  std::vector<Fr> forward_, inverse_;
  std::vector<Fr> scale_;  // scale_[i] = shift^rev(i) / n
};

}  // namespace vcg
