// The rendezvous rule over a plan indexed by rank.
#include "replay/collective_progress.hpp"

#include <algorithm>
#include <cassert>

namespace ceiling::replay {

template <class ForEachKey>
CollectiveProgress::PhaseIndex CollectiveProgress::index_by(std::size_t keys, std::size_t items,
                                                            ForEachKey for_each_key) {
  PhaseIndex index{std::vector<int>(keys + 1, 0), {}};
  for (std::size_t i = 0; i < items; ++i)
    for_each_key(i, [&](int key) { ++index.offsets[static_cast<std::size_t>(key) + 1]; });
  for (std::size_t k = 0; k < keys; ++k)
    index.offsets[k + 1] += index.offsets[k];
  index.ids.resize(static_cast<std::size_t>(index.offsets.back()));
  std::vector<int> fill(index.offsets.begin(), index.offsets.end() - 1);
  for (std::size_t i = 0; i < items; ++i)
    for_each_key(i, [&](int key) {
      index.ids[static_cast<std::size_t>(fill[static_cast<std::size_t>(key)]++)] = static_cast<int>(i);
    });
  return index;
}

CollectiveProgress::PhaseIndex CollectiveProgress::waiters(const std::vector<std::vector<int>>& waits,
                                                           std::size_t flows) {
  if (waits.empty())
    return {};
  return index_by(flows, waits.size(), [&](std::size_t i, auto key) {
    for (int w : waits[i])
      key(w);
  });
}

CollectiveProgress::CollectiveProgress(const std::vector<collectives::Phase>& plan, int ranks)
    : plan_(plan) {
  const auto n = static_cast<std::size_t>(ranks);
  for (const auto& phase : plan) {
    assert((phase.after.empty() || phase.after.size() == phase.flows.size()) &&
           (phase.after_sent.empty() || phase.after_sent.size() == phase.after.size()));
    index_.push_back(index_by(n, phase.flows.size(), [&](std::size_t i, auto key) {
      key(phase.flows[i].src);
      key(phase.flows[i].dst);
    }));
    waiting_for_.push_back(waiters(phase.after, phase.flows.size()));
    waiting_for_sent_.push_back(waiters(phase.after_sent, phase.flows.size()));
    auto& set_of = set_of_.emplace_back();
    auto& connected = connected_.emplace_back();
    if (phase.steps > 1 && phase.chunks == 0) {
      // The flows' sets: ranks joined by a flow are in one (union-find, the smaller root kept).
      std::vector<int> root(n);
      for (std::size_t r = 0; r < n; ++r)
        root[r] = static_cast<int>(r);
      const auto find = [&](int r) {
        while (root[static_cast<std::size_t>(r)] != r)
          r = root[static_cast<std::size_t>(r)] = root[static_cast<std::size_t>(root[static_cast<std::size_t>(r)])];
        return r;
      };
      for (const auto& f : phase.flows) {
        const int a = find(f.src), b = find(f.dst);
        root[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
      }
      std::vector<int> dense(n, -1);
      int sets = 0;
      for (const auto& f : phase.flows) {
        int& id = dense[static_cast<std::size_t>(find(f.src))];
        if (id < 0)
          id = sets++;
        set_of.push_back(id);
      }
      connected = index_by(static_cast<std::size_t>(sets), phase.flows.size(),
                           [&](std::size_t i, auto key) { key(set_of[i]); });
    }
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
  sent_.clear();
  unfinished_before_.clear();
  unfinished_in_set_.clear();
  for (const auto& connected : connected_) {
    auto& left = unfinished_in_set_.emplace_back();
    for (std::size_t s = 0; s + 1 < connected.offsets.size(); ++s)
      left.push_back(connected.offsets[s + 1] - connected.offsets[s]);
  }
  for (const auto& phase : plan_) {
    started_.emplace_back(phase.flows.size(), 0);
    sent_.emplace_back(phase.after.empty() ? 0 : phase.flows.size(), 0);
    auto& unfinished = unfinished_before_.emplace_back();
    for (std::size_t i = 0; i < phase.after.size(); ++i)
      unfinished.push_back(static_cast<int>(phase.after[i].size() +
                                            (phase.after_sent.empty() ? 0 : phase.after_sent[i].size())));
  }
}

void CollectiveProgress::join(int rank, std::vector<FlowRef>& to_start, std::vector<int>& done) {
  enter(rank, 0, to_start, done);
}

void CollectiveProgress::sent(FlowRef f, std::vector<FlowRef>& to_start) {
  char& sent = sent_[static_cast<std::size_t>(f.phase)][static_cast<std::size_t>(f.flow)];
  if (sent) // (finish() came first, at the same instant)
    return;
  sent = 1;
  release(f, waiting_for_sent_[static_cast<std::size_t>(f.phase)], to_start);
}

void CollectiveProgress::finish(FlowRef f, std::vector<FlowRef>& to_start, std::vector<int>& done) {
  if (!waiting_for_[static_cast<std::size_t>(f.phase)].offsets.empty()) { // a dataflow phase
    if (!sent_[static_cast<std::size_t>(f.phase)][static_cast<std::size_t>(f.flow)])
      sent(f, to_start);
    release(f, waiting_for_[static_cast<std::size_t>(f.phase)], to_start);
  }
  const auto p = static_cast<std::size_t>(f.phase);
  if (set_of_[p].empty()) {
    release_ends(f, to_start, done);
    return;
  }
  // A merged phase: its ranks leave once every flow connected to theirs has ended.
  const int set = set_of_[p][static_cast<std::size_t>(f.flow)];
  if (--unfinished_in_set_[p][static_cast<std::size_t>(set)] > 0)
    return;
  const PhaseIndex& connected = connected_[p];
  for (int i = connected.offsets[static_cast<std::size_t>(set)]; i < connected.offsets[static_cast<std::size_t>(set) + 1]; ++i)
    release_ends({f.phase, connected.ids[static_cast<std::size_t>(i)]}, to_start, done);
}

void CollectiveProgress::release_ends(FlowRef f, std::vector<FlowRef>& to_start, std::vector<int>& done) {
  const auto& fl = flow(f);
  for (int end : {fl.src, fl.dst})
    if (--pending_[static_cast<std::size_t>(end)] == 0)
      enter(end, f.phase + 1, to_start, done);
}

void CollectiveProgress::release(FlowRef f, const PhaseIndex& waiting, std::vector<FlowRef>& to_start) {
  const auto p = static_cast<std::size_t>(f.phase);
  const auto i = static_cast<std::size_t>(f.flow);
  if (waiting.offsets.empty())
    return;
  for (int w = waiting.offsets[i]; w < waiting.offsets[i + 1]; ++w) {
    const int next = waiting.ids[static_cast<std::size_t>(w)];
    if (--unfinished_before_[p][static_cast<std::size_t>(next)] == 0)
      try_start({f.phase, next}, to_start);
  }
}

void CollectiveProgress::try_start(FlowRef f, std::vector<FlowRef>& to_start) {
  const auto& fl = flow(f);
  const auto p = static_cast<std::size_t>(f.phase);
  const auto i = static_cast<std::size_t>(f.flow);
  char& started = started_[p][i];
  if (started || phase_of_[static_cast<std::size_t>(fl.src)] != f.phase ||
      phase_of_[static_cast<std::size_t>(fl.dst)] != f.phase ||
      (!unfinished_before_[p].empty() && unfinished_before_[p][i] > 0))
    return;
  started = 1;
  to_start.push_back(f);
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
  for (int i = pi.offsets[r]; i < pi.offsets[r + 1]; ++i)
    try_start({p, pi.ids[static_cast<std::size_t>(i)]}, to_start);
}

} // namespace ceiling::replay
