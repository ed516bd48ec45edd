// Multi-scalar multiplication sum_i k_i * P_i (Pippenger's bucket method), spread over threads.
//
// Each scalar (an ordinary integer below r < 2^254) is cut into windows of c bits, recoded as
// signed digits in [-(2^(c-1) - 1), 2^(c-1)] so that a window needs only 2^(c-1) buckets (a
// negative digit adds the negated point, which costs nothing on these curves). For each window,
// every point is added into the bucket of its digit (mixed Jacobian + affine additions); the
// window's sum sum_d d * bucket_d is then formed with the running-sum trick (two additions a
// bucket), and the windows are combined Horner-style with c doublings between them.
//
// Work is split into tasks of (window, slice of the points); threads take tasks from a shared
// counter, each with its own buckets, and the partial sums of a window are added afterwards. The
// result does not depend on the number of threads or the order the tasks run in.
//
// Not constant time: the work depends on the scalars (the witness), as in snarkjs's prover.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <system_error>
#include <thread>
#include <vector>

#include "bn254.hpp"

namespace vcg {

namespace msm_detail {

// The c bits of x starting at bit `pos` (bits past 255 read as 0).
inline std::uint32_t bits_at(const U256& x, unsigned pos, unsigned c) {
  if (pos >= 256) return 0;
  unsigned limb = pos / 64, off = pos % 64;
  u64 v = x.limb[limb] >> off;
  if (off + c > 64 && limb + 1 < 4) v |= x.limb[limb + 1] << (64 - off);
  return (std::uint32_t)(v & ((u64(1) << c) - 1));
}

// The window width minimising windows * (points + buckets), the cost of the bucket method.
inline unsigned window_bits(std::size_t n) {
  unsigned best = 2;
  double best_cost = 1e300;
  for (unsigned c = 2; c <= 16; ++c) {
    double windows = (255 + c - 1) / c;
    double cost = windows * ((double)n + (double)(1u << c));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

}  // namespace msm_detail

// sum_i scalars[i] * bases[i]. Every scalar must be below 2^254 (the callers pass values below r).
template <class F>
Jacobian<F> msm(const Affine<F>* bases, const U256* scalars, std::size_t n, unsigned threads) {
  using Point = Jacobian<F>;
  // Zero scalars and points at infinity contribute nothing: keep the indices of the others.
  std::vector<std::uint32_t> used;
  used.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const U256& k = scalars[i];
    if ((k.limb[0] | k.limb[1] | k.limb[2] | k.limb[3]) != 0 && !bases[i].is_infinity()) used.push_back((std::uint32_t)i);
  }
  const std::size_t m = used.size();
  if (m == 0) return Point::infinity();

  const unsigned c = msm_detail::window_bits(m);
  const unsigned windows = (255 + c - 1) / c;  // windows * c >= 255, so the top digit never carries out
  const std::int32_t half = 1 << (c - 1);

  // Signed digits, window-major: digits[w * m + j] for the j-th used scalar.
  std::vector<std::int32_t> digits((std::size_t)windows * m);
  for (std::size_t j = 0; j < m; ++j) {
    const U256& k = scalars[used[j]];
    std::int32_t carry = 0;
    for (unsigned w = 0; w < windows; ++w) {
      std::int32_t d = (std::int32_t)msm_detail::bits_at(k, w * c, c) + carry;
      carry = 0;
      if (w + 1 < windows && d > half) {
        d -= (std::int32_t)1 << c;
        carry = 1;
      }
      digits[(std::size_t)w * m + j] = d;
    }
  }

  if (threads == 0) threads = 1;
  // Enough slices that every thread has work even when there are few windows.
  const std::size_t slices = std::max<std::size_t>(1, std::min<std::size_t>((2 * threads + windows - 1) / windows, m / 1024 + 1));
  const std::size_t tasks = (std::size_t)windows * slices;
  std::vector<Point> partial(tasks, Point::infinity());
  std::atomic<std::size_t> next{0};

  auto worker = [&]() {
    std::vector<Point> buckets((std::size_t)half);
    for (;;) {
      std::size_t t = next.fetch_add(1);
      if (t >= tasks) break;
      const unsigned w = (unsigned)(t / slices);
      const std::size_t s = t % slices;
      const std::size_t begin = m * s / slices, end = m * (s + 1) / slices;
      std::fill(buckets.begin(), buckets.end(), Point::infinity());
      const std::int32_t* dw = &digits[(std::size_t)w * m];
      bool any = false;
      for (std::size_t j = begin; j < end; ++j) {
        std::int32_t d = dw[j];
        if (d == 0) continue;
        any = true;
        const Affine<F>& p = bases[used[j]];
        if (d > 0) {
          buckets[d - 1] = buckets[d - 1].add_affine(p);
        } else {
          buckets[-d - 1] = buckets[-d - 1].sub_affine(p);
        }
      }
      if (!any) continue;
      // sum_d d * bucket_d = sum over d from the top of (running sum of buckets >= d)
      Point running = Point::infinity(), sum = Point::infinity();
      for (std::int32_t b = half - 1; b >= 0; --b) {
        running = running.add(buckets[b]);
        sum = sum.add(running);
      }
      partial[t] = sum;
    }
  };

  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones started (and this one) do all the tasks
    }
  }
  worker();
  for (auto& th : pool) th.join();

  Point acc = Point::infinity();
  for (int w = (int)windows - 1; w >= 0; --w) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    for (std::size_t s = 0; s < slices; ++s) acc = acc.add(partial[(std::size_t)w * slices + s]);
  }
  return acc;
}

}  // namespace vcg
