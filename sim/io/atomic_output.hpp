// A file written whole or not at all: written to PATH.tmp, renamed over PATH on commit().
#pragma once

#include <csignal>
#include <fstream>
#include <string>

namespace ceiling::io {

/// Opens PATH.tmp at once (a new file: never one already there, see temporary()), so that a path
/// that cannot be written is known before the work that fills it; commit() flushes it and renames
/// it over PATH (rename is atomic on POSIX), so that a reader never sees a half-written PATH.
/// Destroyed without commit(), it removes PATH.tmp.
/// Failures throw StoreError (io/store_error.hpp) naming PATH and the system's reason.
class AtomicOutput {
public:
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  std::ostream& stream() { return out_; }
  void commit();
  /// The file written until commit() renames it over the output: the output's path + ".tmp"
  /// (".tmp.1", ".tmp.2", ... where a file had that name already).
  const std::string& temporary() const { return temporary_; }

private:
  std::string path_;
  std::string temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

/// While it lives: SIGINT and SIGTERM remove `output`'s temporary file (none once committed), say
/// so on stderr and end the process with 128 + the signal (for an output written after the
/// results are printed, a run's trace); then the signals' former actions come back.
class RemovedOnSignal {
public:
  explicit RemovedOnSignal(const AtomicOutput& output);
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

private:
  struct sigaction former_[2] {};
  bool armed_ = false;
};

/// The file an output named `path` replaces: the file a symbolic link names (the link stays),
/// or `path` itself. Throws StoreError when that is a folder, or exists and is not a regular file
/// (a device, a FIFO or a socket, which a rename would replace by a plain file).
std::string output_target(const std::string& path);

/// Makes a finished `temporary` file the file at `path`, crash-safely: gives it the permissions
/// of the file it replaces, flushes it to disk, renames it over `path` and flushes the folder
/// holding it, so that `path` is the old file or the new one, whole, whatever happens. Removes
/// `temporary` and throws StoreError naming `path` when a step fails.
void replace_durably(const std::string& temporary, const std::string& path);

/// Removes the temporary file `temporary` of a write that failed; a folder of that name, which
/// the write did not create, stays (unlink, not remove).
void remove_temporary(const std::string& temporary);

} // namespace ceiling::io
