// Writing the HDF5 result store in the schema of README.md ("Result store") and
// result_columns.hpp, atomically: to PATH.tmp, then replace_durably() (io/atomic_output.hpp).
#include "io/result_store.hpp"

#include "io/atomic_output.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_writer.hpp"
#include "io/result_columns.hpp"
#include "io/store_error.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>

namespace ceiling::io {
namespace {

void write_points(const Hdf5Writer& w, hid_t file, const std::vector<sweep::PointRecord>& points) {
  Handle group = w.group(file, "points");
  for (const auto& c : point_int_columns) {
    std::vector<long long> values;
    for (const auto& p : points)
      values.push_back(c.get(p));
    w.column(group.get(), c.name, values);
  }
  for (const auto& c : point_string_columns) {
    std::vector<std::string> values;
    for (const auto& p : points)
      values.push_back(c.get(p));
    w.column(group.get(), c.name, values);
  }
  for (const auto& c : point_columns) {
    std::vector<double> values;
    for (const auto& p : points)
      values.push_back(p.result.*c.member);
    w.column(group.get(), c.name, values, c.unit);
  }
}

void write_curve(const Hdf5Writer& w, hid_t curves, const std::string& name,
                 const sweep::CurveSpec& spec, const analysis::CurveAnalysis& a) {
  Handle group = w.group(curves, name);
  const hid_t g = group.get();
  w.attribute(g, "id", spec.id);
  w.attribute(g, "platform", spec.platform);
  w.attribute(g, "workload", spec.workload);
  w.attribute(g, "variant", spec.variant);
  w.attribute(g, "scaling", std::string(analysis::to_string(spec.scaling)));
  w.attribute(g, "n_unit", std::string("nodes"));
  w.attribute(g, "cost_per_node", spec.cost_per_node.value_or(std::nan("")));
  w.attribute(g, reference_attribute.name, a.*reference_attribute.member);
  for (const auto& attribute : measured_attributes)
    w.attribute(g, attribute.name, a.*attribute.member);
  for (const auto& attribute : fit_attributes)
    w.attribute(g, attribute.name, a.fit.*attribute.member);
  w.attribute(g, "amdahl_shaped", static_cast<long long>(a.fit.amdahl_shaped));
  w.attribute(g, "shape", std::string(analysis::to_string(a.fit.shape)));
  w.attribute(g, "dominant_term", a.dominant_term);
  for (const auto& c : metric_columns) {
    std::vector<double> values;
    for (const auto& m : a.points)
      values.push_back(m.*c.member);
    w.column(g, c.name, values, c.unit);
    if (c.member == seeds_column.after) {
      std::vector<long long> seeds;
      for (const auto& m : a.points)
        seeds.push_back(m.*seeds_column.member);
      w.column(g, seeds_column.name, seeds);
    }
  }
}

void write_contents(const Hdf5Writer& w, hid_t file, const ResultFile& results) {
  w.attribute(file, "format", std::string(format_name));
  w.attribute(file, "format_version", format_version);
  w.attribute(file, "tool_version", results.tool_version);
  w.attribute(file, "simgrid_version", results.simgrid_version);
  w.attribute(file, "command_line", results.command_line);
  w.attribute(file, "experiment_path", results.experiment_path);
  w.attribute(file, "title", results.title);
  w.attribute(file, "question", results.question);
  w.attribute(file, "digest", results.digest);
  w.attribute(file, "points_total", results.points_total);
  w.attribute(file, "cost_unit", results.cost_unit);
  w.attribute(file, "points_done", static_cast<long long>(results.points.size()));
  {
    Handle inputs = w.group(file, "inputs");
    std::vector<std::string> kind, path, text;
    for (const auto& input : results.inputs) {
      kind.push_back(input.kind);
      path.push_back(input.path);
      text.push_back(input.text);
    }
    w.column(inputs.get(), "kind", kind);
    w.column(inputs.get(), "path", path);
    w.column(inputs.get(), "text", text);
  }
  write_points(w, file, results.points);
  Handle curves = w.group(file, "curves");
  for (std::size_t i = 0; i < results.curves.size(); ++i)
    write_curve(w, curves.get(), curve_group_name(i), results.curves[i], results.analyses[i]);
}

} // namespace

void write_results(const std::string& output, const ResultFile& results) {
  silence_hdf5();
  const std::string path = output_target(output);
  if (results.analyses.size() != results.curves.size())
    throw store_error(path, "cannot write: " + std::to_string(results.curves.size()) +
                                " curves but " + std::to_string(results.analyses.size()) +
                                " analyses");
  const std::string temporary = path + ".tmp";
  try {
    Hdf5Writer writer{path};
    Handle fapl = file_access(path);
    errno = 0;
    Handle file{H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, writer.file_properties(), fapl.get()),
                H5Fclose};
    if (!file.valid())
      throw store_error(path,
                        "cannot create " + in_quotes(temporary) + ": " +
                            (errno != 0 ? system_error_text(errno) : last_failure().description));
    write_contents(writer, file.get(), results);
    if (!file.close())
      throw store_error(path,
                        "cannot write " + in_quotes(temporary) + ": " + last_failure().description);
  } catch (...) {
    remove_temporary(temporary);
    throw;
  }
  replace_durably(temporary, path);
}

} // namespace ceiling::io
