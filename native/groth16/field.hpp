// Prime-field arithmetic in Montgomery form with four 64-bit limbs (moduli below 2^254).
//
// An element x is kept as x*R mod p with R = 2^256, in four little-endian 64-bit limbs, the same
// representation snarkjs calls "LEM" (little-endian Montgomery): the points of a .zkey file are
// stored that way, so they are copied in as they are. Products use CIOS Montgomery multiplication
// (coarsely integrated operand scanning) with unsigned __int128 for the 64x64->128 products.
//
// The constants a field needs (-p^-1 mod 2^64, R mod p, R^2 mod p) are computed at compile time
// from the modulus, so only the modulus itself is written out by hand.
#pragma once

#include <cstdint>
#include <cstring>

// On x86-64 the field operations are in assembly: addition, subtraction and the final
// conditional subtraction with instructions every x86-64 has (add/adc, sub/sbb, cmov), the
// multiplication with mulx, adcx and adox (BMI2, ADX) when the processor has them, checked at run
// time (see adx_available), so the executable, built without -march flags, runs on any x86-64
// and a cache of built provers can be shared between machines. VCG_PORTABLE_FIELD turns the
// assembly off (the tests build both forms and compare them).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(VCG_PORTABLE_FIELD)
#define VCG_FIELD_ASM 1
#include <cpuid.h>
#else
#define VCG_FIELD_ASM 0
#endif

// Field operations are small and called in hot loops: always inlined (g++ otherwise keeps some
// out of line, and a call costs about as much as an addition).
#define VCG_INLINE inline __attribute__((always_inline))

namespace vcg {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

// A 256-bit unsigned integer, little-endian limbs (limb 0 is the least significant).
struct U256 {
  u64 limb[4];
};

namespace detail {

constexpr bool geq(const u64 a[4], const u64 b[4]) {
  for (int i = 3; i >= 0; --i) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return true;
}

// a -= b; returns the borrow.
constexpr u64 sub_in_place(u64 a[4], const u64 b[4]) {
  u64 borrow = 0;
  for (int i = 0; i < 4; ++i) {
    u128 d = (u128)a[i] - b[i] - borrow;
    a[i] = (u64)d;
    borrow = (u64)(d >> 64) & 1;
  }
  return borrow;
}

// a += b; returns the carry.
constexpr u64 add_in_place(u64 a[4], const u64 b[4]) {
  u64 carry = 0;
  for (int i = 0; i < 4; ++i) {
    u128 s = (u128)a[i] + b[i] + carry;
    a[i] = (u64)s;
    carry = (u64)(s >> 64);
  }
  return carry;
}

#if VCG_FIELD_ASM
// Does this processor have BMI2 (mulx) and ADX (adcx, adox)? Read once when the program starts.
// Anything computed before that (another file's static initialisation) sees false and takes the
// portable path, which gives the same results.
// CPUID leaf 7, subleaf 0: EBX bit 8 is BMI2, bit 19 is ADX (read with <cpuid.h>, which g++ and
// clang both have; they add no register state, so the operating system need not enable them).
inline bool detect_adx() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return ((ebx >> 8) & 1) != 0 && ((ebx >> 19) & 1) != 0;
}
inline const bool adx_available = detect_adx();
#endif

// -p^-1 mod 2^64 by Newton iteration (p odd): x <- x*(2 - p*x) doubles the correct bits.
constexpr u64 neg_inverse64(u64 p0) {
  u64 x = 1;
  for (int i = 0; i < 7; ++i) x = x * (2 - p0 * x);
  return (u64)0 - x;
}

// 2^k mod p for k in [0, 512], by doubling 1 k times modulo p (p < 2^255, so no overflow).
struct Pow2Mod {
  u64 v[4];
};
constexpr Pow2Mod pow2_mod(const u64 p[4], int k) {
  Pow2Mod r{{1, 0, 0, 0}};
  for (int i = 0; i < k; ++i) {
    u64 carry = add_in_place(r.v, r.v);
    if (carry || geq(r.v, p)) sub_in_place(r.v, p);
  }
  return r;
}

}  // namespace detail

