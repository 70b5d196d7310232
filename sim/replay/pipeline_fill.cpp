// Lockstep rounds of a pipeline's fill and drain.
#include "replay/pipeline_fill.hpp"

#include <algorithm>
#include <vector>

namespace ceiling::replay {

double pipeline_fill_s_per_chunk_byte(const collectives::Phase& phase,
                                      std::span<const Route* const> routes, const Routes& links) {
  const int extra = phase.steps - phase.chunks;
  struct Edge {
    int first; ///< the round of its first chunk
    int last;  ///< of its last
    const Route* route;
  };
  std::vector<Edge> edges;
  for (std::size_t i = 0; i < phase.flows.size(); ++i)
    edges.push_back({phase.first_round[i], phase.first_round[i] + phase.chunks - 1, routes[i]});
  // The busiest link, in seconds per byte, as edges join: round by round from the first (the
  // fill: step 1, by first round), or from the last backwards (the drain: step -1, by last
  // round); then with every edge (the steady state).
  std::vector<int> crossings(links.link_count(), 0);
  const auto rounds = [&](int Edge::*when, int step, int from) {
    std::sort(edges.begin(), edges.end(),
              [&](const Edge& a, const Edge& b) { return step * a.*when < step * b.*when; });
    std::fill(crossings.begin(), crossings.end(), 0);
    double busiest = 0;
    double sum = 0;
    std::size_t next = 0;
    const auto join = [&](const Edge& e) {
      for (std::uint32_t l : e.route->link_ids)
        busiest = std::max(busiest, ++crossings[l] / links.link_bandwidth(l));
    };
    for (int r = 0; r < extra; ++r) {
      for (const int round = from + step * r;
           next < edges.size() && step * edges[next].*when <= step * round; ++next)
        join(edges[next]);
      sum += busiest;
    }
    for (; next < edges.size(); ++next) // every edge: the steady state
      join(edges[next]);
    return std::pair{sum, busiest};
  };
  const auto [fill, steady] = rounds(&Edge::first, 1, 0);
  const double drain = rounds(&Edge::last, -1, phase.chunks + extra - 1).first;
  return fill + drain - extra * steady;
}

} // namespace ceiling::replay
