// The histogram of a HistogramSummary, with TensorFlow's default buckets: limits grow by a
// factor of 1.1 from 1e-12 to 1e20, mirrored for negatives, with 0 and +-DBL_MAX at the
// ends. Encoded as TensorFlow does: a run of empty buckets collapses into its last limit,
// so TensorBoard sees the same bins from both systems.
#ifndef TENSORWEAVE_SRC_SUMMARY_HISTOGRAM_H_
#define TENSORWEAVE_SRC_SUMMARY_HISTOGRAM_H_

#include <vector>

#include "tensorweave/proto/summary.pb.h"

namespace tw::summary {

class Histogram {
 public:
  Histogram();
  // Counts `value` in the first bucket whose limit is greater than it.
  void Add(double value);
  // Writes min, max, num, sum, sum_squares and the non-empty buckets (each run of empty
  // buckets becomes one, limited by the run's last limit); always at least one bucket.
  void EncodeTo(::tensorweave::HistogramProto* proto) const;

  // The shared default limits (ascending, last is DBL_MAX).
  static const std::vector<double>& DefaultLimits();

 private:
  const std::vector<double>& limits_;
  std::vector<double> counts_;
  double min_, max_, num_ = 0, sum_ = 0, sum_squares_ = 0;
};

}  // namespace tw::summary

#endif  // TENSORWEAVE_SRC_SUMMARY_HISTOGRAM_H_
