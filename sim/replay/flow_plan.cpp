// How the replay times each collective flow of a plan (flow_plan.hpp).
#include "replay/flow_plan.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace ceiling::replay {

bool FlowPlanner::same_endpoints(const std::vector<collectives::Phase>& a, const std::vector<collectives::Phase>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& pa, const auto& pb) {
    return pa.pipelines == pb.pipelines && pa.sent_with == pb.sent_with && pa.stream == pb.stream &&
           std::equal(pa.flows.begin(), pa.flows.end(), pb.flows.begin(), pb.flows.end(),
                      [](const auto& fa, const auto& fb) { return fa.src == fb.src && fa.dst == fb.dst; });
  });
}

std::optional<PlannedPhases> FlowPlanner::timings(const std::vector<collectives::Phase>& plan) {
  std::vector<std::vector<const Route*>> routes;
  for (const auto& phase : plan)
    routes.push_back(routes_.spread(phase.flows));
  const auto alone = routes_.alone(routes);
  // (At most one phase with groups sent together: their start counter is one per plan,
  // PipelineProgress::sent_with_started.)
  assert(std::count_if(plan.begin(), plan.end(),
                       [](const collectives::Phase& p) { return !p.sent_with.empty(); }) <= 1);
  PlannedPhases phases;
  for (std::size_t p = 0; p < routes.size(); ++p) {
    auto& flows = phases.emplace_back();
    const auto& phase = plan[p];
    const auto penalties_s = stream_penalties(phase, routes[p]);
    for (std::size_t f = 0; f < routes[p].size(); ++f) {
      PlannedFlow planned{.route = routes[p][f], .link_classes = link_classes_of(*routes[p][f])};
      // Under GPU-direct a flow's PCIe links carry the input copies too: never alone there.
      if (alone[p][f] && !concurrent_ && !(copies_shared_ && planned.route->per_byte.pcie > 0)) {
        planned.timing = Timing::ClosedForm;
      } else if (sharable(*planned.route)) {
        planned.timing = Timing::Shared;
        planned.sharing_path = paths_.of(*planned.route, stream_penalty(phase, penalties_s, f));
      } else {
        // A route the replay cannot share out (more than FlowSharing::max_hops links): SimGrid
        // carries the whole plan, or its flow and the replay's would share links unseen by each
        // other (and SimGrid would not see the copies or other exchanges the replay shares out).
        return std::nullopt;
      }
      flows.push_back(planned);
    }
    couple_pipelines(phase, flows);
    send_together(phase, flows, penalties_s);
  }
  return phases;
}

std::uint16_t FlowPlanner::link_classes_of(const Route& route) {
  const auto it = std::find(link_classes_.begin(), link_classes_.end(), route.per_byte);
  if (it != link_classes_.end())
    return static_cast<std::uint16_t>(it - link_classes_.begin());
  if (link_classes_.size() == PlannedFlow::read_route) // (never seen: a machine's routes have a few)
    return PlannedFlow::read_route;
  link_classes_.push_back(route.per_byte);
  return static_cast<std::uint16_t>(link_classes_.size() - 1);
}

std::vector<std::optional<double>> FlowPlanner::stream_penalties(const collectives::Phase& phase,
                                                                 const std::vector<const Route*>& routes) {
  std::vector<std::optional<double>> penalties_s;
  for (std::size_t f = 0; f < phase.stream.size(); ++f) {
    const auto s = static_cast<std::size_t>(phase.stream[f]);
    if (s >= penalties_s.size())
      penalties_s.resize(s + 1);
    if (routes[f]->latency_s > penalties_s[s].value_or(0.0))
      penalties_s[s] = routes[f]->latency_s;
  }
  return penalties_s;
}

std::optional<double> FlowPlanner::stream_penalty(const collectives::Phase& phase,
                                                  const std::vector<std::optional<double>>& penalties_s, std::size_t f) {
  return phase.stream.empty() ? std::nullopt : penalties_s[static_cast<std::size_t>(phase.stream[f])];
}

void FlowPlanner::send_together(const collectives::Phase& phase, std::vector<PlannedFlow>& flows,
                                const std::vector<std::optional<double>>& penalties_s) {
  if (phase.sent_with.empty())
    return;
  assert(phase.chunks == 0 && !phase.after.empty()); // a dataflow phase's groups
  // Each group as a list from its first flow (groups are listed in flow order).
  std::vector<int> last(flows.size(), -1); // per group's first flow: its last flow so far
  for (int g = 0; g < static_cast<int>(flows.size()); ++g) {
    const auto first = static_cast<std::size_t>(phase.sent_with[static_cast<std::size_t>(g)]);
    if (last[first] >= 0) {
      flows[static_cast<std::size_t>(last[first])].next_sent_with = g;
      ++flows[first].sent_with_count;
    } else {
      assert(first == static_cast<std::size_t>(g)); // a group's first flow comes first
    }
    last[first] = g;
  }
  std::vector<const Route*> routes;
  for (int first = 0; first < static_cast<int>(flows.size()); ++first) {
    PlannedFlow& head = flows[static_cast<std::size_t>(first)];
    if (phase.sent_with[static_cast<std::size_t>(first)] != first || head.sent_with_count < 2)
      continue;
    routes.clear();
    for (int g = first; g >= 0; g = flows[static_cast<std::size_t>(g)].next_sent_with)
      routes.push_back(flows[static_cast<std::size_t>(g)].route);
    if (!std::all_of(routes.begin(), routes.end(), [](const Route* r) { return sharable(*r); })) {
      for (int g = first; g >= 0;) // each on its own
        g = std::exchange(flows[static_cast<std::size_t>(g)].next_sent_with, -1);
      head.sent_with_count = 1;
      continue;
    }
    // Every chunk of a group sends over the same routes: one path for all of them.
    const auto penalty = stream_penalty(phase, penalties_s, static_cast<std::size_t>(first));
    auto [path, fresh] = sent_together_paths_.try_emplace({routes, penalty.value_or(0.0)}, 0);
    if (fresh)
      path->second = paths_.of_pipeline(routes, penalty);
    for (int g = first; g >= 0; g = flows[static_cast<std::size_t>(g)].next_sent_with) {
      flows[static_cast<std::size_t>(g)].timing = Timing::SentTogether;
      flows[static_cast<std::size_t>(g)].sharing_path = path->second;
    }
  }
}

void FlowPlanner::couple_pipelines(const collectives::Phase& phase, std::vector<PlannedFlow>& flows) {
  if (phase.chunks == 0 || phase.pipelines == 0 ||
      std::all_of(flows.begin(), flows.end(), [](const PlannedFlow& f) { return f.timing == Timing::ClosedForm; }))
    return;
  std::vector<const Route*> edges;
  for (int first = 0; first < static_cast<int>(flows.size());) {
    const auto range = phase.pipeline_of(first);
    edges.clear();
    for (int g = first; g < first + range.count; ++g)
      edges.push_back(flows[static_cast<std::size_t>(g)].route);
    first += range.count;
    if (!std::all_of(edges.begin(), edges.end(), [](const Route* r) { return sharable(*r); }))
      continue;
    const std::uint32_t path = paths_.of_pipeline(edges);
    for (int g = range.first; g < first; ++g) {
      flows[static_cast<std::size_t>(g)].timing = Timing::Pipeline;
      flows[static_cast<std::size_t>(g)].sharing_path = path;
    }
  }
}

} // namespace ceiling::replay
