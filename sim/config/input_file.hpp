// Reading an input file whole, with the project's error for a file that cannot be read.
#pragma once

#include <string>

namespace ceiling::config {

/// The whole text of the regular file at `path`; a LoadError naming the file when it is
/// missing, unreadable, or not a regular file (a folder, a FIFO, a device).
std::string read_input_file(const std::string& path);

} // namespace ceiling::config
