// Fans on level clocks: FlowSharing's flows in a few classes of one level each (flow_sharing.hpp).
#include "replay/flow_sharing.hpp"

#include "replay/simgrid_precision.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace ceiling::replay {
namespace {

constexpr std::uint32_t no_clock = ~std::uint32_t{0};

/// The most clock links and classes that fans go on clocks with, and the least flows per class:
/// beyond, solving the classes at every change would cost about what the solver's solves do.
/// Measured with the empty classes dropped (tools/bench/HISTORY.md): the parameter server (16) on
/// 4,096 Piz Daint nodes leaves its clocks 20 times in 5 iterations with room for 1,024 classes,
/// once with 2,048 (30 times with 128 clocks and 512 classes); DIN's partitioned parameter
/// servers on 256 nodes, whose clocks are a mesh of workers' and servers' links (a few flows a
/// class, every class in every solve), replay slower with room for 4,096.
constexpr std::size_t most_fan_clocks = 512;
constexpr std::size_t most_fan_classes = 2048;
constexpr std::size_t least_flows_per_class = 16;
/// How many more classes without flows than with them stay (drop_empty_fan_classes).
constexpr std::size_t empty_class_slack = 64;

/// The most links made clocks at once while on clocks, for flows that start on no clock (their
/// narrowest links: advance_fans).
constexpr std::size_t most_clocks_made_at_once = 8;
/// The most links made clocks at once where a certification finds them filling (make_clocks). 8
/// before: the parameter server (16) on the 16,384-node bench dragonfly left its clocks 18 times
/// in 3 iterations, 11 of them there; with 16, 0.84 of its whole process, paired (0.91 at 4,096
/// Piz Daint nodes; tools/bench/HISTORY.md).
constexpr std::size_t most_clocks_made_to_certify = 16;

/// A class's ceiling, when certified: its level times at most this, and at least this much
/// room on every link that no clock dominates (else the link may soon bind: it should be a clock).
constexpr double fan_headroom = 8.0;
constexpr double least_fan_headroom = 1.05;
/// A link that no flow is held by but that its flows fill this far or further (room below this)
/// is a clock too: when fans go on clocks, and while they are on them.
constexpr double clock_room = 2.0;

/// What a link that is no clock may carry at the ceilings, as a share of its bandwidth: short of
/// full by four times SimGrid's precision, as a slack link must stay (fill_slack_links), less a
/// margin for the loads' sums.
constexpr double fan_load_limit = (1 - 4 * maxmin_precision) * (1 - 1e-9);

} // namespace

bool FlowSharing::fan_key(const Flow& f) {
  fan_key_.clear();
  for (std::uint32_t l : hops_of(f))
    if (l < clock_of_link_.size() && clock_of_link_[l] != no_clock) {
      // (a route crosses a few clocks: each put in its place as it comes)
      const std::uint32_t k = clock_of_link_[l];
      fan_key_.push_back(k);
      for (auto i = fan_key_.size() - 1; i > 0 && fan_key_[i - 1] > k; --i)
        std::swap(fan_key_[i - 1], fan_key_[i]);
    }
  return !fan_key_.empty();
}

std::uint32_t FlowSharing::fan_class() {
  // (Flows come class by class, a fan's one after the other: the last class asked for first.)
  if (last_fan_class_ < fan_classes_.size() && fan_classes_[last_fan_class_].clocks == fan_key_)
    return last_fan_class_;
  const auto [it, added] = fan_class_of_.try_emplace(fan_key_, static_cast<std::uint32_t>(fan_classes_.size()));
  last_fan_class_ = it->second;
  if (added) {
    FanClass c;
    c.clocks = fan_key_;
    for (std::uint32_t k : c.clocks)
      fan_clocks_[k].classes.push_back(it->second);
    c.uncertified = true; // no ceiling yet
    fan_classes_.push_back(std::move(c));
    fans_uncertified_ = true;
  }
  return it->second;
}

double FlowSharing::fan_cap_level(const Flow& f) const {
  double cap_bytes_per_s = std::numeric_limits<double>::infinity();
  for (std::uint32_t l : hops_of(f))
    if (clock_of_link_[l] == no_clock)
      cap_bytes_per_s = std::min(cap_bytes_per_s, links_[l].bytes_per_s);
  return cap_bytes_per_s / f.weight; // as solve_component's caps
}

