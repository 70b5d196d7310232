// SimGrid's CM02 bandwidth sharing (lmm max-min with lazy, selective updates), event by event.
#include "replay/flow_sharing.hpp"

#include "replay/simgrid_precision.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <stdexcept>

namespace ceiling::replay {
namespace {

/// A change whose flows number more than this reaches the flows on the saturated links around
/// them at once (FlowSharing::share).
constexpr std::size_t spreading_flows = 256;

/// As many flows as this finishing at one instant leave their links together (FlowSharing::advance).
constexpr std::ptrdiff_t finishing_together = 64;

/// Rates closer than this, relatively, are the same rate computed in another order.
constexpr double same_rate = 1e-14;

} // namespace

FlowSharing::FlowSharing(double bandwidth_factor, double latency_factor)
    : bandwidth_factor_(bandwidth_factor), latency_factor_(latency_factor) {
  assert(bandwidth_factor > 0 && latency_factor >= 0);
}

std::uint32_t FlowSharing::add_link(double bytes_per_s) {
  assert(bytes_per_s > 0);
  links_.push_back({.bytes_per_s = bytes_per_s});
  coupling_.push_back(false);
  leaving_.push_back(0);
  return static_cast<std::uint32_t>(links_.size() - 1);
}

std::uint32_t FlowSharing::add_path(std::span<const std::uint32_t> links, double latency_s,
                                    std::optional<double> sharing_penalty_s) {
  assert(links.size() <= max_hops);
  return add_crossings(links, {}, latency_s, sharing_penalty_s);
}

std::uint32_t FlowSharing::add_pipeline(std::span<const std::uint32_t> edges, std::optional<double> sharing_penalty_s) {
  std::vector<std::uint32_t> crossed; // every edge's links, sorted: a link as often as edges cross it
  double latency_s = 0;
  for (std::uint32_t e : edges) {
    const Path& p = paths_[e];
    assert(!p.pipeline);
    crossed.insert(crossed.end(), hops_.begin() + p.first, hops_.begin() + p.first + p.count);
    latency_s = std::max(latency_s, p.latency_s);
  }
  std::sort(crossed.begin(), crossed.end());
  std::vector<std::uint32_t> links;
  std::vector<float> crossings;
  for (std::size_t i = 0; i < crossed.size();) {
    std::size_t j = i + 1;
    while (j < crossed.size() && crossed[j] == crossed[i])
      ++j;
    links.push_back(crossed[i]);
    crossings.push_back(static_cast<float>(j - i));
    i = j;
  }
  return add_crossings(links, crossings, latency_s, sharing_penalty_s);
}

std::uint32_t FlowSharing::add_crossings(std::span<const std::uint32_t> links, std::span<const float> crossings,
                                         double latency_s, std::optional<double> sharing_penalty_s) {
  assert(!links.empty() && (crossings.empty() || links.size() == crossings.size()) && latency_s >= 0);
  assert(!sharing_penalty_s || *sharing_penalty_s > 0);
  Path path{.first = static_cast<std::uint32_t>(hops_.size()),
            .count = static_cast<std::uint32_t>(links.size()),
            .latency_s = latency_s,
            .narrowest_bytes_per_s = std::numeric_limits<double>::infinity(),
            .penalty_s = sharing_penalty_s.value_or(latency_s),
            .pipeline = !crossings.empty(),
            .penalty_given = sharing_penalty_s.has_value()};
  for (std::size_t h = 0; h < links.size(); ++h) {
    const float times = crossings.empty() ? 1.0f : crossings[h];
    assert(links[h] < links_.size() && times >= 1);
    hops_.push_back(links[h]);
    crossings_.push_back(times);
    const double most = links_[links[h]].bytes_per_s / times;
    if (most < path.narrowest_bytes_per_s) {
      path.narrowest_bytes_per_s = most;
      path.narrowest_hops = 1;
    } else if (most == path.narrowest_bytes_per_s) {
      ++path.narrowest_hops;
    }
  }
  paths_.push_back(path);
  return static_cast<std::uint32_t>(paths_.size() - 1);
}

void FlowSharing::begin(double now_s, std::uint32_t path, double bytes, void* token, bool wait_latency) {
  assert(path < paths_.size());
  std::uint32_t id;
  if (free_flows_.empty()) {
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    positions_.resize(flows_.size() * inline_hops);
    far_positions_.emplace_back();
    start_order_.push_back(0);
  } else {
    id = free_flows_.take_least();
  }
  Flow& f = flows_[id];
  const double latency_s = paths_[path].latency_s * latency_factor_;
  f.path = path;
  f.pipeline = paths_[path].pipeline;
  f.state = State::Latency;
  // NetworkCm02Model::communicate: the sharing penalty is the path's latency, unless the
  // factored latency is 0 (the variable then starts enabled with penalty 1); a penalty given
  // to the path holds on a path of latency 0 too, so that every chunk of a pipeline weighs alike
  // (but under a latency factor of 0, where every flow weighs 1).
  const Path& p = paths_[path];
  f.penalty = latency_s > 0 || (p.penalty_given && latency_factor_ > 0) ? p.penalty_s : 1.0;
  f.weight = 1.0 / f.penalty; // consumption weight 1 over the penalty, as lmm divides it
  f.narrowest_bytes_per_s = p.narrowest_bytes_per_s;
  f.narrowest_hops = p.narrowest_hops;
  f.hop_count = p.count;
  if (p.count <= inline_hops)
    std::copy_n(hops_.begin() + p.first, p.count, f.hops);
  f.remaining_bytes = bytes;
  set_value(f, 0); // (0 already: a new flow, or one that finished)
  f.rate = 0;
  f.updated_s = now_s;
  f.token = token;
  ++in_flight_;
  start_order_[id] = started_++;
  latency_ends_.push((wait_latency ? latency_s : 0.0) + now_s, id); // SimGrid's order: latency + last update
}

std::vector<std::pair<void*, double>> FlowSharing::sharing_rates() const {
  std::vector<std::pair<void*, double>> rates;
  for (std::uint32_t id = 0; id < flows_.size(); ++id) {
    const Flow& f = flows_[id];
    if (f.state != State::Sharing)
      continue;
    // (on clocks a flow's own rate is the one it had when it went on them)
    const double rate =
        fans_ ? fan_classes_[fan_class_of_flow_[id]].level / f.penalty * bandwidth_factor_ : f.rate;
    rates.emplace_back(f.token, rate);
  }
  return rates;
}

double FlowSharing::next_event_s() const {
  const double end_s = fans_             ? fans_next_s_
                       : events_.empty() ? std::numeric_limits<double>::infinity()
                                         : events_.front().at_s;
  return latency_ends_.empty() ? end_s : std::min(end_s, latency_ends_.top().at_s);
}

void FlowSharing::advance(double now_s, std::vector<void*>& finished) {
  // What is due, in the one order of FlowEvents (by instant, then start order): the flows whose
  // latency ends, in that order already, merged with those that finish.
  due_.clear();
  while (!latency_ends_.empty() && latency_ends_.top().at_s - now_s < surf_precision_s) {
    const auto& [at_s, id] = latency_ends_.top();
    due_.push_back({at_s, start_order_[id], id});
    latency_ends_.pop();
  }
  if (fans_) {
    if (advance_fans(now_s, finished))
      return;
    exit_fans(now_s); // a flow starts that no clock holds
    back_to_solver();
  }
  const auto latency_due = static_cast<std::ptrdiff_t>(due_.size());
  events_.take_due(now_s, surf_precision_s, due_);
  if (latency_due > 0 && latency_due < static_cast<std::ptrdiff_t>(due_.size())) {
    merged_.resize(due_.size()); // (kept, not allocated at each event as inplace_merge's buffer is)
    std::merge(due_.begin(), due_.begin() + latency_due, due_.begin() + latency_due, due_.end(), merged_.begin());
    due_.swap(merged_);
  }
  assert(std::is_sorted(due_.begin(), due_.end()) && "due events in FlowEvents' one order");
  // Where many flows finish at once (a parameter server's fan), how many leave each link: a link
  // that they all leave is emptied at once (leave_links), sparing the moves of its other flows'
  // positions. A few leave one by one, sparing the count; so do flows whose ends come after a
  // flow that starts sharing now, which might join a link between two that leave it (one by one,
  // they would leave its flows in another order, and its demand with another rounding).
  std::ptrdiff_t finishing = 0;
  bool started = false;     // a flow starts sharing before the end being looked at
  bool interleaved = false; // an end comes after a start
  for (const FlowEvents::Event& e : due_) {
    if (flows_[e.flow].state == State::Sharing) {
      ++finishing;
      interleaved = interleaved || started;
    } else {
      started = true;
    }
  }
  const bool together = finishing >= finishing_together && !interleaved;
  if (together)
    for (const FlowEvents::Event& e : due_)
      if (flows_[e.flow].state == State::Sharing)
        for (std::uint32_t l : hops_of(flows_[e.flow]))
          ++leaving_[l];
  // Thousands of flows may start sharing or end at once (a halving-doubling step, a fan), their
  // links far apart in memory: each flow's are fetched a few flows ahead of its turn.
  // (The flow itself twice as far ahead, its hops' line too, so that reading its hops then does
  // not wait.)
  constexpr std::size_t ahead = 8;
  for (std::size_t i = 0; i < std::min(ahead, due_.size()); ++i) // (the first few: fetched before the loop reaches them)
    for (std::uint32_t l : hops_of(flows_[due_[i].flow]))
      __builtin_prefetch(&links_[l]);
  for (std::size_t i = 0; i < due_.size(); ++i) {
    if (i + 2 * ahead < due_.size()) {
      const Flow* later = &flows_[due_[i + 2 * ahead].flow];
      __builtin_prefetch(later);
      __builtin_prefetch(&later->narrowest_bytes_per_s);
    }
    if (i + ahead < due_.size())
      for (std::uint32_t l : hops_of(flows_[due_[i + ahead].flow]))
        __builtin_prefetch(&links_[l]);
    const FlowEvents::Event& e = due_[i];
    Flow& f = flows_[e.flow];
    if (f.state == State::Latency) { // the latency is paid: the flow starts sharing
      start_sharing(e.flow, now_s);
    } else { // finished, whatever rounding left of its bytes (SimGrid's finish())
      // (less a margin: flows fixed by one link in different rounds may differ by an ulp)
      floor_level_ = std::min(floor_level_, f.level * (1 - 2e-9));
      finish(e.flow, together, finished);
    }
  }
#ifndef NDEBUG
  for (const FlowEvents::Event& e : due_)
    if (flows_[e.flow].state == State::Free)
      for (std::uint32_t l : hops_of(flows_[e.flow]))
        assert(leaving_[l] == 0 && !links_[l].emptied && "every flow that finished left its links");
#endif
  share(now_s);
  warm_next_event();
}

void FlowSharing::warm_next_event() {
  // The next event's flows most likely start or end alone (an adaptive dragonfly's flows each at
  // their own instants), and their links lie far apart in memory: fetched now, they arrive while
  // the owner acts on this event's, rather than one by one as the event takes the flow on or off
  // them.
  const auto warm = [&](std::uint32_t id) {
    for (std::uint32_t l : hops_of(flows_[id]))
      __builtin_prefetch(&links_[l]);
  };
  if (fans_)
    return;
  if (!events_.empty())
    warm(events_.front().flow);
  if (!latency_ends_.empty())
    warm(latency_ends_.top().value);
}

void FlowSharing::start_sharing(std::uint32_t flow, double now_s) {
  Flow& f = flows_[flow];
  f.state = State::Sharing;
  f.updated_s = now_s;
  join_links(flow);
}

void FlowSharing::finish(std::uint32_t flow, bool counted, std::vector<void*>& finished) {
  Flow& f = flows_[flow];
  leave_links(flow, counted);
  finished.push_back(f.token);
  set_value(f, 0);
  f.state = State::Free;
  free_flows_.add(flow);
  --in_flight_;
}

void FlowSharing::join_links(std::uint32_t flow) {
  Flow& f = flows_[flow];
  const auto hops = hops_of(f);
  if (hops.size() > inline_hops)
    far_positions_[flow].resize(hops.size() - inline_hops);
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    Link& link = links_[hops[h]];
    if (link.unlisted) { // (a clock: the flow is its class's)
      assert(fans_ && clock_of_link_[hops[h]] != ~std::uint32_t{0} && "only a clock is unlisted, on clocks");
      continue;
    }
    const bool coupled = couples(link);
    list_on(link, flow, h);
    coupling_[hops[h]] = couples(link);
    if (!coupled && coupling_[hops[h]]) // a link new to sharing: walk it until a solve has seen it
      link.saturated = true;
  }
  joined_flows_.push_back(flow); // reached first, and through it its saturated links
  f.level = std::numeric_limits<double>::infinity(); // not fixed yet: it rises with every level
  f.bound_by = by_cap;                                // no bottleneck yet (not its id's last one)
}

