// Reading the HDF5 result store back, in the schema of README.md ("Result store") and
// result_columns.hpp: anything else is refused with a message naming what is wrong.
#include "io/result_store.hpp"

#include "io/hdf5_handle.hpp"
#include "io/hdf5_reader.hpp"
#include "io/result_columns.hpp"
#include "io/store_error.hpp"
#include "support/utf8.hpp"
#include "sweep/point_codec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

namespace ceiling::io {
namespace {

/// `x` as stored, every digit that tells it apart: "0.29999999999999999".
std::string text(double x) {
  char number[32];
  std::snprintf(number, sizeof number, "%.17g", x);
  return number;
}

/// Scaling as the file spells it (analysis::to_string): "weak" or "strong".
std::optional<analysis::Scaling> scaling_from(std::string_view text) {
  for (const auto s : {analysis::Scaling::Weak, analysis::Scaling::Strong})
    if (analysis::to_string(s) == text)
      return s;
  return std::nullopt;
}

/// Reads one file, naming in its messages whatever is missing, mistyped or inconsistent.
class Reader {
public:
  explicit Reader(const std::string& path) : in_{path} {}

  ResultFile read() {
    Handle file = open_file();
    const hid_t root = file.get();
    check_format(root);
    ResultFile results;
    results.tool_version = in_.string_attribute(root, "", "tool_version");
    results.simgrid_version = in_.string_attribute(root, "", "simgrid_version");
    results.command_line = in_.string_attribute(root, "", "command_line");
    results.experiment_path = in_.string_attribute(root, "", "experiment_path");
    results.title = label_attribute(root, "", "title");
    results.question = in_.string_attribute(root, "", "question");
    results.digest = in_.string_attribute(root, "", "digest");
    results.points_total = in_.int_attribute(root, "", "points_total");
    results.cost_unit = label_attribute(root, "", "cost_unit");
    const long long points_done = in_.int_attribute(root, "", "points_done");
    results.inputs = read_inputs(root);
    read_curves(root, results);
    results.points = read_points(root, results.curves.size());
    if (points_done != static_cast<long long>(results.points.size()))
      in_.fail("\"points_done\" is " + std::to_string(points_done) + " but \"points\" has " +
               std::to_string(results.points.size()) + " rows");
    // Each point of the experiment's expansion once: its index in it.
    std::vector<std::pair<long long, std::size_t>> indices; // (index, row)
    for (std::size_t row = 0; row < results.points.size(); ++row) {
      const long long index = results.points[row].spec.index;
      if (index < 0 || index >= results.points_total)
        in_.fail("dataset \"points/index\": row " + std::to_string(row) + ": " + std::to_string(index) +
                 " is not a point of the experiment's " + std::to_string(results.points_total) + " (\"points_total\")");
      indices.emplace_back(index, row);
    }
    std::sort(indices.begin(), indices.end());
    const auto same = [](const auto& a, const auto& b) { return a.first == b.first; };
    if (const auto twice = std::adjacent_find(indices.begin(), indices.end(), same); twice != indices.end())
      in_.fail("dataset \"points/index\": rows " + std::to_string(twice->second) + " and " +
               std::to_string(std::next(twice)->second) + " both hold point " + std::to_string(twice->first));
    check_text(results);
    check_analyses(results);
    return results;
  }

private:
  Handle open_file() const {
    const std::string& path = in_.path();
    // POSIX first: it says plainly what HDF5 buries in its error stack.
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0)
      in_.fail("cannot open: " +
               (errno == ENOENT ? std::string("no such file") : system_error_text(errno)));
    if (S_ISDIR(status.st_mode))
      in_.fail("cannot open: is a directory");
    if (!S_ISREG(status.st_mode)) // a FIFO would block the open below
      in_.fail("cannot open: not a regular file (a FIFO or a device)");
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
      in_.fail("cannot open: " + system_error_text(errno));
    ::close(fd);
    if (H5Fis_hdf5(path.c_str()) <= 0)
      in_.fail("not an HDF5 file");
    Handle fapl = file_access(path);
    Handle file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose};
    if (!file.valid()) {
      const Hdf5Failure failure = last_failure();
      if (failure.truncated)
        in_.fail(truncation_message(failure.description));
      in_.fail("cannot open as HDF5: " + failure.description);
    }
    return file;
  }

  /// "truncated file: 2048 of 4096 bytes", the sizes found and recorded, when HDF5 told them.
  std::string truncation_message(const std::string& description) const {
    std::error_code error;
    const auto size = std::filesystem::file_size(in_.path(), error);
    const auto at = description.find("stored_eof = ");
    if (error || at == std::string::npos)
      return "truncated file";
    const unsigned long long stored = std::strtoull(description.c_str() + at + 13, nullptr, 10);
    return "truncated file: " + std::to_string(size) + " of " + std::to_string(stored) + " bytes";
  }

