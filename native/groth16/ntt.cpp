#include "ntt.hpp"

#include <utility>

namespace vcg {

Fr root_of_unity(unsigned k) {
  // t = (r - 1) / 2^28
  U256 t{{FrParams::P[0] - 1, FrParams::P[1], FrParams::P[2], FrParams::P[3]}};
  for (int i = 0; i < 28; ++i) {
    for (int l = 0; l < 4; ++l) t.limb[l] = (t.limb[l] >> 1) | (l < 3 ? t.limb[l + 1] << 63 : 0);
  }
  // The smallest quadratic non-residue: x^((r-1)/2) = -1.
  U256 half{{FrParams::P[0] - 1, FrParams::P[1], FrParams::P[2], FrParams::P[3]}};
  for (int l = 0; l < 4; ++l) half.limb[l] = (half.limb[l] >> 1) | (l < 3 ? half.limb[l + 1] << 63 : 0);
  const Fr minus_one = -Fr::one();
  u64 candidate = 2;
  while (Fr::from_u64(candidate).pow(half) != minus_one) ++candidate;
  Fr w = Fr::from_u64(candidate).pow(t);  // order 2^28
  for (unsigned i = 28; i > k; --i) w = w.square();
  return w;
}

void scale_by_powers(std::vector<Fr>& values, const Fr& g) {
  Fr power = Fr::one();
  for (auto& v : values) {
    v *= power;
    power *= g;
  }
}

void ntt(std::vector<Fr>& values, bool inverse) {
  const std::size_t n = values.size();
  if (n <= 1) return;
  unsigned k = 0;
  while ((std::size_t(1) << k) < n) ++k;

  // Bit-reversal permutation, then iterative radix-2 decimation in time.
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(values[i], values[j]);
  }

  Fr w = root_of_unity(k);
  if (inverse) w = w.inverse();
  // twiddles[i] = w^i for i < n/2; a stage of length len uses every (n/len)-th of them.
  std::vector<Fr> twiddles(n / 2);
  Fr power = Fr::one();
  for (std::size_t i = 0; i < n / 2; ++i) {
    twiddles[i] = power;
    power *= w;
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t halfLen = len >> 1, step = n / len;
    for (std::size_t start = 0; start < n; start += len) {
      for (std::size_t j = 0; j < halfLen; ++j) {
        Fr u = values[start + j];
        Fr v = values[start + j + halfLen] * twiddles[j * step];
        values[start + j] = u + v;
        values[start + j + halfLen] = u - v;
      }
    }
  }
  if (inverse) {
    Fr n_inv = Fr::from_u64((u64)n).inverse();
    for (auto& v : values) v *= n_inv;
  }
}

}  // namespace vcg