void FlowSharing::list_on(Link& link, std::uint32_t flow, std::uint32_t h) {
  const Flow& f = flows_[flow];
  position(flow, h) = static_cast<std::uint32_t>(link.flows.size());
  link.flows.push_back({flow, h});
  link.demand_bytes_per_s += on_link(f, h, f.narrowest_bytes_per_s);
  link.weight += on_link(f, h, f.weight);
  link.pipelines += f.pipeline ? 1 : 0;
}

void FlowSharing::leave_links(std::uint32_t flow, bool counted) {
  const Flow& f = flows_[flow];
  const auto hops = hops_of(f);
  const double most = f.narrowest_bytes_per_s;
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    Link& link = links_[hops[h]];
    if (link.unlisted) { // (a clock: the flow was its class's)
      assert(fans_ && clock_of_link_[hops[h]] != ~std::uint32_t{0} && "only a clock is unlisted, on clocks");
      continue;
    }
    if (link.emptied) { // the flow left it with the others that finish now
      link.emptied = --leaving_[hops[h]] > 0;
      continue;
    }
    if (couples(link) && link.saturated) // its other flows may get more now
      mark_modified(hops[h]);
    if (counted && leaving_[hops[h]]-- == link.flows.size()) {
      // Every flow left on it finishes now (a parameter server's fan): all leave at once, as
      // one by one they would, but for the moves.
      link.flows.clear();
      link.pipelines = 0;
      link.demand_bytes_per_s = 0.0;
      link.weight = 0.0;
      coupling_[hops[h]] = false;
      link.emptied = leaving_[hops[h]] > 0;
      continue;
    }
    const Member last = link.flows.back();
    const std::uint32_t slot = position(flow, h);
    link.flows[slot] = last;
    position(last.flow, last.hop) = slot;
    link.flows.pop_back();
    link.pipelines -= f.pipeline ? 1 : 0;
    // An empty link starts again from 0, so that rounding never piles up.
    link.demand_bytes_per_s = link.flows.empty() ? 0.0 : link.demand_bytes_per_s - on_link(f, h, most);
    link.weight = link.flows.empty() ? 0.0 : link.weight - on_link(f, h, f.weight);
    coupling_[hops[h]] = couples(link);
  }
}

