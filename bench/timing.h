// Timing helpers shared by the benchmark drivers: medians of repeated calls.
#ifndef TENSORWEAVE_BENCH_TIMING_H_
#define TENSORWEAVE_BENCH_TIMING_H_

#include <algorithm>
#include <chrono>
#include <vector>

namespace tw::bench {

// The median (the upper one of an even count); 0 for none.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Seconds taken by each of `n` calls of fn, after `warmup` untimed calls (connections,
// prepared signatures, caches).
template <typename Fn>
std::vector<double> TimeCalls(int n, int warmup, Fn&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> seconds;
  seconds.reserve(n);
  for (int i = 0; i < n; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

// The median seconds of `n` calls of fn after `warmup` untimed ones.
template <typename Fn>
double MedianSeconds(int n, int warmup, Fn&& fn) {
  return Median(TimeCalls(n, warmup, fn));
}

}  // namespace tw::bench

#endif  // TENSORWEAVE_BENCH_TIMING_H_
