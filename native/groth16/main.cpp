// vc-groth16: a Groth16 prover for BN254 that gives the proofs snarkjs gives.
//
//   vc-groth16 <proving key .zkey> <witness .wtns, or - for standard input>
//   vc-groth16 --fixed-base      (scalar multiples of a generator, for the setup: fixedbase.cpp)
//
// Prints {"proof": {pi_a, pi_b, pi_c, protocol, curve}, "publicSignals": [...]} on standard output,
// in snarkjs's shape (decimal strings, points in projective form with z = 1). On failure prints
// one line on standard error and exits with the code of formats.hpp's ExitCode. VC_PROVER_THREADS
// sets the number of threads (default: the number of hardware threads).
//
// The computation is snarkjs's (groth16_prove.js), so the proof verifies with the same key:
//   1. The constraints' A and B polynomials evaluated on the domain, from the coefficients section
//      and the witness: a[c] = sum A[c][s] * w[s], b likewise; c = a * b pointwise.
//   2. Each of a, b, c: inverse NTT (coefficients), multiply coefficient j by g^j with g the
//      2n-th root of unity (so the next NTT evaluates on the coset g * <w>), forward NTT.
//   3. h = a * b - c evaluated on the coset, where the vanishing polynomial x^n - 1 is the
//      constant -2 and never 0; snarkjs's setup makes the zkey's H points for exactly these
//      values, so their multi-exponentiation with h gives the quotient's term of pi_c.
//   4. Multi-exponentiations: A, B1 (G1) and B2 (G2) with the whole witness, C with the private
//      part (signals after the public ones), H with h. The witness's repeated values are grouped
//      first (the points of equal scalars added, then multiplied once).
//   5. With fresh random r, s:  pi_a = alpha1 + A + r*delta1,  pi_b = beta2 + B2 + s*delta2,
//      pi_c = C + H + s*pi_a + r*(beta1 + B1 + s*delta1) - r*s*delta1.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef __linux__
#include <sys/prctl.h>
#include <csignal>
#include <unistd.h>
#endif

#include "bn254.hpp"
#include "fixedbase.hpp"
#include "formats.hpp"
#include "msm.hpp"
#include "ntt.hpp"
#include "random.hpp"

