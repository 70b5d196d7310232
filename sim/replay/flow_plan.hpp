// How the replay times each collective flow of a plan: decided once per plan from the flows'
// routes (alone on its route, shared out by FlowSharing, as a pipeline or a group sent as one,
// or through SimGrid).
#pragma once

#include "collectives/collective_plan.hpp"
#include "replay/routes.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace ceiling::replay {

/// How the replay times a collective flow: in closed form (alone on its route), shared out by
/// FlowSharing, as an edge of a pipeline that FlowSharing shares out as one flow, as one of the
/// flows a sender sends as one (Phase::sent_with), which FlowSharing shares out as one flow too,
/// or as a SimGrid comm.
enum class Timing : std::uint8_t { SimGrid, ClosedForm, Shared, Pipeline, SentTogether };

struct PlannedFlow {
  const Route* route = nullptr;
  Timing timing = Timing::SimGrid;
  /// The links of each class the route crosses (Route::per_byte), as FlowPlanner::crossed()
  /// numbers them: a flow's start counts its bytes without reading its route, which lies far
  /// apart in memory. read_route where the planner numbered none.
  std::uint16_t link_classes = read_route;
  static constexpr std::uint16_t read_route = 0xffff;
  /// With Timing::Shared, the route's; with Timing::Pipeline, the pipeline's; with
  /// Timing::SentTogether, the group's (a pipeline path over its flows' routes).
  std::uint32_t sharing_path = 0;
  /// With Timing::SentTogether: the next flow of its group (-1 after the last), and, on the
  /// group's first flow, how many there are.
  std::int32_t next_sent_with = -1;
  std::int32_t sent_with_count = 1;
};

/// Per phase of a plan, per flow: how it is timed.
using PlannedPhases = std::vector<std::vector<PlannedFlow>>;

/// Plans how the replay times the flows of collective plans over `routes`, whose FlowSharing
/// paths `paths` gives: alone on its route (closed form), or sharing links that FlowSharing
/// models, an aggregated pipeline as one flow, a group a sender sends as one as one flow.
class FlowPlanner {
public:
  /// `concurrent`: exchanges run side by side (per-variable), so no flow is alone on its route;
  /// `copies_shared`: the PCIe copies are FlowSharing flows too (GPU-direct), so no flow across
  /// a PCIe link is alone either.
  FlowPlanner(Routes& routes, SharingPaths& paths, bool concurrent, bool copies_shared)
      : routes_(routes), paths_(paths), concurrent_(concurrent), copies_shared_(copies_shared) {}

  /// Whether plans `a` and `b` have the same phases of flows between the same ranks, in order,
  /// in the same pipelines, groups sent together and streams.
  static bool same_endpoints(const std::vector<collectives::Phase>& a, const std::vector<collectives::Phase>& b);

  /// How each flow of `plan` is timed, decided once from its route (each phase's flows routed
  /// together, Routes::spread); none where a flow that is not alone has a route FlowSharing
  /// cannot carry: SimGrid must then carry the whole plan, as the replay's flows and SimGrid's
  /// would share links unseen by each other (and under GPU-direct PCIe links with copies that
  /// FlowSharing carries, with concurrent exchanges links with other exchanges' flows).
  std::optional<PlannedPhases> timings(const std::vector<collectives::Phase>& plan);

  /// The links of each class that `planned`'s route crosses.
  const LinkBytes& crossed(const PlannedFlow& planned) const {
    return planned.link_classes == PlannedFlow::read_route ? planned.route->per_byte
                                                           : link_classes_[planned.link_classes];
  }

private:
  /// The index in link_classes_ of `route`'s links of each class, added the first time met
  /// (PlannedFlow::read_route once 65,535 are numbered).
  std::uint16_t link_classes_of(const Route& route);
  /// The sharing penalty of each pipeline of a dataflow phase whose flows are its chunks
  /// (Phase::stream), by pipeline: its longest route latency, the penalty of its one flow in the
  /// aggregated form (FlowSharing::add_pipeline), so that the exact form expands that flow in
  /// chunks without weighing its pieces otherwise (CM02 weighs a flow by its route latency after
  /// TCP, whose rate falls with its round trip; a tree's chunks are one NCCL channel's stream,
  /// paced by its FIFOs); none where the longest is 0.
  static std::vector<std::optional<double>> stream_penalties(const collectives::Phase& phase,
                                                             const std::vector<const Route*>& routes);
  /// Flow `f`'s sharing penalty among `penalties_s` (stream_penalties), if its phase gives one.
  static std::optional<double> stream_penalty(const collectives::Phase& phase,
                                              const std::vector<std::optional<double>>& penalties_s, std::size_t f);
  /// The flows of a dataflow phase that their sender sends as one (Phase::sent_with: NCCL's tree
  /// storing each element of a chunk to every child before the next) move as one FlowSharing flow
  /// over all their routes, a link that several of them cross carrying its rate that many times,
  /// with their pipeline's sharing penalty (`penalties_s`, by Phase::stream): the copies keep one
  /// pace, their slowest route's share, where flows of their own would each take what their
  /// own routes leave. A group with a flow FlowSharing cannot carry keeps its flows' own timings.
  void send_together(const collectives::Phase& phase, std::vector<PlannedFlow>& flows,
                     const std::vector<std::optional<double>>& penalties_s);
  /// A pipelined phase whose edges share links runs each pipeline as one FlowSharing flow over
  /// all its edges' links: its edges move at one pace, its busiest link's over the edges that
  /// cross it (NCCL's FIFOs hold a few chunks per connection: no edge runs ahead of the one it
  /// feeds or is fed by), and what a fast edge's links could carry beyond that goes to the other
  /// flows there. Where every edge of the phase is alone on its route, each keeps the closed
  /// form (the phase then ends at its slowest edge as well); a pipeline with an edge FlowSharing
  /// cannot carry keeps its edges' own timings.
  void couple_pipelines(const collectives::Phase& phase, std::vector<PlannedFlow>& flows);

  Routes& routes_;
  SharingPaths& paths_;
  bool concurrent_;
  bool copies_shared_;
  /// The path of each group of routes sent together (send_together), by their routes and
  /// sharing penalty (0: none).
  std::map<std::pair<std::vector<const Route*>, double>, std::uint32_t> sent_together_paths_;
  /// Every route's links of each class (Route::per_byte) met so far, once each (a machine's
  /// routes have a few), in the order met: PlannedFlow::link_classes.
  std::vector<LinkBytes> link_classes_;
};

} // namespace ceiling::replay