void FlowSharing::size_fan_links() {
  if (clock_of_link_.size() == links_.size())
    return;
  clock_of_link_.resize(links_.size(), no_clock);
  fan_load_.resize(links_.size(), 0.0);
  fan_crossing_.resize(links_.size(), 0);
  fan_dominator_.resize(links_.size(), no_clock);
  fan_listed_.resize(links_.size(), false);
  fan_level_load_.resize(links_.size(), 0.0);
  fan_room_.resize(links_.size(), 0.0);
}

bool FlowSharing::join_fan(std::uint32_t c, std::uint32_t flow, double remaining_bytes) {
  FanClass& k = fan_classes_[c];
  const Flow& f = flows_[flow];
  assert(fan_level_load_.size() == links_.size() && "enter_fans and advance_fans size the records by link");
  if (fan_class_of_flow_.size() < flows_.size()) {
    fan_class_of_flow_.resize(flows_.size());
    fan_cap_of_flow_.resize(flows_.size());
  }
  fan_class_of_flow_[flow] = c;
  // Its bytes go at its weight per unit of the class's clock (its value is level over penalty).
  k.members.push({k.clock + remaining_bytes / f.weight, start_order_[flow], flow});
  k.weight += f.weight;
  fan_cap_of_flow_[flow] = fan_cap_level(f);
  k.least_cap_level = std::min(k.least_cap_level, fan_cap_of_flow_[flow]);
  bool fits = k.level_most > 0 && k.least_cap_level >= k.level_most;
  for (std::uint32_t l : hops_of(f)) {
    if (clock_of_link_[l] != no_clock)
      continue;
    cross_fan_link(l, k);
    fan_load_[l] += k.level_most / f.penalty;
    fits = fits && (fan_dominator_[l] != no_clock || fan_load_[l] <= links_[l].bytes_per_s * fan_load_limit);
  }
  k.uncertified = k.uncertified || !fits;
  fans_uncertified_ = fans_uncertified_ || !fits;
  return fits;
}

template <class Visit>
void FlowSharing::each_free_hop(const FanClass& c, Visit&& visit) const {
  for (const FlowEvents::Event& m : c.members) {
    const Flow& f = flows_[m.flow];
    for (std::uint32_t l : hops_of(f))
      if (clock_of_link_[l] == no_clock)
        visit(f, l);
  }
}

void FlowSharing::resum_fan_class(FanClass& c) {
  // (Summed again, so that rounding never piles up over joins and ends.)
  c.weight = 0;
  c.least_cap_level = std::numeric_limits<double>::infinity();
  for (const FlowEvents::Event& m : c.members) {
    c.weight += flows_[m.flow].weight;
    c.least_cap_level = std::min(c.least_cap_level, fan_cap_of_flow_[m.flow]);
  }
}

void FlowSharing::load_ceiling(const FanClass& c) {
  each_free_hop(c, [&](const Flow& f, std::uint32_t l) { fan_load_[l] += c.level_most / f.penalty; });
}

double FlowSharing::fan_bytes_left(const FanClass& c, const FlowEvents::Event& m) const {
  return (m.at_s - c.clock) * flows_[m.flow].weight;
}

bool FlowSharing::recertify_fan(FanClass& c) {
  if (!c.fixed || !(c.level > 0))
    return false; // (no level to certify: all are, and fail)
  resum_fan_class(c);
  // Its flows' loads at the old ceiling out; at the present level into fan_level_load_.
  each_free_hop(c, [&](const Flow& f, std::uint32_t l) {
    fan_load_[l] -= c.level_most / f.penalty;
    if (fan_level_load_[l] == 0)
      fan_touched_.push_back(l);
    fan_level_load_[l] += c.level / f.penalty;
  });
  // The room the other classes' ceilings leave on each link that no clock dominates.
  // (A link that leaves it less than clock_room is a candidate clock, fan_promoting_.)
  double headroom = fan_headroom;
  for (std::uint32_t l : fan_touched_) {
    if (fan_dominator_[l] == no_clock) {
      const double room = (links_[l].bytes_per_s * fan_load_limit - fan_load_[l]) / fan_level_load_[l];
      headroom = std::min(headroom, room);
      if (room < clock_room)
        fan_promoting_.push_back(l);
    }
    fan_level_load_[l] = 0;
  }
  fan_touched_.clear();
  c.level_most = std::min(headroom * c.level, c.least_cap_level);
  const bool fits = headroom >= least_fan_headroom && c.level <= c.level_most;
  load_ceiling(c);
  c.uncertified = !fits;
  return fits;
}

