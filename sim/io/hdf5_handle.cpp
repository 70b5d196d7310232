// Silencing HDF5, reading its error stack, and the property lists and types the store shares.
#include "io/hdf5_handle.hpp"

#include "io/store_error.hpp"

#include <cstdlib>

namespace ceiling::io {
namespace {

herr_t collect_failure(unsigned n, const H5E_error2_t* error, void* data) {
  auto* failure = static_cast<Hdf5Failure*>(data);
  if (n == 0 && error->desc != nullptr)
    failure->description = error->desc;
  if (error->min_num == H5E_TRUNCATED)
    failure->truncated = true;
  return 0;
}

} // namespace

void silence_hdf5() {
  static const bool silenced = [] {
    // HDF5 closes what is still open when the process exits, and crashes doing so on a file whose
    // close already failed (a full disk): every file here is closed by its Handle, so the exit
    // need not (H5dont_atexit must come before any other HDF5 call).
    H5dont_atexit();
    // HDF5 prints its error stack to stderr by default; we turn it into our own message instead.
    return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
  }();
  (void)silenced;
}

Hdf5Failure last_failure() {
  Hdf5Failure failure;
  // Walking upward starts at the most specific error, where HDF5 first detected it.
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_failure, &failure);
  failure.description = failure.description.empty() ? "HDF5 call failed" : plain_failure_text(failure.description);
  return failure;
}

std::string plain_failure_text(const std::string& description) {
  // A system call's failure (a full disk) comes as "file write failed: time = ..., filename =
  // ..., errno = 28, error message = '...', buf = 0x..., ...": its first words and the
  // system's own text say it.
  const std::size_t at = description.find(", errno = ");
  if (at == std::string::npos)
    return description;
  const int error = std::atoi(description.c_str() + at + 10);
  const std::size_t colon = description.find(':');
  if (error <= 0 || colon > at)
    return description;
  return description.substr(0, colon) + ": " + system_error_text(error);
}

Handle file_access(const std::string& where) {
  Handle fapl{H5Pcreate(H5P_FILE_ACCESS), H5Pclose};
  if (!fapl.valid() || H5Pset_file_locking(fapl.get(), 1, 1) < 0)
    throw store_error(where, "cannot set up HDF5: " + last_failure().description);
  return fapl;
}

hid_t new_string_type(H5T_cset_t charset, std::size_t bytes) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (type < 0)
    return type;
  if (H5Tset_size(type, bytes > 0 ? bytes : 1) < 0 || H5Tset_cset(type, charset) < 0 ||
      H5Tset_strpad(type, H5T_STR_NULLPAD) < 0) {
    H5Tclose(type);
    return H5I_INVALID_HID;
  }
  return type;
}

} // namespace ceiling::io
