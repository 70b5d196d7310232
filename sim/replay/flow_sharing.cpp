// SimGrid's CM02 bandwidth sharing (lmm max-min with lazy, selective updates), event by event.
#include "replay/flow_sharing.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

namespace ceiling::replay {
namespace {

/// SimGrid's surf/precision: events this close to the present happen now
/// (NetworkCm02Model::update_actions_state_lazy pops what double_equals() the clock).
constexpr double surf_precision_s = 1e-9;
/// SimGrid's maxmin/precision: a link with less than this share of its bandwidth left, or
/// less summed weight than this, is saturated (maxmin.cpp).
constexpr double maxmin_precision = 1e-5;

/// Rates closer than this, relatively, are the same rate computed in another order.
constexpr double same_rate = 1e-14;

/// SimGrid's double_update (src/surf/surf_interface.hpp): subtracts, then snaps what is left
/// below `precision` to 0.
void subtract_snapping(double& variable, double value, double precision) {
  variable -= value;
  if (variable < precision)
    variable = 0.0;
}

} // namespace

FlowSharing::FlowSharing(double bandwidth_factor, double latency_factor)
    : bandwidth_factor_(bandwidth_factor), latency_factor_(latency_factor) {
  assert(bandwidth_factor > 0 && latency_factor >= 0);
}

std::uint32_t FlowSharing::add_link(double bytes_per_s) {
  assert(bytes_per_s > 0);
  links_.push_back({.bytes_per_s = bytes_per_s});
  return static_cast<std::uint32_t>(links_.size() - 1);
}

std::uint32_t FlowSharing::add_path(std::span<const std::uint32_t> links, double latency_s) {
  assert(!links.empty() && latency_s >= 0);
  paths_.push_back({static_cast<std::uint32_t>(hops_.size()), static_cast<std::uint32_t>(links.size()), latency_s});
  for (std::uint32_t l : links) {
    assert(l < links_.size());
    hops_.push_back(l);
  }
  return static_cast<std::uint32_t>(paths_.size() - 1);
}

void FlowSharing::start(double now_s, std::uint32_t path, double bytes, void* token) {
  assert(path < paths_.size());
  std::uint32_t id;
  if (free_flows_.empty()) {
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_flows_.back();
    free_flows_.pop_back();
  }
  Flow& f = flows_[id];
  const double latency_s = paths_[path].latency_s * latency_factor_;
  f.path = path;
  f.state = State::Latency;
  // NetworkCm02Model::communicate: the sharing penalty is the path's latency, unless the
  // factored latency is 0 (the variable then starts enabled with penalty 1).
  f.penalty = latency_s > 0 ? paths_[path].latency_s : 1.0;
  f.weight = 1.0 / f.penalty; // consumption weight 1 over the penalty, as lmm divides it
  f.remaining_bytes = bytes;
  f.value = f.rate = 0;
  f.updated_s = now_s;
  f.token = token;
  ++in_flight_;
  schedule(id, latency_s + now_s); // SimGrid's order: latency + last update
}

double FlowSharing::next_event_s() {
  drop_stale_events();
  return events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().at_s;
}

void FlowSharing::advance(double now_s, std::vector<void*>& finished) {
  drop_stale_events();
  while (!events_.empty() && events_.top().at_s - now_s < surf_precision_s) {
    const Event e = events_.top();
    events_.pop();
    Flow& f = flows_[e.flow];
    if (e.generation != f.generation)
      continue;
    if (f.state == State::Latency) { // the latency is paid: the flow starts sharing
      f.state = State::Sharing;
      f.updated_s = now_s;
      join_links(e.flow);
    } else { // finished, whatever rounding left of its bytes (SimGrid's finish())
      leave_links(e.flow);
      finished.push_back(f.token);
      f.state = State::Free;
      ++f.generation;
      free_flows_.push_back(e.flow);
      --in_flight_;
    }
  }
  share(now_s);
}

void FlowSharing::schedule(std::uint32_t flow, double at_s) {
  Flow& f = flows_[flow];
  events_.push({at_s, flow, ++f.generation});
}

void FlowSharing::drop_stale_events() {
  while (!events_.empty() && events_.top().generation != flows_[events_.top().flow].generation)
    events_.pop();
}

void FlowSharing::join_links(std::uint32_t flow) {
  Flow& f = flows_[flow];
  const auto hops = hops_of(f);
  f.position.resize(hops.size());
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    auto& on_link = links_[hops[h]].flows;
    f.position[h] = static_cast<std::uint32_t>(on_link.size());
    on_link.push_back({flow, h});
    modified_links_.push_back(hops[h]);
  }
}

void FlowSharing::leave_links(std::uint32_t flow) {
  const Flow& f = flows_[flow];
  const auto hops = hops_of(f);
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    auto& on_link = links_[hops[h]].flows;
    const Member last = on_link.back();
    on_link[f.position[h]] = last;
    flows_[last.flow].position[last.hop] = f.position[h];
    on_link.pop_back();
    modified_links_.push_back(hops[h]);
  }
}

