// The HDF5 result store over HDF5's C API, in the schema of README.md ("Result store"): every
// HDF5 call is checked, every handle closed by Handle, every message built by store_error().
#include "io/result_store.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace ceiling::io {
namespace {

constexpr const char* format_name = "ceiling-results";
constexpr long long format_version = 1;

/// The one funnel of messages: "PATH: error: MESSAGE".
StoreError store_error(const std::string& path, const std::string& message) {
  return StoreError(path + ": error: " + message);
}

std::string in_quotes(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

/// strerror() in the style of our messages: "no such file or directory".
std::string system_error_text(int error) {
  std::string text = std::strerror(error);
  if (!text.empty())
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

void silence_hdf5() {
  // HDF5 prints its error stack to stderr by default; we turn it into our own message instead.
  static const bool silenced = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
  (void)silenced;
}

/// What HDF5's error stack says about the last failed call: the innermost description, and
/// whether the file was shorter than recorded.
struct Hdf5Failure {
  std::string description;
  bool truncated = false;
};

herr_t collect_failure(unsigned n, const H5E_error2_t* error, void* data) {
  auto* failure = static_cast<Hdf5Failure*>(data);
  if (n == 0 && error->desc != nullptr)
    failure->description = error->desc;
  if (error->min_num == H5E_TRUNCATED)
    failure->truncated = true;
  return 0;
}

Hdf5Failure last_failure() {
  Hdf5Failure failure;
  // Walking upward starts at the most specific error, where HDF5 first detected it.
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_failure, &failure);
  if (failure.description.empty())
    failure.description = "HDF5 call failed";
  return failure;
}

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

/// A file access list that tolerates file systems without locks (NFS, Lustre) instead of
/// failing on them; `where` names the file in messages.
Handle file_access(const std::string& where) {
  Handle fapl{H5Pcreate(H5P_FILE_ACCESS), H5Pclose};
  if (!fapl.valid() || H5Pset_file_locking(fapl.get(), 1, 1) < 0)
    throw store_error(where, "cannot set up HDF5: " + last_failure().description);
  return fapl;
}

/// A variable-length string type in `charset`, as the schema stores every string.
hid_t new_string_type(H5T_cset_t charset) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (type < 0)
    return type;
  if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, charset) < 0) {
    H5Tclose(type);
    return H5I_INVALID_HID;
  }
  return type;
}

/// Scaling as the file spells it (analysis::to_string): "weak" or "strong".
std::optional<analysis::Scaling> scaling_from(std::string_view text) {
  for (const auto s : {analysis::Scaling::Weak, analysis::Scaling::Strong})
    if (analysis::to_string(s) == text)
      return s;
  return std::nullopt;
}

/// One argument as a POSIX shell reads it back: bare when made of safe characters only,
/// otherwise single-quoted with each ' written '\''.
std::string shell_quoted(const std::string& argument) {
  // ASCII only, whatever the locale: a UTF-8 byte is quoted like any other special one.
  const auto safe = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./=:,+-@%").find(c) != std::string_view::npos;
  };
  bool bare = !argument.empty();
  for (const char c : argument)
    bare = bare && safe(c);
  if (bare)
    return argument;
  std::string out = "'";
  for (const char c : argument)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_of(const std::vector<std::string>& run_args) {
  std::string command = "ceiling run";
  for (const auto& argument : run_args)
    command += " " + shell_quoted(argument);
  return command;
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? "" : "\n") + lines[i];
  return out;
}

/// The inverse of joined_lines(); "" is no argument at all.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  if (text.empty())
    return lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  lines.push_back(text.substr(start));
  return lines;
}

template <class Record> struct DoubleColumn {
  const char* name;
  const char* unit;
  double Record::*member;
};

template <class Record> struct DoubleAttribute {
  const char* name;
  double Record::*member;
};

using analysis::AmdahlFit;
using analysis::CurveAnalysis;
using analysis::PointMetrics;
using sweep::PointResult;

