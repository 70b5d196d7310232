// Reading HDF5 objects with a message for every way they can be wrong.
#include "io/hdf5_reader.hpp"

#include "support/utf8.hpp"

#include <algorithm>
#include <filesystem>
#include <type_traits>

namespace ceiling::io {

Hdf5Reader::Hdf5Reader(const std::string& path) : path_{path} {
  std::error_code unknown;
  file_bytes_ = std::filesystem::file_size(path_, unknown);
  if (unknown)
    file_bytes_ = 0;
}

std::string Hdf5Reader::attribute_name(const std::string& group, const char* name) {
  return "attribute " + in_quotes(name) + (group.empty() ? "" : " of " + in_quotes(group));
}

// ---- types ----

std::string Hdf5Reader::describe(hid_t type) {
  const auto bits = [&] { return std::to_string(8 * H5Tget_size(type)); };
  switch (H5Tget_class(type)) {
  case H5T_INTEGER:
    return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits();
  case H5T_FLOAT:
    return "float" + bits();
  case H5T_STRING:
    return H5Tis_variable_str(type) > 0 ? "a variable-length string" : "a string";
  default:
    return "another type";
  }
}

void Hdf5Reader::check_type(const std::string& what, hid_t type, H5T_class_t expected) const {
  // Numbers are int64 and float64, as written: HDF5 sizes its conversion buffers by the file's
  // type, so a damaged size (the fuzzer's float of 4 GB) must be refused before any read.
  const bool ok = H5Tget_class(type) == expected &&
                  (expected == H5T_STRING    ? H5Tis_variable_str(type) == 0
                   : expected == H5T_INTEGER ? H5Tget_size(type) == 8 && H5Tget_sign(type) == H5T_SGN_2
                                             : H5Tget_size(type) == 8);
  if (!ok)
    fail(what + ": expected " +
         (expected == H5T_STRING    ? "a fixed-length string"
          : expected == H5T_INTEGER ? "int64"
                                    : "float64") +
         ", found " + describe(type));
}

/// The memory type to read the fixed-length strings of `object` with, `rows` of them, after
/// checking that they fit in the file: a damaged size must not become a huge allocation.
Handle Hdf5Reader::string_memory_type(hid_t object, hid_t (*get_type)(hid_t), std::size_t rows,
                                      const std::string& what) const {
  Handle file_type{check(get_type(object), what), H5Tclose};
  const H5T_cset_t charset = check(H5Tget_cset(file_type.get()), what);
  const std::size_t width = H5Tget_size(file_type.get());
  if (width == 0 || (file_bytes_ > 0 && rows > file_bytes_ / width))
    fail(what + ": " + std::to_string(rows) + " strings of " + std::to_string(width) +
         " bytes, more than the file holds");
  return Handle{check(new_string_type(charset, width), what), H5Tclose};
}

namespace {

/// The text of a null-padded cell of `width` bytes.
std::string cell_text(const char* cell, std::size_t width) {
  return std::string(cell, std::find(cell, cell + width, '\0'));
}

} // namespace

// ---- attributes ----

/// The open attribute, after checking that it exists, is scalar and of `expected` class.
Handle Hdf5Reader::open_attribute(hid_t object, const std::string& group, const char* name,
                                  H5T_class_t expected) const {
  const std::string what = attribute_name(group, name);
  if (check(H5Aexists(object, name), what) == 0)
    fail("missing " + what);
  Handle attribute{check(H5Aopen(object, name, H5P_DEFAULT), what), H5Aclose};
  Handle type{check(H5Aget_type(attribute.get()), what), H5Tclose};
  check_type(what, type.get(), expected);
  Handle space{check(H5Aget_space(attribute.get()), what), H5Sclose};
  if (check(H5Sget_simple_extent_type(space.get()), what) != H5S_SCALAR)
    fail(what + ": expected a scalar, found " +
         std::to_string(H5Sget_simple_extent_npoints(space.get())) + " elements");
  return attribute;
}

std::string Hdf5Reader::string_attribute(hid_t object, const std::string& group,
                                         const char* name) const {
  const std::string what = attribute_name(group, name);
  Handle attribute = open_attribute(object, group, name, H5T_STRING);
  Handle memory_type = string_memory_type(attribute.get(), H5Aget_type, 1, what);
  std::vector<char> cell(H5Tget_size(memory_type.get()));
  check(H5Aread(attribute.get(), memory_type.get(), cell.data()), what);
  std::string text = cell_text(cell.data(), cell.size());
  if (!support::is_utf8(text)) // (the store's strings are UTF-8, as its type says)
    fail(what + ": not UTF-8 text");
  return text;
}

long long Hdf5Reader::int_attribute(hid_t object, const std::string& group,
                                    const char* name) const {
  Handle attribute = open_attribute(object, group, name, H5T_INTEGER);
  long long value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_LLONG, &value), attribute_name(group, name));
  return value;
}

