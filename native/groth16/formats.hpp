// Readers of snarkjs's binary files: the Groth16 proving key (.zkey) and the witness (.wtns).
//
// Both are "binfiles": a 4-byte magic ("zkey" / "wtns"), a u32 version, a u32 section count, then
// sections of (u32 type, u64 byte size, bytes); every integer little-endian. Every size is checked
// against the file before anything is read, and every count against the sizes, so a truncated or
// garbage file is refused with a message, never read past its end.
//
// .zkey (groth16), the sections used here:
//   1  header: u32 protocol (1 = groth16)
//   2  groth16 header: u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize,
//      alpha1, beta1 (G1), beta2, gamma2 (G2), delta1 (G1), delta2 (G2)
//   4  coefficients: u32 count, then (u32 matrix (0 = A, 1 = B), u32 constraint, u32 signal,
//      32-byte value) each; the value is stored as v * R^2 mod r (R = 2^256) so that one
//      Montgomery product with a plain witness value gives v * w in Montgomery form
//   5  A points, nVars G1;  6  B1 points, nVars G1;  7  B2 points, nVars G2
//   8  C points, nVars - nPublic - 1 G1 (the private signals)
//   9  H points, domainSize G1 (the quotient's basis on the coset of the domain)
// Points are affine, coordinates in Montgomery form (x then y; an Fq2 as c0 then c1), (0, 0) for
// the point at infinity. Section 3 (the IC points, for verifying) and 10 (contributions) are not
// needed to prove.
//
// .wtns: section 1 = u32 n8, the prime (n8 bytes), u32 count; section 2 = count values of n8
// bytes, plain little-endian integers (not Montgomery).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bn254.hpp"

namespace vcg {

// Exit codes of vc-groth16, one per kind of failure (vc maps them to its messages).
enum ExitCode : int {
  kExitUsage = 2,         // bad command line or environment
  kExitIo = 3,            // a file could not be read
  kExitBadKey = 4,        // the proving key is not a valid BN254 Groth16 .zkey
  kExitBadWitness = 5,    // the witness is not a valid BN254 .wtns
  kExitMismatch = 6,      // the witness is not one of this proving key's circuit
  kExitResources = 7,     // out of memory
  kExitInternal = 8,      // anything else (a bug)
};

// A failure with its exit code and a one-line message.
struct ProverError {
  int code;
  std::string message;
};

struct Coefficient {
  std::uint32_t matrix;      // 0: A, 1: B
  std::uint32_t constraint;  // row, below domainSize
  std::uint32_t signal;      // witness index, below nVars
  U256 value;                // v * R^2 mod r, as stored
};

struct ProvingKey {
  std::uint32_t nVars = 0, nPublic = 0, domainSize = 0;
  G1Affine alpha1, beta1, delta1;
  G2Affine beta2, gamma2, delta2;
  std::vector<Coefficient> coefficients;
  std::vector<G1Affine> A, B1, C, H;
  std::vector<G2Affine> B2;
};

// Reads and checks a proving key (every point on its curve, every index in range).
ProvingKey read_proving_key(const std::string& path);

// Reads and checks a witness: from `path`, or standard input when path is "-". Values are plain
// integers below r.
std::vector<U256> read_witness(const std::string& path);

}  // namespace vcg
