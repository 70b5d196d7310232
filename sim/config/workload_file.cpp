// Reading workload files: identity, layers and their DAG, calibration, validations.
#include "config/workload_file.hpp"

#include "config/input_file.hpp"
#include "config/overrides_internal.hpp"
#include "config/platform_file.hpp"
#include "config/table_reader.hpp"
#include "workload/cost_model.hpp"
#include "workload/layer_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace ceiling::config {
namespace {

using units::DataSize;
using units::Flops;

constexpr long long max_count = 1'000'000'000'000LL;


platform::Precision read_precision(TableReader& t, std::string_view key) {
  std::string names; // "fp64, fp32, fp16"
  for (platform::Precision p : platform::all_precisions)
    names += (names.empty() ? "" : ", ") + std::string(platform::to_string(p));
  return named(t, key, platform::precision_from_string, names);
}

workload::Measurement read_measurement(TableReader& t) {
  const std::string platform = beside(t.file(), t.path("platform", "a platform file's path, relative to this workload file"));
  std::error_code error;
  if (!std::filesystem::is_regular_file(platform, error))
    t.fail("platform", "\"" + platform + "\" is not a platform file" +
                           (std::filesystem::exists(platform, error) ? " (a folder, a FIFO or a device)" : " (no such file)") +
                           ": expected a path relative to this workload file");
  return {.platform_path = platform,
          .samples_per_second = t.number("measured_throughput", 0, 1e15, true),
          .batch = static_cast<int>(t.integer("batch", 1, workload::max_batch_per_worker)),
          .accumulation = static_cast<int>(
              t.optional_integer("accumulation", 1, workload::max_accumulation).value_or(1)),
          .source = t.citation("source")};
}

/// The nodes of a measurement's platform (`path`, its `platform` key's); a platform that does not
/// load is refused at that key, its own error after.
platform::NodeSpec measured_node(const TableReader& t, const std::string& path) {
  try {
    return load_platform(path).node;
  } catch (const LoadError& error) {
    t.fail("platform", std::string("does not load: ") + error.what()); // (what() names the file)
  }
}

workload::LayerSpec read_layer(TableReader& t, double backward_factor) {
  workload::LayerSpec layer;
  layer.name = t.label("name", TableReader::most_name_characters);
  if (layer.name.empty())
    t.fail("name", "empty: expected the layer's name, which `after` lists and the output shows");
  layer.kind = t.string("kind");
  layer.forward_per_sample = t.quantity<Flops>("forward", Sign::NonNegative);
  layer.backward_per_sample = t.optional_quantity<Flops>("backward", Sign::NonNegative)
                                  .value_or(layer.forward_per_sample * backward_factor);
  layer.memory_per_sample = t.quantity<DataSize>("memory", Sign::NonNegative);
  layer.params = t.optional_integer("params", 0, max_count).value_or(0);
  if (auto rows = t.optional_integer("embedding_rows", 1, max_count)) {
    if (layer.params % *rows != 0)
      t.fail("embedding_rows", "params (" + std::to_string(layer.params) +
                                   ") must be a multiple of embedding_rows (" +
                                   std::to_string(*rows) + ")");
    layer.embedding = workload::EmbeddingSpec{
        .rows = *rows, .rows_per_sample = t.number("rows_per_sample", 1e-3, 1e12)}; // (a table looked up in 1 sample of 1,000 at least)
    if (auto lookup = t.optional_string("embedding_lookup")) {
      if (*lookup != "gather" && *lookup != "unique")
        t.fail("embedding_lookup", "expected \"gather\" (a row of gradient per lookup, repeats kept: tf.gather) or "
                                   "\"unique\" (the batch's ids made unique first: embedding_lookup_sparse), got \"" +
                                       *lookup + "\"");
      layer.embedding->unique_rows = *lookup == "unique";
    }
    if (auto id_bytes = t.optional_integer("embedding_id_bytes", 1, 8)) {
      if (*id_bytes != 4 && *id_bytes != 8)
        t.fail("embedding_id_bytes", "expected 4 (int32 ids) or 8 (int64 ids), got " + std::to_string(*id_bytes));
      layer.embedding->id_bytes = static_cast<int>(*id_bytes);
    }
  } else {
    for (std::string_view key : {"rows_per_sample", "embedding_lookup", "embedding_id_bytes"})
      if (t.has(key))
        t.fail(key, "a key of embedding tables: expected embedding_rows beside it (the table's rows), or none of "
                    "rows_per_sample, embedding_lookup, embedding_id_bytes on a dense layer");
  }
  if (auto tensors = t.optional_integer_list("tensors", 1, max_count)) {
    if (layer.embedding)
      t.fail("tensors", "an embedding table is one variable: expected no tensors with embedding_rows");
    long long sum = 0; // stops past params (at most max_count): never overflows
    for (std::size_t k = 0; k < tensors->size() && sum <= layer.params; ++k)
      sum += (*tensors)[k];
    if (sum != layer.params)
      t.fail("tensors", (sum > layer.params ? std::string("the variables' parameters exceed")
                                             : "the variables' parameters sum to " + std::to_string(sum) + ", not") +
                            " the layer's params (" + std::to_string(layer.params) +
                            "): expected one count per trainable variable, summing to params");
    layer.tensors = std::move(*tensors);
  }
  layer.frozen = t.boolean_or("frozen", false);
  if (layer.frozen && layer.embedding)
    t.fail("frozen", "a frozen embedding table: expected no embedding_rows on a frozen layer (nothing of it is exchanged)");
  layer.estimated = t.boolean_or("estimated", false);
  return layer;
}

/// Names in `after` -> indices; the previous layer when absent; checks duplicates and cycles.
void link_layers(std::vector<TableReader>& readers, std::vector<workload::LayerSpec>& layers) {
  std::map<std::string, int, std::less<>> index;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!index.emplace(layers[i].name, static_cast<int>(i)).second)
      readers[i].fail("name", "duplicate layer name \"" + layers[i].name + "\" (first at layers[" +
                                  std::to_string(index[layers[i].name]) + "])");
    names.push_back(layers[i].name);
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const bool explicit_after = readers[i].has("after");
    const auto after = readers[i].string_list("after");
    if (!explicit_after && i > 0)
      layers[i].after = {static_cast<int>(i) - 1};
    for (std::size_t k = 0; k < after.size(); ++k) {
      const auto it = index.find(after[k]);
      if (it == index.end())
        readers[i].fail_element("after", k, "unknown layer \"" + after[k] + "\"" +
                                                did_you_mean(after[k], names));
      if (std::find(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(k), after[k]) != after.begin() + static_cast<std::ptrdiff_t>(k))
        readers[i].fail_element("after", k, "\"" + after[k] + "\" is listed twice: expected each layer it follows once");
      layers[i].after.push_back(it->second);
    }
    readers[i].reject_unknown_keys();
  }
  if (auto cycle = workload::LayerGraph(layers).find_cycle()) {
    std::string text;
    for (int v : *cycle)
      text += "\"" + layers[static_cast<std::size_t>(v)].name + "\" -> ";
    text += "\"" + layers[static_cast<std::size_t>(cycle->front())].name + "\"";
    // Report at the cycle's first layer: its `after` names the last one.
    readers[static_cast<std::size_t>(cycle->front())].fail(
        "after", "the layers depend on each other in a cycle: " + text +
                     " (each is needed by the next)");
  }
}

