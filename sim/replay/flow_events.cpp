// A 4-ary heap of flows' next events, each flow holding its place.
#include "replay/flow_events.hpp"

#include <algorithm>
#include <bit>

namespace ceiling::replay {

std::uint32_t& FlowEvents::place_of(std::uint32_t flow) {
  if (flow >= place_.size())
    place_.resize(static_cast<std::size_t>(flow) + 1, none);
  return place_[flow];
}

void FlowEvents::set(std::uint32_t flow, double at_s, std::uint64_t tie) {
  set_unordered(flow, at_s, tie);
  const std::size_t i = place_[flow];
  sift_up(i);
  sift_down(place_[flow]);
}

void FlowEvents::set_unordered(std::uint32_t flow, double at_s, std::uint64_t tie) {
  std::uint32_t& place = place_of(flow);
  if (place == none) {
    place = static_cast<std::uint32_t>(heap_.size());
    heap_.push_back({at_s, tie, flow});
  }
  heap_[place].at_s = at_s;
  heap_[place].tie = tie;
}

void FlowEvents::restore() {
  // Floyd's construction: every inner node sifted down, the last first.
  for (std::size_t i = 0; i < heap_.size(); ++i)
    place_[heap_[i].flow] = static_cast<std::uint32_t>(i);
  for (std::size_t i = (heap_.size() + arity - 2) / arity; i-- > 0;)
    sift_down(i);
}

void FlowEvents::sort_due(std::vector<Event>& out, std::ptrdiff_t first) {
  const auto begin = out.begin() + first;
  const std::size_t n = out.size() - static_cast<std::size_t>(first);
  // A fan of flows that end at one instant, started together: their ties are a dense run of
  // distinct start orders, which place them in one pass.
  std::uint64_t least = ~std::uint64_t{0}, most = 0;
  bool one_instant = true;
  for (auto it = begin; it != out.end(); ++it) {
    one_instant = one_instant && it->at_s == begin->at_s;
    least = std::min(least, it->tie);
    most = std::max(most, it->tie);
  }
  if (!one_instant || n < 64 || most - least >= 2 * n) {
    std::sort(begin, out.end());
    return;
  }
  placed_.assign(most - least + 1, Event{0, 0, none});
  for (auto it = begin; it != out.end(); ++it) {
    Event& slot = placed_[it->tie - least];
    if (slot.flow != none) { // two events of one tie (not FlowSharing's): ordered as they compare
      std::sort(begin, out.end());
      return;
    }
    slot = *it;
  }
  auto to = begin;
  for (const Event& e : placed_)
    if (e.flow != none)
      *to++ = e;
}

void FlowEvents::take_due(double now_s, double within_s, std::vector<Event>& out) {
  const auto is_due = [&](const Event& e) { return e.at_s - now_s < within_s; };
  // One by one while that costs less than a pass over the heap (a pop is about 2 log2 n compares:
  // four a level over log4 n levels).
  const std::size_t one_by_one = heap_.size() / static_cast<std::size_t>(std::bit_width(heap_.size()) + 1);
  for (std::size_t taken = 0; !heap_.empty() && is_due(heap_.front()); ++taken) {
    if (taken == one_by_one) {
      // The rest leave in one pass, sorted into the heap's order, and the heap is rebuilt.
      const auto rest = std::partition(heap_.begin(), heap_.end(), [&](const Event& e) { return !is_due(e); });
      const auto first = static_cast<std::ptrdiff_t>(out.size());
      out.insert(out.end(), rest, heap_.end());
      sort_due(out, first);
      heap_.erase(rest, heap_.end());
      for (auto it = out.begin() + first; it != out.end(); ++it)
        place_[it->flow] = none;
      restore();
      return;
    }
    out.push_back(heap_.front());
    pop();
  }
}

void FlowEvents::pop() { erase(heap_.front().flow); }

void FlowEvents::erase(std::uint32_t flow) {
  const std::size_t i = place_[flow];
  place_[flow] = none;
  const Event last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size())
    return;
  // The last event fills the gap, and moves up or down from there.
  const bool later = heap_[i] < last;
  heap_[i] = last;
  place_[last.flow] = static_cast<std::uint32_t>(i);
  if (later)
    sift_down(i);
  else
    sift_up(i);
}

void FlowEvents::clear() {
  for (const Event& e : heap_)
    place_[e.flow] = none;
  heap_.clear();
}

void FlowEvents::sift_up(std::size_t i) {
  const Event e = heap_[i];
  while (i > 0 && e < heap_[(i - 1) / arity]) {
    heap_[i] = heap_[(i - 1) / arity];
    place_[heap_[i].flow] = static_cast<std::uint32_t>(i);
    i = (i - 1) / arity;
  }
  heap_[i] = e;
  place_[e.flow] = static_cast<std::uint32_t>(i);
}

void FlowEvents::sift_down(std::size_t i) {
  const Event e = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    const std::size_t first = arity * i + 1;
    if (first >= n)
      break;
    std::size_t least = first;
    for (std::size_t c = first + 1; c < std::min(first + arity, n); ++c)
      if (heap_[c] < heap_[least])
        least = c;
    if (!(heap_[least] < e))
      break;
    heap_[i] = heap_[least];
    place_[heap_[i].flow] = static_cast<std::uint32_t>(i);
    i = least;
  }
  heap_[i] = e;
  place_[e.flow] = static_cast<std::uint32_t>(i);
}

} // namespace ceiling::replay
