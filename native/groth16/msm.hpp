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
// Work is split into tasks of (a few windows, slice of the points); threads take tasks from a
// shared counter, each with its own buckets, and the partial sums of a window are added
// afterwards. The result does not depend on the number of threads or the order the tasks run in.
//
// msm_grouped first adds up the points whose scalars are equal (a witness repeats its values a
// lot), then runs msm over the distinct values.
//
// Not constant time: the work depends on the scalars (the witness), as in snarkjs's prover.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
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


// d[i] <- 1 / d[i] for non-zero d[i], with one inversion (Montgomery's trick: the prefix
// products, the inverse of their total, then back down, each step peeling one factor off).
template <class F>
void batch_inverse(std::vector<F>& d, std::vector<F>& prefix) {
  const std::size_t n = d.size();
  if (n == 0) return;
  prefix.resize(n);
  F acc = F::one();
  for (std::size_t i = 0; i < n; ++i) {
    prefix[i] = acc;  // d[0] ... d[i-1]
    acc *= d[i];
  }
  F inv = acc.inverse();  // 1 / (d[0] ... d[n-1])
  for (std::size_t i = n; i-- > 0;) {
    const F di = inv * prefix[i];  // 1 / d[i]
    inv *= d[i];                   // 1 / (d[0] ... d[i-1])
    d[i] = di;
  }
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
        batch_(std::max<std::size_t>(16, std::min<std::size_t>(1024, buckets / 4))) {
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
  void add(std::uint32_t b, const Affine<F>& p) {
    if (!full_[b]) {
      bucket_[b] = p;
      full_[b] = 1;
      return;
    }
    if (stamp_[b] == round_) {  // the bucket already waits in this batch: wait for the next one
      deferred_.emplace_back(b, p);
      return;
    }
    enqueue(b, p);
    if (pending_bucket_.size() >= batch_) {
      complete();
      retry_deferred();
    }
  }

  // Completes the waiting additions: one inversion for the whole batch; then the points that
  // waited for a taken bucket.
  void flush() {
    complete();
    retry_deferred();
    complete();
  }

  // The bucket's value (after flush()) added to `acc`.
  Jacobian<F> add_bucket_to(Jacobian<F> acc, std::size_t b) const {
    if (full_[b]) acc = acc.add_affine(bucket_[b]);
    if (overflowing_[b]) acc = acc.add(overflow_[b]);
    return acc;
  }

 private:
  // Right after a batch is completed (no bucket waiting): the points deferred during that batch
  // join the next one. A point whose bucket another deferred point has just taken again goes to
  // the bucket's Jacobian overflow (a mixed addition) instead of waiting once more: retrying
  // deferred points at every batch, not only at the end, keeps this rare for spread digits, while
  // a bucket hit over and over (the digit 1 of the many witness values 1) does not force one
  // small batch, and its inversion, per point.
  void retry_deferred() {
    if (deferred_.empty()) return;
    retry_.swap(deferred_);
    deferred_.clear();
    for (const auto& [b, p] : retry_) {
      if (!full_[b]) {
        bucket_[b] = p;
        full_[b] = 1;
      } else if (stamp_[b] == round_) {
        overflow_[b] = overflowing_[b] ? overflow_[b].add_affine(p) : Jacobian<F>::from_affine(p);
        overflowing_[b] = 1;
      } else {
        enqueue(b, p);
        if (pending_bucket_.size() >= batch_) complete();
      }
    }
    retry_.clear();
  }

  // Puts bucket[b] += p into the batch (the bucket is full and not waiting in this batch).
  void enqueue(std::uint32_t b, const Affine<F>& p) {
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
  }

  // The batch's additions with one inversion (Montgomery's trick, batch_inverse): the
  // denominators become their inverses, then every addition is independent of the others.
  void complete() {
    const std::size_t n = pending_bucket_.size();
    if (n > 0) {
      batch_inverse(denominator_, prefix_);
      for (std::size_t i = 0; i < n; ++i) {
        const F& inv_i = denominator_[i];
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

  // Signed digits, point-major: digits[j * windows + w] for the j-th used scalar.
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
      digits[j * windows + w] = d;
    }
  }

  if (threads == 0) threads = 1;
  // A task takes several windows at once (`span` of them) when their buckets are few, so that one
  // batch of affine additions, with its one inversion, can be long (a quarter of the buckets, up
  // to 1024) and still seldom meet a bucket already waiting in it; then enough slices of the
  // points that every thread has work.
  const unsigned span = std::max(1u, std::min(windows, 4096u / (unsigned)half));
  const std::size_t spans = (windows + span - 1) / span;
  const std::size_t slices = std::max<std::size_t>(1, std::min<std::size_t>((2 * threads + spans - 1) / spans, m / 1024 + 1));
  const std::size_t tasks = spans * slices;
  std::vector<Point> partial((std::size_t)windows * slices, Point::infinity());
  std::atomic<std::size_t> next{0};

  auto worker = [&]() {
    msm_detail::BatchAdder<F> adder((std::size_t)half * span);
    for (;;) {
      std::size_t t = next.fetch_add(1);
      if (t >= tasks) break;
      const unsigned w0 = (unsigned)(t / slices) * span, w1 = std::min(windows, w0 + span);
      const std::size_t s = t % slices;
      const std::size_t begin = m * s / slices, end = m * (s + 1) / slices;
      adder.reset();
      for (std::size_t j = begin; j < end; ++j) {
        const std::int32_t* dj = &digits[j * windows];
        const Affine<F>& p = bases[used[j]];
        for (unsigned w = w0; w < w1; ++w) {
          const std::int32_t d = dj[w];
          if (d == 0) continue;
          // Window w's buckets are [(w - w0) * half, (w - w0 + 1) * half).
          const std::uint32_t base = (w - w0) * (std::uint32_t)half;
          if (d > 0) {
            adder.add(base + (std::uint32_t)(d - 1), p);
          } else {
            adder.add(base + (std::uint32_t)(-d - 1), Affine<F>{p.x, -p.y});
          }
        }
      }
      adder.flush();
      for (unsigned w = w0; w < w1; ++w) {
        // sum_d d * bucket_d = sum over d from the top of (running sum of buckets >= d)
        const std::size_t base = (std::size_t)(w - w0) * (std::size_t)half;
        Point running = Point::infinity(), sum = Point::infinity();
        for (std::int32_t b = half - 1; b >= 0; --b) {
          running = adder.add_bucket_to(running, base + (std::size_t)b);
          sum = sum.add(running);
        }
        partial[(std::size_t)w * slices + s] = sum;
      }
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

// The scalars of a multi-exponentiation grouped by value. A circom witness repeats values a lot
// (a stateTransition witness: 39,930 signals, 6,829 distinct values, some of them ~110 times),
// and sum_i k_i P_i = sum_v v * (sum of the P_i with k_i = v): adding each group's points first
// (one affine addition a point, see sum_groups) leaves a multi-exponentiation over the distinct
// values only, some five times smaller, whose windows cost a point addition each per point.
struct ScalarGroups {
  std::vector<U256> values;            // the distinct non-zero values, in increasing order
  std::vector<std::uint32_t> start;    // group g is members[start[g] .. start[g + 1])
  std::vector<std::uint32_t> members;  // indices into the scalars
};

inline ScalarGroups group_scalars(const U256* scalars, std::size_t n) {
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const U256& k = scalars[i];
    if ((k.limb[0] | k.limb[1] | k.limb[2] | k.limb[3]) != 0) order.push_back((std::uint32_t)i);
  }
  auto less = [scalars](std::uint32_t a, std::uint32_t b) {
    const U256 &x = scalars[a], &y = scalars[b];
    for (int l = 3; l >= 0; --l) {
      if (x.limb[l] != y.limb[l]) return x.limb[l] < y.limb[l];
    }
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);
  ScalarGroups g;
  g.members = std::move(order);
  for (std::size_t j = 0; j < g.members.size(); ++j) {
    const U256& k = scalars[g.members[j]];
    if (j == 0 || std::memcmp(&k, &g.values.back(), sizeof k) != 0) {
      g.values.push_back(k);
      g.start.push_back((std::uint32_t)j);
    }
  }
  g.start.push_back((std::uint32_t)g.members.size());
  return g;
}


// The groups of scalars[first ..] (indices then counted from first), from the groups of all of
// them: the same values in the same order, without a second sort.
inline ScalarGroups groups_from(const ScalarGroups& all, std::uint32_t first) {
  ScalarGroups g;
  for (std::size_t k = 0; k + 1 < all.start.size(); ++k) {
    const std::size_t before = g.members.size();
    for (std::uint32_t j = all.start[k]; j < all.start[k + 1]; ++j) {
      if (all.members[j] >= first) g.members.push_back(all.members[j] - first);
    }
    if (g.members.size() > before) {
      g.values.push_back(all.values[k]);
      g.start.push_back((std::uint32_t)before);
    }
  }
  g.start.push_back((std::uint32_t)g.members.size());
  return g;
}
namespace msm_detail {

// For the groups g0 .. g1 - 1: out[g] = the sum of the group's points (the point at infinity,
// (0, 0), for none). The sums are formed as trees, level by level: at each level the points of
// every group are added in pairs (neighbours), all the pairs of the level sharing one inversion,
// so each addition is an affine one (about six multiplications) and a group of k points takes
// log2(k) levels. A pair of equal points is a doubling (lambda = 3x^2 / 2y), a pair of opposite
// points vanishes (neither goes up a level), points at infinity are left out from the start.
template <class F>
void sum_groups(const Affine<F>* bases, const ScalarGroups& groups, std::size_t g0, std::size_t g1, Affine<F>* out) {
  enum : unsigned char { kAdd, kDouble, kCancel };
  const std::size_t count = g1 - g0;
  std::vector<Affine<F>> cur, next;
  std::vector<std::uint32_t> off(count + 1), next_off(count + 1);
  for (std::size_t k = 0; k < count; ++k) {
    off[k] = (std::uint32_t)cur.size();
    for (std::uint32_t j = groups.start[g0 + k]; j < groups.start[g0 + k + 1]; ++j) {
      const Affine<F>& p = bases[groups.members[j]];
      if (!p.is_infinity()) cur.push_back(p);
    }
  }
  off[count] = (std::uint32_t)cur.size();
  std::vector<F> den, prefix;
  std::vector<unsigned char> kind;
  for (;;) {
    den.clear();
    kind.clear();
    for (std::size_t k = 0; k < count; ++k) {
      for (std::uint32_t j = off[k]; j + 1 < off[k + 1]; j += 2) {
        const Affine<F>&p = cur[j], &q = cur[j + 1];
        F dx = q.x - p.x;
        if (!dx.is_zero()) {
          kind.push_back(kAdd);
          den.push_back(dx);
        } else if (q.y == p.y && !p.y.is_zero()) {
          kind.push_back(kDouble);
          den.push_back(p.y.dbl());
        } else {
          kind.push_back(kCancel);
          den.push_back(F::one());  // keeps the product of the denominators invertible
        }
      }
    }
    if (den.empty()) break;  // every group is down to one point or none
    batch_inverse(den, prefix);
    next.clear();
    std::size_t pair = 0;
    for (std::size_t k = 0; k < count; ++k) {
      next_off[k] = (std::uint32_t)next.size();
      std::uint32_t j = off[k];
      for (; j + 1 < off[k + 1]; j += 2, ++pair) {
        if (kind[pair] == kCancel) continue;
        const Affine<F>&p = cur[j], &q = cur[j + 1];
        F lambda;
        if (kind[pair] == kAdd) {
          lambda = (q.y - p.y) * den[pair];
        } else {
          F xx = p.x.square();
          lambda = (xx.dbl() + xx) * den[pair];
        }
        F x3 = lambda.square() - p.x - q.x;
        F y3 = lambda * (p.x - x3) - p.y;
        next.push_back(Affine<F>{x3, y3});
      }
      if (j < off[k + 1]) next.push_back(cur[j]);  // the odd one out goes up as it is
    }
    next_off[count] = (std::uint32_t)next.size();
    cur.swap(next);
    off.swap(next_off);
  }
  for (std::size_t k = 0; k < count; ++k) out[g0 + k] = off[k + 1] > off[k] ? cur[off[k]] : Affine<F>{F::zero(), F::zero()};
}

// Runs fn(i) for i in [0, tasks) on up to `threads` threads (this one included).
template <class Fn>
void parallel_tasks(unsigned threads, std::size_t tasks, Fn fn) {
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    for (std::size_t t; (t = next.fetch_add(1)) < tasks;) fn(t);
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads && i < tasks; ++i) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones started (and this one) do all the tasks
    }
  }
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace msm_detail

// sum_i scalars[i] * bases[i] for the scalars `groups` was made from: each group's points summed,
// then one multi-exponentiation over the distinct values.
template <class F>
Jacobian<F> msm_grouped(const Affine<F>* bases, const ScalarGroups& groups, unsigned threads) {
  const std::size_t count = groups.values.size();
  std::vector<Affine<F>> sums(count);
  // Tasks of consecutive groups with about the same number of points each.
  const std::size_t tasks = std::max<std::size_t>(1, std::min<std::size_t>(count, 4 * (std::size_t)std::max(1u, threads)));
  std::vector<std::size_t> bounds(tasks + 1, count);
  bounds[0] = 0;
  for (std::size_t t = 1, g = 0; t < tasks; ++t) {
    const std::size_t target = groups.members.size() * t / tasks;
    while (g < count && groups.start[g] < target) ++g;
    bounds[t] = g;
  }
  msm_detail::parallel_tasks(threads, tasks, [&](std::size_t t) {
    if (bounds[t] < bounds[t + 1]) msm_detail::sum_groups(bases, groups, bounds[t], bounds[t + 1], sums.data());
  });
  return msm(sums.data(), groups.values.data(), count, threads);
}

}  // namespace vcg
