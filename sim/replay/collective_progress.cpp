// The rendezvous rule over a plan indexed by rank.
#include "replay/collective_progress.hpp"

namespace ceiling::replay {

CollectiveProgress::CollectiveProgress(const std::vector<collectives::Phase>& plan, int ranks)
    : plan_(plan) {
  const auto n = static_cast<std::size_t>(ranks);
  for (const auto& phase : plan) {
    PhaseIndex pi{std::vector<int>(n + 1, 0), {}};
    for (const auto& f : phase.flows) {
      ++pi.offsets[static_cast<std::size_t>(f.src) + 1];
      ++pi.offsets[static_cast<std::size_t>(f.dst) + 1];
    }
    for (std::size_t r = 0; r < n; ++r)
      pi.offsets[r + 1] += pi.offsets[r];
    pi.ids.resize(static_cast<std::size_t>(pi.offsets.back()));
    std::vector<int> fill(pi.offsets.begin(), pi.offsets.end() - 1);
    for (std::size_t i = 0; i < phase.flows.size(); ++i)
      for (int end : {phase.flows[i].src, phase.flows[i].dst})
        pi.ids[static_cast<std::size_t>(fill[static_cast<std::size_t>(end)]++)] = static_cast<int>(i);
    index_.push_back(std::move(pi));
  }
  phase_of_.resize(n);
  pending_.resize(n);
}

void CollectiveProgress::start(std::vector<FlowRef>& to_start, std::vector<int>& done) {
  reset();
  // Every rank is at its first phase already: each flow starts as its first end enters, in
  // rank order.
  std::fill(phase_of_.begin(), phase_of_.end(), 0);
  for (int r = 0; r < static_cast<int>(phase_of_.size()); ++r)
    enter(r, 0, to_start, done);
}

void CollectiveProgress::reset() {
  std::fill(phase_of_.begin(), phase_of_.end(), -1);
  std::fill(pending_.begin(), pending_.end(), 0);
  started_.clear();
  for (const auto& phase : plan_)
    started_.emplace_back(phase.flows.size(), 0);
}

void CollectiveProgress::join(int rank, std::vector<FlowRef>& to_start, std::vector<int>& done) {
  enter(rank, 0, to_start, done);
}

void CollectiveProgress::finish(FlowRef f, std::vector<FlowRef>& to_start, std::vector<int>& done) {
  const auto& fl = flow(f);
  for (int end : {fl.src, fl.dst})
    if (--pending_[static_cast<std::size_t>(end)] == 0)
      enter(end, f.phase + 1, to_start, done);
}

void CollectiveProgress::enter(int rank, int from, std::vector<FlowRef>& to_start, std::vector<int>& done) {
  const auto r = static_cast<std::size_t>(rank);
  const int phases = static_cast<int>(plan_.size());
  int p = from;
  while (p < phases && index_[static_cast<std::size_t>(p)].offsets[r] == index_[static_cast<std::size_t>(p)].offsets[r + 1])
    ++p;
  phase_of_[r] = p;
  if (p == phases) {
    done.push_back(rank);
    return;
  }
  const PhaseIndex& pi = index_[static_cast<std::size_t>(p)];
  pending_[r] = pi.offsets[r + 1] - pi.offsets[r];
  for (int i = pi.offsets[r]; i < pi.offsets[r + 1]; ++i) {
    const FlowRef f{p, pi.ids[static_cast<std::size_t>(i)]};
    const auto& fl = flow(f);
    const int other = fl.src == rank ? fl.dst : fl.src;
    char& started = started_[static_cast<std::size_t>(p)][static_cast<std::size_t>(f.flow)];
    if (!started && phase_of_[static_cast<std::size_t>(other)] == p) {
      started = 1;
      to_start.push_back(f);
    }
  }
}

} // namespace ceiling::replay