constexpr DoubleColumn<PointResult> point_columns[] = {
    {"iteration_time_s", "s", &PointResult::iteration_time_s},
    {"warmup_time_s", "s", &PointResult::warmup_time_s},
    {"iteration_time_min_s", "s", &PointResult::iteration_time_min_s},
    {"iteration_time_max_s", "s", &PointResult::iteration_time_max_s},
    {"samples_per_iteration", "samples", &PointResult::samples_per_iteration},
    {"flop_per_iteration", "FLOP", &PointResult::flop_per_iteration},
    {"peak_flop_per_s", "FLOP/s", &PointResult::peak_flop_per_s},
    {"compute_s", "s", &PointResult::compute_s},
    {"copy_s", "s", &PointResult::copy_s},
    {"communication_s", "s", &PointResult::communication_s},
    {"synchronisation_s", "s", &PointResult::synchronisation_s},
    {"bytes_pcie", "bytes", &PointResult::bytes_pcie},
    {"bytes_nic", "bytes", &PointResult::bytes_nic},
    {"bytes_fabric", "bytes", &PointResult::bytes_fabric},
    {"bytes_gpu_link", "bytes", &PointResult::bytes_gpu_link},
    {"bytes_host_memory", "bytes", &PointResult::bytes_host_memory},
};

// `seeds`, the one integer column of a curve, follows `n`; it is handled apart.
constexpr DoubleColumn<PointMetrics> metric_columns[] = {
    {"n", "nodes", &PointMetrics::n},
    {"iteration_time_s", "s", &PointMetrics::iteration_time_s},
    {"iteration_time_min_s", "s", &PointMetrics::iteration_time_min_s},
    {"iteration_time_max_s", "s", &PointMetrics::iteration_time_max_s},
    {"throughput_samples_per_s", "samples/s", &PointMetrics::throughput_samples_per_s},
    {"speedup", "1", &PointMetrics::speedup},
    {"efficiency", "1", &PointMetrics::efficiency},
    {"alpha_eff", "1", &PointMetrics::alpha_eff},
    {"payload_flop_per_s", "FLOP/s", &PointMetrics::payload_flop_per_s},
    {"payload_efficiency", "1", &PointMetrics::payload_efficiency},
    {"compute_s", "s", &PointMetrics::compute_s},
    {"copy_s", "s", &PointMetrics::copy_s},
    {"communication_s", "s", &PointMetrics::communication_s},
    {"synchronisation_s", "s", &PointMetrics::synchronisation_s},
    {"nonpar_communication", "1", &PointMetrics::nonpar_communication},
    {"nonpar_copy", "1", &PointMetrics::nonpar_copy},
    {"nonpar_synchronisation", "1", &PointMetrics::nonpar_synchronisation},
    {"nonpar_compute_imbalance", "1", &PointMetrics::nonpar_compute_imbalance},
};

constexpr DoubleAttribute<CurveAnalysis> analysis_attributes[] = {
    {"n_reference", &CurveAnalysis::n_reference},
    {"n_half_efficiency_measured", &CurveAnalysis::n_half_efficiency_measured},
    {"n_doubling_below_10pct_measured", &CurveAnalysis::n_doubling_below_10pct_measured},
    {"alpha_eff_at_largest_n", &CurveAnalysis::alpha_eff_at_largest_n},
};

constexpr DoubleAttribute<AmdahlFit> fit_attributes[] = {
    {"amdahl_alpha", &AmdahlFit::alpha},
    {"ceiling_speedup", &AmdahlFit::ceiling_speedup},
    {"n_half_efficiency_fit", &AmdahlFit::n_half_efficiency},
    {"n_doubling_below_10pct_fit", &AmdahlFit::n_doubling_below_10pct},
    {"fit_residual", &AmdahlFit::residual},
};

std::string curve_group_name(std::size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "curve_%03zu", i);
  return name;
}

// ---------------------------------------------------------------------------------------------

/// Writes the objects of one file. Object times are not recorded, so the same ResultFile
/// always gives the same bytes; links and attributes keep their creation order, which h5py
/// iterates in, so a DataFrame of /points has the schema's column order.
class Writer {
public:
  explicit Writer(const std::string& path) : path_{path} {
    check(string_type_.get(), "the string type");
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

  hid_t file_properties() const { return file_properties_.get(); }

  /// `result` unless it is negative (an HDF5 failure), which throws naming `what`.
  template <class Id> Id check(Id result, const std::string& what) const {
    if (result < 0)
      throw store_error(path_, "cannot write " + what + ": " + last_failure().description);
    return result;
  }

  Handle group(hid_t parent, const std::string& name) const {
    Handle group{
        H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, group_properties_.get(), H5P_DEFAULT),
        H5Gclose};
    check(group.get(), "group " + in_quotes(name));
    return group;
  }

