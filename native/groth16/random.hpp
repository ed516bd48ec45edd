// The proof's blinding scalars r and s: uniform in [0, r) from the operating system's CSPRNG.
#pragma once

#include "bn254.hpp"

namespace vcg {

// A uniformly random integer below BN254's group order r, by rejection sampling: 32 bytes from
// getrandom(2) (or /dev/urandom where the system call is missing), the top two bits cleared
// (r < 2^254), and drawn again while the value is not below r (about 1 draw in 4). Nothing is
// seeded or kept between calls. Throws ProverError when the system has no randomness to give.
U256 random_scalar();

// Overwrites a secret so that the compiler cannot drop the stores.
void wipe(void* p, std::size_t n);

}  // namespace vcg