  void check_format(hid_t root) const {
    const htri_t has_format = in_.check(H5Aexists(root, "format"), "attribute \"format\"");
    if (has_format == 0)
      in_.fail("not a ceiling result file: no \"format\" attribute");
    Handle attribute{in_.check(H5Aopen(root, "format", H5P_DEFAULT), "attribute \"format\""),
                     H5Aclose};
    Handle type{in_.check(H5Aget_type(attribute.get()), "attribute \"format\""), H5Tclose};
    if (H5Tget_class(type.get()) != H5T_STRING)
      in_.fail("not a ceiling result file: \"format\" is not a string");
    // The version before the text: version 2 stored variable-length strings, which this build
    // does not read (a damaged one crashed HDF5).
    if (in_.check(H5Aexists(root, "format_version"), "attribute \"format_version\"") == 0)
      in_.fail("not a ceiling result file: no \"format_version\" attribute");
    const long long version = in_.int_attribute(root, "", "format_version");
    if (version != format_version)
      in_.fail("format_version " + std::to_string(version) +
               " is not supported (this build reads " + std::to_string(format_version) +
               "; rerun the sweep with this build)");
    const std::string format = in_.string_attribute(root, "", "format");
    if (format != format_name)
      in_.fail("not a ceiling result file: \"format\" is " + in_quotes(format) + ", expected " +
               in_quotes(format_name));
  }

  /// Each curve is the analysis of its finished points (analyse_curves): a number that differs
  /// from what the points give was changed after the sweep wrote it, and would be reported,
  /// drawn and exported as if the sweep had found it.
  void check_analyses(const ResultFile& results) const {
    const std::vector<analysis::CurveAnalysis> derived =
        curve_analyses(results.curves, results.points);
    // (within rounding: a build whose arithmetic differs in the last bits reads the same file)
    const auto same = [](double a, double b) {
      return (std::isnan(a) && std::isnan(b)) || a == b ||
             (std::isfinite(a) && std::isfinite(b) &&
              std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-12);
    };
    const auto changed = [&](const std::string& what, const std::string& stored,
                             const std::string& derived_text) {
      in_.fail(
          what + " is " + stored + ", but the curve's finished points give " + derived_text +
          ": the file was changed after the sweep wrote it, or written by a build whose analysis "
          "differs from this one's (it names " +
          in_quotes(results.tool_version) + "): rerun the sweep with this build");
    };
    for (std::size_t c = 0; c < results.curves.size(); ++c) {
      const analysis::CurveAnalysis& stored = results.analyses[c];
      const analysis::CurveAnalysis& want = derived[c];
      const std::string path = "curves/" + curve_group_name(c);
      if (stored.points.size() != want.points.size())
        changed("group " + in_quotes(path) + "'s row count", std::to_string(stored.points.size()),
                std::to_string(want.points.size()) + " node counts");
      for (std::size_t row = 0; row < stored.points.size(); ++row) {
        const auto at = [&](const char* name) {
          return "dataset " + in_quotes(path + "/" + name) + ": row " + std::to_string(row);
        };
        for (const auto& column : metric_columns)
          if (!same(stored.points[row].*column.member, want.points[row].*column.member))
            changed(at(column.name), text(stored.points[row].*column.member),
                    text(want.points[row].*column.member));
        if (stored.points[row].*seeds_column.member != want.points[row].*seeds_column.member)
          changed(at(seeds_column.name), std::to_string(stored.points[row].*seeds_column.member),
                  std::to_string(want.points[row].*seeds_column.member));
      }
      const auto attribute = [&](const char* name, double stored_value, double derived_value) {
        if (!same(stored_value, derived_value))
          changed(Hdf5Reader::attribute_name(path, name), text(stored_value), text(derived_value));
      };
      attribute(reference_attribute.name, stored.*reference_attribute.member,
                want.*reference_attribute.member);
      for (const auto& a : measured_attributes)
        attribute(a.name, stored.*a.member, want.*a.member);
      for (const auto& a : fit_attributes)
        attribute(a.name, stored.fit.*a.member, want.fit.*a.member);
      if (stored.fit.amdahl_shaped != want.fit.amdahl_shaped)
        changed(Hdf5Reader::attribute_name(path, "amdahl_shaped"),
                stored.fit.amdahl_shaped ? "1" : "0", want.fit.amdahl_shaped ? "1" : "0");
      if (stored.dominant_term != want.dominant_term)
        changed(Hdf5Reader::attribute_name(path, "dominant_term"), in_quotes(stored.dominant_term),
                in_quotes(want.dominant_term));
      if (stored.fit.shape != want.fit.shape)
        changed(Hdf5Reader::attribute_name(path, "shape"),
                in_quotes(std::string(analysis::to_string(stored.fit.shape))),
                in_quotes(std::string(analysis::to_string(want.fit.shape))));
    }
  }