void FlowSharing::cross_fan_link(std::uint32_t l, const FanClass& c) {
  if (fan_crossing_[l]++ == 0) {
    if (!fan_listed_[l]) {
      fan_listed_[l] = true;
      fan_loaded_links_.push_back(l);
    }
    // A clock of the flow no wider than the link: while every flow crossing the link crosses it
    // too, the link carries at most what that clock does, and binds no flow that the clock does
    // not (full at most when the clock is, at the same level).
    fan_dominator_[l] = no_clock;
    for (std::uint32_t k : c.clocks)
      if (fan_clocks_[k].bytes_per_s <= links_[l].bytes_per_s) {
        fan_dominator_[l] = k;
        break;
      }
  } else if (fan_dominator_[l] != no_clock && !std::binary_search(c.clocks.begin(), c.clocks.end(), fan_dominator_[l])) {
    fan_dominator_[l] = no_clock;
  }
}

void FlowSharing::solve_fans() {
  // MaxMin::maxmin_solve over the classes: a class weighs its flows' summed weights on each of
  // its clock links, and the links that are no clocks never fill (certify_fans).
  for (FanClock& k : fan_clocks_) {
    k.remaining = k.bytes_per_s;
    k.usage = 0;
  }
  for (FanClass& c : fan_classes_) {
    c.fixed = c.members.empty();
    if (!c.fixed)
      for (std::uint32_t k : c.clocks)
        fan_clocks_[k].usage += c.weight;
  }
  for (FanClock& k : fan_clocks_)
    k.light = k.usage > 0;
  const auto still_light = [&](FanClock& k) {
    k.light =
        k.light && k.usage > maxmin_precision && k.remaining > k.bytes_per_s * maxmin_precision;
  };
  for (bool first = true;; first = false) {
    // Every clock at exactly the least level saturates now (as solve_component's links do),
    // taken before any of its classes is fixed, which moves the others' levels (one pass finds
    // the least level and the clocks at it).
    double least = std::numeric_limits<double>::infinity();
    fan_saturating_.clear();
    for (std::uint32_t i = 0; i < fan_clocks_.size(); ++i) {
      const FanClock& k = fan_clocks_[i];
      if (!k.light)
        continue;
      const double level = k.remaining / k.usage;
      if (level < least) {
        least = level;
        fan_saturating_.clear();
      }
      if (level == least)
        fan_saturating_.push_back(i);
    }
    if (least == std::numeric_limits<double>::infinity())
      break;
    fan_moved_clocks_.clear();
    for (std::uint32_t i : fan_saturating_) {
      FanClock& k = fan_clocks_[i];
      k.light = false;
      for (std::uint32_t id : k.classes) {
        FanClass& c = fan_classes_[id];
        if (c.fixed)
          continue;
        c.fixed = true;
        c.level = least;
        c.bound_by = k.link;
        for (std::uint32_t o : c.clocks) {
          FanClock& other = fan_clocks_[o];
          subtract_snapping(other.remaining, least * c.weight,
                            other.bytes_per_s * maxmin_precision);
          subtract_snapping(other.usage, c.weight, maxmin_precision);
          if (!other.moved) {
            other.moved = true;
            fan_moved_clocks_.push_back(o);
          }
        }
      }
    }
    // A clock left with (almost) no usage or room is out: after the first round every clock (their
    // usages as summed), after later rounds those the round moved (the others are unchanged).
    if (first)
      for (FanClock& k : fan_clocks_)
        still_light(k);
    for (std::uint32_t o : fan_moved_clocks_) {
      still_light(fan_clocks_[o]);
      fan_clocks_[o].moved = false;
    }
  }
  // A class that no link fixed (its weight below SimGrid's precision) has no level to keep: it is
  // certified again (recertify_fan fails it) where it has flows.
  for (FanClass& c : fan_classes_)
    if (!c.fixed) {
      c.uncertified = true;
      fans_uncertified_ = true;
    }
}