// Params must provide: static constexpr u64 P[4] (the modulus, odd, below 2^254).
template <class Params>
struct Fp {
  // The carry-free forms of mont_mul and operator+ below rely on 2p < 2^255.
  static_assert((Params::P[3] >> 62) == 0, "the modulus must be below 2^254");
  static constexpr u64 INV = detail::neg_inverse64(Params::P[0]);
  static constexpr detail::Pow2Mod R1 = detail::pow2_mod(Params::P, 256);
  static constexpr detail::Pow2Mod R2 = detail::pow2_mod(Params::P, 512);

  u64 v[4];  // Montgomery form: v = x*R mod p, fully reduced (v < p)

  static Fp zero() { return Fp{{0, 0, 0, 0}}; }
  static Fp one() { return Fp{{R1.v[0], R1.v[1], R1.v[2], R1.v[3]}}; }

  // The element whose Montgomery representation is the given limbs (no conversion).
  static Fp from_raw(const u64 raw[4]) {
    Fp r;
    std::memcpy(r.v, raw, sizeof r.v);
    return r;
  }

  // The element x (an ordinary integer below p) converted into Montgomery form: x*R^2*R^-1.
  static Fp from_integer(const U256& x) {
    Fp a = from_raw(x.limb);
    Fp r2 = from_raw(R2.v);
    return a * r2;
  }

  static Fp from_u64(u64 x) {
    U256 u{{x, 0, 0, 0}};
    return from_integer(u);
  }

  // Back to an ordinary integer: multiply by 1 (i.e. by R^-1).
  U256 to_integer() const {
    const u64 one_int[4] = {1, 0, 0, 0};
    Fp r;
    mont_mul(r.v, v, one_int);
    return U256{{r.v[0], r.v[1], r.v[2], r.v[3]}};
  }

  // Is the integer x below the modulus (a canonical representative)?
  static bool is_canonical(const u64 x[4]) { return !detail::geq(x, Params::P); }

  bool is_zero() const { return (v[0] | v[1] | v[2] | v[3]) == 0; }
  bool operator==(const Fp& o) const {
    return ((v[0] ^ o.v[0]) | (v[1] ^ o.v[1]) | (v[2] ^ o.v[2]) | (v[3] ^ o.v[3])) == 0;
  }
  bool operator!=(const Fp& o) const { return !(*this == o); }

  // r = a*b*R^-1 mod p (CIOS, "no-carry" form). a below p, b any four limbs; output below p.
  //
  // Each of the four rounds adds a*b[i] and m*p (m making the low limb vanish) to t and drops
  // that limb: t' = (t + a*b[i] + m*p) / 2^64. With t < 2p, a < p, b[i], m < 2^64 this gives
  // t' < (2p + (2^64 - 1)p + (2^64 - 1)p) / 2^64 < 2p, so t stays below 2p < 2^255 (both BN254
  // moduli are below 2^254): four limbs, and the top limb of t' is below 2^63. The two rows'
  // carries out of their top limb (A for a*b[i], C for m*p) are kept apart and only added at the
  // end, where their sum is t''s top limb, so below 2^63: the fifth and sixth limbs of the
  // textbook CIOS loop (the carries out of 2^256) are always zero here and are left out. Every
  // partial x*y + t + carry is at most (2^64-1)^2 + 2(2^64-1) = 2^128 - 1, so the 128-bit
  // products never overflow either. One conditional subtraction brings t < 2p below p.
  static VCG_INLINE void mont_mul(u64 r[4], const u64 a[4], const u64 b[4]) {
#if VCG_FIELD_ASM
    if (detail::adx_available) {
      mont_mul_adx(r, a, b);
      return;
    }
#endif
    mont_mul_portable(r, a, b);
  }