workload::CalibrationSpec read_calibration(TableReader t, std::vector<std::string>& chain,
                                           std::vector<workload::FileRead>& files_read);

/// Notes that a workload's loading read `path`, unless it did already.
void note_read(std::vector<workload::FileRead>& files_read, const std::string& kind, const std::string& path) {
  if (std::none_of(files_read.begin(), files_read.end(), [&](const workload::FileRead& f) { return f.path == path; }))
    files_read.push_back({kind, path});
}

workload::WorkloadSpec read_workload(const toml::table& root, const std::string& path,
                                     std::vector<std::string>& chain) {
  TableReader file(root, "", path);
  workload::WorkloadSpec w;
  TableReader head = file.table("workload");
  if (head.has("kind")) {
    const std::string kind = head.string("kind");
    if (kind == "hpl" || kind == "hpcg")
      head.fail("kind", "this is an HPC workload (kind = \"" + kind +
                            "\"): run it with `ceiling hpc`, not as a training workload");
    head.fail("kind", "\"" + kind + "\": a training workload has no kind; kind = \"hpl\" or \"hpcg\" "
                      "marks an HPC workload, which `ceiling hpc` runs");
  }
  w.name = head.name("name", "it labels the outputs");
  w.title = head.heading("title", most_title_characters);
  w.domain = head.label("domain", most_title_characters);
  w.framework = head.label("framework", most_title_characters);
  w.dataset = head.label("dataset", most_title_characters);
  w.sample = head.name("sample", "what one sample is: it names the throughput's unit, samples/s");
  w.batch_per_worker = static_cast<int>(head.integer("batch_per_worker", 1, workload::max_batch_per_worker));
  w.precision = read_precision(head, "precision");
  w.granularity = head.choice("granularity", {"layer", "block"});
  w.input_per_sample = head.quantity<DataSize>("input", Sign::NonNegative);
  w.optimizer_per_parameter = head.quantity<DataSize>("optimizer_bytes_per_parameter", Sign::NonNegative);
  w.optimizer_state_per_parameter =
      head.optional_quantity<DataSize>("optimizer_state_bytes_per_parameter", Sign::NonNegative)
          .value_or(DataSize::from_bytes(0));
  const double backward_factor = head.optional_number("backward_factor", 0, 1e6, true).value_or(2.0);
  w.source = head.citation("source");
  head.reject_unknown_keys();

  TableReader reference = file.table("reference");
  w.reference = {.params = reference.integer("params", 0, max_count),
                 .forward_per_sample = reference.quantity<Flops>("forward", Sign::Positive),
                 .source = reference.citation("source")};
  reference.reject_unknown_keys();

  // `layers` sits in a table of its own: in TOML a key after a [table] header belongs to it.
  TableReader graph = file.table("graph");
  auto readers = graph.table_array("layers");
  if (readers.empty())
    graph.fail("layers", "missing key: expected an array of layers, one inline table each");
  graph.reject_unknown_keys();
  for (TableReader& layer : readers)
    w.layers.push_back(read_layer(layer, backward_factor));
  link_layers(readers, w.layers);
  // The layers must add up to the published totals (README: parameters exactly, forward FLOPs
  // within 1 %, as the bundled files are tested): a layer left out or mistyped shows here.
  if (const long long params = workload::total_params(w); params != w.reference.params)
    reference.fail("params", "the layers' params add up to " + std::to_string(params) + ", not " +
                                 std::to_string(w.reference.params) +
                                 ": expected the published total (a layer missing or mistyped?)");
  if (const double flop = workload::total_forward(w).flop(), published = w.reference.forward_per_sample.flop();
      std::abs(flop - published) > 0.01 * published)
    reference.fail("forward", "the layers' forward_flop add up to " + units::to_string(units::Flops::from_flop(flop)) +
                                  " per sample, not " + units::to_string(units::Flops::from_flop(published)) +
                                  ": expected them within 1 % of the published total (a layer missing or mistyped?)");

  w.calibration = read_calibration(file.table("calibration"), chain, w.files_read);
  if (w.calibration.borrowed_from.empty()) // a borrowed one keeps its lender's
    w.calibration.precision = w.precision;
  for (TableReader& v : file.table_array("validation")) {
    w.validations.push_back(read_measurement(v));
    v.reject_unknown_keys();
  }
  for (TableReader& d : file.table_array("device_calibration")) {
    workload::DeviceCalibration c{.device = d.string("device"), .measured = read_measurement(d)};
    if (d.has("precision"))
      c.precision = d.choice("precision", {"fp64", "fp32", "fp16", "mixed"});
    if (c.precision == platform::to_string(w.precision))
      c.precision.clear(); // the workload's own precision
    if (d.has("framework"))
      c.framework = d.choice("framework", workload::framework_names);
    c.compute_efficiency = d.number("compute_efficiency", workload::min_compute_efficiency, workload::max_compute_efficiency);
    c.half_batch = d.optional_number("half_batch", 0, 1e6);
    for (const auto& other : w.device_calibrations)
      if (other.device == c.device && other.precision == c.precision && other.framework == c.framework)
        d.fail("device", "a second calibration for \"" + c.device + "\"" +
                             (c.precision.empty() ? "" : " in " + c.precision) +
                             (c.framework.empty() ? "" : " under " + c.framework) +
                             ": one per device, precision and framework");
    d.reject_unknown_keys();
    // (the device the platform's nodes compute on: its GPU, else its CPU; its keys read first)
    if (const auto device = workload::compute_device(measured_node(d, c.measured.platform_path));
        device.model != c.device)
      d.fail("device", "\"" + c.device + "\" is not the device of " + c.measured.platform_path + ", whose nodes compute on \"" +
                           device.model + "\": expected that name, or the platform of this device");
    note_read(w.files_read, "calibration platform", c.measured.platform_path);
    w.device_calibrations.push_back(std::move(c));
  }
  file.reject_unknown_keys();
  return w;
}

