// Where a parameter-server framework puts each variable: TensorFlow's device setter strategies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::stack {

enum class Placement {
  Even,       ///< every variable split evenly over the servers (partitioned variables)
  Greedy,     ///< whole variables, each on the least-loaded server by bytes (ties: the lowest)
  RoundRobin, ///< whole variables, server 0, 1, ..., k-1, 0, ... in creation order
};

std::string_view to_string(Placement p);
std::optional<Placement> placement_from_string(std::string_view text);
std::string placement_names();

/// The server of each whole variable of `bytes` (in creation order) over `servers` servers,
/// by `rule` (Greedy or RoundRobin):
/// - Greedy: TensorFlow 1.x contrib/training/python/training/device_setter.py,
///   GreedyLoadBalancingStrategy with byte_size_load_fn: task = argmin(loads), loads[task] +=
///   the variable's bytes; np.argmin returns the first of equal loads.
/// - RoundRobin: tensorflow/python/training/device_setter.py, _RoundRobinStrategy, the default
///   of replica_device_setter (its counter also advances for other variable-like ops, which
///   are not modelled).
std::vector<int> place_variables(const std::vector<double>& bytes, int servers, Placement rule);

} // namespace ceiling::stack
