// Lockstep rounds of a pipeline's fill and drain.
#include "replay/pipeline_fill.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <vector>

namespace ceiling::replay {

double pipeline_fill_s_per_chunk_byte(const collectives::Phase& phase, std::span<const Route* const> routes,
                                      const Routes& links) {
  const int deepest = (phase.steps - phase.chunks + 1) / 2;
  // Each edge's first and last round (the K chunks in between).
  struct Edge {
    int first;
    int last;
    const Route* route;
  };
  std::vector<Edge> edges;
  for (int begin = 0; begin < static_cast<int>(phase.flows.size());) {
    const auto range = phase.pipeline_of(begin);
    const int half = range.count / 2; // a tree's edges up, then the same edges down
    std::unordered_map<int, int> parent;
    for (int g = begin; g < begin + half; ++g)
      parent[phase.flows[static_cast<std::size_t>(g)].src] = phase.flows[static_cast<std::size_t>(g)].dst;
    const auto depth = [&](int rank) {
      int d = 0;
      for (auto it = parent.find(rank); it != parent.end(); it = parent.find(it->second))
        ++d;
      return d;
    };
    for (int g = begin; g < begin + half; ++g) {
      const int d = depth(phase.flows[static_cast<std::size_t>(g)].src);
      edges.push_back({deepest - d, deepest - d + phase.chunks - 1, routes[static_cast<std::size_t>(g)]});
      edges.push_back({deepest + d - 1, deepest + d + phase.chunks - 2, routes[static_cast<std::size_t>(g + half)]});
    }
    begin += range.count;
  }
  // The busiest link, in seconds per byte, as edges join: round by round from the first (the
  // fill), or from the last backwards (the drain).
  std::vector<int> crossings(links.link_count(), 0);
  const auto rounds = [&](auto when, auto order) {
    std::sort(edges.begin(), edges.end(), [&](const Edge& a, const Edge& b) { return order(when(a), when(b)); });
    std::fill(crossings.begin(), crossings.end(), 0);
    double busiest = 0;
    double sum = 0;
    std::size_t next = 0;
    for (int r = 0; r < 2 * deepest - 1; ++r) {
      const int round = when(edges.front()) + (order(0, 1) ? r : -r);
      for (; next < edges.size() && !order(round, when(edges[next])); ++next)
        for (std::uint32_t l : edges[next].route->link_ids)
          busiest = std::max(busiest, ++crossings[l] / links.link_bandwidth(l));
      sum += busiest;
    }
    // Every edge: the steady state's round.
    for (; next < edges.size(); ++next)
      for (std::uint32_t l : edges[next].route->link_ids)
        busiest = std::max(busiest, ++crossings[l] / links.link_bandwidth(l));
    return std::pair{sum, busiest};
  };
  const auto [fill, steady] = rounds([](const Edge& e) { return e.first; }, std::less<int>());
  const double drain = rounds([](const Edge& e) { return e.last; }, std::greater<int>()).first;
  return fill + drain - (2 * deepest - 1) * steady;
}

} // namespace ceiling::replay