bool FlowSharing::certify_fans() {
  for (std::uint32_t l : fan_loaded_links_) {
    fan_load_[l] = 0;
    fan_crossing_[l] = 0;
    fan_listed_[l] = false;
  }
  fan_loaded_links_.clear();
  // What the links that are no clocks carry now, and which of them a clock dominates.
  bool fits = true;
  for (FanClass& c : fan_classes_) {
    fits = fits && (c.members.empty() || c.fixed);
    resum_fan_class(c);
    each_free_hop(c, [&](const Flow& f, std::uint32_t l) {
      cross_fan_link(l, c);
      fan_load_[l] += c.level / f.penalty;
    });
  }
  // Whether the classes' levels are the allocation: no link that is no clock is full (it would
  // hold flows at or below them), no cap is below its class's level.
  fans_valid_ = fits;
  for (std::uint32_t l : fan_loaded_links_) {
    const bool dominated = fan_dominator_[l] != no_clock;
    fans_valid_ = fans_valid_ && (dominated || fan_load_[l] <= links_[l].bytes_per_s * fan_load_limit);
    fan_room_[l] = dominated || fan_load_[l] == 0 ? std::numeric_limits<double>::infinity()
                                                  : links_[l].bytes_per_s * fan_load_limit / fan_load_[l];
    fan_load_[l] = 0; // (at the ceilings from here)
  }
  for (const FanClass& c : fan_classes_)
    fans_valid_ = fans_valid_ && (c.members.empty() || c.level <= c.least_cap_level);
  // Each class's ceiling: its level times the least room (at most fan_headroom) that the links
  // its flows cross and that no clock dominates leave at the present levels, at most its least
  // cap. A link then carries at most its present load times the most room of the classes
  // crossing it, which is its own room or less: short of full. And the loads at the ceilings,
  // which the flows that join and leave keep.
  for (FanClass& c : fan_classes_) {
    if (c.members.empty()) {
      c.level_most = 0;
      continue;
    }
    double headroom = fan_headroom;
    each_free_hop(c, [&](const Flow&, std::uint32_t l) { headroom = std::min(headroom, fan_room_[l]); });
    c.level_most = std::min(headroom * c.level, c.least_cap_level);
    // (false where a link or cap leaves too little room, or the level is NaN)
    fits = fits && headroom >= least_fan_headroom && c.level <= c.level_most;
    load_ceiling(c);
  }
  for (FanClass& c : fan_classes_)
    c.uncertified = false;
  fans_uncertified_ = !fits;
  return fits;
}

void FlowSharing::clock_fans_to(double now_s) {
  const double elapsed_s = now_s - fans_clocked_s_;
  if (elapsed_s > 0)
    for (FanClass& c : fan_classes_)
      if (!c.members.empty())
        c.clock += c.level * bandwidth_factor_ * elapsed_s;
  fans_clocked_s_ = now_s;
}

double FlowSharing::next_fan_end_s() const {
  double end_s = std::numeric_limits<double>::infinity();
  for (const FanClass& c : fan_classes_)
    if (!c.members.empty())
      end_s = std::min(end_s, fans_clocked_s_ + std::max(0.0, (c.members.front().at_s - c.clock) /
                                                                 (c.level * bandwidth_factor_)));
  return end_s;
}

