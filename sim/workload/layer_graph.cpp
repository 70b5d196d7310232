// LayerGraph on boost::adjacency_list; Kahn's algorithm with a min-heap for a stable order.
#include "workload/layer_graph.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cassert>
#include <functional>
#include <queue>

namespace ceiling::workload {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

struct LayerGraph::Impl {
  Graph graph;
};

LayerGraph::LayerGraph(const std::vector<LayerSpec>& layers) : impl_(new Impl{Graph(layers.size())}) {
  for (std::size_t v = 0; v < layers.size(); ++v)
    for (int u : layers[v].after)
      boost::add_edge(static_cast<std::size_t>(u), v, impl_->graph);
}

LayerGraph::~LayerGraph() { delete impl_; }

std::vector<int> LayerGraph::topological_order() const {
  const Graph& g = impl_->graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<std::size_t> waiting(n);
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t v = 0; v < n; ++v)
    if ((waiting[v] = boost::in_degree(v, g)) == 0)
      ready.push(v);
  std::vector<int> order;
  while (!ready.empty()) {
    const std::size_t u = ready.top();
    ready.pop();
    order.push_back(static_cast<int>(u));
    for (auto [e, end] = boost::out_edges(u, g); e != end; ++e)
      if (--waiting[boost::target(*e, g)] == 0)
        ready.push(boost::target(*e, g));
  }
  assert(order.size() == n && "topological_order on a graph with a cycle");
  return order;
}

std::optional<std::vector<int>> LayerGraph::find_cycle() const {
  // Iterative depth-first search; a grey vertex reached again closes a cycle.
  const Graph& g = impl_->graph;
  const std::size_t n = boost::num_vertices(g);
  enum class Colour { White, Grey, Black };
  std::vector<Colour> colour(n, Colour::White);
  std::vector<std::size_t> parent(n, n);
  for (std::size_t root = 0; root < n; ++root) {
    if (colour[root] != Colour::White)
      continue;
    using Iter = Graph::out_edge_iterator;
    std::vector<std::pair<std::size_t, std::pair<Iter, Iter>>> stack;
    colour[root] = Colour::Grey;
    stack.push_back({root, boost::out_edges(root, g)});
    while (!stack.empty()) {
      auto& [u, edges] = stack.back();
      if (edges.first == edges.second) {
        colour[u] = Colour::Black;
        stack.pop_back();
        continue;
      }
      const std::size_t v = boost::target(*edges.first++, g);
      if (colour[v] == Colour::Grey) { // u -> v closes v -> ... -> u -> v
        std::vector<int> cycle{static_cast<int>(v)};
        std::vector<int> path;
        for (std::size_t w = u; w != v; w = parent[w])
          path.push_back(static_cast<int>(w));
        cycle.insert(cycle.end(), path.rbegin(), path.rend());
        return cycle;
      }
      if (colour[v] == Colour::White) {
        colour[v] = Colour::Grey;
        parent[v] = u;
        stack.push_back({v, boost::out_edges(v, g)});
      }
    }
  }
  return std::nullopt;
}

} // namespace ceiling::workload