void FlowSharing::mark_modified(std::uint32_t link) {
  if (!links_[link].modified) {
    links_[link].modified = true;
    modified_links_.push_back(link);
  }
}

bool FlowSharing::couples(const Link& l) const {
  // With less demand than bandwidth, every flow reaches a narrower link's level before this
  // one's (the max-min proof: were it saturated, its flows would take all of it, more than
  // they can). The margin keeps a link whose demand rounding put a hair below its bandwidth.
  return l.flows.size() >= 2 && l.demand_bytes_per_s >= l.bytes_per_s * (1 - 1e-9);
}

void FlowSharing::reach(std::uint32_t flow) {
  if (flows_[flow].level >= floor_level_)
    add_to_component(flow);
}

void FlowSharing::add_to_component(std::uint32_t flow) {
  Flow& f = flows_[flow];
  if (f.seen == walk_)
    return;
  f.seen = walk_;
  f.value_before = f.value;
  component_flows_.push_back(flow);
  classify_hops(flow);
}

void FlowSharing::classify_hops(std::uint32_t flow) {
  Flow& f = flows_[flow];
  f.coupling_hops = 0;
  double coupled_bytes_per_s = std::numeric_limits<double>::infinity();
  const auto hops = hops_of(f);
  std::uint32_t loose = 0; // hops whose links couple nothing: the flow's cap, read below
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    assert(coupling_[hops[h]] == couples(links_[hops[h]]) && "coupling_ follows every join and leave");
    if (!coupling_[hops[h]]) {
      ++loose;
      continue;
    }
    Link& link = links_[hops[h]];
    if (link.seen != walk_) {
      link.seen = walk_;
      // A link that was not full when last solved, and that no pipeline crosses, is left out
      // (a worker's NIC beside a parameter server's fan: its sixteen flows couple, but the
      // server's link holds them far below it): the solve takes it for a cap, as a link that
      // cannot couple, and fill_slack_links() brings it in if the new shares fill it. A link
      // the solve never fills binds no flow, so the allocation is the same either way.
      link.slack = !link.saturated && link.pipelines == 0;
      // (No flow has it for bottleneck: that link was full when it fixed the flow, and a solve
      // that finds it no longer full brings in the flows it held, reach_unbound_flows.)
      assert((!link.slack || std::none_of(link.flows.begin(), link.flows.end(),
                                          [&](const Member m) { return flows_[m.flow].bound_by == hops[h]; })) &&
             "a slack link is no flow's bottleneck");
      (link.slack ? slack_links_ : component_links_).push_back(hops[h]);
    }
    if (link.slack)
      continue;
    coupled_bytes_per_s = std::min(coupled_bytes_per_s, link.bytes_per_s / on_link(f, h, 1.0));
    if (!f.pipeline)
      f.coupling_hops |= std::uint64_t{1} << h;
  }
  // The cap: the least bandwidth of the hops that couple nothing; a coupled link limits the flow
  // to its bandwidth or less, so a wider cap never binds; a flow that the solve couples to none
  // has its slack links for cap too (were that reached, the link would be full, and solved).
  // Most hops of a route couple nothing, and their links lie far apart in memory: the path's
  // narrowest bandwidth, and how many of its hops have it, give the cap without them but where
  // a slack link is the narrowest and a coupled one wider.
  const double none = std::numeric_limits<double>::infinity();
  const double narrowest = f.narrowest_bytes_per_s;
  const auto most_of = [&](std::uint32_t h) { return links_[hops[h]].bytes_per_s / on_link(f, h, 1.0); };
  if (coupled_bytes_per_s == none) {
    f.cap_bytes_per_s = narrowest; // every hop couples nothing or is slack
  } else if (loose == 0) {
    f.cap_bytes_per_s = none;
  } else {
    // Counted here rather than in the loop above, which most flows of a parameter server's fan
    // (every hop coupling) would pay for nothing; the hops that couple were read just now, their
    // links still in the cache.
    std::uint32_t coupling_at_narrowest = 0;
    for (std::uint32_t h = 0; h < hops.size(); ++h)
      coupling_at_narrowest += coupling_[hops[h]] && most_of(h) == narrowest ? 1 : 0;
    if (f.narrowest_hops > coupling_at_narrowest) {
      f.cap_bytes_per_s = narrowest; // a hop that couples nothing has it: at most any coupled one
    } else if (coupled_bytes_per_s == narrowest) {
      f.cap_bytes_per_s = none; // the hops that couple nothing are all wider
    } else {
      double loose_bytes_per_s = none;
      for (std::uint32_t h = 0; h < hops.size(); ++h)
        if (!coupling_[hops[h]])
          loose_bytes_per_s = std::min(loose_bytes_per_s, most_of(h));
      f.cap_bytes_per_s = loose_bytes_per_s <= coupled_bytes_per_s ? loose_bytes_per_s : none;
    }
  }