bool FlowSharing::enter_fans(double now_s) {
  assert(!fans_ && fan_classes_.empty() && fan_clocks_.empty());
  size_fan_links();
  // The clock links: those holding the sharing flows, where no flow is a pipeline's or held by
  // its cap.
  std::size_t sharing = 0;
  bool fits = true;
  for (std::uint32_t id = 0; id < flows_.size() && fits; ++id) {
    const Flow& f = flows_[id];
    if (f.state != State::Sharing)
      continue;
    ++sharing;
    fits = !f.pipeline && f.bound_by != by_cap;
    if (fits && clock_of_link_[f.bound_by] == no_clock) {
      fits = fan_clocks_.size() < most_fan_clocks;
      clock_of_link_[f.bound_by] = static_cast<std::uint32_t>(fan_clocks_.size());
      fan_clocks_.push_back({f.bound_by, links_[f.bound_by].bytes_per_s, {}});
    }
  }
  // And the links the flows fill without any being held there (it filled in the round of another
  // link of theirs): full, they may bind as the shares move.
  if (fits) {
    for (std::uint32_t id = 0; id < flows_.size(); ++id)
      if (flows_[id].state == State::Sharing)
        for (std::uint32_t l : hops_of(flows_[id]))
          if (clock_of_link_[l] == no_clock)
            fan_load_[l] += flows_[id].value;
    for (std::uint32_t id = 0; id < flows_.size(); ++id) // (every load back to 0, whatever fits)
      if (flows_[id].state == State::Sharing)
        for (std::uint32_t l : hops_of(flows_[id])) {
          if (clock_of_link_[l] != no_clock || fan_load_[l] == 0)
            continue;
          if (fits && fan_load_[l] >= links_[l].bytes_per_s * fan_load_limit / clock_room) {
            fits = fan_clocks_.size() < most_fan_clocks;
            clock_of_link_[l] = static_cast<std::uint32_t>(fan_clocks_.size());
            fan_clocks_.push_back({l, links_[l].bytes_per_s, {}});
          }
          fan_load_[l] = 0;
        }
  }
  // The classes, each flow at its class's clock (0 for all now) with what it has still to send.
  for (std::uint32_t id = 0; id < flows_.size() && fits; ++id) {
    Flow& f = flows_[id];
    if (f.state != State::Sharing)
      continue;
    fan_key(f);
    const std::uint32_t c = fan_class();
    fits = fan_classes_.size() <= most_fan_classes;
    double remaining_bytes = f.remaining_bytes;
    if (remaining_bytes > 0)
      subtract_snapping(remaining_bytes, f.rate * (now_s - f.updated_s), maxmin_precision * surf_precision_s);
    join_fan(c, id, remaining_bytes);
  }
  fits = fits && sharing >= least_flows_per_class * fan_classes_.size();
  if (fits) {
    solve_fans();
    // The classes' levels are the flows' (within the rounding of sums taken in another order).
    for (const FanClass& c : fan_classes_) {
      fits = fits && c.fixed;
      for (const FlowEvents::Event& m : c.members)
        fits = fits && std::abs(c.level - flows_[m.flow].level) <= 1e-12 * c.level;
    }
    fits = fits && certify_fans();
  }
  if (!fits) {
    clear_fans();
    return false;
  }
  events_.clear(); // (every sharing flow's end is its class's now)
  for (const FanClock& k : fan_clocks_)
    unlist_clock(k.link);
  fans_ = true;
  fans_clocked_s_ = now_s;
  fans_next_s_ = next_fan_end_s();
  ++work_.fan_entries;
  return true;
}

void FlowSharing::exit_fans(double now_s) {
  assert(fans_);
  clock_fans_to(now_s);
  for (const FanClass& c : fan_classes_) {
    // A class no solve has fixed (a link made a clock at an event that then left the clocks)
    // has no level for its flows: they are solved again, reached from its clocks' links.
    const bool unsolved = !c.members.empty() && !(c.fixed && c.level > 0);
    if (unsolved) {
      for (std::uint32_t k : c.clocks)
        mark_modified(fan_clocks_[k].link);
      floor_level_ = 0;
    }
    for (const FlowEvents::Event& m : c.members) {
      Flow& f = flows_[m.flow];
      double remaining_bytes = fan_bytes_left(c, m);
      if (remaining_bytes < maxmin_precision * surf_precision_s)
        remaining_bytes = 0;
      f.remaining_bytes = remaining_bytes;
      set_value(f, c.level / f.penalty);
      f.level = c.level;
      f.bound_by = c.fixed ? c.bound_by : by_cap; // (an unfixed class's flows are solved again)
      f.rate = f.value * bandwidth_factor_;
      f.updated_s = now_s;
      const double left_s = remaining_bytes == 0 ? 0.0
                            : f.rate > 0       ? remaining_bytes / f.rate
                                               : std::numeric_limits<double>::infinity(); // (solved again)
      events_.set_unordered(m.flow, now_s + left_s, start_order_[m.flow]);
    }
  }
  events_.restore();
  // The links as a solve leaves them: a clock full where the classes' solve filled it, the
  // others short of full (certified; where they were not, the caller solves again).
  for (std::uint32_t l : fan_loaded_links_) // (a link that is a clock now may be listed)
    links_[l].saturated = false;
  for (const FanClock& k : fan_clocks_)
    links_[k.link].saturated = k.remaining <= k.bytes_per_s * 2 * maxmin_precision;
  list_clocks();
  clear_fans();
  ++work_.fan_exits;
}

void FlowSharing::unlist_clock(std::uint32_t l) {
  Link& link = links_[l];
  link.flows.clear();
  link.demand_bytes_per_s = 0.0;
  link.weight = 0.0;
  link.pipelines = 0;
  link.unlisted = true;
}

