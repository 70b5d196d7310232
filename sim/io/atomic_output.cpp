// Whole-or-nothing output files.
#include "io/atomic_output.hpp"

#include "io/store_error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

namespace ceiling::io {

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  std::error_code ignored;
  // A symbolic link is followed: the file it names is replaced, and the link stays.
  if (std::filesystem::is_symlink(path_, ignored))
    path_ = std::filesystem::weakly_canonical(path_, ignored).string();
  temporary_ = path_ + ".tmp";
  if (std::filesystem::is_directory(path_, ignored))
    throw store_error(path_, "is a folder: expected a file's path");
  errno = 0;
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_)
    throw store_error(path_, "cannot create " + in_quotes(temporary_) + (errno != 0 ? ": " + system_error_text(errno) : ""));
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    out_.close();
    std::remove(temporary_.c_str());
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
  // The file replaced keeps its permissions; the data is on disk before the rename.
  std::error_code ignored;
  const auto old = std::filesystem::status(path_, ignored);
  if (std::filesystem::exists(old))
    std::filesystem::permissions(temporary_, old.permissions(), ignored);
  const int fd = ::open(temporary_.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0)
      ::close(fd);
    throw store_error(path_, "cannot flush " + in_quotes(temporary_) + ": " + system_error_text(error));
  }
  ::close(fd);
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    throw store_error(path_, "cannot rename " + in_quotes(temporary_) + ": " + system_error_text(error));
  }
  committed_ = true;
}

} // namespace ceiling::io