  void attribute(hid_t object, const char* name, const std::string& value) const {
    const char* text = value.c_str();
    write_attribute(object, name, string_type_.get(), string_type_.get(), &text);
  }
  void attribute(hid_t object, const char* name, long long value) const {
    write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
  }
  void attribute(hid_t object, const char* name, double value) const {
    write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }

  void column(hid_t group, const char* name, const std::vector<std::string>& values) const {
    std::vector<const char*> texts;
    for (const auto& value : values)
      texts.push_back(value.c_str());
    write_column(group, name, string_type_.get(), string_type_.get(), texts.size(), texts.data());
  }
  void column(hid_t group, const char* name, const std::vector<long long>& values) const {
    write_column(group, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, values.size(), values.data());
  }
  void column(hid_t group, const char* name, const std::vector<double>& values,
              const char* unit) const {
    Handle dataset =
        write_column(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values.size(), values.data());
    attribute(dataset.get(), "unit", std::string(unit));
  }

private:
  void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                       const void* value) const {
    const std::string what = "attribute " + in_quotes(name);
    Handle space{check(H5Screate(H5S_SCALAR), what), H5Sclose};
    Handle attribute{
        check(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), what),
        H5Aclose};
    check(H5Awrite(attribute.get(), memory_type, value), what);
  }

  Handle write_column(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
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

  std::string path_;
  Handle string_type_{new_string_type(H5T_CSET_UTF8), H5Tclose};
  Handle file_properties_{H5Pcreate(H5P_FILE_CREATE), H5Pclose};
  Handle group_properties_{H5Pcreate(H5P_GROUP_CREATE), H5Pclose};
  Handle dataset_properties_{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
};

void write_points(const Writer& w, hid_t file, const std::vector<sweep::PointRecord>& points) {
  Handle group = w.group(file, "points");
  std::vector<long long> index, curve, nodes, seed, ranks, batch_per_rank;
  std::vector<std::string> status, error, command, run_arguments;
  for (const auto& p : points) {
    index.push_back(p.spec.index);
    curve.push_back(p.spec.curve);
    nodes.push_back(p.spec.nodes);
    // int64 in the file; the conversion is modulo 2^64, so every seed reads back unchanged.
    seed.push_back(static_cast<long long>(p.spec.seed));
    ranks.push_back(p.result.ranks);
    batch_per_rank.push_back(p.result.batch_per_rank);
    status.push_back(p.result.ok ? "ok" : "failed");
    error.push_back(p.result.error);
    command.push_back(command_of(p.spec.run_args));
    run_arguments.push_back(joined_lines(p.spec.run_args));
  }
  w.column(group.get(), "index", index);
  w.column(group.get(), "curve", curve);
  w.column(group.get(), "nodes", nodes);
  w.column(group.get(), "seed", seed);
  w.column(group.get(), "ranks", ranks);
  w.column(group.get(), "batch_per_rank", batch_per_rank);
  w.column(group.get(), "status", status);
  w.column(group.get(), "error", error);
  w.column(group.get(), "command", command);
  w.column(group.get(), "run_arguments", run_arguments);
  for (const auto& c : point_columns) {
    std::vector<double> values;
    for (const auto& p : points)
      values.push_back(p.result.*c.member);
    w.column(group.get(), c.name, values, c.unit);
  }
}

void write_curve(const Writer& w, hid_t curves, const std::string& name,
                 const sweep::CurveSpec& spec, const CurveAnalysis& a) {
  Handle group = w.group(curves, name);
  const hid_t g = group.get();
  w.attribute(g, "id", spec.id);
  w.attribute(g, "platform", spec.platform);
  w.attribute(g, "workload", spec.workload);
  w.attribute(g, "variant", spec.variant);
  w.attribute(g, "scaling", std::string(analysis::to_string(spec.scaling)));
  w.attribute(g, "n_unit", std::string("nodes"));
  for (const auto& attribute : analysis_attributes)
    w.attribute(g, attribute.name, a.*attribute.member);
  for (const auto& attribute : fit_attributes)
    w.attribute(g, attribute.name, a.fit.*attribute.member);
  w.attribute(g, "amdahl_shaped", static_cast<long long>(a.fit.amdahl_shaped));
  w.attribute(g, "dominant_term", a.dominant_term);
  for (const auto& c : metric_columns) {
    std::vector<double> values;
    for (const auto& m : a.points)
      values.push_back(m.*c.member);
    w.column(g, c.name, values, c.unit);
    if (c.member == &PointMetrics::n) {
      std::vector<long long> seeds;
      for (const auto& m : a.points)
        seeds.push_back(m.seeds);
      w.column(g, "seeds", seeds);
    }
  }
}

void write_contents(const Writer& w, hid_t file, const ResultFile& results) {
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

/// fsync() of a file or directory, so that a rename after it cannot land before the data.
void sync_to_disk(const std::string& where, const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0)
    throw store_error(where, "cannot open " + in_quotes(path) +
                                 " to flush it: " + system_error_text(errno));
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!synced)
    throw store_error(where, "cannot flush " + in_quotes(path) + ": " + system_error_text(error));
}

