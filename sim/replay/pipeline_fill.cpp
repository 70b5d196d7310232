// Lockstep rounds of a pipeline: its fill and drain, and its first chunk's way.
#include "replay/pipeline_fill.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

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

double pipeline_latency_s(const collectives::Phase& phase, std::span<const Route* const> routes) {
  std::vector<std::size_t> order(phase.flows.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return phase.first_round[a] < phase.first_round[b]; });
  // The longest latency with which chunk 0 reaches (pipeline, rank) in a round.
  std::map<std::tuple<int, int, int>, double> reached;
  double longest = 0;
  for (std::size_t i : order) {
    const int pipeline = phase.pipeline_of(static_cast<int>(i)).first;
    const int round = phase.first_round[i];
    const auto before = reached.find({pipeline, phase.flows[i].src, round - 1});
    const double latency_s = (before == reached.end() ? 0.0 : before->second) + routes[i]->latency_s;
    double& here = reached[{pipeline, phase.flows[i].dst, round}];
    here = std::max(here, latency_s);
    longest = std::max(longest, latency_s);
  }
  return longest;
}

} // namespace ceiling::replay
