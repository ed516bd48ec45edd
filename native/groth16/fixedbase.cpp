// vc-groth16 --fixed-base: many products k * G of one generator (G1's or G2's), for vc's
// development trusted setup (src/circuits/devSetup.ts), which knows its secrets and so makes every
// point of a proving key as one scalar times a generator.
//
// Protocol, on standard input and output, any number of requests until end of input:
//   request:  u8 group (1 = G1, 2 = G2), u32 count (little-endian), count scalars of 32 bytes
//             (plain little-endian integers, any value below 2^256)
//   answer:   count affine points in snarkjs's .zkey layout: coordinates in Montgomery form,
//             little-endian, x then y (an Fq2 as c0 then c1), and all zeros for the point at
//             infinity (the scalar 0, or a multiple of the group order)
// Requests are answered in order; a request's answer is written whole before the next is read.
//
// The method is a comb: with windows of C bits, tables T[j][d - 1] = d * 2^(C*j) * G for every
// window j and digit d in 1..2^C - 1 (built once per group, affine), and k * G is the sum over the
// windows of T[j][digit_j(k)]: at most 22 additions a product for C = 12, instead of the ~380
// doublings and additions of a generic multiplication, done in affine coordinates for a batch of
// scalars at once so that the additions of a window share one field inversion (times_batch). The work depends on the scalars (not constant
// time): the secrets of a development setup are no better protected than that anyway, in a process
// that exists to use them.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bn254.hpp"
#include "fixedbase.hpp"
#include "formats.hpp"
#include "msm.hpp"

namespace vcg {
namespace {

constexpr unsigned kWindowBits = 12;
constexpr unsigned kWindows = (256 + kWindowBits - 1) / kWindowBits;  // covers every 256-bit scalar
constexpr std::uint32_t kDigits = (1u << kWindowBits) - 1;              // non-zero digits a window
// Largest request accepted: 2^20 scalars (32 MiB of input; vc sends 2^15 at a time).
constexpr std::uint32_t kMaxCount = 1u << 20;

// The generators snarkjs uses (ffjavascript's bn128 G1.g and G2.g), as plain integers.
G1Affine g1_generator() { return G1Affine{Fq::from_u64(1), Fq::from_u64(2)}; }

Fq fq_from_decimal(const char* digits) {
  U256 x{{0, 0, 0, 0}};
  for (const char* p = digits; *p != '\0'; ++p) {
    u128 carry = (u64)(*p - '0');
    for (int i = 0; i < 4; ++i) {
      u128 v = (u128)x.limb[i] * 10 + carry;
      x.limb[i] = (u64)v;
      carry = v >> 64;
    }
  }
  return Fq::from_integer(x);
}

G2Affine g2_generator() {
  return G2Affine{
      Fq2{fq_from_decimal("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
          fq_from_decimal("11559732032986387107991004021392285783925812861821192530917403151452391805634")},
      Fq2{fq_from_decimal("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
          fq_from_decimal("4082367875863433681332203403145435568316851327593401208105741076214120093531")}};
}

// Affine forms of many Jacobian points with one inversion (msm.hpp's batch_inverse over the Z of
// the finite ones); infinity -> (0, 0).
template <class F>
void batch_to_affine(const Jacobian<F>* in, Affine<F>* out, std::size_t n) {
  std::vector<F> z, prefix;
  z.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!in[i].is_infinity()) z.push_back(in[i].Z);
  }
  msm_detail::batch_inverse(z, prefix);
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (in[i].is_infinity()) {
      out[i] = Affine<F>{F::zero(), F::zero()};
      continue;
    }
    const F zi = z[k++];
    const F zi2 = zi.square();
    out[i] = Affine<F>{in[i].X * zi2, in[i].Y * zi2 * zi};
  }
}

// The digit of window j (bits j*C .. j*C + C - 1) of a 256-bit little-endian scalar.
std::uint32_t digit(const unsigned char* scalar, unsigned j) {
  unsigned bit = j * kWindowBits;
  std::uint32_t value = 0;
  for (unsigned b = 0; b < kWindowBits && bit + b < 256; ++b) {
    unsigned at = bit + b;
    value |= (std::uint32_t)((scalar[at / 8] >> (at % 8)) & 1) << b;
  }
  return value;
}

template <class F>
class Comb {
 public:
  explicit Comb(const Affine<F>& generator) : table_((std::size_t)kWindows * kDigits) {
    // Window j's multiples d * B_j, B_j = 2^(C*j) * G, by repeated addition; then affine, per window.
    std::vector<Jacobian<F>> row(kDigits);
    Jacobian<F> base = Jacobian<F>::from_affine(generator);
    for (unsigned j = 0; j < kWindows; ++j) {
      row[0] = base;
      for (std::uint32_t d = 1; d < kDigits; ++d) row[d] = row[d - 1].add(base);
      batch_to_affine(row.data(), &table_[(std::size_t)j * kDigits], kDigits);
      for (unsigned b = 0; b < kWindowBits; ++b) base = base.dbl();
    }
  }