// ---------------------------------------------------------------------------------------------

/// Reads one file, naming in its messages whatever is missing, mistyped or inconsistent.
class Reader {
public:
  explicit Reader(const std::string& path) : path_{path} {}

  ResultFile read() {
    Handle file = open_file();
    const hid_t root = file.get();
    check_format(root);
    ResultFile results;
    results.tool_version = string_attribute(root, "", "tool_version");
    results.simgrid_version = string_attribute(root, "", "simgrid_version");
    results.command_line = string_attribute(root, "", "command_line");
    results.experiment_path = string_attribute(root, "", "experiment_path");
    results.title = string_attribute(root, "", "title");
    results.question = string_attribute(root, "", "question");
    results.digest = string_attribute(root, "", "digest");
    results.points_total = int_attribute(root, "", "points_total");
    const long long points_done = int_attribute(root, "", "points_done");
    results.inputs = read_inputs(root);
    read_curves(root, results);
    results.points = read_points(root, results.curves.size());
    if (points_done != static_cast<long long>(results.points.size()))
      fail("\"points_done\" is " + std::to_string(points_done) + " but \"points\" has " +
           std::to_string(results.points.size()) + " rows");
    return results;
  }

private:
  [[noreturn]] void fail(const std::string& message) const { throw store_error(path_, message); }

  /// `result` unless it is negative (an HDF5 failure), which throws naming `what`.
  template <class Id> Id check(Id result, const std::string& what) const {
    if (result < 0)
      fail("cannot read " + what + ": " + last_failure().description);
    return result;
  }

  Handle open_file() const {
    // POSIX first: it says plainly what HDF5 buries in its error stack.
    struct stat status {};
    if (::stat(path_.c_str(), &status) != 0)
      fail("cannot open: " +
           (errno == ENOENT ? std::string("no such file") : system_error_text(errno)));
    if (S_ISDIR(status.st_mode))
      fail("cannot open: is a directory");
    const int fd = ::open(path_.c_str(), O_RDONLY);
    if (fd < 0)
      fail("cannot open: " + system_error_text(errno));
    ::close(fd);
    if (H5Fis_hdf5(path_.c_str()) <= 0)
      fail("not an HDF5 file");
    Handle fapl = file_access(path_);
    Handle file{H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose};
    if (!file.valid()) {
      const Hdf5Failure failure = last_failure();
      if (failure.truncated)
        fail(truncation_message(failure.description));
      fail("cannot open as HDF5: " + failure.description);
    }
    return file;
  }

  /// "truncated file: 2048 of 4096 bytes", the sizes found and recorded, when HDF5 told them.
  std::string truncation_message(const std::string& description) const {
    std::error_code error;
    const auto size = std::filesystem::file_size(path_, error);
    const auto at = description.find("stored_eof = ");
    if (error || at == std::string::npos)
      return "truncated file";
    const unsigned long long stored = std::strtoull(description.c_str() + at + 13, nullptr, 10);
    return "truncated file: " + std::to_string(size) + " of " + std::to_string(stored) + " bytes";
  }

