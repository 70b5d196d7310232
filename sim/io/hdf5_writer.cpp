// Writing HDF5 objects deterministically: no times, creation order kept, every call checked.
#include "io/hdf5_writer.hpp"

#include <algorithm>

namespace ceiling::io {

Hdf5Writer::Hdf5Writer(const std::string& path) : path_{path} {
  constexpr unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
  // The file creation list makes the root group, so it takes the group settings too.
  for (const hid_t group : {file_properties_.get(), group_properties_.get()}) {
    check(group, "group properties");
    check(H5Pset_obj_track_times(group, 0), "group properties");
    check(H5Pset_link_creation_order(group, order), "group properties");
    check(H5Pset_attr_creation_order(group, order), "group properties");
  }
  check(dataset_properties_.get(), "dataset properties");
  check(H5Pset_obj_track_times(dataset_properties_.get(), 0), "dataset properties");
}

Handle Hdf5Writer::group(hid_t parent, const std::string& name) const {
  Handle group{H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, group_properties_.get(), H5P_DEFAULT),
               H5Gclose};
  check(group.get(), "group " + in_quotes(name));
  return group;
}

void Hdf5Writer::attribute(hid_t object, const char* name, const std::string& value) const {
  Handle type{check(new_string_type(H5T_CSET_UTF8, value.size()), "the string type"), H5Tclose};
  write_attribute(object, name, type.get(), type.get(), value.c_str());
}

void Hdf5Writer::attribute(hid_t object, const char* name, long long value) const {
  write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
}

void Hdf5Writer::attribute(hid_t object, const char* name, double value) const {
  write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void Hdf5Writer::column(hid_t group, const char* name,
                        const std::vector<std::string>& values) const {
  std::size_t width = 1;
  for (const auto& value : values)
    width = std::max(width, value.size());
  std::vector<char> cells(values.size() * width, '\0');
  for (std::size_t row = 0; row < values.size(); ++row)
    std::copy(values[row].begin(), values[row].end(), cells.begin() + row * width);
  Handle type{check(new_string_type(H5T_CSET_UTF8, width), "the string type"), H5Tclose};
  write_column(group, name, type.get(), type.get(), values.size(), cells.data());
}

void Hdf5Writer::column(hid_t group, const char* name, const std::vector<long long>& values) const {
  write_column(group, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, values.size(), values.data());
}

void Hdf5Writer::column(hid_t group, const char* name, const std::vector<double>& values,
                        const char* unit) const {
  Handle dataset =
      write_column(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values.size(), values.data());
  attribute(dataset.get(), "unit", std::string(unit));
}

void Hdf5Writer::write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                                 const void* value) const {
  const std::string what = "attribute " + in_quotes(name);
  Handle space{check(H5Screate(H5S_SCALAR), what), H5Sclose};
  Handle attribute{
      check(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), what),
      H5Aclose};
  check(H5Awrite(attribute.get(), memory_type, value), what);
}

Handle Hdf5Writer::write_column(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
                                std::size_t rows, const void* values) const {
  const std::string what = "dataset " + in_quotes(name);
  const hsize_t dims[1] = {rows};
  Handle space{check(H5Screate_simple(1, dims, nullptr), what), H5Sclose};
  Handle dataset{check(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT,
                                  dataset_properties_.get(), H5P_DEFAULT),
                       what),
                 H5Dclose};
  // An empty column (no points yet) is a valid zero-length dataset with nothing to write.
  if (rows > 0)
    check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), what);
  return dataset;
}

} // namespace ceiling::io
