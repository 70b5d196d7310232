// Checked writes of the store's objects into one HDF5 file, internal to io/: groups, scalar
// attributes and 1-D datasets of the schema's types, every failure a StoreError naming them.
#pragma once

#include "io/hdf5_handle.hpp"
#include "io/store_error.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ceiling::io {

/// Writes the objects of one file. Object times are not recorded, so the same contents
/// always give the same bytes; links and attributes keep their creation order, which h5py
/// iterates in, so a DataFrame of /points has the schema's column order. `path` names the
/// file in messages: "PATH: error: cannot write dataset "x": ...".
class Hdf5Writer {
public:
  explicit Hdf5Writer(const std::string& path);

  /// The file creation list, to pass to H5Fcreate: it makes the root group.
  hid_t file_properties() const { return file_properties_.get(); }

  /// `result` unless it is negative (an HDF5 failure), which throws naming `what`.
  template <class Id> Id check(Id result, const std::string& what) const {
    if (result < 0)
      throw store_error(path_, "cannot write " + what + ": " + last_failure().description);
    return result;
  }

  /// A new group `name` under `parent`, creation order tracked.
  Handle group(hid_t parent, const std::string& name) const;

  /// A scalar attribute: a UTF-8 fixed-length string (as long as its text), an int64 or a float64.
  void attribute(hid_t object, const char* name, const std::string& value) const;
  void attribute(hid_t object, const char* name, long long value) const;
  void attribute(hid_t object, const char* name, double value) const;

  /// A 1-D dataset of strings (UTF-8, fixed-length: as long as the longest, shorter ones padded
  /// with nulls) or int64; zero rows make an empty dataset.
  void column(hid_t group, const char* name, const std::vector<std::string>& values) const;
  void column(hid_t group, const char* name, const std::vector<long long>& values) const;
  /// A 1-D float64 dataset with its "unit" attribute ("s", "bytes", "1" for a ratio).
  void column(hid_t group, const char* name, const std::vector<double>& values,
              const char* unit) const;

private:
  void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                       const void* value) const;
  Handle write_column(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
                      std::size_t rows, const void* values) const;

  std::string path_;
  Handle file_properties_{H5Pcreate(H5P_FILE_CREATE), H5Pclose};
  Handle group_properties_{H5Pcreate(H5P_GROUP_CREATE), H5Pclose};
  Handle dataset_properties_{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
};

} // namespace ceiling::io