namespace vcg {
namespace {

const char* const kVersion = "vc-groth16 1";

// The decimal digits of a 256-bit integer.
std::string to_decimal(U256 x) {
  const u64 base = 10000000000000000000ULL;  // 10^19
  std::string chunks;
  std::vector<u64> parts;
  while (x.limb[0] | x.limb[1] | x.limb[2] | x.limb[3]) {
    u128 rem = 0;
    for (int i = 3; i >= 0; --i) {
      u128 cur = (rem << 64) | x.limb[i];
      x.limb[i] = (u64)(cur / base);
      rem = cur % base;
    }
    parts.push_back((u64)rem);
  }
  if (parts.empty()) return "0";
  std::string out = std::to_string(parts.back());
  for (int i = (int)parts.size() - 2; i >= 0; --i) {
    std::string p = std::to_string(parts[i]);
    out += std::string(19 - p.size(), '0') + p;
  }
  return out;
}

std::string quoted(const Fq& x) { return "\"" + to_decimal(x.to_integer()) + "\""; }

// Branch-free choice between two points of plain 64-bit words: mask all ones picks a.
template <class P>
P select(u64 mask, const P& a, const P& b) {
  static_assert(std::is_trivially_copyable<P>::value && sizeof(P) % 8 == 0, "points are plain words");
  P out;
  u64 wa[sizeof(P) / 8], wb[sizeof(P) / 8], wo[sizeof(P) / 8];
  std::memcpy(wa, &a, sizeof(P));
  std::memcpy(wb, &b, sizeof(P));
  for (std::size_t i = 0; i < sizeof(P) / 8; ++i) wo[i] = (wa[i] & mask) | (wb[i] & ~mask);
  std::memcpy(&out, wo, sizeof(P));
  return out;
}

// k * p for a secret k (the blinding scalars r and s): the same sequence of operations whatever k.
// It computes (2^256 + k) * p with 256 doubling-and-addition steps starting from p (the extra top
// bit), keeping or dropping each addition's result by a mask rather than a branch on the bit, then
// subtracts 2^256 * p (made from p alone). The accumulator is never the point at infinity and never
// equal to p or -p in the loop but with negligible probability, so the formulas' special-case
// branches (infinity, equal points) do not depend on k in practice either.
template <class F>
Jacobian<F> times_secret(const Jacobian<F>& p, const U256& k) {
  Jacobian<F> acc = p;
  Jacobian<F> top = p;
  for (int i = 255; i >= 0; --i) {
    acc = acc.dbl();
    top = top.dbl();
    Jacobian<F> sum = acc.add(p);
    u64 bit = (k.limb[i / 64] >> (i % 64)) & 1;
    acc = select((u64)0 - bit, sum, acc);
  }
  return acc.add(top.negate());
}

unsigned thread_count() {
  const char* env = std::getenv("VC_PROVER_THREADS");
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    errno = 0;
    long n = std::strtol(env, &end, 10);
    if (errno != 0 || *end != '\0' || n < 1 || n > 1024) {
      throw ProverError{kExitUsage, std::string("VC_PROVER_THREADS must be a whole number from 1 to 1024, got '") + env + "'"};
    }
    return (unsigned)n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

// VC_PROVER_TIMINGS=1: the duration of each phase on standard error (for the benchmarks).
class PhaseClock {
 public:
  PhaseClock() : enabled_(std::getenv("VC_PROVER_TIMINGS") != nullptr), last_(std::chrono::steady_clock::now()) {}
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "vc-groth16: %s %.1f ms\n", phase, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_;
};

int run(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("%s\n", kVersion);
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--fixed-base") == 0) return run_fixed_base(thread_count());
  if (argc != 3) throw ProverError{kExitUsage, "usage: vc-groth16 <proving key .zkey> <witness .wtns, or - for standard input>"};
  const unsigned threads = thread_count();

  PhaseClock clock;
  const ProvingKey key = read_proving_key(argv[1]);
  clock.mark("read proving key");
  std::vector<U256> witness = read_witness(argv[2]);
  clock.mark("read witness");
  if (witness.size() != key.nVars) {
    throw ProverError{kExitMismatch, "the witness has " + std::to_string(witness.size()) + " values, the proving key's circuit has " + std::to_string(key.nVars) + " signals"};
  }

  // Step 1. A stored coefficient is v*R^2, a witness value w is plain: their Montgomery product is
  // v*w*R, the Montgomery form of v*w.
  const std::size_t n = key.domainSize;
  std::vector<Fr> a(n, Fr::zero()), b(n, Fr::zero()), c(n);
  for (const Coefficient& coef : key.coefficients) {
    std::vector<Fr>& target = coef.matrix == 0 ? a : b;
    target[coef.constraint] += Fr::from_raw(coef.value.limb) * Fr::from_raw(witness[coef.signal].limb);
  }
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];

  // Step 2, the three polynomials in parallel.
  unsigned log_n = 0;
  while ((std::size_t(1) << log_n) < n) ++log_n;
  const CosetTransform coset(n, root_of_unity(log_n + 1));
  {
    std::vector<std::thread> pool;
    std::vector<Fr>* polys[3] = {&a, &b, &c};
    auto move = [&coset](std::vector<Fr>* values) { coset.apply(*values); };
    unsigned started = 0;
    for (unsigned i = 0; i < 2 && threads > 1 + i; ++i) {
      try {
        pool.emplace_back(move, polys[i]);
        ++started;
      } catch (const std::system_error&) {
        break;
      }
    }
    for (unsigned i = started; i < 3; ++i) move(polys[i]);
    for (auto& t : pool) t.join();
  }

  // Step 3: h as plain integers, the scalars of the H multi-exponentiation.
  clock.mark("polynomials");
  std::vector<U256> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = (a[i] * b[i] - c[i]).to_integer();
  std::vector<Fr>().swap(a);
  std::vector<Fr>().swap(b);
  std::vector<Fr>().swap(c);

  // Step 4.
  // A, B1, B2 and C have the witness's values as scalars, which repeat: grouped once by value
  // (msm.hpp's msm_grouped), the whole witness for A, B1 and B2, the private part for C.
  const std::size_t firstPrivate = (std::size_t)key.nPublic + 1;
  const ScalarGroups all = group_scalars(witness.data(), key.nVars);
  const ScalarGroups priv = groups_from(all, (std::uint32_t)firstPrivate);
  clock.mark("group scalars");
  G1 A = msm_grouped(key.A.data(), all, threads);
  clock.mark("msm A");
  G1 B1 = msm_grouped(key.B1.data(), all, threads);
  clock.mark("msm B1");
  G2 B2 = msm_grouped(key.B2.data(), all, threads);
  clock.mark("msm B2");
  G1 C = msm_grouped(key.C.data(), priv, threads);
  clock.mark("msm C");
  G1 H = msm(key.H.data(), h.data(), n, threads);
  clock.mark("msm H");

  // Step 5.
  U256 r = random_scalar();
  U256 s = random_scalar();
  Fr rs_mont = -(Fr::from_integer(r) * Fr::from_integer(s));
  U256 minus_rs = rs_mont.to_integer();
  const G1 delta1 = G1::from_affine(key.delta1);
  const G2 delta2 = G2::from_affine(key.delta2);

  G1 pi_a = A.add_affine(key.alpha1).add(times_secret(delta1, r));
  G2 pi_b = B2.add_affine(key.beta2).add(times_secret(delta2, s));
  G1 b1 = B1.add_affine(key.beta1).add(times_secret(delta1, s));
  G1 pi_c = C.add(H).add(times_secret(pi_a, s)).add(times_secret(b1, r)).add(times_secret(delta1, minus_rs));
  wipe(&r, sizeof r);
  wipe(&s, sizeof s);
  wipe(&minus_rs, sizeof minus_rs);
  wipe(&rs_mont, sizeof rs_mont);

  clock.mark("blinding");
  // snarkjs's toObject(toAffine(p)): [x, y, 1], or [0, 1, 0] for the point at infinity.
  auto g1_json = [](const G1& p) {
    if (p.is_infinity()) return std::string("[\"0\",\"1\",\"0\"]");
    G1Affine q = p.to_affine();
    return "[" + quoted(q.x) + "," + quoted(q.y) + ",\"1\"]";
  };
  auto g2_json = [](const G2& p) {
    if (p.is_infinity()) return std::string("[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]");
    G2Affine q = p.to_affine();
    return "[[" + quoted(q.x.c0) + "," + quoted(q.x.c1) + "],[" + quoted(q.y.c0) + "," + quoted(q.y.c1) + "],[\"1\",\"0\"]]";
  };
  std::string out = "{\"proof\":{\"pi_a\":" + g1_json(pi_a) + ",\"pi_b\":" + g2_json(pi_b) + ",\"pi_c\":" + g1_json(pi_c) +
                    ",\"protocol\":\"groth16\",\"curve\":\"bn128\"},\"publicSignals\":[";
  for (std::size_t i = 1; i <= key.nPublic; ++i) {
    if (i > 1) out += ",";
    out += "\"" + to_decimal(witness[i]) + "\"";
  }
  out += "]}\n";
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0) {
    throw ProverError{kExitIo, std::string("cannot write the proof to standard output: ") + std::strerror(errno)};
  }
  return 0;
}

}  // namespace
}  // namespace vcg

int main(int argc, char** argv) {
#ifdef __linux__
  // Die with the process that started us (vc, or vc serve's prover process killed on a timeout):
  // a proof nobody waits for is not finished. The parent may already be gone: then exit now.
  const pid_t parent = ::getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) return vcg::kExitInternal;
#endif
  try {
    return vcg::run(argc, argv);
  } catch (const vcg::ProverError& e) {
    std::fprintf(stderr, "vc-groth16: %s\n", e.message.c_str());
    return e.code;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "vc-groth16: out of memory\n");
    return vcg::kExitResources;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vc-groth16: internal error: %s\n", e.what());
    return vcg::kExitInternal;
  }
}
