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

// In place: values[i] <- sum_j values[j] * w^(i*j) with w = root_of_unity(log2 n) (forward), or the
// inverse transform (w^-1 and a division by n). n = values.size() must be a power of two.
void ntt(std::vector<Fr>& values, bool inverse);

// In place: values[j] <- values[j] * g^j (moves a polynomial's evaluations onto the coset g*<w>).
void scale_by_powers(std::vector<Fr>& values, const Fr& g);

}  // namespace vcg