void FlowSharing::list_clocks() {
  // Each flow on its unlisted links, class by class, as join_links() lists it (the links'
  // `saturated` exit_fans() sets; every sharing flow is in a class, and none is a pipeline's).
  assert(std::count_if(flows_.begin(), flows_.end(), [](const Flow& f) { return f.state == State::Sharing; }) ==
             std::accumulate(fan_classes_.begin(), fan_classes_.end(), std::ptrdiff_t{0},
                             [](std::ptrdiff_t n, const FanClass& c) { return n + static_cast<std::ptrdiff_t>(c.members.size()); }) &&
         "every sharing flow is in one class");
  for (const FanClass& c : fan_classes_)
    for (const FlowEvents::Event& m : c.members) {
      const auto hops = hops_of(flows_[m.flow]);
      for (std::uint32_t h = 0; h < hops.size(); ++h)
        if (links_[hops[h]].unlisted)
          list_on(links_[hops[h]], m.flow, h);
    }
  for (const FanClock& k : fan_clocks_) {
    links_[k.link].unlisted = false;
    coupling_[k.link] = couples(links_[k.link]);
  }
}

bool FlowSharing::fan_stay_too_costly() const {
  return 8 * fan_stay_passes_ > work_.fan_events - fan_stay_start_ + 16;
}

void FlowSharing::space_fan_tries(bool paid) {
  fan_retry_gap_ = paid ? shortest_fan_retry_gap : std::min(2 * fan_retry_gap_, longest_fan_retry_gap);
  fan_retry_event_ = work_.events + fan_retry_gap_;
}

void FlowSharing::back_to_solver() {
  space_fan_tries(work_.fan_events - fan_stay_start_ >= paying_fan_events && !fan_stay_too_costly());
}

void FlowSharing::clear_fans() {
  for (const FanClock& k : fan_clocks_)
    clock_of_link_[k.link] = no_clock;
  for (std::uint32_t l : fan_loaded_links_) {
    fan_load_[l] = 0;
    fan_crossing_[l] = 0;
    fan_listed_[l] = false;
  }
  fan_loaded_links_.clear();
  fan_clocks_.clear();
  fan_classes_.clear();
  fan_class_of_.clear();
  last_fan_class_ = ~std::uint32_t{0};
  fans_uncertified_ = false;
  fans_ = false;
}

void FlowSharing::drop_empty_fan_classes() {
  // The classes with flows keep their order (a solve of the classes takes them in it), each
  // its flows' and its clocks' records moved to its new id.
  constexpr std::uint32_t dropped = ~std::uint32_t{0};
  std::uint32_t kept = 0;
  for (std::uint32_t id = 0; id < fan_classes_.size(); ++id) {
    fan_new_class_id_.push_back(fan_classes_[id].members.empty() ? dropped : kept);
    if (!fan_classes_[id].members.empty()) {
      if (kept != id)
        fan_classes_[kept] = std::move(fan_classes_[id]);
      for (const FlowEvents::Event& m : fan_classes_[kept].members)
        fan_class_of_flow_[m.flow] = kept;
      ++kept;
    }
  }
  work_.fan_classes_dropped += static_cast<long long>(fan_classes_.size() - kept);
  fan_classes_.resize(kept);
  for (FanClock& k : fan_clocks_) {
    std::erase_if(k.classes, [&](std::uint32_t id) { return fan_new_class_id_[id] == dropped; });
    for (std::uint32_t& id : k.classes)
      id = fan_new_class_id_[id];
  }
  fan_new_class_id_.clear();
  fan_class_of_.clear();
  for (std::uint32_t id = 0; id < fan_classes_.size(); ++id)
    fan_class_of_.emplace(fan_classes_[id].clocks, id);
  last_fan_class_ = ~std::uint32_t{0};
}

void FlowSharing::leave_fan(std::uint32_t flow) {
  const Flow& f = flows_[flow];
  FanClass& c = fan_classes_[fan_class_of_flow_[flow]];
  c.weight -= f.weight;
  for (std::uint32_t l : hops_of(f)) {
    if (clock_of_link_[l] != no_clock)
      continue;
    fan_load_[l] -= c.level_most / f.penalty;
    if (--fan_crossing_[l] == 0)
      fan_load_[l] = 0; // (so that rounding never piles up)
  }
}

