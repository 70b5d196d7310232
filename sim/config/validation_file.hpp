// Validation case files (TOML) -> ValidationCase. The format is documented in validation/README.md.
#pragma once

#include "analysis/validation.hpp"

#include <string>
#include <string_view>

namespace ceiling::config {

/// Reads a validation case: the platform and workload paths are resolved against the file's
/// folder (the software is a bundled name or a path, resolved the same way); throws LoadError
/// naming file, line, column and key.
analysis::ValidationCase load_validation_case(const std::string& path);

/// The same from TOML text that claims to come from `path`.
analysis::ValidationCase load_validation_case_text(std::string_view text, const std::string& path);

} // namespace ceiling::config
