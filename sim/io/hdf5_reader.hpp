// Checked reads from one HDF5 file, internal to io/: groups, scalar attributes and 1-D
// datasets of the schema's types, every failure a StoreError naming what is missing, mistyped
// or inconsistent.
#pragma once

#include "io/hdf5_handle.hpp"
#include "io/store_error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ceiling::io {

/// Reads objects of the file at `path`, which names it in messages. `group` arguments are the
/// object's path for messages ("curves/curve_000"), "" for the root. A table's columns must
/// have equal row counts: each column read is checked against the first one of its group.
class Hdf5Reader {
public:
  explicit Hdf5Reader(const std::string& path);

  const std::string& path() const { return path_; }

  /// Throws the StoreError "PATH: error: MESSAGE".
  [[noreturn]] void fail(const std::string& message) const { throw store_error(path_, message); }

  /// `result` unless it is negative (an HDF5 failure), which throws naming `what`.
  template <class Id> Id check(Id result, const std::string& what) const {
    if (result < 0)
      fail("cannot read " + what + ": " + last_failure().description);
    return result;
  }

  /// "attribute "NAME"" or "attribute "NAME" of "GROUP"", as messages name it.
  static std::string attribute_name(const std::string& group, const char* name);

  /// Scalar attributes of a (fixed-length) string, an integer and a float type.
  std::string string_attribute(hid_t object, const std::string& group, const char* name) const;
  long long int_attribute(hid_t object, const std::string& group, const char* name) const;
  double double_attribute(hid_t object, const std::string& group, const char* name) const;

  /// The group `name` of `parent`; `path` is its path for messages.
  Handle open_group(hid_t parent, const std::string& path, const char* name) const;

  /// The 1-D dataset `name` of the group at `path`, of strings, integers or floats.
  std::vector<std::string> string_column(hid_t group, const std::string& path, const char* name);
  std::vector<long long> int_column(hid_t group, const std::string& path, const char* name);
  std::vector<double> double_column(hid_t group, const std::string& path, const char* name);

private:
  static std::string describe(hid_t type);
  void check_type(const std::string& what, hid_t type, H5T_class_t expected) const;
  Handle string_memory_type(hid_t object, hid_t (*get_type)(hid_t), std::size_t rows,
                            const std::string& what) const;
  Handle open_attribute(hid_t object, const std::string& group, const char* name,
                        H5T_class_t expected) const;
  Handle open_object(hid_t parent, const std::string& path, const char* name, H5I_type_t kind,
                     const char* noun) const;
  std::pair<Handle, std::size_t> open_column(hid_t group, const std::string& path, const char* name,
                                             H5T_class_t expected) const;
  void expect_rows(const std::string& path, const char* name, std::size_t rows);
  template <class T>
  std::vector<T> number_column(hid_t group, const std::string& path, const char* name);

  std::string path_;
  /// The file's size, what any string read must fit in (0 when unknown: no bound).
  std::uintmax_t file_bytes_ = 0;
  // The table expect_rows() is checking: its path, first column and row count.
  std::string table_;
  std::string first_column_;
  std::size_t table_rows_ = 0;
};

} // namespace ceiling::io