  void check_format(hid_t root) const {
    const htri_t has_format = check(H5Aexists(root, "format"), "attribute \"format\"");
    if (has_format == 0)
      fail("not a ceiling result file: no \"format\" attribute");
    Handle attribute{check(H5Aopen(root, "format", H5P_DEFAULT), "attribute \"format\""), H5Aclose};
    Handle type{check(H5Aget_type(attribute.get()), "attribute \"format\""), H5Tclose};
    if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0)
      fail("not a ceiling result file: \"format\" is not a string");
    const std::string format = string_attribute(root, "", "format");
    if (format != format_name)
      fail("not a ceiling result file: \"format\" is " + in_quotes(format) + ", expected " +
           in_quotes(format_name));
    const long long version = int_attribute(root, "", "format_version");
    if (version != format_version)
      fail("format_version " + std::to_string(version) + " is not supported (this build reads " +
           std::to_string(format_version) + ")");
  }

  // ---- attributes: `group` is the object's path in messages, "" for the root ----

  static std::string attribute_name(const std::string& group, const char* name) {
    return "attribute " + in_quotes(name) + (group.empty() ? "" : " of " + in_quotes(group));
  }

  /// The open attribute, after checking that it exists, is scalar and of `expected` class.
  Handle open_attribute(hid_t object, const std::string& group, const char* name,
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

  std::string string_attribute(hid_t object, const std::string& group, const char* name) const {
    const std::string what = attribute_name(group, name);
    Handle attribute = open_attribute(object, group, name, H5T_STRING);
    Handle memory_type = string_memory_type(attribute.get(), H5Aget_type, what);
    char* text = nullptr;
    check(H5Aread(attribute.get(), memory_type.get(), &text), what);
    const std::string value = text != nullptr ? text : "";
    Handle space{check(H5Screate(H5S_SCALAR), what), H5Sclose};
    check(H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, &text), what);
    return value;
  }

  long long int_attribute(hid_t object, const std::string& group, const char* name) const {
    Handle attribute = open_attribute(object, group, name, H5T_INTEGER);
    long long value = 0;
    check(H5Aread(attribute.get(), H5T_NATIVE_LLONG, &value), attribute_name(group, name));
    return value;
  }

  double double_attribute(hid_t object, const std::string& group, const char* name) const {
    Handle attribute = open_attribute(object, group, name, H5T_FLOAT);
    double value = 0;
    check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value), attribute_name(group, name));
    return value;
  }

  // ---- types ----

  static std::string describe(hid_t type) {
    const auto bits = [&] { return std::to_string(8 * H5Tget_size(type)); };
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits();
    case H5T_FLOAT:
      return "float" + bits();
    case H5T_STRING:
      return H5Tis_variable_str(type) > 0 ? "a string" : "a fixed-length string";
    default:
      return "another type";
    }
  }

  void check_type(const std::string& what, hid_t type, H5T_class_t expected) const {
    const bool ok =
        H5Tget_class(type) == expected && (expected != H5T_STRING || H5Tis_variable_str(type) > 0);
    if (!ok)
      fail(what + ": expected " +
           (expected == H5T_STRING    ? "a string"
            : expected == H5T_INTEGER ? "int64"
                                      : "float64") +
           ", found " + describe(type));
  }

  /// A variable-length string type in the character set the file uses for `object`.
  Handle string_memory_type(hid_t object, hid_t (*get_type)(hid_t), const std::string& what) const {
    Handle file_type{check(get_type(object), what), H5Tclose};
    const H5T_cset_t charset = check(H5Tget_cset(file_type.get()), what);
    return Handle{check(new_string_type(charset), what), H5Tclose};
  }

  // ---- groups and columns: `group` is the group's path, for messages ----

  Handle open_object(hid_t parent, const std::string& path, const char* name, H5I_type_t kind,
                     const char* noun) const {
    const std::string what = std::string(noun) + " " + in_quotes(path);
    if (check(H5Lexists(parent, name, H5P_DEFAULT), what) == 0)
      fail("missing " + what);
    Handle object{check(H5Oopen(parent, name, H5P_DEFAULT), what), H5Oclose};
    if (H5Iget_type(object.get()) != kind)
      fail(in_quotes(path) + " is not a " + noun);
    return object;
  }

  Handle open_group(hid_t parent, const std::string& path, const char* name) const {
    return open_object(parent, path, name, H5I_GROUP, "group");
  }

  /// The open dataset and its row count, after checking it is 1-D and of `expected` class.
  std::pair<Handle, std::size_t> open_column(hid_t group, const std::string& path, const char* name,
                                             H5T_class_t expected) const {
    const std::string full = path + "/" + name;
    const std::string what = "dataset " + in_quotes(full);
    Handle dataset = open_object(group, full, name, H5I_DATASET, "dataset");
    Handle type{check(H5Dget_type(dataset.get()), what), H5Tclose};
    check_type(what, type.get(), expected);
    Handle space{check(H5Dget_space(dataset.get()), what), H5Sclose};
    const int rank = check(H5Sget_simple_extent_ndims(space.get()), what);
    if (rank != 1)
      fail(what + ": expected 1-D, found " +
           (rank == 0 ? "a scalar" : std::to_string(rank) + "-D"));
    hsize_t rows = 0;
    check(H5Sget_simple_extent_dims(space.get(), &rows, nullptr), what);
    return {std::move(dataset), static_cast<std::size_t>(rows)};
  }

  /// Checks that every column of `path` has as many rows as the first one read.
  void expect_rows(const std::string& path, const char* name, std::size_t rows) {
    if (table_ != path) {
      table_ = path;
      first_column_ = name;
      table_rows_ = rows;
    } else if (rows != table_rows_) {
      fail(path + ": column " + in_quotes(name) + " has " + std::to_string(rows) + " rows but " +
           in_quotes(first_column_) + " has " + std::to_string(table_rows_));
    }
  }

  std::vector<std::string> string_column(hid_t group, const std::string& path, const char* name) {
    auto [dataset, rows] = open_column(group, path, name, H5T_STRING);
    expect_rows(path, name, rows);
    const std::string what = "dataset " + in_quotes(path + "/" + name);
    std::vector<std::string> values;
    if (rows == 0)
      return values;
    Handle memory_type = string_memory_type(dataset.get(), H5Dget_type, what);
    std::vector<char*> texts(rows, nullptr);
    check(H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()),
          what);
    for (const char* text : texts)
      values.emplace_back(text != nullptr ? text : "");
    Handle space{check(H5Dget_space(dataset.get()), what), H5Sclose};
    check(H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, texts.data()), what);
    return values;
  }

  template <class T>
  std::vector<T> number_column(hid_t group, const std::string& path, const char* name) {
    constexpr bool integer = std::is_integral_v<T>;
    auto [dataset, rows] = open_column(group, path, name, integer ? H5T_INTEGER : H5T_FLOAT);
    expect_rows(path, name, rows);
    std::vector<T> values(rows);
    if (rows > 0)
      check(H5Dread(dataset.get(), integer ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                    H5P_DEFAULT, values.data()),
            "dataset " + in_quotes(path + "/" + name));
    return values;
  }

  std::vector<long long> int_column(hid_t group, const std::string& path, const char* name) {
    return number_column<long long>(group, path, name);
  }
  std::vector<double> double_column(hid_t group, const std::string& path, const char* name) {
    return number_column<double>(group, path, name);
  }

  int to_int(long long value, const std::string& column, std::size_t row) const {
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
      fail("dataset " + in_quotes(column) + ": row " + std::to_string(row) + ": " +
           std::to_string(value) + " is out of range");
    return static_cast<int>(value);
  }

  // ---- the groups of the schema ----

  std::vector<InputFile> read_inputs(hid_t root) {
    Handle group = open_group(root, "inputs", "inputs");
    const auto kind = string_column(group.get(), "inputs", "kind");
    const auto path = string_column(group.get(), "inputs", "path");
    const auto text = string_column(group.get(), "inputs", "text");
    std::vector<InputFile> inputs;
    for (std::size_t i = 0; i < kind.size(); ++i)
      inputs.push_back({.kind = kind[i], .path = path[i], .text = text[i]});
    return inputs;
  }

  void read_curves(hid_t root, ResultFile& results) {
    Handle curves = open_group(root, "curves", "curves");
    H5G_info_t info{};
    check(H5Gget_info(curves.get(), &info), "group \"curves\"");
    // curve_000 ... curve_{n-1}, one per link: a gap or a foreign name shows as a missing one.
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const std::string name = curve_group_name(i);
      const std::string path = "curves/" + name;
      Handle group = open_group(curves.get(), path, name.c_str());
      const hid_t g = group.get();
      sweep::CurveSpec spec{.id = string_attribute(g, path, "id"),
                            .platform = string_attribute(g, path, "platform"),
                            .workload = string_attribute(g, path, "workload"),
                            .variant = string_attribute(g, path, "variant")};
      const std::string scaling = string_attribute(g, path, "scaling");
      const auto parsed = scaling_from(scaling);
      if (!parsed)
        fail(attribute_name(path, "scaling") + ": expected \"weak\" or \"strong\", got " +
             in_quotes(scaling));
      spec.scaling = *parsed;
      string_attribute(g, path, "n_unit");
      CurveAnalysis a{.scaling = *parsed};
      for (const auto& attribute : analysis_attributes)
        a.*attribute.member = double_attribute(g, path, attribute.name);
      for (const auto& attribute : fit_attributes)
        a.fit.*attribute.member = double_attribute(g, path, attribute.name);
      a.fit.amdahl_shaped = int_attribute(g, path, "amdahl_shaped") != 0;
      a.dominant_term = string_attribute(g, path, "dominant_term");
      for (const auto& c : metric_columns) {
        const auto values = double_column(g, path, c.name);
        a.points.resize(values.size()); // the same for every column: expect_rows() checks it
        for (std::size_t row = 0; row < values.size(); ++row)
          a.points[row].*c.member = values[row];
        if (c.member == &PointMetrics::n) {
          const auto seeds = int_column(g, path, "seeds");
          for (std::size_t row = 0; row < seeds.size(); ++row)
            a.points[row].seeds = to_int(seeds[row], path + "/seeds", row);
        }
      }
      results.curves.push_back(spec);
      results.analyses.push_back(a);
    }
  }

  std::vector<sweep::PointRecord> read_points(hid_t root, std::size_t curve_count) {
    Handle group = open_group(root, "points", "points");
    const hid_t g = group.get();
    const auto index = int_column(g, "points", "index");
    const auto curve = int_column(g, "points", "curve");
    const auto nodes = int_column(g, "points", "nodes");
    const auto seed = int_column(g, "points", "seed");
    const auto ranks = int_column(g, "points", "ranks");
    const auto batch_per_rank = int_column(g, "points", "batch_per_rank");
    const auto status = string_column(g, "points", "status");
    const auto error = string_column(g, "points", "error");
    string_column(g, "points", "command"); // derived from run_arguments: checked, not kept
    const auto run_arguments = string_column(g, "points", "run_arguments");
    std::vector<sweep::PointRecord> points(index.size());
    for (std::size_t row = 0; row < points.size(); ++row) {
      auto& p = points[row];
      p.spec.index = to_int(index[row], "points/index", row);
      p.spec.curve = to_int(curve[row], "points/curve", row);
      if (p.spec.curve < 0 || static_cast<std::size_t>(p.spec.curve) >= curve_count)
        fail("dataset \"points/curve\": row " + std::to_string(row) + ": " +
             std::to_string(p.spec.curve) + " is not a curve (the file has " +
             std::to_string(curve_count) + ")");
      p.spec.nodes = nodes[row];
      p.spec.seed = static_cast<std::uint64_t>(seed[row]);
      p.spec.run_args = split_lines(run_arguments[row]);
      if (status[row] != "ok" && status[row] != "failed")
        fail("dataset \"points/status\": row " + std::to_string(row) +
             ": expected \"ok\" or \"failed\", got " + in_quotes(status[row]));
      p.result.ok = status[row] == "ok";
      p.result.error = error[row];
      p.result.ranks = ranks[row];
      p.result.batch_per_rank = batch_per_rank[row];
    }
    for (const auto& c : point_columns) {
      const auto values = double_column(g, "points", c.name);
      for (std::size_t row = 0; row < values.size(); ++row)
        points[row].result.*c.member = values[row];
    }
    return points;
  }

  std::string path_;
  // The table expect_rows() is checking: its path, first column and row count.
  std::string table_;
  std::string first_column_;
  std::size_t table_rows_ = 0;
};

} // namespace

void write_results(const std::string& path, const ResultFile& results) {
  silence_hdf5();
  if (results.analyses.size() != results.curves.size())
    throw store_error(path, "cannot write: " + std::to_string(results.curves.size()) +
                                " curves but " + std::to_string(results.analyses.size()) +
                                " analyses");
  const std::string temporary = path + ".tmp";
  try {
    Writer writer{path};
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
    sync_to_disk(path, temporary, O_RDONLY);
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw store_error(path,
                      "cannot rename " + in_quotes(temporary) + ": " + system_error_text(error));
  }
  // The rename itself is durable only once the directory holding it is flushed.
  const auto directory = std::filesystem::path(path).parent_path();
  sync_to_disk(path, directory.empty() ? "." : directory.string(), O_RDONLY | O_DIRECTORY);
}

ResultFile read_results(const std::string& path) {
  silence_hdf5();
  return Reader{path}.read();
}

} // namespace ceiling::io
