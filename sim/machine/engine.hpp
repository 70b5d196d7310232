// The process's one SimGrid engine and the network-model settings it runs with.
#pragma once

#include <simgrid/forward.h>

#include <optional>
#include <string>

namespace ceiling::platform {

/// SimGrid network-model options. The defaults make the fluid model exact against alpha-beta
/// closed forms (measured: 0.0000 % on star, fat-tree and dragonfly): plain max-min sharing,
/// no 5 % reverse "cross-traffic" per flow, and no TCP window cap (which would limit fast,
/// long routes to gamma / (2 x latency)).
struct NetworkSettings {
  std::string model = "CM02"; ///< SimGrid's network/model: CM02, LV08, SMPI, IB
  bool cross_traffic = false;
  double tcp_gamma_bytes = 0; ///< network/TCP-gamma; 0 disables the cap
  /// network/latency-factor and network/bandwidth-factor; unset: the model's own (1 for CM02,
  /// 13.01 and 0.97 for LV08).
  std::optional<double> latency_factor;
  std::optional<double> bandwidth_factor;
  bool operator==(const NetworkSettings&) const = default;
};

/// Creates the engine with `settings`, quiet below warnings, SIGINT at the action it had before
/// (SimGrid's own handler would exit with status 1). SimGrid allows one engine per process: a
/// second call throws std::logic_error.
simgrid::s4u::Engine& start_engine(const NetworkSettings& settings);

} // namespace ceiling::platform
