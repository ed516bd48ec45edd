#include "ntt.hpp"

#include <algorithm>
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

namespace {

// stages[half + j] = w_(2 half)^j for every stage half < n (stages[0] unused), from w = the n-th
// root: w_(2 half) = w^(n / (2 half)).
std::vector<Fr> stage_twiddles(std::size_t n, const Fr& w) {
  std::vector<Fr> powers(n / 2);  // w^i
  Fr power = Fr::one();
  for (auto& p : powers) {
    p = power;
    power *= w;
  }
  std::vector<Fr> stages(n);
  for (std::size_t half = 1; half < n; half <<= 1) {
    const std::size_t step = n / (2 * half);
    for (std::size_t j = 0; j < half; ++j) stages[half + j] = powers[j * step];
  }
  return stages;
}

}  // namespace

CosetTransform::CosetTransform(std::size_t n, const Fr& shift) : n_(n) {
  if (n <= 1) {
    scale_.assign(n, Fr::one());
    return;
  }
  unsigned k = 0;
  while ((std::size_t(1) << k) < n) ++k;
  const Fr w = root_of_unity(k);
  forward_ = stage_twiddles(n, w);
  inverse_ = stage_twiddles(n, w.inverse());
  // shift^j / n at position rev(j): j counts up, rev(j) is j's bits reversed (k of them).
  scale_.resize(n);
  Fr power = Fr::from_u64((u64)n).inverse();
  for (std::size_t j = 0, rev = 0; j < n; ++j) {
    scale_[rev] = power;
    power *= shift;
    // rev <- rev(j + 1): add 1 from the top bit down.
    std::size_t bit = n >> 1;
    for (; rev & bit; bit >>= 1) rev ^= bit;
    rev |= bit;
  }
}

namespace {

// One stage of Gentleman-Sande butterflies (butterflies `half` apart) over x[0, len).
inline void dif_stage(Fr* x, std::size_t len, std::size_t half, const Fr* tw) {
  for (std::size_t start = 0; start < len; start += 2 * half) {
    Fr* lo = x + start;
    Fr* hi = lo + half;
    for (std::size_t j = 0; j < half; ++j) {
      const Fr u = lo[j], v = hi[j];
      lo[j] = u + v;
      hi[j] = j == 0 ? u - v : (u - v) * tw[j];
    }
  }
}

// One stage of Cooley-Tukey butterflies (butterflies `half` apart) over x[0, len).
inline void dit_stage(Fr* x, std::size_t len, std::size_t half, const Fr* tw) {
  for (std::size_t start = 0; start < len; start += 2 * half) {
    Fr* lo = x + start;
    Fr* hi = lo + half;
    for (std::size_t j = 0; j < half; ++j) {
      const Fr u = lo[j];
      const Fr v = j == 0 ? hi[j] : hi[j] * tw[j];
      lo[j] = u + v;
      hi[j] = u - v;
    }
  }
}

// Stages with butterflies less than kBlock apart stay inside aligned blocks of kBlock values
// (64 KiB, within a core's level-2 cache): those stages are run block by block, all of them on
// one block before the next, instead of each stage sweeping the whole array. The butterflies
// and their order within a stage do not change, so neither do the results.
constexpr std::size_t kBlock = 2048;

}  // namespace

void CosetTransform::apply(std::vector<Fr>& values) const {
  const std::size_t n = n_;
  Fr* x = values.data();
  const std::size_t block = std::min(n, kBlock);
  // Inverse transform, decimation in frequency: (u, v) <- (u + v, (u - v) * w^-j), stages from
  // half = n/2 down to 1; the last stage's twiddle is 1.
  for (std::size_t half = n >> 1; half >= block; half >>= 1) dif_stage(x, n, half, &inverse_[half]);
  for (std::size_t start = 0; start < n; start += block) {
    for (std::size_t half = block >> 1; half >= 1; half >>= 1) dif_stage(x + start, block, half, &inverse_[half]);
  }
  // Coefficients in bit-reversed order: times shift^j / n.
  for (std::size_t i = 0; i < n; ++i) x[i] *= scale_[i];
  // Forward transform, decimation in time: (u, v) <- (u + v*w^j, u - v*w^j), stages from
  // half = 1 (twiddle 1) up to n/2.
  for (std::size_t start = 0; start < n; start += block) {
    for (std::size_t half = 1; half < block; half <<= 1) dit_stage(x + start, block, half, &forward_[half]);
  }
  for (std::size_t half = block; half < n; half <<= 1) dit_stage(x, n, half, &forward_[half]);
}

}  // namespace vcg