workload::CalibrationSpec read_calibration(TableReader t, std::vector<std::string>& chain,
                                           std::vector<workload::FileRead>& files_read) {
  if (auto borrow = t.optional_string("borrow")) {
    if (is_blank(*borrow))
      t.fail("borrow", "empty: expected the path of the workload file whose calibration this one "
                       "borrows, relative to this workload file");
    const std::string other = beside(t.file(), *borrow);
    if (const auto problem = input_file_problem(other))
      t.fail("borrow", "\"" + other + "\" is not a workload file (" + *problem +
                           "): expected a path relative to this workload file");
    // The same file by any path (a linked folder, "./"): its identity, as the system opens it.
    const auto same_file = [&](const std::string& earlier) {
      std::error_code ignored;
      return earlier == other || std::filesystem::equivalent(earlier, other, ignored);
    };
    if (std::any_of(chain.begin(), chain.end(), same_file))
      t.fail("borrow", "calibrations borrow from each other in a cycle through \"" + other + "\"");
    t.citation("source"); // why it borrows: required, reported by `workload show`
    const auto own_half_batch = t.optional_number("half_batch", 0, 1e6);
    t.reject_unknown_keys();
    chain.push_back(other);
    workload::WorkloadSpec lender;
    try {
      lender = read_workload(parse_toml_file(other), other, chain);
    } catch (const LoadError& error) { // at this key, the lender's own error after
      t.fail("borrow", std::string("does not load: ") + error.what()); // (what() names the file)
    }
    chain.pop_back();
    auto calibration = lender.calibration;
    if (calibration.borrowed_from.empty())
      calibration.borrowed_from = lender.name;
    if (own_half_batch) {
      // Its own batch curve, through the lender's rate at the lender's calibration batch B:
      // (B + h) / e is what the compute time scales with, so e' = e (B + h') / (B + h).
      const double b = calibration.measured.batch;
      calibration.compute_efficiency *= (b + *own_half_batch) / (b + calibration.half_batch);
      calibration.half_batch = *own_half_batch;
    }
    note_read(files_read, "calibration lender", other);
    for (const workload::FileRead& f : lender.files_read)
      note_read(files_read, f.kind, f.path);
    return calibration;
  }
  workload::CalibrationSpec c;
  c.measured = read_measurement(t);
  c.memory_efficiency = t.number("memory_efficiency", workload::min_memory_efficiency, 1);
  c.compute_efficiency = t.number("compute_efficiency", workload::min_compute_efficiency, workload::max_compute_efficiency);
  c.half_batch = t.optional_number("half_batch", 0, 1e6).value_or(0);
  t.reject_unknown_keys();
  // The device measured: a run on another says it is uncalibrated (workload::calibration_notes).
  const auto node = measured_node(t, c.measured.platform_path);
  note_read(files_read, "calibration platform", c.measured.platform_path);
  c.device = workload::compute_device(node).model;
  c.device_is_gpu = node.gpu.has_value();
  return c;
}