  /// The columns' strings are UTF-8, as their type says (checked once every column is read, so
  /// that a column of a damaged type is named first: tests/fuzz/regressions).
  void check_text(const ResultFile& results) const {
    const auto utf8 = [&](const std::string& text, const char* column, std::size_t row) {
      if (!support::is_utf8(text))
        in_.fail("dataset " + in_quotes(column) + ": row " + std::to_string(row) +
                 ": not UTF-8 text");
    };
    for (std::size_t row = 0; row < results.inputs.size(); ++row) {
      utf8(results.inputs[row].kind, "inputs/kind", row);
      utf8(results.inputs[row].path, "inputs/path", row);
      utf8(results.inputs[row].text, "inputs/text", row);
    }
    // (not a point's error or provenance: free text from its process, which builds before this
    // one stored unchecked and the plots read leniently; the sweep now repairs it)
    for (std::size_t row = 0; row < results.points.size(); ++row)
      for (const std::string& argument : results.points[row].spec.run_args)
        utf8(argument, "points/run_arguments", row);
  }

  /// A string attribute that labels outputs (a title, a curve's names, a unit), as the
  /// experiment's reader has it (support::label_problem): no control character, which would
  /// break a table row, a legend or a terminal.
  std::string label_attribute(hid_t object, const std::string& group, const char* name) const {
    std::string text = in_.string_attribute(object, group, name);
    if (const auto problem = support::label_problem(text, std::numeric_limits<std::size_t>::max()))
      in_.fail(Hdf5Reader::attribute_name(group, name) + ": the text " + *problem);
    return text;
  }

  /// Fails with "dataset "COLUMN": row ROW: PROBLEM" unless `problem` is empty.
  void expect_stored(const std::string& problem, const std::string& column, std::size_t row) const {
    if (!problem.empty())
      in_.fail("dataset " + in_quotes(column) + ": row " + std::to_string(row) + ": " + problem);
  }

  std::vector<InputFile> read_inputs(hid_t root) {
    Handle group = in_.open_group(root, "inputs", "inputs");
    const auto kind = in_.string_column(group.get(), "inputs", "kind");
    const auto path = in_.string_column(group.get(), "inputs", "path");
    const auto text = in_.string_column(group.get(), "inputs", "text");
    std::vector<InputFile> inputs;
    for (std::size_t i = 0; i < kind.size(); ++i)
      inputs.push_back({.kind = kind[i], .path = path[i], .text = text[i]});
    return inputs;
  }

