// Multi-scalar multiplication sum_i k_i * P_i (Pippenger's bucket method), spread over threads.
//
// Each scalar (an ordinary integer below r < 2^254) is cut into windows of c bits, recoded as
// signed digits in [-(2^(c-1) - 1), 2^(c-1)] so that a window needs only 2^(c-1) buckets (a
// negative digit adds the negated point, which costs nothing on these curves). For each window,
// every point is added into the bucket of its digit; the window's sum sum_d d * bucket_d is then
// formed with the running-sum trick (two additions a bucket), and the windows are combined
// Horner-style with c doublings between them.
//
// The buckets stay affine and are filled by batches of affine additions (BatchAdder): an affine
// addition needs one division, and a batch of them shares one field inversion through Montgomery's
// trick (three multiplications an element), so an addition costs about 6 multiplications instead
// of the 11 of a mixed Jacobian one. A bucket already waiting in the batch is not touched twice:
// such a point waits for the next batch, and if its bucket is taken again then, it goes to the
// bucket's Jacobian overflow instead (a mixed addition), which keeps heavily used buckets (circom
// witnesses hold many equal small values) from serialising the batches.
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
#include <utility>
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

// The window width minimising the cost of the bucket method: windows * (points + the buckets'
// reduction, two Jacobian additions for each of the 2^(c-1) buckets, each some 4 batched affine
// additions' worth).
inline unsigned window_bits(std::size_t n) {
  unsigned best = 2;
  double best_cost = 1e300;
  for (unsigned c = 2; c <= 16; ++c) {
    double windows = (255 + c - 1) / c;
    double cost = windows * ((double)n + 4.0 * (double)(1u << (c - 1)));
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}


// Affine buckets filled by batches of affine additions with one shared inversion.
template <class F>
class BatchAdder {
 public:
  explicit BatchAdder(std::size_t buckets)
      : bucket_(buckets),
        full_(buckets, 0),
        stamp_(buckets, 0),
        overflow_(buckets),
        overflowing_(buckets, 0),
        batch_(std::max<std::size_t>(16, std::min<std::size_t>(1024, buckets / 2))) {
    pending_bucket_.reserve(batch_);
    pending_point_.reserve(batch_);
    pending_double_.reserve(batch_);
    denominator_.reserve(batch_);
    prefix_.reserve(batch_);
  }

  // Empties every bucket (a new window or slice).
  void reset() {
    std::fill(full_.begin(), full_.end(), 0);
    std::fill(overflowing_.begin(), overflowing_.end(), 0);
    ++round_;
  }

  // bucket[b] += p, now or at a later flush (the bucket's value is then bucket(b) + overflow(b)).
  void add(std::uint32_t b, const Affine<F>& p) { add(b, p, true); }

  // Completes the waiting additions: one inversion for the whole batch; then the points that
  // waited for a taken bucket.
  void flush() {
    complete();
    while (!deferred_.empty()) {
      retry_.swap(deferred_);
      deferred_.clear();
      for (const auto& [b, p] : retry_) add(b, p, false);
      complete();
    }
  }

  // The bucket's value (after flush()) added to `acc`.
  Jacobian<F> add_bucket_to(Jacobian<F> acc, std::size_t b) const {
    if (full_[b]) acc = acc.add_affine(bucket_[b]);
    if (overflowing_[b]) acc = acc.add(overflow_[b]);
    return acc;
  }

 private:
  void add(std::uint32_t b, const Affine<F>& p, bool may_wait) {
    if (!full_[b]) {
      bucket_[b] = p;
      full_[b] = 1;
      return;
    }
    if (stamp_[b] == round_) {
      if (may_wait) {
        deferred_.emplace_back(b, p);
        return;
      }
      overflow_[b] = overflowing_[b] ? overflow_[b].add_affine(p) : Jacobian<F>::from_affine(p);
      overflowing_[b] = 1;
      return;
    }
    const Affine<F>& q = bucket_[b];
    F dx = p.x - q.x;
    bool doubling = false;
    if (dx.is_zero()) {
      if (p.y != q.y || p.y.is_zero()) {  // p = -q: the bucket becomes empty
        full_[b] = 0;
        return;
      }
      doubling = true;  // p = q: lambda = 3x^2 / 2y
      dx = q.y.dbl();
    }
    stamp_[b] = round_;
    pending_bucket_.push_back(b);
    pending_point_.push_back(p);
    pending_double_.push_back(doubling);
    denominator_.push_back(dx);
    if (pending_bucket_.size() >= batch_) complete();
  }

  // The batch's additions with one inversion (Montgomery's trick).
  void complete() {
    const std::size_t n = pending_bucket_.size();
    if (n > 0) {
      prefix_.resize(n);
      prefix_[0] = denominator_[0];
      for (std::size_t i = 1; i < n; ++i) prefix_[i] = prefix_[i - 1] * denominator_[i];
      F inv = prefix_[n - 1].inverse();  // 1 / (d_0 ... d_{n-1})
      for (std::size_t i = n; i-- > 0;) {
        F inv_i = i > 0 ? inv * prefix_[i - 1] : inv;  // 1 / d_i
        if (i > 0) inv = inv * denominator_[i];         // 1 / (d_0 ... d_{i-1})
        Affine<F>& q = bucket_[pending_bucket_[i]];
        const Affine<F>& p = pending_point_[i];
        F lambda;
        if (pending_double_[i]) {
          F xx = q.x.square();
          lambda = (xx.dbl() + xx) * inv_i;
        } else {
          lambda = (p.y - q.y) * inv_i;
        }
        F x3 = lambda.square() - q.x - p.x;
        F y3 = lambda * (q.x - x3) - q.y;
        q.x = x3;
        q.y = y3;
      }
    }
    pending_bucket_.clear();
    pending_point_.clear();
    pending_double_.clear();
    denominator_.clear();
    ++round_;
  }

  std::vector<Affine<F>> bucket_;
  std::vector<unsigned char> full_;
  std::vector<std::uint64_t> stamp_;  // the round in which the bucket waits for an addition
  std::uint64_t round_ = 1;
  std::vector<Jacobian<F>> overflow_;
  std::vector<unsigned char> overflowing_;
  std::size_t batch_;
  std::vector<std::uint32_t> pending_bucket_;
  std::vector<Affine<F>> pending_point_;
  std::vector<unsigned char> pending_double_;
  std::vector<F> denominator_, prefix_;
  std::vector<std::pair<std::uint32_t, Affine<F>>> deferred_, retry_;
};

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
    msm_detail::BatchAdder<F> adder((std::size_t)half);
    for (;;) {
      std::size_t t = next.fetch_add(1);
      if (t >= tasks) break;
      const unsigned w = (unsigned)(t / slices);
      const std::size_t s = t % slices;
      const std::size_t begin = m * s / slices, end = m * (s + 1) / slices;
      adder.reset();
      const std::int32_t* dw = &digits[(std::size_t)w * m];
      bool any = false;
      for (std::size_t j = begin; j < end; ++j) {
        std::int32_t d = dw[j];
        if (d == 0) continue;
        any = true;
        const Affine<F>& p = bases[used[j]];
        if (d > 0) {
          adder.add((std::uint32_t)(d - 1), p);
        } else {
          adder.add((std::uint32_t)(-d - 1), Affine<F>{p.x, -p.y});
        }
      }
      adder.flush();
      if (!any) continue;
      // sum_d d * bucket_d = sum over d from the top of (running sum of buckets >= d)
      Point running = Point::infinity(), sum = Point::infinity();
      for (std::int32_t b = half - 1; b >= 0; --b) {
        running = adder.add_bucket_to(running, (std::size_t)b);
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