#ifndef NDEBUG
  // The same cap, read from every hop.
  double loose_most = none, slack_most = none, coupled_most = none;
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    double& least = !coupling_[hops[h]] ? loose_most : links_[hops[h]].slack ? slack_most : coupled_most;
    least = std::min(least, most_of(h));
  }
  const double cap = coupled_most == none ? std::min(loose_most, slack_most) : loose_most;
  assert((cap > coupled_most ? none : cap) == f.cap_bytes_per_s && "the cap from the narrowest is the hops'");
#endif
}

void FlowSharing::set_value(Flow& f, double value) {
  if (f.value > 0)
    --flows_by_exponent_[exponent_of(f.value)];
  f.value = value;
  if (value > 0) {
    const std::uint32_t e = exponent_of(value);
    ++flows_by_exponent_[e];
    highest_exponent_ = std::max(highest_exponent_, e);
  }
}

double FlowSharing::value_bound() {
  while (highest_exponent_ > 0 && flows_by_exponent_[highest_exponent_] == 0)
    --highest_exponent_;
  if (flows_by_exponent_[highest_exponent_] == 0)
    return 0;
  // 2 to the power above the highest exponent: a double of exponent field e is below 2^(e - 1022).
  return std::ldexp(1.0, static_cast<int>(highest_exponent_) - 1022);
}

bool FlowSharing::fill_slack_links() {
  bool filled = false;
  const double most = value_bound(); // above every flow's value
  for (std::size_t i = 0; i < slack_links_.size(); ++i) {
    const std::uint32_t l = slack_links_[i];
    Link& link = links_[l];
    if (!link.slack)
      continue;
    // Its flows' values sum to less than their count times that bound (the margin for the sum's
    // rounding, at most n times 2^-53 of it): where that leaves it short of full, reading them
    // would find it so (a worker's NIC beside a parameter server's fan: sixteen flows at a
    // 4,096th of the server's link each).
    const auto n = static_cast<double>(link.flows.size());
    if (n < 0x1p20 && n * most * (1 + 1e-9) <= link.bytes_per_s * (1 - 4 * maxmin_precision)) {
      ++work_.slack_passed;
      continue;
    }
    double load_bytes_per_s = 0; // (no pipeline crosses it: every flow once)
    for (const Member m : link.flows)
      load_bytes_per_s += flows_[m.flow].value;
    if (load_bytes_per_s <= link.bytes_per_s * (1 - 4 * maxmin_precision))
      continue;
    link.slack = false;
    component_links_.push_back(l);
    for (const Member m : link.flows)
      if (flows_[m.flow].seen == walk_)
        classify_hops(m.flow);
    capped_flows_ = 0; // (their caps may have changed)
    filled = true;
  }
  return filled;
}