  // mont_mul in portable C++ (the 128-bit products of unsigned __int128).
  static VCG_INLINE void mont_mul_portable(u64 r[4], const u64 a[4], const u64 b[4]) {
    u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (int i = 0; i < 4; ++i) {
      const u64 bi = b[i];
      u128 x = (u128)a[0] * bi + t0;
      u64 A = (u64)(x >> 64);
      t0 = (u64)x;
      const u64 m = t0 * INV;
      u128 y = (u128)m * Params::P[0] + t0;
      u64 C = (u64)(y >> 64);
      x = (u128)a[1] * bi + t1 + A;
      A = (u64)(x >> 64);
      t1 = (u64)x;
      y = (u128)m * Params::P[1] + t1 + C;
      C = (u64)(y >> 64);
      t0 = (u64)y;
      x = (u128)a[2] * bi + t2 + A;
      A = (u64)(x >> 64);
      t2 = (u64)x;
      y = (u128)m * Params::P[2] + t2 + C;
      C = (u64)(y >> 64);
      t1 = (u64)y;
      x = (u128)a[3] * bi + t3 + A;
      A = (u64)(x >> 64);
      t3 = (u64)x;
      y = (u128)m * Params::P[3] + t3 + C;
      C = (u64)(y >> 64);
      t2 = (u64)y;
      t3 = A + C;
    }
    reduce_once_portable(r, t0, t1, t2, t3);
  }

#if VCG_FIELD_ASM
  // mont_mul's no-carry CIOS for x86-64 with BMI2 and ADX (see adx_available()): the same rounds
  // as the portable loop, with mulx (a 64x64->128 product that leaves the flags alone) and two
  // independent carry chains, adox (overflow flag) for the low halves of the products and adcx
  // (carry flag) for the high halves, so the additions of a row do not wait on one another. A
  // round's value t + a*b[i] + m*p is below 2^319 (the bound in mont_mul's comment), so it fits
  // in the five registers t0..t4 and neither chain carries out of the fifth. After the m*p row
  // the lowest register is 0 (m was chosen for that): it becomes the next round's fifth limb,
  // so the registers rotate instead of being shifted. The result, below 2p, is reduced in C++.
  static VCG_INLINE void mont_mul_adx(u64 r[4], const u64 a[4], const u64 b[4]) {
    u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, lo, hi;
    asm("" // registers after round k hold the limbs starting with t(k+1): t4 t0 t1 t2 at the end
        // round 0: t += a * b[0]
        "movq 0(%[b]), %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "adoxq %%rax, %[t4]\n\t"
        // t += m * p, m = t0 * inv: the low limb becomes 0
        "movq %[t0], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "adoxq %%rax, %[t4]\n\t"
        // round 1: t += a * b[1]
        "movq 8(%[b]), %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "adoxq %%rax, %[t0]\n\t"
        // t += m * p, m = t0 * inv: the low limb becomes 0
        "movq %[t1], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "adoxq %%rax, %[t0]\n\t"
        // round 2: t += a * b[2]
        "movq 16(%[b]), %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "adoxq %%rax, %[t1]\n\t"
        // t += m * p, m = t0 * inv: the low limb becomes 0
        "movq %[t2], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "adoxq %%rax, %[t1]\n\t"
        // round 3: t += a * b[3]
        "movq 24(%[b]), %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "adoxq %%rax, %[t2]\n\t"
        // t += m * p, m = t0 * inv: the low limb becomes 0
        "movq %[t3], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %%eax, %%eax\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "adoxq %%rax, %[t2]\n\t"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : [a] "r"(a), [b] "r"(b), "m"(*(const u64(*)[4])a), "m"(*(const u64(*)[4])b), [p0] "m"(Params::P[0]), [p1] "m"(Params::P[1]),
          [p2] "m"(Params::P[2]), [p3] "m"(Params::P[3]), [inv] "m"(INV)
        : "rax", "rdx", "cc");
    reduce_once(r, t4, t0, t1, t2);
  }
#endif

