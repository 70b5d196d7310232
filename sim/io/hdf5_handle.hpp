// HDF5's C API made safe to use, internal to io/: identifiers closed by Handle, the library's
// own error printing silenced, and its error stack read back as the text of our messages.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <utility>

namespace ceiling::io {

/// An HDF5 identifier with the function that closes it; an invalid one (< 0) closes nothing.
class Handle {
public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_{id}, close_{close} {}
  Handle(Handle&& other) noexcept
      : id_{std::exchange(other.id_, H5I_INVALID_HID)}, close_{other.close_} {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  ~Handle() { close(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now; false when HDF5 reports a failure (H5Fclose flushes, so it can fail).
  bool close() {
    const bool ok = id_ < 0 || close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// Stops HDF5 printing its error stack to stderr, and closing files at exit (once per process,
/// before any other HDF5 call): we turn the stack into our own message instead.
void silence_hdf5();

/// What HDF5's error stack says about the last failed call: the innermost description, and
/// whether the file was shorter than recorded.
struct Hdf5Failure {
  std::string description; ///< "HDF5 call failed" when the stack says nothing
  bool truncated = false;
};

/// The failure of the last HDF5 call, read from the default error stack.
Hdf5Failure last_failure();

/// An HDF5 error description as a person reads it: a failed system call's (its words before
/// the first colon, then the system's text for its errno) without the call's time, buffer and
/// sizes; any other as it is.
std::string plain_failure_text(const std::string& description);

/// A file access list that tolerates file systems without locks (NFS, Lustre) instead of
/// failing on them; `where` names the file in messages. Throws StoreError.
Handle file_access(const std::string& where);

/// A fixed-length, null-padded string type of `bytes` bytes (1 at least) in `charset`, as the
/// schema stores every string; an invalid identifier (< 0) when HDF5 fails. Fixed-length
/// strings live in the dataset itself: variable-length ones point into HDF5's global heap,
/// which HDF5 follows unchecked, so a damaged file crashed the reader (format_version 2).
hid_t new_string_type(H5T_cset_t charset, std::size_t bytes);

} // namespace ceiling::io
