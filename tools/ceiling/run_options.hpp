// The options of `ceiling run` and the scenario they describe; a sweep point is a `run`.
#pragma once

#include "replay/result.hpp"
#include "replay/scenario.hpp"
#include "tools/ceiling/options.hpp"

#include <boost/program_options.hpp>

namespace ceiling::io {
class JsonWriter;
}

namespace ceiling::tools {

/// `b` as the object `ceiling run --json` writes under "breakdown_s" (and `validate --json` per
/// point): compute, copy, communication and synchronisation, in seconds.
void write_breakdown_json(io::JsonWriter& json, const replay::Breakdown& b);

/// Every option of `ceiling run`, with its unit and default.
boost::program_options::options_description run_options();

/// The scenario that parsed `run` options describe: the platform and workload files read with
/// their --set overrides, the batch, the replay options. Throws LoadError for a bad file or
/// override and UsageError for a bad option or a scenario that cannot run.
/// With `refuse_oversubscribed_memory` false, a batch whose memory estimate exceeds the GPU's is
/// not refused here (a sweep records such a point as not fitting, with the reason).
replay::Scenario scenario_from(const CommandLine& cli, bool refuse_oversubscribed_memory = true);

/// The platform costs that only a software stack pays (unpaid_stack_costs, below); `platform
/// bench`, which runs no stack, refuses them.
inline constexpr const char* stack_cost_keys[] = {"node.nic.send_overhead", "node.nic.receive_overhead",
                                                  "node.pcie.copy_overhead"};

/// An override of a platform cost that the scenario's stack does not pay, so that it changes
/// nothing in the run: node.nic.send_overhead and receive_overhead where neither the stack's
/// message_overheads, its negotiation nor a gather library of sparse gradients pays them
/// (iteration_plan.cpp software_costs, engine.cpp negotiation_seconds), node.pcie.copy_overhead
/// where copy_overheads is off. `run` notes each; a sweep refuses one a variant's or a platform
/// entry's `set` gives where no stack pays it at any point it reaches (a platform entry's
/// describes the machine, which one variant's stack may pay and another's not).
struct UnpaidCost {
  std::string key;
  std::string why;  ///< "the software stack ideal pays no copy call overhead (...)"
  std::string flag; ///< the stack's key that would pay it: "copy_overheads"
};
std::vector<UnpaidCost> unpaid_stack_costs(const replay::Scenario& s, const std::vector<std::string>& overrides);

/// "random (seed 3)": the allocation policy, and the seed when the policy draws.
std::string allocation_text(const replay::Scenario& s);
/// "background load 30 % of fabric links, 50 % of global links" (global only on a dragonfly),
/// or "" without a background load.
std::string background_text(const replay::Scenario& s);

/// What a run's numbers stand on, in one line: the compute calibration that priced the device,
/// the routing, the allocation (its seed when drawn, the domains spanned) and the background
/// load. Sweeps keep it per point (the store's `provenance`).
std::string provenance(const replay::Scenario& s, const replay::RunResult& r);

} // namespace ceiling::tools
