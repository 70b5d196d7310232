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
