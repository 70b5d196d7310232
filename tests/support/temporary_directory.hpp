// A scratch directory for the tests that write files.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace ceiling::testing {

/// A fresh directory under the system's temporary one, removed with everything in it.
struct TemporaryDirectory {
  std::filesystem::path path;
  TemporaryDirectory() {
    static int count = 0;
    path = std::filesystem::temp_directory_path() /
           ("ceiling-test-" + std::to_string(::getpid()) + "-" + std::to_string(count++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  /// The path of `name` inside the directory, as a string.
  std::string file(const std::string& name) const { return (path / name).string(); }
};

} // namespace ceiling::testing
