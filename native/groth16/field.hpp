// Prime-field arithmetic in Montgomery form with four 64-bit limbs (moduli below 2^255).
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

// Params must provide: static constexpr u64 P[4] (the modulus, odd, below 2^255).
template <class Params>
struct Fp {
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

  // r = a*b*R^-1 mod p (CIOS). Inputs below p; output below p.
  static inline void mont_mul(u64 r[4], const u64 a[4], const u64 b[4]) {
    u64 t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
    for (int i = 0; i < 4; ++i) {
      // t += a * b[i]
      u128 c = (u128)a[0] * b[i] + t0;
      t0 = (u64)c;
      c = (u128)a[1] * b[i] + t1 + (u64)(c >> 64);
      t1 = (u64)c;
      c = (u128)a[2] * b[i] + t2 + (u64)(c >> 64);
      t2 = (u64)c;
      c = (u128)a[3] * b[i] + t3 + (u64)(c >> 64);
      t3 = (u64)c;
      u128 top = (u128)t4 + (u64)(c >> 64);
      t4 = (u64)top;
      u64 t5 = (u64)(top >> 64);
      // t = (t + m*p) / 2^64, with m chosen so that the low limb vanishes
      u64 m = t0 * INV;
      c = (u128)m * Params::P[0] + t0;
      c = (u128)m * Params::P[1] + t1 + (u64)(c >> 64);
      t0 = (u64)c;
      c = (u128)m * Params::P[2] + t2 + (u64)(c >> 64);
      t1 = (u64)c;
      c = (u128)m * Params::P[3] + t3 + (u64)(c >> 64);
      t2 = (u64)c;
      top = (u128)t4 + (u64)(c >> 64);
      t3 = (u64)top;
      t4 = t5 + (u64)(top >> 64);
    }
    u64 out[4] = {t0, t1, t2, t3};
    if (t4 != 0 || detail::geq(out, Params::P)) detail::sub_in_place(out, Params::P);
    r[0] = out[0];
    r[1] = out[1];
    r[2] = out[2];
    r[3] = out[3];
  }

  Fp operator*(const Fp& o) const {
    Fp r;
    mont_mul(r.v, v, o.v);
    return r;
  }
  Fp& operator*=(const Fp& o) {
    mont_mul(v, v, o.v);
    return *this;
  }
  Fp square() const { return *this * *this; }

  Fp operator+(const Fp& o) const {
    Fp r = *this;
    u64 carry = detail::add_in_place(r.v, o.v);
    if (carry || detail::geq(r.v, Params::P)) detail::sub_in_place(r.v, Params::P);
    return r;
  }
  Fp& operator+=(const Fp& o) { return *this = *this + o; }

  Fp operator-(const Fp& o) const {
    Fp r = *this;
    if (detail::sub_in_place(r.v, o.v)) detail::add_in_place(r.v, Params::P);
    return r;
  }
  Fp& operator-=(const Fp& o) { return *this = *this - o; }

  Fp operator-() const { return zero() - *this; }
  Fp dbl() const { return *this + *this; }

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