bool FlowSharing::promote_to_clock(std::uint32_t l) {
  if (l == no_clock || fan_clocks_.size() == most_fan_clocks)
    return false;
  // What each flow on it (all on clocks, read at the present) has left to send.
  if (fan_left_.size() < flows_.size())
    fan_left_.resize(flows_.size(), -1.0);
  fan_moving_classes_.clear();
  for (const Member m : links_[l].flows) {
    fan_left_[m.flow] = 0; // (moving)
    const std::uint32_t c = fan_class_of_flow_[m.flow];
    if (std::find(fan_moving_classes_.begin(), fan_moving_classes_.end(), c) == fan_moving_classes_.end())
      fan_moving_classes_.push_back(c);
  }
  for (std::uint32_t id : fan_moving_classes_) {
    FanClass& c = fan_classes_[id];
    for (const FlowEvents::Event& m : c.members)
      if (fan_left_[m.flow] >= 0)
        fan_left_[m.flow] = std::max(0.0, fan_bytes_left(c, m));
    c.members.erase_if([&](const FlowEvents::Event& m) { return fan_left_[m.flow] >= 0; });
  }
  // The link is a clock from here: its flows leave their classes (their other links' loads)
  // and join those of their clocks and it.
  clock_of_link_[l] = static_cast<std::uint32_t>(fan_clocks_.size());
  fan_clocks_.push_back({l, links_[l].bytes_per_s, {}});
  ++work_.fan_clocks_made;
  for (const Member m : links_[l].flows) {
    leave_fan(m.flow);
    fan_key(flows_[m.flow]);
    join_fan(fan_class(), m.flow, fan_left_[m.flow]);
    fan_left_[m.flow] = -1.0;
  }
  unlist_clock(l);
  fan_load_[l] = 0;
  fan_crossing_[l] = 0;
  return true;
}

bool FlowSharing::make_clocks(std::vector<std::uint32_t>& links) {
  // Each link made a clock moves its flows' classes (a pass over each); more than a few at once
  // cost more than going on clocks again from the start.
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end()); // (listed once per class that found it)
  std::erase_if(links, [&](std::uint32_t l) { return clock_of_link_[l] != no_clock; });
  if (links.empty() || links.size() > most_clocks_made_to_certify)
    return false;
  for (std::uint32_t l : links)
    if (!promote_to_clock(l))
      return false;
  return true;
}

