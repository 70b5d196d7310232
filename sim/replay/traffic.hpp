// A traffic pattern between nodes, routed as the machine routes and shared out as SimGrid's
// CM02 shares bandwidth: the fabric micro-benchmark behind `ceiling platform bench`.
#pragma once

#include "collectives/collective_plan.hpp"
#include "machine/machine.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace ceiling::replay {

/// The seconds until the last of `flows` (src and dst are nodes of `machine`, CPU host to CPU
/// host; bytes, whole), all started at once, has arrived: routed as the machine routes them
/// (Routes::spread, every flow in flight together, `seed` salting ECMP and Valiant), each part
/// shared out by FlowSharing as SimGrid's CM02 without cross-traffic shares it (latency and
/// bandwidth factors 1). Zero without flows.
double time_traffic(const platform::Machine& machine, std::span<const collectives::Flow> flows, std::uint64_t seed);

/// time_traffic() for many patterns on one machine: the routes are built once.
class TrafficTimer {
public:
  TrafficTimer(const platform::Machine& machine, std::uint64_t seed);
  ~TrafficTimer();
  TrafficTimer(const TrafficTimer&) = delete;
  TrafficTimer& operator=(const TrafficTimer&) = delete;
  double seconds(std::span<const collectives::Flow> flows);

private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Every node of the first half of `nodes` sends `bytes` split evenly over every node of the
/// second half, and the second half as much back: all-to-all across the cut that
/// platform::bisection_bandwidth() measures (nodes / 2 x bytes each way). Each flow carries
/// whole bytes (its share rounded), as a timer sends them.
std::vector<collectives::Flow> bisection_exchange(long long nodes, double bytes);

/// Every node sends `bytes` split evenly over every other node (whole bytes each): an
/// all-to-all of `nodes`.
std::vector<collectives::Flow> all_to_all(long long nodes, double bytes);

} // namespace ceiling::replay