workload::WorkloadSpec read_top_workload(toml::table root, const std::string& path,
                                         std::span<const std::string> overrides) {
  apply_overrides(root, path, overrides, OverrideTarget::Workload);
  std::vector<std::string> chain{std::filesystem::path(path).lexically_normal().string()};
  return noting_overrides_of([&] { return read_workload(root, path, chain); }, overrides,
                             OverrideTarget::Workload);
}

} // namespace

workload::WorkloadSpec load_workload(const std::string& path,
                                     std::span<const std::string> overrides) {
  return read_top_workload(parse_toml_file(path), path, overrides);
}

LoadError workload_key_error(const std::string& path, std::span<const std::string> overrides,
                             std::string_view dotted_key, std::string_view message) {
  toml::table root = parse_toml_file(path);
  apply_overrides(root, path, overrides, OverrideTarget::Workload);
  return noting_overrides(key_error(root, path, dotted_key, message), overrides,
                          OverrideTarget::Workload);
}

workload::WorkloadSpec load_workload_text(std::string_view text, const std::string& path,
                                          std::span<const std::string> overrides) {
  return read_top_workload(parse_toml_text(text, path), path, overrides);
}

namespace {

/// The sections of a workload file's TOML whose compute_efficiency `ceiling workload calibrate`
/// fits: its own [calibration] (none where borrowed), then each [[device_calibration]], in order.
std::vector<toml::node*> fitted_sections(toml::table& root) {
  std::vector<toml::node*> sections;
  if (toml::node* calibration = root.get("calibration");
      calibration && !(calibration->is_table() && calibration->as_table()->contains("borrow")))
    sections.push_back(calibration);
  if (auto* devices = root.get_as<toml::array>("device_calibration"))
    for (toml::node& d : *devices)
      sections.push_back(&d);
  return sections;
}

/// Whether line `line` (from 1) of `text` is a table's header ("[" begins it): a table that
/// dotted keys make starts at its first key instead.
bool starts_with_header(std::string_view text, int line) {
  std::size_t at = 0;
  for (int l = 1; l < line && at != std::string_view::npos; ++l)
    if ((at = text.find('\n', at)) != std::string_view::npos)
      ++at;
  at = line < 1 || at == std::string_view::npos ? at : text.find_first_not_of(" \t", at);
  return line >= 1 && at != std::string_view::npos && text[at] == '[';
}

} // namespace