void FlowSharing::share(double now_s) {
  if (modified_links_.empty() && joined_flows_.empty())
    return;
  ++work_.events;
  start_alone(now_s);
  if (modified_links_.empty() && joined_flows_.empty()) {
    floor_level_ = std::numeric_limits<double>::infinity();
    return;
  }
  // The component: the flows that started sharing and those on a saturated link that a flow
  // left, but for the flows below the floor (floor_level_), whose shares the filling reaches
  // unchanged. The links that the component crosses bind it with what the flows outside it
  // leave of them. Solved, it may leave a flow outside without a bottleneck (a full link where
  // none has more): where such a link now fixes the component below a flow outside, or the
  // link that fixed a flow outside is no longer full, its flows in the component gave up some
  // of it, or it holds a flow of the component above the outside one, that flow joins and the
  // component is solved again. Once every flow has a bottleneck, the sharing is max-min, the
  // one SimGrid computes.
  floor_level_ = std::min(floor_level_, joined_floor());
  ++walk_;
  component_links_.clear();
  slack_links_.clear();
  component_flows_.clear();
  capped_flows_ = 0;
  for (std::uint32_t f : joined_flows_)
    if (flows_[f].state == State::Sharing)
      reach(f);
  joined_flows_.clear();
  // The flows that a link of the flows that started may hold lower now: at or above the least
  // level at which it fills (joined_floor, for the links it read), below which the max-min
  // allocation holds none lower. (Else the first solve would find most of them overtaken,
  // reach_overtaken_flows, and solve again; that check still runs.)
  for (const auto& [l, fills_at] : filling_)
    reach_from(links_[l], fills_at);
  for (std::uint32_t l : modified_links_) {
    links_[l].modified = false;
    for (const Member m : links_[l].flows)
      reach(m.flow);
  }
  modified_links_.clear();
  reach_fillable_flows();
  // The flows that started alone count towards the spreading below as they did when they were
  // solved with the others (a link a flow left may reach one of them again: counted once).
  const std::size_t alone_outside = static_cast<std::size_t>(
      std::count_if(alone_.begin(), alone_.end(), [&](std::uint32_t id) { return flows_[id].seen != walk_; }));
  // A change that reaches many flows at once (a parameter server's fan of flows through one NIC)
  // spreads far: every flow at or above the floor on the saturated links the component crosses,
  // and on theirs, joins it at once, rather than solve after solve. Then no flow outside at or
  // above the floor holds a link of the component as its bottleneck (it would have been
  // reached), and one below holds it still (such a link stays light: see solve_component).
  bool walked = false;
  for (;;) {
    if (walked || component_flows_.size() + alone_outside > spreading_flows) {
      walk_saturated_links();
      walked = true;
    }
    solve_component();
    const std::size_t solved_links = component_links_.size();
    ++work_.solves;
    work_.flows_solved += static_cast<long long>(component_flows_.size());
    work_.links_solved += static_cast<long long>(solved_links);
    const bool overtaken = reach_overtaken_flows();
    const bool unbound = !walked && reach_unbound_flows(solved_links);
    const bool filled = fill_slack_links(); // (last: the links it brings in are not solved yet)
    work_.overtaken_rounds += overtaken ? 1 : 0;
    work_.unbound_rounds += unbound ? 1 : 0;
    work_.slack_rounds += filled ? 1 : 0;
    if (!overtaken && !unbound && !filled)
      break;
  }
  // Whether each link is full now: what the solve left of it (every flow of the component
  // having taken its share of each of its links).
  for (std::uint32_t l : component_links_)
    links_[l].saturated = links_[l].remaining <= links_[l].bytes_per_s * 2 * maxmin_precision;
  reschedule(component_flows_, now_s);
  floor_level_ = std::numeric_limits<double>::infinity();
  if (fan_entry_flows_ > 0 && component_flows_.size() >= fan_entry_flows_ && work_.events >= fan_retry_event_) {
    if (enter_fans(now_s)) {
      fan_stay_start_ = work_.fan_events;
      fan_stay_passes_ = 1;
    } else { // (a failed try is a pass over every flow for nothing, as a short stay is)
      space_fan_tries(false);
    }
  }
}

void FlowSharing::reschedule(std::span<const std::uint32_t> flows, double now_s) {
  // Model::next_occurring_event_lazy: each flow has sent at its former rate since its last
  // update; its new rate gives its new end. Many new ends at once (a parameter server's
  // thousands of flows) rebuild the event heap instead of moving each.
  std::size_t moved = 0;
  // (k moves cost about k log2 n compares, a rebuild about 2 n)
  const std::size_t n = events_.size();
  const bool rebuild = flows.size() * static_cast<std::size_t>(std::bit_width(n)) > 2 * n;
  for (std::uint32_t id : flows) {
    Flow& f = flows_[id];
    // A rate that the new sharing leaves as it was (but for the rounding of another order of
    // sums) keeps its end: SimGrid would compute the same date again, within an ulp or two.
    const double rate = f.value * bandwidth_factor_;
    if (f.rate > 0 && std::abs(rate - f.rate) <= same_rate * f.rate)
      continue;
    if (f.remaining_bytes > 0)
      subtract_snapping(f.remaining_bytes, f.rate * (now_s - f.updated_s), maxmin_precision * surf_precision_s);
    f.updated_s = now_s;
    f.rate = rate;
    if (!(f.rate > 0))
      throw std::logic_error("flow sharing: a flow got no bandwidth"); // SimGrid dies there too
    const double ends_s = now_s + (f.remaining_bytes > 0 ? f.remaining_bytes / f.rate : 0.0);
    if (rebuild) {
      events_.set_unordered(id, ends_s, start_order_[id]);
      ++moved;
    } else {
      events_.set(id, ends_s, start_order_[id]);
    }
  }
  if (moved > 0)
    events_.restore();
}

