// Whole-or-nothing output files.
#include "io/atomic_output.hpp"

#include "io/store_error.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>

namespace ceiling::io {

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)), temporary_(path_ + ".tmp") {
  std::error_code ignored;
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
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    throw store_error(path_, "cannot rename " + in_quotes(temporary_) + ": " + system_error_text(error));
  }
  committed_ = true;
}

} // namespace ceiling::io