  // r = t - p if t >= p, else t, for t < 2p; branch-free (the comparison is a subtraction whose
  // borrow chooses the result).
  static VCG_INLINE void reduce_once(u64 r[4], u64 t0, u64 t1, u64 t2, u64 t3) {
#if VCG_FIELD_ASM
    // The subtraction's borrow picks the result with conditional moves (plain x86-64: g++ spills
    // the 128-bit form's borrows to the stack).
    u64 s0 = t0, s1 = t1, s2 = t2, s3 = t3;
    asm("subq %[p0], %[s0]\n\t"
        "sbbq %[p1], %[s1]\n\t"
        "sbbq %[p2], %[s2]\n\t"
        "sbbq %[p3], %[s3]\n\t"
        "cmovcq %[t0], %[s0]\n\t"
        "cmovcq %[t1], %[s1]\n\t"
        "cmovcq %[t2], %[s2]\n\t"
        "cmovcq %[t3], %[s3]\n\t"
        : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3)
        : [t0] "r"(t0), [t1] "r"(t1), [t2] "r"(t2), [t3] "r"(t3), [p0] "m"(Params::P[0]), [p1] "m"(Params::P[1]), [p2] "m"(Params::P[2]),
          [p3] "m"(Params::P[3])
        : "cc");
    r[0] = s0;
    r[1] = s1;
    r[2] = s2;
    r[3] = s3;
#else
    reduce_once_portable(r, t0, t1, t2, t3);
#endif
  }

  static VCG_INLINE void reduce_once_portable(u64 r[4], u64 t0, u64 t1, u64 t2, u64 t3) {
    u128 d = (u128)t0 - Params::P[0];
    const u64 s0 = (u64)d;
    d = (u128)t1 - Params::P[1] - (u64)((d >> 64) & 1);
    const u64 s1 = (u64)d;
    d = (u128)t2 - Params::P[2] - (u64)((d >> 64) & 1);
    const u64 s2 = (u64)d;
    d = (u128)t3 - Params::P[3] - (u64)((d >> 64) & 1);
    const u64 s3 = (u64)d;
    const u64 keep = (u64)0 - (u64)((d >> 64) & 1);  // all ones when t < p
    r[0] = (t0 & keep) | (s0 & ~keep);
    r[1] = (t1 & keep) | (s1 & ~keep);
    r[2] = (t2 & keep) | (s2 & ~keep);
    r[3] = (t3 & keep) | (s3 & ~keep);
  }

  // r = a + b mod p, for a, b below p: a + b < 2p < 2^255 needs no fifth limb; then one
  // conditional subtraction.
  static VCG_INLINE void add(u64 r[4], const u64 a[4], const u64 b[4]) {
#if VCG_FIELD_ASM
    u64 t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3];
    asm("addq %[b0], %[t0]\n\t"
        "adcq %[b1], %[t1]\n\t"
        "adcq %[b2], %[t2]\n\t"
        "adcq %[b3], %[t3]\n\t"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3)
        : [b0] "rm"(b[0]), [b1] "rm"(b[1]), [b2] "rm"(b[2]), [b3] "rm"(b[3])
        : "cc");
    reduce_once(r, t0, t1, t2, t3);
#else
    add_portable(r, a, b);
