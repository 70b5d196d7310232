// Validation case files (TOML) -> ValidationCase. The format is documented in validation/README.md.
#pragma once

#include "analysis/validation.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::config {

/// What is wrong with a list of `ceiling run` options as `ceiling run` would parse them, or with
/// one that `ceiling validate` sets itself (`--servers` too where `servers_given`: the case gives
/// servers_per_node); nothing where all is well. The command that runs the cases knows its
/// options; this layer does not.
using RunOptionsCheck = std::function<std::optional<std::string>(const std::vector<std::string>&, bool servers_given)>;

/// Reads a validation case: the platform and workload paths are resolved against the file's
/// folder (the software is a bundled name or a path, resolved the same way); each `options`
/// list is held to `check` where given; throws LoadError naming file, line, column and key.
analysis::ValidationCase load_validation_case(const std::string& path, const RunOptionsCheck& check = {});

} // namespace ceiling::config
