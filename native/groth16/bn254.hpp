// The BN254 (alt_bn128, snarkjs's "bn128") fields and groups used by Groth16:
//   Fq  the base field, q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
//   Fr  the scalar field (group order), r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
//   Fq2 = Fq[u]/(u^2 + 1), the field of G2's coordinates
//   G1: y^2 = x^3 + 3 over Fq;  G2: y^2 = x^3 + 3/(9+u) over Fq2 (the sextic twist)
// Points are in Jacobian coordinates (X, Y, Z) standing for the affine (X/Z^2, Y/Z^3); Z = 0 is
// the point at infinity. The formulas are the a = 0 ones of the Explicit-Formulas Database
// (dbl-2009-l, madd-2007-bl, add-2007-bl), written once for any coordinate field.
#pragma once

#include "field.hpp"

namespace vcg {

struct FqParams {
  static constexpr u64 P[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL};
};
struct FrParams {
  static constexpr u64 P[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL};
};

using Fq = Fp<FqParams>;
using Fr = Fp<FrParams>;

// Fq2 elements c0 + c1*u with u^2 = -1.
struct Fq2 {
  Fq c0, c1;

  static Fq2 zero() { return Fq2{Fq::zero(), Fq::zero()}; }
  static Fq2 one() { return Fq2{Fq::one(), Fq::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool operator==(const Fq2& o) const { return c0 == o.c0 && c1 == o.c1; }
  bool operator!=(const Fq2& o) const { return !(*this == o); }

  Fq2 operator+(const Fq2& o) const { return Fq2{c0 + o.c0, c1 + o.c1}; }
  Fq2 operator-(const Fq2& o) const { return Fq2{c0 - o.c0, c1 - o.c1}; }
  Fq2 operator-() const { return Fq2{-c0, -c1}; }
  Fq2& operator+=(const Fq2& o) { return *this = *this + o; }
  Fq2& operator-=(const Fq2& o) { return *this = *this - o; }
  Fq2 dbl() const { return *this + *this; }

  // Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
  Fq2 operator*(const Fq2& o) const {
    Fq t0 = c0 * o.c0;
    Fq t1 = c1 * o.c1;
    Fq t2 = (c0 + c1) * (o.c0 + o.c1);
    return Fq2{t0 - t1, t2 - t0 - t1};
  }
  Fq2& operator*=(const Fq2& o) { return *this = *this * o; }
  // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u
  Fq2 square() const {
    Fq t = c0 * c1;
    return Fq2{(c0 + c1) * (c0 - c1), t + t};
  }
  // 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2)
  Fq2 inverse() const {
    Fq n = (c0.square() + c1.square()).inverse();
    return Fq2{c0 * n, -(c1 * n)};
  }
};

// Affine points as a .zkey stores them: x then y; (0, 0) stands for the point at infinity.
template <class F>
struct Affine {
  F x, y;
  bool is_infinity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct Jacobian {
  F X, Y, Z;

  static Jacobian infinity() { return Jacobian{F::one(), F::one(), F::zero()}; }
  static Jacobian from_affine(const Affine<F>& a) {
    if (a.is_infinity()) return infinity();
    return Jacobian{a.x, a.y, F::one()};
  }
  bool is_infinity() const { return Z.is_zero(); }

  Jacobian negate() const { return Jacobian{X, -Y, Z}; }

  // dbl-2009-l (a = 0): 2M + 5S
  Jacobian dbl() const {
    if (is_infinity()) return *this;
    F A = X.square();
    F B = Y.square();
    F C = B.square();
    F D = ((X + B).square() - A - C).dbl();
    F E = A.dbl() + A;
    F Fv = E.square();
    Jacobian r;
    r.X = Fv - D.dbl();
    F eightC = C.dbl().dbl().dbl();
    r.Y = E * (D - r.X) - eightC;
    r.Z = (Y * Z).dbl();
    return r;
  }

  // this + q for an affine q (madd-2007-bl): 7M + 4S.
  Jacobian add_affine(const Affine<F>& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    F Z1Z1 = Z.square();
    F U2 = q.x * Z1Z1;
    F S2 = q.y * Z * Z1Z1;
    F H = U2 - X;
    F rr = (S2 - Y).dbl();
    if (H.is_zero()) {
      if (rr.is_zero()) return dbl();  // the same point
      return infinity();               // opposite points
    }
    F HH = H.square();
    F I = HH.dbl().dbl();
    F J = H * I;
    F V = X * I;
    Jacobian r;
    r.X = rr.square() - J - V.dbl();
    r.Y = rr * (V - r.X) - (Y * J).dbl();
    r.Z = (Z + H).square() - Z1Z1 - HH;
    return r;
  }

  // this - q for an affine q.
  Jacobian sub_affine(const Affine<F>& q) const { return add_affine(Affine<F>{q.x, -q.y}); }

  // this + q (add-2007-bl): 11M + 5S.
  Jacobian add(const Jacobian& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return q;
    F Z1Z1 = Z.square();
    F Z2Z2 = q.Z.square();
    F U1 = X * Z2Z2;
    F U2 = q.X * Z1Z1;
    F S1 = Y * q.Z * Z2Z2;
    F S2 = q.Y * Z * Z1Z1;
    F H = U2 - U1;
    F rr = (S2 - S1).dbl();
    if (H.is_zero()) {
      if (rr.is_zero()) return dbl();
      return infinity();
    }
    F I = H.dbl().square();
    F J = H * I;
    F V = U1 * I;
    Jacobian r;
    r.X = rr.square() - J - V.dbl();
    r.Y = rr * (V - r.X) - (S1 * J).dbl();
    r.Z = ((Z + q.Z).square() - Z1Z1 - Z2Z2) * H;
    return r;
  }

  // The affine form; the point at infinity becomes (0, 0).
  Affine<F> to_affine() const {
    if (is_infinity()) return Affine<F>{F::zero(), F::zero()};
    F zi = Z.inverse();
    F zi2 = zi.square();
    return Affine<F>{X * zi2, Y * zi2 * zi};
  }
};

using G1Affine = Affine<Fq>;
using G2Affine = Affine<Fq2>;
using G1 = Jacobian<Fq>;
using G2 = Jacobian<Fq2>;

// The curve constants b: 3 for G1, 3/(9+u) for G2.
inline Fq g1_b() { return Fq::from_u64(3); }
inline Fq2 g2_b() { return Fq2{Fq::from_u64(3), Fq::zero()} * Fq2{Fq::from_u64(9), Fq::from_u64(1)}.inverse(); }

// Is the affine point on its curve (y^2 = x^3 + b)? The point at infinity (0, 0) counts as on it.
template <class F>
bool on_curve(const Affine<F>& p, const F& b) {
  if (p.is_infinity()) return true;
  return p.y.square() == p.x.square() * p.x + b;
}

}  // namespace vcg