  void read_curves(hid_t root, ResultFile& results) {
    Handle curves = in_.open_group(root, "curves", "curves");
    H5G_info_t info{};
    in_.check(H5Gget_info(curves.get(), &info), "group \"curves\"");
    // curve_000 ... curve_{n-1}, one per link: a gap or a foreign name shows as a missing one.
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const std::string name = curve_group_name(i);
      const std::string path = "curves/" + name;
      Handle group = in_.open_group(curves.get(), path, name.c_str());
      const hid_t g = group.get();
      sweep::CurveSpec spec{.id = label_attribute(g, path, "id"),
                            .platform = label_attribute(g, path, "platform"),
                            .workload = label_attribute(g, path, "workload"),
                            .variant = label_attribute(g, path, "variant")};
      if (const double cost = in_.double_attribute(g, path, "cost_per_node"); !std::isnan(cost))
        spec.cost_per_node = cost;
      const std::string scaling = in_.string_attribute(g, path, "scaling");
      const auto parsed = scaling_from(scaling);
      if (!parsed)
        in_.fail(Hdf5Reader::attribute_name(path, "scaling") +
                 ": expected \"weak\" or \"strong\", got " + in_quotes(scaling));
      spec.scaling = *parsed;
      in_.string_attribute(g, path, "n_unit");
      analysis::CurveAnalysis a{.scaling = *parsed};
      a.*reference_attribute.member = in_.double_attribute(g, path, reference_attribute.name);
      for (const auto& attribute : measured_attributes)
        a.*attribute.member = in_.double_attribute(g, path, attribute.name);
      for (const auto& attribute : fit_attributes)
        a.fit.*attribute.member = in_.double_attribute(g, path, attribute.name);
      const long long shaped = in_.int_attribute(g, path, "amdahl_shaped");
      if (shaped != 0 && shaped != 1)
        in_.fail(Hdf5Reader::attribute_name(path, "amdahl_shaped") + ": expected 0 or 1, got " +
                 std::to_string(shaped));
      a.fit.amdahl_shaped = shaped == 1;
      a.dominant_term = in_.string_attribute(g, path, "dominant_term");
      for (const auto& c : metric_columns) {
        const auto values = in_.double_column(g, path, c.name);
        a.points.resize(values.size()); // the same for every column: expect_rows() checks it
        for (std::size_t row = 0; row < values.size(); ++row)
          a.points[row].*c.member = values[row];
        if (c.member == seeds_column.after) {
          const auto seeds = in_.int_column(g, path, seeds_column.name);
          const std::string column = path + "/" + seeds_column.name;
          for (std::size_t row = 0; row < seeds.size(); ++row)
            expect_stored(store_int(a.points[row].*seeds_column.member, seeds[row]), column, row);
        }
      }
      // What export and the plots read: node counts of 1 or more, ascending; positive times,
      // throughputs, speedups and efficiencies.
      for (std::size_t row = 0; row < a.points.size(); ++row) {
        const analysis::PointMetrics& m = a.points[row];
        if (!(m.n >= 1) || (row > 0 && !(m.n > a.points[row - 1].n)))
          expect_stored("n is " + text(m.n) + ": expected node counts of 1 or more, ascending", path + "/n", row);
        for (const auto& [name, value] : {std::pair<const char*, double>{"iteration_time_s", m.iteration_time_s},
                                          {"throughput_samples_per_s", m.throughput_samples_per_s},
                                          {"speedup", m.speedup},
                                          {"efficiency", m.efficiency}})
          if (!(std::isfinite(value) && value > 0))
            expect_stored("expected a positive number, got " + text(value), path + "/" + name, row);
      }
      // (the shape is checked against the points with the other numbers: check_analyses)
      const std::string shape = in_.string_attribute(g, path, "shape");
      const auto parsed_shape = analysis::curve_shape_from(shape);
      if (!parsed_shape) {
        const std::size_t count = std::size(analysis::curve_shapes);
        std::string names;
        for (std::size_t i = 0; i < count; ++i)
          names += (i == 0           ? ""
                    : i + 1 == count ? " or "
                                     : ", ") +
                   in_quotes(std::string(analysis::to_string(analysis::curve_shapes[i])));
        in_.fail(Hdf5Reader::attribute_name(path, "shape") + ": expected " + names + ", got " +
                 in_quotes(shape));
      }
      a.fit.shape = *parsed_shape;
      results.curves.push_back(spec);
      results.analyses.push_back(a);
    }
  }

  std::vector<sweep::PointRecord> read_points(hid_t root, std::size_t curve_count) {
    Handle group = in_.open_group(root, "points", "points");
    const hid_t g = group.get();
    // Every integer and string column first, so that a missing one is named before a bad row.
    std::vector<std::vector<long long>> ints;
    for (const auto& c : point_int_columns)
      ints.push_back(in_.int_column(g, "points", c.name));
    std::vector<std::vector<std::string>> strings;
    for (const auto& c : point_string_columns)
      strings.push_back(in_.string_column(g, "points", c.name));
    std::vector<sweep::PointRecord> points(ints.front().size());
    for (std::size_t row = 0; row < points.size(); ++row) {
      auto& p = points[row];
      for (std::size_t i = 0; i < std::size(point_int_columns); ++i)
        expect_stored(point_int_columns[i].set(p, ints[i][row]),
                      std::string("points/") + point_int_columns[i].name, row);
      if (p.spec.nodes < 1) // (as the plots and the report refuse it: store.py)
        expect_stored(std::to_string(p.spec.nodes) + ", expected 1 or more", "points/nodes", row);
      if (p.spec.curve < 0 || static_cast<std::size_t>(p.spec.curve) >= curve_count)
        in_.fail("dataset \"points/curve\": row " + std::to_string(row) + ": " +
                 std::to_string(p.spec.curve) + " is not a curve (the file has " +
                 std::to_string(curve_count) + ")");
      for (std::size_t i = 0; i < std::size(point_string_columns); ++i)
        if (point_string_columns[i].set != nullptr) // a derived column is dropped
          expect_stored(point_string_columns[i].set(p, strings[i][row]),
                        std::string("points/") + point_string_columns[i].name, row);
    }
    for (const auto& c : point_columns) {
      const auto values = in_.double_column(g, "points", c.name);
      for (std::size_t row = 0; row < values.size(); ++row)
        points[row].result.*c.member = values[row];
    }
    for (std::size_t row = 0; row < points.size(); ++row)
      if (const auto problem = sweep::result_problem(points[row].result))
        in_.fail("group \"points\": row " + std::to_string(row) + ": " + *problem);
    return points;
  }

  Hdf5Reader in_;
};

} // namespace

ResultFile read_results(const std::string& path) {
  silence_hdf5();
  return Reader{path}.read();
}

} // namespace ceiling::io
