// The latency of a pipeline's first chunk's way (pipeline_fill.hpp) against its closed form.
#include "replay/pipeline_fill.hpp"

#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <vector>

using ceiling::replay::pipeline_latency_s;
using ceiling::replay::Route;
using ceiling::testing::relative;

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
  const std::uint32_t link[] = {0};
  std::vector<Route> routes;
  for (double us : {1, 5, 10, 2, 20, 1, 1, 1})
    routes.push_back({.link_ids = link, .latency_s = us * 1e-6, .bandwidth_bytes_per_s = 1e9, .shared_links_only = true});
  std::vector<const Route*> edges;
  for (const Route& r : routes)
    edges.push_back(&r);
  CHECK(pipeline_latency_s(phase, edges) == relative(22e-6, 1e-12));
  phase.pipelines = 1; // one pipeline of all eight: the mixed way counts
  CHECK(pipeline_latency_s(phase, edges) == relative(27e-6, 1e-12));
}