void FlowSharing::start_alone(double now_s) {
  // A flow that starts sharing on links that couple nothing (none carries two or more flows that
  // could fill it together: couples()) takes its cap, its path's narrowest bandwidth, with the
  // solver's arithmetic for a flow that its cap fixes (solve_component, fix); no other flow's
  // share changes, for a link that couples nothing binds none, and no other flow's level moves
  // (joined_floor: it counts only the links that couple).
  alone_.clear();
  std::size_t kept = 0;
  for (std::uint32_t id : joined_flows_) {
    Flow& f = flows_[id];
    const auto hops = hops_of(f);
    if (f.state != State::Sharing || std::any_of(hops.begin(), hops.end(), [&](std::uint32_t l) { return coupling_[l]; })) {
      joined_flows_[kept++] = id;
      continue;
    }
    f.coupling_hops = 0;
    f.cap_bytes_per_s = f.narrowest_bytes_per_s;
    f.level = f.cap_bytes_per_s / f.weight;
    set_value(f, f.level / f.penalty);
    f.bound_by = by_cap;
    alone_.push_back(id);
  }
  joined_flows_.resize(kept);
  work_.alone_starts += static_cast<long long>(alone_.size());
  reschedule(alone_, now_s);
}

double FlowSharing::joined_floor() {
  // Below the least level at which a link of a new flow can saturate, the filling runs as it
  // did: every other link holds what it held (or less, where flows finished), and none of the
  // new flows' links fills. A link L fills at the least level x where its flows take all of it,
  // those below x at their levels (fixed as they were) and the others, new ones included, at
  // x: sum of w_i min(x, level_i) = its bandwidth (less SimGrid's precision, at which the
  // solver counts it full).
  double floor = std::numeric_limits<double>::infinity();
  filling_.clear();
  if (joined_flows_.empty())
    return floor;
  ++walk_;
  for (std::uint32_t id : joined_flows_) {
    if (flows_[id].state != State::Sharing)
      continue;
    for (std::uint32_t l : hops_of(flows_[id])) {
      // A link that couples no flows never fills in a solve (it is a cap of its one flow at most).
      if (!coupling_[l])
        continue;
      Link& link = links_[l];
      if (link.seen == walk_)
        continue;
      link.seen = walk_;
      const double full = link.bytes_per_s * (1 - maxmin_precision);
#ifndef NDEBUG
      double read = 0; // the weight read from its flows
      for (const Member m : link.flows)
        read += on_link(flows_[m.flow], m.hop, flows_[m.flow].weight);
      assert(std::abs(read - link.weight) <= 1e-3 * read && "the kept weight is its flows', well within the margin below");
#endif
      // It fills at no less than its bandwidth over all its flows' weight (all of them rising):
      // where that is at least twice the floor found so far (a worker's NIC beside a parameter
      // server's fan: hundreds of times), it cannot lower it, and its flows need no reading. (The
      // factor 2 for the kept sum, which only returns to 0 when the link empties: weights of
      // flows whose latencies differ a millionfold leave it rounding errors of about 1e-10 of
      // itself per join or leave.)
      if (full >= 2 * floor * link.weight)
        continue;
      by_level_.clear();
      double rising = 0; // the summed weight of the flows still rising
      double least = std::numeric_limits<double>::infinity();
      for (const Member m : link.flows) {
        const Flow& f = flows_[m.flow];
        by_level_.push_back({f.level, on_link(f, m.hop, f.weight)});
        rising += on_link(f, m.hop, f.weight);
        least = std::min(least, f.level);
      }
      // Below every flow's level (all new, as a parameter server's fan), it fills with all of
      // them rising: the first step of fill_level's walk, without its sort.
      const double fills_at = full / rising <= least ? full / rising : fill_level(by_level_, full, rising);
      if (fills_at < std::numeric_limits<double>::infinity()) {
        floor = std::min(floor, fills_at);
        filling_.push_back({l, fills_at});
      }
    }
  }
  // A margin for the rounding of the levels the solver computes.
  return floor * (1 - 1e-9);
}

void FlowSharing::reach_from(const Link& link, double level) {
  for (const Member m : link.flows)
    if (flows_[m.flow].level >= level * (1 - 1e-9))
      reach(m.flow);
}

void FlowSharing::reach_fillable_flows() {
  // In the max-min allocation a link fills at no level below the one at which it fills with
  // every flow of the component rising and each flow outside taking its share up to its level:
  // the filling of joined_floor with the component's flows at +infinity. (The first solve, the
  // flows outside held at their shares, may bind it lower: the checks after it see to that.)
  for (std::size_t i = 0; i < component_links_.size() && component_flows_.size() <= spreading_flows; ++i) {
    const Link& link = links_[component_links_[i]];
    by_level_.clear();
    double rising = 0; // the summed weight of the flows still rising
    bool outside = false;
    for (const Member m : link.flows) {
      const Flow& f = flows_[m.flow];
      const bool in = f.seen == walk_;
      outside = outside || !in;
      by_level_.push_back({in ? std::numeric_limits<double>::infinity() : f.level, on_link(f, m.hop, f.weight)});
      rising += by_level_.back().second;
    }
    if (!outside)
      continue;
    if (const double fills_at = fill_level(by_level_, link.bytes_per_s * (1 - maxmin_precision), rising);
        fills_at < std::numeric_limits<double>::infinity())
      reach_from(link, fills_at);
  }
}

