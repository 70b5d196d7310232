// LockstepRounds against the closed forms of a round of CM02's weighted sharing.
#include "replay/pipeline_fill.hpp"

#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <vector>

using ceiling::replay::LockstepRounds;
using ceiling::replay::pipeline_latency_s;
using ceiling::replay::Route;
using ceiling::testing::relative;

namespace {

/// Links 0 (10 GB/s) and 1 (4 GB/s); edges x and y over link 0 with a latency of 1 us, z over
/// both with `z_latency_s`: the pace of their pipeline, under `latency_factor`.
double wide_and_narrow_pace(double z_latency_s, double latency_factor = 1.0) {
  const std::vector<double> bandwidths{10e9, 4e9};
  LockstepRounds rounds([&](std::uint32_t link) { return bandwidths[link]; }, latency_factor);
  const Route x{.link_ids = {0}, .latency_s = 1e-6, .bandwidth_bytes_per_s = 10e9, .shared_links_only = true};
  const Route y = x;
  const Route z{.link_ids = {0, 1}, .latency_s = z_latency_s, .bandwidth_bytes_per_s = 4e9, .shared_links_only = true};
  const std::vector<const Route*> edges{&x, &y, &z};
  return rounds.pace_bytes_per_s(edges);
}

} // namespace

TEST_CASE("a pipeline whose edges weigh alike keeps its busiest link's pace: no cap") {
  CHECK(wide_and_narrow_pace(1e-6) == std::numeric_limits<double>::infinity());
  // Without latencies (factor 0) CM02 weighs every flow 1.
  CHECK(wide_and_narrow_pace(2e-6, 0.0) == std::numeric_limits<double>::infinity());
}

TEST_CASE("a pipeline's edges weighed by one over their latencies keep the pace of a chunk each in lockstep") {
  // z at 2 us: in a round of a chunk c per edge, link 0 weighs x and y 1/1us and z 1/2us, the
  // level 10 GB/s / 2.5: x and y at 4 GB/s, z at 2 (link 1 would give it 4) until x and y are
  // done at c / 4; then z, c / 2 left, at link 1's 4: the round takes c / 4 + c / 8, a pace of
  // 2.67 GB/s, where link 0 shared evenly would give 3.33.
  const double pace = 1 / (1 / 4e9 + 1 / 8e9);
  CHECK(wide_and_narrow_pace(2e-6) == relative(pace, 1e-9));
}

TEST_CASE("lockstep rounds one after another give the same pace") {
  const std::vector<double> bandwidths{10e9, 4e9};
  LockstepRounds rounds([&](std::uint32_t link) { return bandwidths[link]; }, 1.0);
  const Route x{.link_ids = {0}, .latency_s = 1e-6, .bandwidth_bytes_per_s = 10e9, .shared_links_only = true};
  const Route y = x;
  const Route z{.link_ids = {0, 1}, .latency_s = 2e-6, .bandwidth_bytes_per_s = 4e9, .shared_links_only = true};
  const std::vector<const Route*> edges{&x, &y, &z};
  const double first = rounds.pace_bytes_per_s(edges);
  CHECK(rounds.pace_bytes_per_s(edges) == relative(first, 1e-9));
  CHECK(first == relative(1 / (1 / 4e9 + 1 / 8e9), 1e-9));
}

TEST_CASE("a pipeline's first chunk pays the latencies of its longest way, each hop its own") {
  // Two pipelines up the same tree (ranks 3 -> 2 -> 1 -> 0 and 4 -> 1), each edge carrying chunk
  // 0 in the round its depth gives. The first's latencies (us): 3 -> 2 1, 2 -> 1 5, 4 -> 1 10,
  // 1 -> 0 2: its longest way 4 -> 1 -> 0, 12 us (3 -> 2 -> 1 -> 0: 8). The second's: 20, 1, 1, 1:
  // 22 us (3 -> 2 -> 1 -> 0). Expectation: 22 us; a way that took one pipeline's hop then the
  // other's would give 27 (20 + 5 + 2).
  ceiling::collectives::Phase phase;
  phase.flows = {{3, 2, 1}, {2, 1, 1}, {4, 1, 1}, {1, 0, 1}, {3, 2, 1}, {2, 1, 1}, {4, 1, 1}, {1, 0, 1}};
  phase.first_round = {0, 1, 1, 2, 0, 1, 1, 2};
  phase.steps = 12;
  phase.chunks = 10;
  phase.pipelines = 2;
  std::vector<Route> routes;
  for (double us : {1, 5, 10, 2, 20, 1, 1, 1})
    routes.push_back({.link_ids = {0}, .latency_s = us * 1e-6, .bandwidth_bytes_per_s = 1e9, .shared_links_only = true});
  std::vector<const Route*> edges;
  for (const Route& r : routes)
    edges.push_back(&r);
  CHECK(pipeline_latency_s(phase, edges) == relative(22e-6, 1e-12));
  phase.pipelines = 1; // one pipeline of all eight: the mixed way counts
  CHECK(pipeline_latency_s(phase, edges) == relative(27e-6, 1e-12));
}
