// The layer DAG: topological order keeps a valid file order, cycles are found and named.
#include "workload/layer_graph.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace ceiling::workload;

namespace {

std::vector<LayerSpec> layers(const std::vector<std::vector<int>>& after) {
  std::vector<LayerSpec> out;
  for (std::size_t i = 0; i < after.size(); ++i)
    out.push_back({.name = "l" + std::to_string(i), .after = after[i]});
  return out;
}

} // namespace

TEST_CASE("a file already in topological order keeps its order") {
  // Inception-like: 0 -> {1, 2 -> 3} -> 4 (join).
  const auto dag = layers({{}, {0}, {0}, {2}, {1, 3}});
  const LayerGraph g(dag);
  CHECK_FALSE(g.find_cycle().has_value());
  CHECK(g.topological_order() == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("a layer listed before its dependency comes after it") {
  const LayerGraph g(layers({{}, {2}, {0}}));
  CHECK(g.topological_order() == std::vector<int>{0, 2, 1});
}

TEST_CASE("a cycle is reported with its layers in dependency order") {
  // 1 after 3, 2 after 1, 3 after 2: 1 -> 2 -> 3 -> 1.
  const auto cycle = LayerGraph(layers({{}, {0, 3}, {1}, {2}})).find_cycle();
  REQUIRE(cycle.has_value());
  CHECK(cycle->size() == 3);
  // Each listed layer is a dependency of the next (cyclically).
  const auto dag = layers({{}, {0, 3}, {1}, {2}});
  for (std::size_t i = 0; i < cycle->size(); ++i) {
    const int from = (*cycle)[i];
    const int to = (*cycle)[(i + 1) % cycle->size()];
    const auto& after = dag[static_cast<std::size_t>(to)].after;
    CHECK(std::find(after.begin(), after.end(), from) != after.end());
  }
  CHECK(LayerGraph(layers({{0}})).find_cycle() == std::vector<int>{0}); // depends on itself
}
