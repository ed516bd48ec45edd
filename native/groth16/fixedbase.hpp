// vc-groth16 --fixed-base: products k * G of the G1 or G2 generator for the development setup
// (the protocol is described in fixedbase.cpp).
#pragma once

namespace vcg {

// Answers fixed-base requests from standard input until its end; returns the exit code.
int run_fixed_base(unsigned threads);

}  // namespace vcg