void FlowSharing::share(double now_s) {
  if (modified_links_.empty())
    return;
  // The component: every link and sharing flow connected to a modified link.
  ++walk_;
  component_links_.clear();
  component_flows_.clear();
  for (std::uint32_t l : modified_links_)
    if (links_[l].seen != walk_) {
      links_[l].seen = walk_;
      component_links_.push_back(l);
    }
  modified_links_.clear();
  for (std::size_t i = 0; i < component_links_.size(); ++i)
    for (const Member m : links_[component_links_[i]].flows) {
      const std::uint32_t f = m.flow;
      if (flows_[f].seen == walk_)
        continue;
      flows_[f].seen = walk_;
      component_flows_.push_back(f);
      for (std::uint32_t l : hops_of(flows_[f]))
        if (links_[l].seen != walk_) {
          links_[l].seen = walk_;
          component_links_.push_back(l);
        }
    }
  solve_component();
  // Model::next_occurring_event_lazy: each flow of the component has sent at its former rate
  // since its last update; its new rate gives its new end.
  for (std::uint32_t id : component_flows_) {
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
    schedule(id, now_s + (f.remaining_bytes > 0 ? f.remaining_bytes / f.rate : 0.0));
  }
}

void FlowSharing::solve_component() {
  // MaxMin::maxmin_solve, with the least remaining-over-usage link found by a heap instead of
  // a scan; every flow weighs 1 on each of its links. A link that one flow alone crosses
  // reaches its level when that flow does and changes nothing else: it enters the heap as a
  // cap of its flow, and fixing the flow leaves it out.
  levels_.clear();
  for (std::uint32_t id : component_flows_) {
    Flow& f = flows_[id];
    f.fixed = false;
    f.value = 0;
    f.private_hops = 0;
    f.cap_level = std::numeric_limits<double>::infinity();
  }
  for (std::uint32_t l : component_links_) {
    Link& link = links_[l];
    link.remaining = link.bytes_per_s;
    link.usage = 0;
    for (const Member m : link.flows)
      link.usage += flows_[m.flow].weight;
    link.light = false;
    if (!(link.usage > 0))
      continue;
    const double level = link.remaining / link.usage;
    if (link.flows.size() == 1 && link.flows[0].hop < 32) {
      Flow& f = flows_[link.flows[0].flow];
      f.private_hops |= 1u << link.flows[0].hop;
      f.cap_level = std::min(f.cap_level, level);
      continue;
    }
    link.light = true;
    levels_.push_back({level, l, ++link.version, false});
  }
  for (std::uint32_t id : component_flows_)
    if (flows_[id].private_hops != 0)
      levels_.push_back({flows_[id].cap_level, id, 0, true});
  std::make_heap(levels_.begin(), levels_.end(), std::greater<>());
  const auto pop_level = [this] {
    std::pop_heap(levels_.begin(), levels_.end(), std::greater<>());
    const Level top = levels_.back();
    levels_.pop_back();
    return top;
  };
  const auto is_current = [this](const Level& level) {
    if (level.is_flow)
      return !flows_[level.id].fixed;
    const Link& link = links_[level.id];
    return link.light && link.version == level.version;
  };
  while (!levels_.empty()) {
    const Level first = pop_level();
    if (!is_current(first))
      continue;
    // Every link (or cap) at exactly this level saturates now.
    const double min_usage = first.remaining_over_usage;
    saturated_.assign(1, first);
    while (!levels_.empty() && levels_.front().remaining_over_usage == min_usage) {
      const Level next = pop_level();
      if (is_current(next))
        saturated_.push_back(next);
    }
    // Fix their flows; the links these cross get their new level once the round is done
    // (their remaining and usage only fall within it, so a link that was saturated at some
    // point of the round is at its end too).
    ++round_;
    changed_.clear();
    for (const Level& s : saturated_) {
      if (s.is_flow) {
        fix(s.id, min_usage);
        continue;
      }
      for (const Member m : links_[s.id].flows)
        fix(m.flow, min_usage);
    }
    for (std::uint32_t l : changed_) {
      Link& link = links_[l];
      if (!(link.usage > maxmin_precision) || !(link.remaining > link.bytes_per_s * maxmin_precision)) {
        link.light = false;
        continue;
      }
      levels_.push_back({link.remaining / link.usage, l, ++link.version, false});
      std::push_heap(levels_.begin(), levels_.end(), std::greater<>());
    }
  }
}

void FlowSharing::fix(std::uint32_t flow, double min_usage) {
  Flow& f = flows_[flow];
  if (f.fixed)
    return;
  f.fixed = true;
  f.value = min_usage / f.penalty;
  const auto hops = hops_of(f);
  for (std::uint32_t h = 0; h < hops.size(); ++h) {
    if (h < 32 && (f.private_hops >> h & 1u))
      continue;
    Link& link = links_[hops[h]];
    subtract_snapping(link.remaining, f.value, link.bytes_per_s * maxmin_precision);
    subtract_snapping(link.usage, f.weight, maxmin_precision);
    if (link.light && link.round != round_) {
      link.round = round_;
      changed_.push_back(hops[h]);
    }
  }
}

} // namespace ceiling::replay