std::vector<EfficiencyPlace> efficiency_places(std::string_view text, const std::string& path) {
  toml::table root = parse_toml_text(text, path);
  std::vector<EfficiencyPlace> places;
  for (const toml::node* section : fitted_sections(root)) {
    EfficiencyPlace& p = places.emplace_back();
    const auto* t = section->as_table();
    if (const toml::node* value = t ? t->get("compute_efficiency") : nullptr) {
      p.given = true;
      p.line = static_cast<int>(value->source().begin.line);
      p.begin = static_cast<int>(value->source().begin.column);
      p.end = static_cast<int>(value->source().end.column);
    } else if (t && !t->is_inline() && starts_with_header(text, static_cast<int>(t->source().begin.line))) {
      p.line = static_cast<int>(t->source().begin.line);
    }
  }
  return places;
}

std::optional<LoadError> stale_calibration(const workload::WorkloadSpec& w, const std::string& path) {
  // What `ceiling workload calibrate` fits: the efficiency at which the measurement's device
  // predicts the measured rate at its batch, in the measurement's precision.
  for (const workload::FittedCalibration& f : workload::fitted_calibrations(w)) {
    const workload::Measurement& m = *f.measured;
    const auto device = workload::compute_device(load_platform(m.platform_path).node);
    const auto it = workload::device_iteration(w, device, workload::compute_precision_of(w, f.mode), m.batch, f.efficiency);
    if (!it || !(m.samples_per_second > 0))
      continue; // (refused where the file is read: a device without that peak, no rate)
    const double predicted = it->samples_per_second(m.batch, m.accumulation);
    const double off = predicted / m.samples_per_second - 1;
    if (std::abs(off) <= 1e-3)
      continue;
    const auto text = [](const char* format, double x) {
      char out[32];
      std::snprintf(out, sizeof out, format, x);
      return std::string(out);
    };
    return key_error(parse_toml_file(path), path, f.key + ".compute_efficiency",
                     text("%.6g", f.efficiency.compute) + " predicts " + text("%.4g", predicted) +
                         " " + w.sample + "/s on " + device.name + " at " + m.batch_text() +
                         ", and the measurement it was fitted to is " +
                         text("%.4g", m.samples_per_second) + " (" + text("%+.2f %%", 100 * off) +
                         "): stale, `ceiling workload calibrate --write` fits it again");
  }
  return std::nullopt;
}

workload::WorkloadSpec load_workload_to_calibrate(const std::string& path) {
  toml::table root = parse_toml_file(path);
  for (toml::node* section : fitted_sections(root))
    if (auto* t = section->as_table(); t && !t->contains("compute_efficiency"))
      t->insert("compute_efficiency", 1.0);
  return read_top_workload(std::move(root), path, {});
}

} // namespace ceiling::config
