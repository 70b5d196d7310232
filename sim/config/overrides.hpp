// `--set KEY=VALUE` overrides of platform and workload files, read as the files are.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ceiling::config {

/// The file an override belongs to, told by its first key: platform files hold the tables
/// platform, node and interconnect; workload files workload, reference, graph, calibration and
/// validation (HPC workload files hpl or hpcg); software files the table software.
enum class OverrideTarget { Platform, Workload, Software };

/// Where an override of `text` ("interconnect.link_bandwidth=25 GB/s") belongs; throws
/// LoadError for a text without "=" or whose first key belongs to neither kind of file.
/// `origin` names where it was given in messages ("--set").
OverrideTarget override_target(std::string_view text, const std::string& origin = "--set");

/// The overrides among `overrides` of files of kind `target`, as a command line gives them
/// ("--set a=1, --set b=2"); empty where there is none.
std::string overrides_text(std::span<const std::string> overrides, OverrideTarget target);

/// Whether one of `overrides` (each "KEY=VALUE", already applied without error) sets the value
/// at `dotted_key` ("calibration.compute_efficiency"), however its key is written.
bool overrides_set(std::span<const std::string> overrides, std::string_view dotted_key);

/// Whether the override `text` ("node . gpu = {...}") sets `dotted_key` ("node.gpu.memory") or a
/// table or array holding it ("node.gpu" of "node.gpu.memory", "graph.layers" of
/// "graph.layers[1].name"), its key read as TOML reads it (spaces, quotes); an override that
/// is no KEY=VALUE reaches no key, and one whose value does not parse by its key's text.
bool override_reaches(std::string_view text, std::string_view dotted_key);

/// The index of the last of `overrides` that reaches `dotted_key` (override_reaches: applied
/// last, it wins over the others), or none.
std::optional<std::size_t> last_reaching(std::span<const std::string> overrides, std::string_view dotted_key);

} // namespace ceiling::config