double FlowSharing::fill_level(std::vector<std::pair<double, double>>& by_level, double full, double rising) {
  // Every flow rising from 0, each stops at its level: between two levels the link takes the
  // fixed flows' shares and the rising ones' weight times the level.
  std::sort(by_level.begin(), by_level.end());
  double taken = 0; // by the flows fixed below the level reached
  for (const auto& [level, weight] : by_level) {
    if (const double fills_at = (full - taken) / rising; fills_at <= level)
      return fills_at;
    taken += weight * level;
    rising -= weight;
  }
  return std::numeric_limits<double>::infinity();
}

void FlowSharing::walk_saturated_links() {
  for (std::size_t i = 0; i < component_links_.size(); ++i)
    if (links_[component_links_[i]].saturated)
      for (const Member m : links_[component_links_[i]].flows)
        reach(m.flow);
}

bool FlowSharing::reach_overtaken_flows() {
  bool reached = false;
  for (std::size_t i = 0, n = component_links_.size(); i < n; ++i) {
    const Link& link = links_[component_links_[i]];
    if (!link.bound || link.frozen_bytes_per_s == 0)
      continue;
    for (const Member m : link.flows)
      if (flows_[m.flow].seen != walk_ && flows_[m.flow].level >= link.level * (1 - 1e-9)) {
        add_to_component(m.flow);
        reached = true;
      }
  }
  return reached;
}

bool FlowSharing::reach_unbound_flows(std::size_t solved_links) {
  // A flow outside the component keeps its share while the link that fixed it is still its
  // bottleneck: the component's flows there take no less than they did (else what they gave up
  // is the outside flow's to take, however little of the link that is), the link is full, and
  // no flow of the component there is at a higher level. Only the component's flows changed,
  // so only the links of the last solve need a look.
  bool reached = false;
  for (std::size_t i = 0; i < solved_links; ++i) {
    const std::uint32_t l = component_links_[i];
    const Link& link = links_[l];
    if (link.frozen_bytes_per_s == 0)
      continue;
    const bool full = link.remaining <= link.bytes_per_s * 2 * maxmin_precision;
    double highest = 0; // the highest level of the component's flows on it
    double gave_up = 0; // what they took before this change, less what they take now
    for (const Member m : link.flows) {
      const Flow& f = flows_[m.flow];
      if (f.seen == walk_) {
        highest = std::max(highest, f.level);
        gave_up += on_link(f, m.hop, f.value_before - f.value);
      }
    }
    for (const Member m : link.flows) {
      const Flow& f = flows_[m.flow];
      if (f.seen != walk_ && f.bound_by == l &&
          (!full || gave_up > 1e-9 * f.value || f.level < highest * (1 - 1e-9))) {
        add_to_component(m.flow);
        reached = true;
      }
    }
  }
  return reached;
}

void FlowSharing::solve_component() {
  // MaxMin::maxmin_solve. Each round the least level, remaining over usage, among the links that
  // couple flows and the flows' caps saturates; a flow weighs its weight times its crossings on
  // each of its links (1 but for a pipeline's). A
  // flow's other links enter as its cap, the level the narrowest of them has with the flow alone
  // there (those links reach their level when the flow does and change nothing else).
  for (std::uint32_t id : component_flows_) {
    Flow& f = flows_[id];
    f.fixed = false;
    set_value(f, 0);
  }
  // Caps never change within a solve: sorted once, read in order. The solves of one change, the
  // component growing, sort the caps of the flows that joined and merge them in (the order is
  // total, by level and flow: the same as one sort of all).
  if (capped_flows_ == 0)
    caps_.clear();
  const auto sorted = static_cast<std::ptrdiff_t>(caps_.size());
  for (std::size_t i = capped_flows_; i < component_flows_.size(); ++i) {
    const Flow& f = flows_[component_flows_[i]];
    if (f.cap_bytes_per_s < std::numeric_limits<double>::infinity())
      caps_.push_back({f.cap_bytes_per_s / f.weight, component_flows_[i], true});
  }
  capped_flows_ = component_flows_.size();
  const auto by_level = [](const Level& a, const Level& b) { return b > a; };
  std::sort(caps_.begin() + sorted, caps_.end(), by_level);
  std::inplace_merge(caps_.begin(), caps_.begin() + sorted, caps_.end(), by_level);
  std::size_t next_cap = 0;
  light_.clear();
  light_level_.clear();
  // Each link: the weight of its flows in the component, and what the others (their shares
  // held) leave of it. A link that flows below the floor leave no more than SimGrid's precision
  // of is not light: SimGrid dropped it when it fixed the last of them, and the rest of its
  // flows go past it. Unless one of them has it as its bottleneck, or flows at or above the
  // floor fill it: it then binds the component's flows there at about level 0, and those flows
  // outside join the component (reach_overtaken_flows).
  for (std::uint32_t l : component_links_) {
    Link& link = links_[l];
    link.usage = 0;
    link.frozen_bytes_per_s = 0;
    link.bound = false;
    bool frozen_binding = false; // a flow outside that it holds, or one at or above the floor
    for (const Member m : link.flows) {
      const Flow& f = flows_[m.flow];
      if (f.seen == walk_) {
        link.usage += on_link(f, m.hop, f.weight);
      } else {
        link.frozen_bytes_per_s += on_link(f, m.hop, f.value);
        frozen_binding = frozen_binding || f.level >= floor_level_ || f.bound_by == l;
      }
    }
    link.remaining = link.bytes_per_s - link.frozen_bytes_per_s;
    link.light = link.usage > 0 && (link.remaining > link.bytes_per_s * maxmin_precision || frozen_binding);
    if (link.light) {
      link.slot = static_cast<std::uint32_t>(light_.size());
      light_.push_back(l);
      light_level_.push_back(link.remaining / link.usage);
    }
  }
  // The links' least level: found by a scan while the rounds are few (most solves take a handful,
  // each changing most links), from a heap once the scans have cost more than a few passes.
  LinkLevels levels(*this);
  for (;;) {
    while (next_cap < caps_.size() && flows_[caps_[next_cap].id].fixed)
      ++next_cap;
    const double least_link = levels.least();
    const double min_usage =
        next_cap < caps_.size() ? std::min(least_link, caps_[next_cap].remaining_over_usage) : least_link;
    if (min_usage == std::numeric_limits<double>::infinity())
      break;
    // Every link and cap at exactly the least level saturates now: links by id, then caps.
    saturated_.clear();
    if (least_link == min_usage)
      levels.take_least(saturated_);
    for (; next_cap < caps_.size() && caps_[next_cap].remaining_over_usage == min_usage; ++next_cap)
      saturated_.push_back(caps_[next_cap]);
    // Fix their flows; the links these cross get their new level once the round is done
    // (their remaining and usage only fall within it, so a link that was saturated at some
    // point of the round is at its end too).
    ++round_;
    changed_.clear();
    for (const Level& s : saturated_) {
      if (s.is_flow) {
        fix(s.id, min_usage, by_cap);
        continue;
      }
      Link& link = links_[s.id];
      link.bound = true;
      link.level = min_usage;
      for (const Member m : link.flows)
        if (flows_[m.flow].seen == walk_)
          fix(m.flow, min_usage, s.id);
    }
    for (std::uint32_t l : changed_) {
      Link& link = links_[l];
      if (!(link.usage > maxmin_precision) || !(link.remaining > link.bytes_per_s * maxmin_precision))
        link.light = false;
      levels.changed(l);
    }
  }
}