bool FlowSharing::advance_fans(double now_s, std::vector<void*>& finished) {
  // due_ holds the latency ends due now: each must cross a clock link, or one of its narrowest
  // links that no flow shares yet becomes a clock (a server's first pull: its NIC).
  size_fan_links(); // (links may have been added since the fans went on clocks)
  clock_fans_to(now_s);
  bool made = false;
  std::size_t moving = 0; // links made clocks in place, their flows moved
  for (const FlowEvents::Event& e : due_) {
    const Flow& f = flows_[e.flow];
    if (f.pipeline)
      return false;
    if (fan_key(f))
      continue;
    // One of its narrowest links becomes a clock: one that no flow shares yet where there is
    // one (a server's first pull: its NIC), else the first, its flows moved to new classes.
    std::uint32_t narrowest = no_clock;
    for (std::uint32_t l : hops_of(f))
      if (links_[l].bytes_per_s == f.narrowest_bytes_per_s &&
          (narrowest == no_clock || (links_[l].flows.empty() && !links_[narrowest].flows.empty())))
        narrowest = l;
    if (narrowest != no_clock && !links_[narrowest].flows.empty() && ++moving > most_clocks_made_at_once)
      return false; // (a pass over the classes of each: more than going on clocks from the start)
    if (!promote_to_clock(narrowest))
      return false;
    made = true;
  }
  // (The flows moved to new classes take their levels, which the new clocks leave as they were,
  // so that their ends due now are found at their paces.)
  if (made)
    solve_fans();
  const std::size_t latency_due = due_.size();
  for (FanClass& c : fan_classes_) {
    const double pace = c.level * bandwidth_factor_;
    if (!(pace > 0))
      continue; // (a class no clock fixed: its flows leave the clocks after this event's solve)
    while (!c.members.empty() && (c.members.front().at_s - c.clock) / pace < surf_precision_s) {
      const FlowEvents::Event& m = c.members.front();
      due_.push_back({now_s + (m.at_s - c.clock) / pace, m.tie, m.flow});
      c.members.pop();
    }
  }
  if (due_.size() > latency_due)
    std::sort(due_.begin(), due_.end()); // FlowEvents' one order, as advance() takes them
  for (const FlowEvents::Event& e : due_) {
    Flow& f = flows_[e.flow];
    if (f.state == State::Latency) { // the latency is paid: the flow starts sharing
      start_sharing(e.flow, now_s);
      fan_key(f);
      join_fan(fan_class(), e.flow, f.remaining_bytes);
      continue;
    }
    leave_fan(e.flow);
    finish(e.flow, false, finished);
  }
  // The solver's bookkeeping of changes, which the classes' solve replaces.
  joined_flows_.clear();
  for (std::uint32_t l : modified_links_)
    links_[l].modified = false;
  modified_links_.clear();
  std::size_t live = 0;
  for (FanClass& c : fan_classes_) {
    live += c.members.empty() ? 0 : 1;
    if (c.members.empty()) {
      c.weight = 0;
      c.clock = 0;
    }
  }
  // The classes whose flows have all ended go once they outnumber the others by more than
  // empty_class_slack (every event passes over every class); where more than most_fan_classes
  // remain, the flows go back to the solver.
  if (fan_classes_.size() - live > live + empty_class_slack)
    drop_empty_fan_classes();
  fans_uncertified_ = fans_uncertified_ || fan_classes_.size() > most_fan_classes;
  solve_fans();
  for (FanClass& c : fan_classes_)
    if (!c.members.empty() && !(c.level <= c.level_most)) {
      c.uncertified = true;
      fans_uncertified_ = true;
    }
  ++work_.fan_events;
  if (fans_uncertified_) {
    // The classes past their ceilings (or new, or whose flows filled a link at the ceilings)
    // first, each with the others' ceilings held; where that leaves one short, all of them.
    ++work_.fan_certifications;
    // (A link's load at the ceilings changes only where a class crossing it is recertified,
    // which keeps it short of full, or where a flow joins, whose class join_fan() then marks.)
    // Where one falls short for room, the links that leave it little become clocks, their flows
    // moved to new classes, and the classes are solved and certified again, a few times.
    bool fits = false;
    for (int round = 0; round < 4 && fan_classes_.size() <= most_fan_classes; ++round) {
      fan_promoting_.clear();
      fits = true;
      for (FanClass& c : fan_classes_)
        if (c.uncertified && !c.members.empty())
          fits = recertify_fan(c) && fits;
      if (fits || !make_clocks(fan_promoting_))
        break;
      solve_fans();
      for (FanClass& c : fan_classes_)
        c.uncertified = c.uncertified || (!c.members.empty() && !(c.level <= c.level_most));
    }
    fans_uncertified_ = !fits;
    if (!fits && fan_classes_.size() <= most_fan_classes) {
      ++fan_stay_passes_;
      fits = certify_fans();
    }
    // Where links that are no clocks are now half full or more (room below clock_room at the
    // present levels), they become clocks, their flows moved to new classes, and all is solved again.
    for (int round = 0; !fits && round < 4 && fan_classes_.size() <= most_fan_classes; ++round) {
      fan_promoting_.clear();
      for (std::uint32_t l : fan_loaded_links_)
        if (clock_of_link_[l] == no_clock && fan_crossing_[l] > 0 && fan_room_[l] < clock_room)
          fan_promoting_.push_back(l);
      if (!make_clocks(fan_promoting_))
        break;
      solve_fans();
      ++fan_stay_passes_;
      fits = fan_classes_.size() <= most_fan_classes && certify_fans();
    }
    if (!fits) {
      // Off the clocks. Where the classes' levels are still the allocation, and only room ran
      // short, back on them at once, the links the flows fill to half or more clocks now; else
      // the solver shares out every flow again, from the classes' values.
      const bool valid = fan_classes_.size() <= most_fan_classes && fans_valid_;
      std::vector<std::uint32_t> clocks;
      for (const FanClock& k : fan_clocks_)
        clocks.push_back(k.link);
      exit_fans(now_s);
      if (valid && enter_fans(now_s)) {
        ++fan_stay_passes_;
        return true;
      }
      back_to_solver();
      for (std::uint32_t l : clocks)
        mark_modified(l);
      floor_level_ = 0;
      share(now_s);
      return true;
    }
  }
  // A stay whose passes over every flow (certifications of all classes, entries again) come more
  // often than one per 8 events (after a grace of 16 events) saves nothing over the solver (a
  // fat-tree's parameter server, whose fans start and end together in few events): the flows go
  // back to it, as they are.
  if (fan_stay_too_costly()) {
    exit_fans(now_s);
    back_to_solver();
    share(now_s); // (nothing to do unless a class had no level: exit_fans)
    return true;
  }
  fans_next_s_ = next_fan_end_s();
  return true;
}

} // namespace ceiling::replay