  // d * 2^(C*j) * G, for a digit d from 1 to 2^C - 1.
  const Affine<F>& entry(unsigned j, std::uint32_t d) const { return table_[(std::size_t)j * kDigits + d - 1]; }

 private:
  std::vector<Affine<F>> table_;
};

void read_exactly(void* target, std::size_t bytes, const char* what) {
  if (bytes == 0) return;
  if (std::fread(target, 1, bytes, stdin) != bytes) {
    throw ProverError{kExitIo, std::string("--fixed-base: the input ends inside ") + what};
  }
}

// Coordinates as stored: the Montgomery limbs, little-endian.
void put(unsigned char*& out, const Fq& x) {
  for (int i = 0; i < 4; ++i) {
    for (int b = 0; b < 8; ++b) *out++ = (unsigned char)(x.v[i] >> (8 * b));
  }
}
void put(unsigned char*& out, const Fq2& x) {
  put(out, x.c0);
  put(out, x.c1);
}

// Products of a batch of scalars, computed side by side so that their additions can share
// inversions: the accumulators stay affine, and each window's additions acc_i += T[j][d_i] across
// the batch cost one field inversion for all of them (Montgomery's trick) plus ~6 multiplications
// each, instead of the ~15 of a mixed Jacobian addition. An addition whose two points share their x
// (equal points or opposite ones, which random scalars practically never give) is done on its own
// in Jacobian coordinates instead.
template <class F>
void times_batch(const Comb<F>& comb, const unsigned char* scalars, std::size_t n, Affine<F>* out,
                 std::vector<unsigned char>& empty, std::vector<F>& dx, std::vector<F>& prefix, std::vector<std::size_t>& pending) {
  empty.assign(n, 1);
  for (unsigned j = 0; j < kWindows; ++j) {
    pending.clear();
    dx.clear();
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t d = digit(scalars + i * 32, j);
      if (d == 0) continue;
      const Affine<F>& t = comb.entry(j, d);
      if (empty[i]) {
        out[i] = t;
        empty[i] = 0;
        continue;
      }
      F diff = t.x - out[i].x;
      if (diff.is_zero()) {  // t = acc or t = -acc: the rare case, in Jacobian coordinates
        Jacobian<F> sum = Jacobian<F>::from_affine(out[i]).add_affine(t);
        if (sum.is_infinity()) empty[i] = 1;
        else out[i] = sum.to_affine();
        continue;
      }
      pending.push_back(i);
      dx.push_back(diff);
    }
    const std::size_t m = pending.size();
    if (m == 0) continue;
    msm_detail::batch_inverse(dx, prefix);  // dx[k] <- 1 / dx[k]
    for (std::size_t k = 0; k < m; ++k) {
      const std::size_t i = pending[k];
      const Affine<F>& t = comb.entry(j, digit(scalars + i * 32, j));
      Affine<F>& a = out[i];
      F lambda = (t.y - a.y) * dx[k];
      F x3 = lambda.square() - a.x - t.x;
      a.y = lambda * (a.x - x3) - a.y;
      a.x = x3;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (empty[i]) out[i] = Affine<F>{F::zero(), F::zero()};
  }
}

template <class F>
void answer(const Comb<F>& comb, const std::vector<unsigned char>& scalars, std::uint32_t count, unsigned threads, std::vector<unsigned char>& output) {
  constexpr std::size_t point_bytes = sizeof(F) * 2;
  output.assign((std::size_t)count * point_bytes, 0);
  auto work = [&](std::size_t begin, std::size_t end) {
    constexpr std::size_t kBatch = 2048;
    std::vector<Affine<F>> aff(kBatch);
    std::vector<unsigned char> empty;
    std::vector<F> dx, prefix;
    std::vector<std::size_t> pending;
    for (std::size_t start = begin; start < end; start += kBatch) {
      std::size_t n = std::min(kBatch, end - start);
      times_batch(comb, &scalars[start * 32], n, aff.data(), empty, dx, prefix, pending);
      unsigned char* out = &output[start * point_bytes];
      for (std::size_t i = 0; i < n; ++i) {
        put(out, aff[i].x);
        put(out, aff[i].y);
      }
    }
  };
  const std::size_t parts = count < 4096 || threads == 0 ? 1 : threads;
  msm_detail::parallel_tasks(threads, parts, [&](std::size_t t) { work((std::size_t)count * t / parts, (std::size_t)count * (t + 1) / parts); });
}

}  // namespace