double FlowSharing::LinkLevels::least() {
  if (!heap_) {
    // One pass over the levels, side by side in memory: the least and the links at it.
    const std::vector<double>& level = fs_.light_level_;
    std::vector<std::uint32_t>& at_least = fs_.at_least_;
    least_ = std::numeric_limits<double>::infinity();
    at_least.clear();
    for (std::size_t i = 0; i < level.size(); ++i)
      if (level[i] < least_) {
        least_ = level[i];
        at_least.assign(1, static_cast<std::uint32_t>(i));
      } else if (level[i] == least_ && !at_least.empty()) {
        at_least.push_back(static_cast<std::uint32_t>(i));
      }
    scanned_ += level.size();
    if (scanned_ <= budget_)
      return least_;
    // Many rounds on many links: a heap from here on.
    heap_ = true;
    FlowEvents& heap = fs_.link_levels_;
    heap.clear();
    for (std::uint32_t l : fs_.light_) {
      const Link& link = fs_.links_[l];
      if (link.light)
        heap.set_unordered(l, link.remaining / link.usage);
    }
    heap.restore();
  }
  return fs_.link_levels_.empty() ? std::numeric_limits<double>::infinity() : fs_.link_levels_.front().at_s;
}

void FlowSharing::LinkLevels::take_least(std::vector<Level>& out) {
  const auto first = static_cast<std::ptrdiff_t>(out.size());
  if (!heap_) {
    for (std::uint32_t slot : fs_.at_least_) {
      const std::uint32_t l = fs_.light_[slot];
      out.push_back({least_, l, false});
      fs_.links_[l].light = false; // saturated: its flows are fixed in this round
      fs_.light_level_[slot] = std::numeric_limits<double>::infinity();
    }
    std::sort(out.begin() + first, out.end(), [](const Level& a, const Level& b) { return a.id < b.id; });
    return;
  }
  // The heap yields the links at the least level by id.
  FlowEvents& heap = fs_.link_levels_;
  const double least = heap.front().at_s;
  while (!heap.empty() && heap.front().at_s == least) {
    out.push_back({least, heap.front().flow, false});
    fs_.links_[heap.front().flow].light = false;
    heap.pop();
  }
}

void FlowSharing::LinkLevels::changed(std::uint32_t l) {
  Link& link = fs_.links_[l];
  if (!heap_) {
    fs_.light_level_[link.slot] =
        link.light ? link.remaining / link.usage : std::numeric_limits<double>::infinity();
    return;
  }
  if (!fs_.link_levels_.contains(l))
    return;
  if (link.light)
    fs_.link_levels_.set(l, link.remaining / link.usage);
  else
    fs_.link_levels_.erase(l);
}

void FlowSharing::fix(std::uint32_t flow, double min_usage, std::uint32_t bound_by) {
  Flow& f = flows_[flow];
  if (f.fixed)
    return;
  f.fixed = true;
  f.bound_by = bound_by;
  set_value(f, min_usage / f.penalty);
  f.level = min_usage;
  const auto hops = hops_of(f);
  const auto take = [&](std::uint32_t h) {
    const std::uint32_t l = hops[h];
    Link& link = links_[l];
    subtract_snapping(link.remaining, on_link(f, h, f.value), link.bytes_per_s * maxmin_precision);
    subtract_snapping(link.usage, on_link(f, h, f.weight), maxmin_precision);
    if (link.light && link.round != round_) {
      link.round = round_;
      changed_.push_back(l);
    }
  };
  for (std::uint64_t coupling = f.coupling_hops; coupling != 0; coupling &= coupling - 1)
    take(static_cast<std::uint32_t>(std::countr_zero(coupling)));
  if (f.pipeline) // (its links couple or not as they did when it joined: no flow joins or leaves in a solve)
    for (std::uint32_t h = 0; h < hops.size(); ++h)
      if (couples(links_[hops[h]]))
        take(h);
}

} // namespace ceiling::replay
