// Run statistics for executor_runner in bounded memory: the count, first, min and mean of every
// run are kept exactly, and the percentiles come from a uniform sample of at most kSampleSize
// timings (reservoir sampling, fixed seed), which is every run up to that count. So
// `--num_executions 4294967295` keeps kSampleSize doubles, not one per run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vkrt::runner {

class RunStats {
 public:
  static constexpr size_t kSampleSize = 10000;

  void add(double ms) {
    if (count_ == 0) first_ = min_ = ms;
    min_ = std::min(min_, ms);
    ++count_;
    // Running mean (no sum to lose precision in over billions of runs).
    mean_ += (ms - mean_) / double(count_);
    if (sample_.size() < kSampleSize) {
      sample_.push_back(ms);
      return;
    }
    // Algorithm R: the count_-th run replaces a random slot with probability kSampleSize/count_.
    uint64_t j = next_random() % count_;
    if (j < kSampleSize) sample_[size_t(j)] = ms;
  }

  uint64_t count() const { return count_; }
  double first() const { return first_; }
  double min() const { return min_; }
  double mean() const { return mean_; }
  size_t sample_size() const { return sample_.size(); }
  // The kept timings: every run in run order up to kSampleSize runs, else the uniform sample.
  const std::vector<double>& sample() const { return sample_; }
  bool sampled() const { return count_ > sample_.size(); }

  // The p-quantile (0..1) of the sample, nearest rank; 0 when nothing was added.
  double percentile(double p) const {
    if (sample_.empty()) return 0;
    std::vector<double> s = sample_;
    size_t k = std::min(s.size() - 1, size_t(p * double(s.size() - 1) + 0.5));
    std::nth_element(s.begin(), s.begin() + long(k), s.end());
    return s[k];
  }

 private:
  uint64_t next_random() {  // xorshift64*
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    return rng_ * 0x2545F4914F6CDD1DULL;
  }

  uint64_t count_ = 0;
  double first_ = 0, min_ = 0, mean_ = 0;
  std::vector<double> sample_;
  uint64_t rng_ = 0x9E3779B97F4A7C15ULL;
};

}  // namespace vkrt::runner