double Hdf5Reader::double_attribute(hid_t object, const std::string& group,
                                    const char* name) const {
  Handle attribute = open_attribute(object, group, name, H5T_FLOAT);
  double value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value), attribute_name(group, name));
  return value;
}

// ---- groups and columns ----

Handle Hdf5Reader::open_object(hid_t parent, const std::string& path, const char* name,
                               H5I_type_t kind, const char* noun) const {
  const std::string what = std::string(noun) + " " + in_quotes(path);
  if (check(H5Lexists(parent, name, H5P_DEFAULT), what) == 0)
    fail("missing " + what);
  Handle object{check(H5Oopen(parent, name, H5P_DEFAULT), what), H5Oclose};
  if (H5Iget_type(object.get()) != kind)
    fail(in_quotes(path) + " is not a " + noun);
  return object;
}

Handle Hdf5Reader::open_group(hid_t parent, const std::string& path, const char* name) const {
  return open_object(parent, path, name, H5I_GROUP, "group");
}

/// The open dataset and its row count, after checking it is 1-D and of `expected` class.
std::pair<Handle, std::size_t> Hdf5Reader::open_column(hid_t group, const std::string& path,
                                                       const char* name,
                                                       H5T_class_t expected) const {
  const std::string full = path + "/" + name;
  const std::string what = "dataset " + in_quotes(full);
  Handle dataset = open_object(group, full, name, H5I_DATASET, "dataset");
  Handle type{check(H5Dget_type(dataset.get()), what), H5Tclose};
  check_type(what, type.get(), expected);
  Handle space{check(H5Dget_space(dataset.get()), what), H5Sclose};
  const int rank = check(H5Sget_simple_extent_ndims(space.get()), what);
  if (rank != 1)
    fail(what + ": expected 1-D, found " + (rank == 0 ? "a scalar" : std::to_string(rank) + "-D"));
  hsize_t rows = 0;
  check(H5Sget_simple_extent_dims(space.get(), &rows, nullptr), what);
  return {std::move(dataset), static_cast<std::size_t>(rows)};
}

/// Checks that every column of `path` has as many rows as the first one read.
void Hdf5Reader::expect_rows(const std::string& path, const char* name, std::size_t rows) {
  if (table_ != path) {
    table_ = path;
    first_column_ = name;
    table_rows_ = rows;
  } else if (rows != table_rows_) {
    fail(path + ": column " + in_quotes(name) + " has " + std::to_string(rows) + " rows but " +
         in_quotes(first_column_) + " has " + std::to_string(table_rows_));
  }
}

std::vector<std::string> Hdf5Reader::string_column(hid_t group, const std::string& path,
                                                   const char* name) {
  auto [dataset, rows] = open_column(group, path, name, H5T_STRING);
  expect_rows(path, name, rows);
  const std::string what = "dataset " + in_quotes(path + "/" + name);
  std::vector<std::string> values;
  if (rows == 0)
    return values;
  Handle memory_type = string_memory_type(dataset.get(), H5Dget_type, rows, what);
  const std::size_t width = H5Tget_size(memory_type.get());
  std::vector<char> cells(rows * width);
  check(H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, cells.data()),
        what);
  for (std::size_t row = 0; row < rows; ++row)
    values.push_back(cell_text(cells.data() + row * width, width));
  return values;
}

template <class T>
std::vector<T> Hdf5Reader::number_column(hid_t group, const std::string& path, const char* name) {
  constexpr bool integer = std::is_integral_v<T>;
  auto [dataset, rows] = open_column(group, path, name, integer ? H5T_INTEGER : H5T_FLOAT);
  expect_rows(path, name, rows);
  {
    // Stores are written contiguous and uncompressed: a column holds its rows in the file. A
    // damaged row count must not become a huge allocation.
    const std::string what = "dataset " + in_quotes(path + "/" + name);
    Handle type{check(H5Dget_type(dataset.get()), what), H5Tclose};
    const std::size_t width = H5Tget_size(type.get());
    if (width == 0 || (file_bytes_ > 0 && rows > file_bytes_ / width))
      fail(what + ": " + std::to_string(rows) + " values of " + std::to_string(width) + " bytes, more than the file holds");
  }
  std::vector<T> values(rows);
  if (rows > 0)
    check(H5Dread(dataset.get(), integer ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                  H5P_DEFAULT, values.data()),
          "dataset " + in_quotes(path + "/" + name));
  return values;
}

std::vector<long long> Hdf5Reader::int_column(hid_t group, const std::string& path,
                                              const char* name) {
  return number_column<long long>(group, path, name);
}

std::vector<double> Hdf5Reader::double_column(hid_t group, const std::string& path,
                                              const char* name) {
  return number_column<double>(group, path, name);
}

} // namespace ceiling::io
