// The layer DAG of a workload (Boost.Graph): cycles, a deterministic topological order.
#pragma once

#include "workload/workload_spec.hpp"

#include <optional>
#include <vector>

namespace ceiling::workload {

/// Layers as vertices, an edge from each dependency to its dependant.
class LayerGraph {
public:
  explicit LayerGraph(const std::vector<LayerSpec>& layers);
  ~LayerGraph();
  LayerGraph(const LayerGraph&) = delete;
  LayerGraph& operator=(const LayerGraph&) = delete;

  /// A cycle as layer indices, each depending on the next's predecessor (first = last's
  /// dependant), or nullopt when the graph is a DAG.
  std::optional<std::vector<int>> find_cycle() const;

  /// Every layer after all its dependencies; among ready layers the one first in the file goes
  /// first, so a file written in a topological order keeps its order. Requires no cycle.
  std::vector<int> topological_order() const;

private:
  struct Impl;
  Impl* impl_;
};

} // namespace ceiling::workload