int run_fixed_base(unsigned threads) {
  const G1Affine g1 = g1_generator();
  const G2Affine g2 = g2_generator();
  if (!on_curve(g1, g1_b()) || !on_curve(g2, g2_b())) throw ProverError{kExitInternal, "--fixed-base: a generator is not on its curve"};
  std::unique_ptr<Comb<Fq>> comb1;
  std::unique_ptr<Comb<Fq2>> comb2;
  std::vector<unsigned char> scalars, output;
  for (;;) {
    int group = std::fgetc(stdin);
    if (group == EOF) break;
    if (group != 1 && group != 2) throw ProverError{kExitUsage, "--fixed-base: a request's group must be 1 (G1) or 2 (G2), got " + std::to_string(group)};
    unsigned char count_bytes[4];
    read_exactly(count_bytes, 4, "a request's count");
    std::uint32_t count = (std::uint32_t)count_bytes[0] | (std::uint32_t)count_bytes[1] << 8 | (std::uint32_t)count_bytes[2] << 16 | (std::uint32_t)count_bytes[3] << 24;
    if (count > kMaxCount) throw ProverError{kExitUsage, "--fixed-base: a request of " + std::to_string(count) + " scalars is past the limit of " + std::to_string(kMaxCount)};
    scalars.resize((std::size_t)count * 32);
    read_exactly(scalars.data(), scalars.size(), "a request's scalars");
    if (group == 1) {
      if (!comb1) comb1 = std::make_unique<Comb<Fq>>(g1);
      answer(*comb1, scalars, count, threads, output);
    } else {
      if (!comb2) comb2 = std::make_unique<Comb<Fq2>>(g2);
      answer(*comb2, scalars, count, threads, output);
    }
    if (!output.empty() && std::fwrite(output.data(), 1, output.size(), stdout) != output.size()) {
      throw ProverError{kExitIo, std::string("--fixed-base: cannot write the points: ") + std::strerror(errno)};
    }
    if (std::fflush(stdout) != 0) throw ProverError{kExitIo, std::string("--fixed-base: cannot write the points: ") + std::strerror(errno)};
  }
  return 0;
}

}  // namespace vcg
