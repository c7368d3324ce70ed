#include "summary/histogram.h"

#include <algorithm>
#include <cfloat>

namespace tw::summary {

const std::vector<double>& Histogram::DefaultLimits() {
  static const std::vector<double>* limits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    auto* all = new std::vector<double>;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all->push_back(-*it);
    all->push_back(0.0);
    all->insert(all->end(), positive.begin(), positive.end());
    return all;
  }();
  return *limits;
}

Histogram::Histogram()
    : limits_(DefaultLimits()), counts_(limits_.size(), 0.0), min_(limits_.back()), max_(-limits_.back()) {}

void Histogram::Add(double value) {
  const size_t b = std::upper_bound(limits_.begin(), limits_.end(), value) - limits_.begin();
  counts_[std::min(b, counts_.size() - 1)] += 1.0;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::EncodeTo(::tensorweave::HistogramProto* proto) const {
  proto->Clear();
  proto->set_min(min_);
  proto->set_max(max_);
  proto->set_num(num_);
  proto->set_sum(sum_);
  proto->set_sum_squares(sum_squares_);
  for (size_t i = 0; i < counts_.size();) {
    double limit = limits_[i];
    double count = counts_[i];
    ++i;
    if (count <= 0.0) {
      while (i < counts_.size() && counts_[i] <= 0.0) {
        limit = limits_[i];
        count = counts_[i];
        ++i;
      }
    }
    proto->add_bucket_limit(limit);
    proto->add_bucket(count);
  }
  if (proto->bucket_size() == 0) {
    proto->add_bucket_limit(DBL_MAX);
    proto->add_bucket(0.0);
  }
}

}  // namespace tw::summary
