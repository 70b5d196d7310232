// Whole-or-nothing output files.
#include "io/atomic_output.hpp"

#include "io/store_error.hpp"
#include "support/stop_signals.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace ceiling::io {
namespace {

/// The temporary file that a signal removes (RemovedOnSignal), "" when none.
char removed_on_signal[4096] = "";

extern "C" void remove_and_exit(int signal) {
  // (a signal after the rename finds no temporary: the output is whole)
  static constexpr char removed[] = "ceiling: interrupted while writing an output: its unfinished file is removed\n";
  static constexpr char whole[] = "ceiling: interrupted once an output was written\n";
  const bool unfinished = removed_on_signal[0] != '\0' && ::unlink(removed_on_signal) == 0;
  [[maybe_unused]] const auto written = unfinished ? ::write(STDERR_FILENO, removed, sizeof removed - 1)
                                                   : ::write(STDERR_FILENO, whole, sizeof whole - 1);
  ::_exit(128 + signal);
}

/// fsync() of a file or folder: a rename after it cannot land before the data.
void sync_to_disk(const std::string& where, const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0)
    throw store_error(where, "cannot open " + in_quotes(path) + " to flush it: " + system_error_text(errno));
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!synced)
    throw store_error(where, "cannot flush " + in_quotes(path) + ": " + system_error_text(error));
}

} // namespace

RemovedOnSignal::RemovedOnSignal(const AtomicOutput& output) {
  armed_ = output.temporary().size() < sizeof removed_on_signal;
  if (!armed_) // (a path too long to keep: the signals keep their action)
    return;
  std::memcpy(removed_on_signal, output.temporary().c_str(), output.temporary().size() + 1);
  support::handle_stop_signals(remove_and_exit, 0, &former_);
}

RemovedOnSignal::~RemovedOnSignal() {
  if (!armed_)
    return;
  support::restore_stop_signals(former_);
  removed_on_signal[0] = '\0';
}

void remove_temporary(const std::string& temporary) { unlink(temporary.c_str()); }

void replace_durably(const std::string& temporary, const std::string& path) {
  try {
    std::error_code ignored;
    const auto old = std::filesystem::status(path, ignored);
    if (std::filesystem::exists(old))
      std::filesystem::permissions(temporary, old.permissions(), ignored);
    sync_to_disk(path, temporary, O_RDONLY);
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      const int error = errno;
      throw store_error(path, "cannot rename " + in_quotes(temporary) + ": " + system_error_text(error));
    }
  } catch (...) {
    remove_temporary(temporary);
    throw;
  }
  // The rename itself is durable only once the folder holding it is flushed.
  const auto folder = std::filesystem::path(path).parent_path();
  sync_to_disk(path, folder.empty() ? "." : folder.string(), O_RDONLY | O_DIRECTORY);
}

std::string output_target(const std::string& path) {
  if (path.empty())
    throw store_error(in_quotes(path), "an empty name: expected a file's path");
  // Follow the links by hand: a link to a file not there yet names where to write it, and a
  // loop must be refused, not written beside (canonical forms fail on both).
  std::filesystem::path target = path;
  std::error_code ignored;
  for (int links = 0; std::filesystem::is_symlink(target, ignored); ++links) {
    if (links == 40)
      throw store_error(path, "too many levels of symbolic links: expected a file's path");
    std::error_code error;
    const auto next = std::filesystem::read_symlink(target, error);
    if (error)
      throw store_error(path, "cannot read the symbolic link " + in_quotes(target.string()) + ": " + error.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  const auto status = std::filesystem::status(target, ignored);
  if (std::filesystem::is_directory(status))
    throw store_error(path, "is a folder: expected a file's path");
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw store_error(path, "is not a regular file (a device, a FIFO or a socket): expected a file's path");
  // (as given, not lexically normalised: "missing/../in.toml" is no path the system would
  // open, and normalised it named an input the output then replaced)
  return target.string();
}

AtomicOutput::AtomicOutput(std::string path) : path_(output_target(path)) {
  // PATH.tmp, created exclusively: where a file is there already (left by a write that was
  // killed, or someone's own) it is not written over, and PATH.tmp.1, .2, ... is taken instead.
  for (int n = 0;; ++n) {
    temporary_ = path_ + ".tmp" + (n == 0 ? std::string() : "." + std::to_string(n));
    errno = 0;
    const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      break;
    }
    if (errno != EEXIST || n == 99)
      throw store_error(path_, "cannot create " + in_quotes(temporary_) +
                                   (errno != 0 ? ": " + system_error_text(errno) : ""));
  }
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_)
    throw store_error(path_, "cannot create " + in_quotes(temporary_) + (errno != 0 ? ": " + system_error_text(errno) : ""));
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    out_.close();
    remove_temporary(temporary_);
  }
}

void AtomicOutput::commit() {
  errno = 0;
  out_.flush();
  out_.close();
  if (!out_) {
    const int error = errno;
    throw store_error(path_, "cannot write " + in_quotes(temporary_) + (error != 0 ? ": " + system_error_text(error) : ""));
  }
  replace_durably(temporary_, path_);
  committed_ = true;
}

} // namespace ceiling::io
