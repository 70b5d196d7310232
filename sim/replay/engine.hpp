// The replay engine: data-parallel training iterations as SimGrid activities.
#pragma once

#include "replay/result.hpp"
#include "replay/scenario.hpp"

#include <functional>
#include <stdexcept>

namespace ceiling::replay {

/// Who follows a run as it goes: `started` once the machine is built and the plan known
/// (everything in RunResult but the iterations), `iteration` each time an iteration has ended
/// and been appended to RunResult::iterations. Either may be empty. Output written here is not
/// lost when the run is later cut short, whatever ends it.
struct Progress {
  std::function<void(const RunResult&)> started;
  std::function<void(const RunResult&)> iteration;
};

/// A scenario that scenario_problem() lets through but that the machine, once built, shows the
/// replay cannot run (a route too long for its flow sharing where SimGrid cannot stand in): bad
/// input, not an internal error.
struct Unrunnable : std::runtime_error {
  explicit Unrunnable(const std::string& message, std::string key = {})
      : std::runtime_error(message), platform_key(std::move(key)) {}
  /// The platform file's key that holds the cause ("interconnect.routing"), which the caller
  /// locates there; empty where a run option does.
  std::string platform_key;
};

/// Builds the machine in this process's SimGrid engine (one per process) and replays
/// s.options.iterations iterations of s.workload on s.nodes nodes. Requires
/// scenario_problem(s) to be empty.
///
/// Each rank (a GPU, or a CPU node) runs per iteration: the host->device copy of its input
/// batch (prefetched during the previous iteration when input_overlap), forward, backward in
/// segments ending where a gradient bucket is complete, the bucket's reduction (a device->host
/// copy, the collective among host memories and a host->device copy when staging through the
/// host; the collective between GPUs with GPU-direct), the optimizer update once every bucket
/// is reduced; the iteration ends when the slowest rank is done. Collectives run one after
/// the other in bucket order; each starts when its last participant arrives (a join). Concurrent
/// exchanges (TensorFlow's per-variable parameter servers) run beside them, each rank joining as
/// soon as its gradient is ready; with reads at the next step, the forward pass runs in segments,
/// each waiting for its layer's variables.
/// Nothing is built ahead: each transfer (a SimGrid comm between two hosts, see
/// replay/transfers.hpp) is started when its dependencies are met, and its completion triggers
/// what depends on it. Compute, the extra latencies of aggregated phases and the arrivals of
/// flows timed in closed form are delays in the replay's DueQueue behind one kernel timer (a
/// device runs one kernel at a time). PCIe copies
/// that only other copies can share (host staging under CM02) are served by SharedLink
/// (replay/shared_link.hpp); collective flows that share no link with another flow of their
/// collective are timed in closed form (replay/routes.hpp), and the others shared out by
/// FlowSharing (replay/flow_sharing.hpp), instead of through SimGrid.
/// With options.stop_at_interrupt, SIGINT or SIGTERM ends the run after the current iteration,
/// or at once when that iteration is still under way 0.5 s after the signal. Throws Unrunnable
/// as said above.
RunResult run(const Scenario& s, const Progress& progress = {});

} // namespace ceiling::replay
