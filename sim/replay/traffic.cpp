// Timing a traffic pattern with the replay's routes and flow sharing, outside any replay.
#include "replay/traffic.hpp"

#include "replay/flow_sharing.hpp"
#include "replay/routes.hpp"

#include <cmath>
#include <stdexcept>

namespace ceiling::replay {

struct TrafficTimer::State {
  Routes routes;
};

namespace {
Routes machine_routes(const platform::Machine& machine, std::uint64_t seed) {
  std::vector<simgrid::s4u::Host*> hosts;
  std::vector<long long> slots;
  for (long long n = 0; n < machine.size(); ++n) {
    hosts.push_back(machine.node(n).cpu);
    slots.push_back(machine.slot(n));
  }
  return Routes(std::move(hosts), std::move(slots), machine.spec(), seed);
}
} // namespace

TrafficTimer::TrafficTimer(const platform::Machine& machine, std::uint64_t seed)
    : state_(std::make_unique<State>(State{machine_routes(machine, seed)})) {}

TrafficTimer::~TrafficTimer() = default;

double TrafficTimer::seconds(std::span<const collectives::Flow> flows) {
  Routes& routes = state_->routes;
  const auto routed = routes.spread(flows);
  FlowSharing sharing(1.0, 1.0);
  SharingPaths paths(routes, sharing);
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (!sharable(*routed[f]))
      throw std::invalid_argument("traffic: flow " + std::to_string(f) + " (node " + std::to_string(flows[f].src) +
                                  " to node " + std::to_string(flows[f].dst) +
                                  ") crosses a link FlowSharing cannot share: expected two distinct nodes");
    sharing.start(0.0, paths.of(*routed[f]), std::round(flows[f].bytes), nullptr);
  }
  double now_s = 0;
  std::vector<void*> finished;
  while (sharing.in_flight() > 0) {
    now_s = sharing.next_event_s();
    sharing.advance(now_s, finished);
  }
  return now_s;
}

double time_traffic(const platform::Machine& machine, std::span<const collectives::Flow> flows, std::uint64_t seed) {
  return TrafficTimer(machine, seed).seconds(flows);
}

std::vector<collectives::Flow> bisection_exchange(long long nodes, double bytes) {
  const long long half = nodes / 2;
  std::vector<collectives::Flow> flows;
  for (long long a = 0; a < half; ++a)
    for (long long b = half; b < 2 * half; ++b) {
      flows.push_back({.src = static_cast<int>(a), .dst = static_cast<int>(b), .bytes = std::round(bytes / static_cast<double>(half))});
      flows.push_back({.src = static_cast<int>(b), .dst = static_cast<int>(a), .bytes = std::round(bytes / static_cast<double>(half))});
    }
  return flows;
}

std::vector<collectives::Flow> all_to_all(long long nodes, double bytes) {
  std::vector<collectives::Flow> flows;
  for (long long a = 0; a < nodes; ++a)
    for (long long b = 0; b < nodes; ++b)
      if (a != b)
        flows.push_back({.src = static_cast<int>(a), .dst = static_cast<int>(b), .bytes = std::round(bytes / static_cast<double>(nodes - 1))});
  return flows;
}

} // namespace ceiling::replay
