// Reading an input file whole, with the project's error for a file that cannot be read.
#pragma once

#include <optional>
#include <string>

namespace ceiling::config {

/// The whole text of the regular file at `path`; a LoadError naming the file when it is
/// missing, unreadable, or not a regular file (a folder, a FIFO, a device).
std::string read_input_file(const std::string& path);

/// Why a file named as an input (a platform, a workload, a stack) is not one at `path`: "no such
/// file", "a folder, not a file" or "not a regular file (a FIFO or a device)"; nullopt where a
/// regular file is there.
std::optional<std::string> input_file_problem(const std::string& path);

} // namespace ceiling::config
