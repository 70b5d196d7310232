// Pattern timing: a recording pass, then each distinct size (or a sample of them) timed once.
#include "hpc/comm_times.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace ceiling::hpc {

int CommTimes::add(Pattern pattern) {
  patterns_.push_back(std::move(pattern));
  sizes_.emplace_back();
  return static_cast<int>(patterns_.size()) - 1;
}

double CommTimes::seconds(int id, double bytes) {
  auto& sizes = sizes_.at(static_cast<std::size_t>(id));
  if (patterns_[static_cast<std::size_t>(id)].flows.empty() || bytes <= 0)
    return 0;
  if (recording_) {
    sizes.emplace(bytes, 0.0);
    return 0;
  }
  const auto above = sizes.lower_bound(bytes);
  if (above != sizes.end() && above->first == bytes)
    return above->second;
  if (above == sizes.end() || above == sizes.begin())
    throw std::logic_error("CommTimes: pattern \"" + patterns_[static_cast<std::size_t>(id)].name +
                           "\" asked at a size outside those recorded");
  const auto below = std::prev(above);
  const double t = (bytes - below->first) / (above->first - below->first);
  return below->second + t * (above->second - below->second);
}

void CommTimes::resolve(Sampling sampling) {
  if (!recording_)
    throw std::logic_error("CommTimes::resolve called twice");
  recording_ = false;
  for (std::size_t p = 0; p < patterns_.size(); ++p) {
    auto& sizes = sizes_[p];
    if (sizes.empty())
      continue;
    asked_ += static_cast<int>(sizes.size());
    std::vector<double> all;
    for (const auto& entry : sizes)
      all.push_back(entry.first);
    std::vector<double> chosen;
    const auto n = all.size();
    const auto samples = static_cast<std::size_t>(std::max(2, sampling.samples));
    if (sampling.every || n <= samples) {
      chosen = all;
    } else {
      for (std::size_t s = 0; s < samples; ++s)
        chosen.push_back(all[(s * (n - 1)) / (samples - 1)]);
      chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    }
    std::map<double, double> timed;
    const auto& weights = patterns_[p].flows;
    auto flows = weights;
    for (double bytes : chosen) {
      for (std::size_t f = 0; f < flows.size(); ++f)
        flows[f].bytes = weights[f].bytes * bytes;
      timed.emplace(bytes, timer_->seconds(flows));
      ++timed_;
    }
    sizes = std::move(timed);
  }
}

int CommTimes::distinct_sizes() const {
  if (!recording_)
    return asked_;
  int n = 0;
  for (const auto& s : sizes_)
    n += static_cast<int>(s.size());
  return n;
}

Pattern row_shift(Grid2 grid, int shift) {
  Pattern p{.name = "row shift " + std::to_string(shift), .flows = {}};
  if (grid.columns < 2)
    return p;
  for (int i = 0; i < grid.rows; ++i)
    for (int j = 0; j < grid.columns; ++j)
      p.flows.push_back({.src = grid.rank(i, j), .dst = grid.rank(i, (j + shift) % grid.columns), .bytes = 1});
  return p;
}

Pattern column_shift(Grid2 grid, int shift) {
  Pattern p{.name = "column shift " + std::to_string(shift), .flows = {}};
  if (grid.rows < 2)
    return p;
  for (int i = 0; i < grid.rows; ++i)
    for (int j = 0; j < grid.columns; ++j)
      p.flows.push_back({.src = grid.rank(i, j), .dst = grid.rank((i + shift) % grid.rows, j), .bytes = 1});
  return p;
}

Pattern column_exchange(Grid2 grid, int distance) {
  Pattern p{.name = "column exchange " + std::to_string(distance), .flows = {}};
  for (int i = 0; i < grid.rows; ++i) {
    const int partner = i ^ distance;
    if (partner < grid.rows)
      for (int j = 0; j < grid.columns; ++j)
        p.flows.push_back({.src = grid.rank(i, j), .dst = grid.rank(partner, j), .bytes = 1});
  }
  return p;
}

Pattern rank_exchange(long long ranks, long long distance) {
  Pattern p{.name = "rank exchange " + std::to_string(distance), .flows = {}};
  for (long long r = 0; r < ranks; ++r)
    if ((r ^ distance) < ranks)
      p.flows.push_back({.src = static_cast<int>(r), .dst = static_cast<int>(r ^ distance), .bytes = 1});
  return p;
}

} // namespace ceiling::hpc