#endif
  }

  static VCG_INLINE void add_portable(u64 r[4], const u64 a[4], const u64 b[4]) {
    u128 s = (u128)a[0] + b[0];
    const u64 t0 = (u64)s;
    s = (u128)a[1] + b[1] + (u64)(s >> 64);
    const u64 t1 = (u64)s;
    s = (u128)a[2] + b[2] + (u64)(s >> 64);
    const u64 t2 = (u64)s;
    const u64 t3 = a[3] + b[3] + (u64)(s >> 64);
    reduce_once_portable(r, t0, t1, t2, t3);
  }

  // r = a - b mod p, for a, b below p: a - b, plus p when it borrowed (no branch).
  static VCG_INLINE void sub(u64 r[4], const u64 a[4], const u64 b[4]) {
#if VCG_FIELD_ASM
    // The borrow moves p into z (zero otherwise), which is added back; the carry out of that
    // addition, exactly the borrow's 2^256, is dropped.
    u64 t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3], z0 = 0, z1 = 0, z2 = 0, z3 = 0;
    asm("subq %[b0], %[t0]\n\t"
        "sbbq %[b1], %[t1]\n\t"
        "sbbq %[b2], %[t2]\n\t"
        "sbbq %[b3], %[t3]\n\t"
        "cmovcq %[p0], %[z0]\n\t"
        "cmovcq %[p1], %[z1]\n\t"
        "cmovcq %[p2], %[z2]\n\t"
        "cmovcq %[p3], %[z3]\n\t"
        "addq %[z0], %[t0]\n\t"
        "adcq %[z1], %[t1]\n\t"
        "adcq %[z2], %[t2]\n\t"
        "adcq %[z3], %[t3]\n\t"
        : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [z0] "+&r"(z0), [z1] "+&r"(z1), [z2] "+&r"(z2), [z3] "+&r"(z3)
        : [b0] "rm"(b[0]), [b1] "rm"(b[1]), [b2] "rm"(b[2]), [b3] "rm"(b[3]), [p0] "m"(Params::P[0]), [p1] "m"(Params::P[1]),
          [p2] "m"(Params::P[2]), [p3] "m"(Params::P[3])
        : "cc");
    r[0] = t0;
    r[1] = t1;
    r[2] = t2;
    r[3] = t3;
#else
    sub_portable(r, a, b);
#endif
  }

  static VCG_INLINE void sub_portable(u64 r[4], const u64 a[4], const u64 b[4]) {
    u128 d = (u128)a[0] - b[0];
    const u64 t0 = (u64)d;
    d = (u128)a[1] - b[1] - (u64)((d >> 64) & 1);
    const u64 t1 = (u64)d;
    d = (u128)a[2] - b[2] - (u64)((d >> 64) & 1);
    const u64 t2 = (u64)d;
    d = (u128)a[3] - b[3] - (u64)((d >> 64) & 1);
    const u64 t3 = (u64)d;
    const u64 mask = (u64)0 - (u64)((d >> 64) & 1);
    u128 s = (u128)t0 + (Params::P[0] & mask);
    r[0] = (u64)s;
    s = (u128)t1 + (Params::P[1] & mask) + (u64)(s >> 64);
    r[1] = (u64)s;
    s = (u128)t2 + (Params::P[2] & mask) + (u64)(s >> 64);
    r[2] = (u64)s;
    r[3] = t3 + (Params::P[3] & mask) + (u64)(s >> 64);
  }

  VCG_INLINE Fp operator*(const Fp& o) const {
    Fp r;
    mont_mul(r.v, v, o.v);
    return r;
  }
  VCG_INLINE Fp& operator*=(const Fp& o) {
    mont_mul(v, v, o.v);
    return *this;
  }
  VCG_INLINE Fp square() const { return *this * *this; }

  VCG_INLINE Fp operator+(const Fp& o) const {
    Fp r;
    add(r.v, v, o.v);
    return r;
  }
  VCG_INLINE Fp& operator+=(const Fp& o) {
    add(v, v, o.v);
    return *this;
  }
  VCG_INLINE Fp operator-(const Fp& o) const {
    Fp r;
    sub(r.v, v, o.v);
    return r;
  }
  VCG_INLINE Fp& operator-=(const Fp& o) {
    sub(v, v, o.v);
    return *this;
  }

  VCG_INLINE Fp operator-() const { return zero() - *this; }
  VCG_INLINE Fp dbl() const { return *this + *this; }

  // x^e for an ordinary integer exponent e (square and multiply, most significant bit first).
  Fp pow(const U256& e) const {
    Fp r = one();
    for (int i = 255; i >= 0; --i) {
      r = r.square();
      if ((e.limb[i / 64] >> (i % 64)) & 1) r = r * *this;
    }
    return r;
  }

  // x^-1 = x^(p-2) (Fermat); the inverse of 0 is reported as 0 (callers check for zero first).
  Fp inverse() const {
    U256 e{{Params::P[0], Params::P[1], Params::P[2], Params::P[3]}};
    const u64 two[4] = {2, 0, 0, 0};
    detail::sub_in_place(e.limb, two);
    return pow(e);
  }
};

}  // namespace vcg
