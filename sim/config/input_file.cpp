// Reading input files whole; paths relative to the file that names them.
#include "config/input_file.hpp"

#include "config/load_error.hpp"
#include "config/table_reader.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ceiling::config {

std::string beside(const std::string& file, const std::string& relative) {
  const auto joined = std::filesystem::path(file).parent_path() / relative;
  const auto tidy = joined.lexically_normal();
  // Tidied ("a/b/../c" as "a/c") only where that is the file the system opens: through a
  // symbolic link to a folder, "b/.." climbs out of the folder it names, not back to "a"; and
  // through a folder that is not there, the system opens nothing.
  // (A file there under neither name keeps the tidy name, which its error then shows.)
  std::error_code ec;
  const bool there = std::filesystem::exists(joined, ec);
  if (there ? std::filesystem::equivalent(joined, tidy, ec) : !std::filesystem::exists(tidy, ec))
    return tidy.string();
  return joined.string();
}

std::optional<std::string> input_file_problem(const std::string& path) {
  std::error_code ec; // (a loop of links, a name too long: no such file either)
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_regular_file(status))
    return std::nullopt;
  if (std::filesystem::is_directory(status))
    return "a folder, not a file";
  if (std::filesystem::exists(status))
    return "not a regular file (a FIFO or a device)";
  return "no such file";
}

std::string read_input_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw LoadError({path, 0, 0}, "", "not a regular file (a folder, a FIFO or a device)");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) // (the reason open() gave: no such file, a loop of symbolic links, a name too long, ...)
    throw LoadError({path, 0, 0}, "",
                    "cannot open the file for reading" + (errno != 0 ? ": " + std::string(std::strerror(errno)) : ""));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace ceiling::config
