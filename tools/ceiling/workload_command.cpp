// `ceiling workload show|calibrate`: inspect a workload file and fit its compute model.
#include "config/input_file.hpp"
#include "config/load_error.hpp"
#include "config/platform_file.hpp"
#include "config/table_reader.hpp"
#include "config/workload_file.hpp"
#include "io/atomic_output.hpp"
#include "io/json_writer.hpp"
#include "tools/ceiling/commands.hpp"
#include "tools/ceiling/options.hpp"
#include "units/parse.hpp"
#include "workload/cost_model.hpp"
#include "workload/device_memory.hpp"
#include "workload/gradient_buckets.hpp"
#include "workload/layer_graph.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>

namespace po = boost::program_options;

namespace ceiling::tools {
namespace {

using platform::Precision;
using units::to_string;
using workload::WorkloadSpec;

/// What one device predicts next to what was measured on it.
struct DeviceCheck {
  std::string platform;
  std::string device;
  double predicted_samples_per_s = 0;
  workload::Measurement measured; ///< its rate, batch and steps per optimizer update
  /// Where the batch exceeds the device's memory by the estimate `ceiling run` refuses it by
  /// (memory_exceeded()), why; else empty.
  std::string over_memory;
  std::string framework; ///< a device calibration's, where it names one
  double half_batch = 0; ///< the half batch that priced it
  bool own_half_batch = false; ///< a device calibration's own, not the workload's
  double relative_error() const {
    return (predicted_samples_per_s - measured.samples_per_second) / measured.samples_per_second;
  }
};

/// Why `batch` samples of `w` in `precision` on one GPU of `node` exceed its memory by a lower bound
/// of the estimate `ceiling run` refuses a batch by (gradients at the compute precision, no
/// master copy; one GPU updates its own weights); empty where they may fit or the node has no GPU.
std::string memory_exceeded(const WorkloadSpec& w, int batch, Precision precision, const platform::NodeSpec& node) {
  if (!node.gpu)
    return "";
  const auto need = workload::device_memory(w, batch, precision, precision, workload::OptimizerState::OnDevice);
  const auto problem = workload::memory_shortfall(need, w, batch, *workload::memory_capacity(node));
  return problem ? *problem + ": `ceiling run` refuses it" : "";
}

/// The prediction for measurement `m` (the table `table` of the workload file `file`), in
/// precision mode `mode` (empty: the workload's), with the efficiency a run on that device uses
/// (its device calibration, if any), or that of `calibration`, the device calibration `m` belongs
/// to. A precision the device has no peak for is refused at its key.
DeviceCheck check_on(const WorkloadSpec& w, const workload::Measurement& m, const std::string& file,
                     const std::string& table, std::string mode = "",
                     const workload::DeviceCalibration* calibration = nullptr) {
  const auto spec = config::load_platform(m.platform_path);
  const auto device = workload::compute_device(spec.node);
  const bool own_mode = mode.empty();
  if (own_mode)
    mode = platform::to_string(w.precision);
  const auto precision = workload::compute_precision_of(w, mode);
  const auto chosen = workload::efficiency_for(w, device, mode, "");
  auto efficiency = chosen.efficiency;
  if (calibration)
    efficiency = workload::efficiency_of(w.calibration, *calibration);
  const auto* priced_by = calibration ? calibration : chosen.device_calibration;
  const auto it = workload::device_iteration(w, device, precision, m.batch, efficiency);
  if (!it)
    throw config::workload_key_error(
        file, {}, own_mode ? "workload.precision" : table + ".precision",
        mode + " needs a " + std::string(platform::to_string(precision)) +
            " peak, which the device of " + table + "'s measurement, the " + device.name + " of " +
            spec.name + ", does not have");
  return {spec.name,
          device.name + (own_mode ? "" : " in " + mode),
          it->samples_per_second(m.batch, m.accumulation),
          m,
          memory_exceeded(w, m.batch, precision, spec.node),
          calibration ? calibration->framework : std::string(),
          efficiency.half_batch,
          priced_by && priced_by->half_batch.has_value()};
}

/// " (N frozen: no gradient)" where some layers are frozen, else nothing.
std::string frozen_note(const workload::WorkloadSpec& w) {
  const long long frozen = workload::total_params(w) - workload::total_trained_params(w);
  return frozen > 0 ? " (" + std::to_string(frozen) + " frozen: no gradient)" : std::string();
}

/// Forward arithmetic intensity at `batch`: FLOPs over bytes moved, weights read once.
double arithmetic_intensity(const WorkloadSpec& w, int batch) {
  double bytes = 0;
  for (const auto& layer : w.layers)
    bytes += batch * layer.memory_per_sample.bytes() +
             static_cast<double>(layer.params) * workload::element_bytes(w.precision);
  return batch * workload::total_forward(w).flop() / bytes;
}

struct PrecisionRow {
  Precision precision;
  std::optional<workload::DeviceIteration> iteration;
  std::string over_memory; ///< memory_exceeded() at the batch shown
  std::string calibration; ///< what priced it, as a run whose stack names no framework takes it
};

/// What priced a row in precision `p` on `node` ("NVIDIA A100 SXM4 40 GB in mixed under pytorch",
/// or "the workload's calibration" where no device calibration was chosen), and what that leaves
/// uncalibrated, as a run says it (workload::calibration_notes).
std::string priced_by(const workload::WorkloadSpec& w, const workload::ChosenEfficiency& chosen,
                      const platform::NodeSpec& node, Precision p) {
  const auto* c = chosen.device_calibration;
  return (c ? c->device + c->conditions() : "the workload's calibration") +
         workload::calibration_notes(w, chosen, node, platform::to_string(p), p);
}

int show(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("platform,p", po::value<std::string>(),
                        "platform file: predict one device's iteration time and throughput per "
                        "precision on its GPU (or CPU sockets)")(
      "batch", po::value<long long>(), "samples per worker for the prediction and the plan (default: the workload's)")(
      "fusion-threshold", po::value<std::string>()->default_value("64 MiB"),
      "gradient bucket size, with a unit (Horovod's default fusion buffer)")(
      "json", "print one JSON object (SI units in the key names) instead of text");
  const auto cli = parse_command_line(
      args, "workload FILE",
      "usage: ceiling workload show FILE [--platform P] [--batch B] [--fusion-threshold SIZE] [--json]\n\n"
      "Summarises a workload: parameters, gradient bytes (dense and sparse), FLOPs per\n"
      "sample, arithmetic intensity, the gradient bucket plan, the calibration and its\n"
      "measurement, the device calibrations and validations (each measurement against what\n"
      "the device's calibration predicts), and with --platform the predicted single-device\n"
      "iteration per precision, with that device's calibration where the workload has one.\n",
      options);
  if (!cli)
    return 0;
  const units::DataSize threshold = cli->positive_size("fusion-threshold");

  WorkloadSpec w = config::load_workload(cli->file);
  if (const auto batch = cli->optional<long long>("batch")) {
    if (*batch < 1 || *batch > workload::max_batch_per_worker)
      throw UsageError("--batch: must be between 1 and " + std::to_string(workload::max_batch_per_worker) + ", got " +
                       std::to_string(*batch));
    w.batch_per_worker = static_cast<int>(*batch);
  }
  const auto order = workload::LayerGraph(w.layers).topological_order();
  const auto plan = workload::plan_buckets(w, order, threshold, w.precision, w.batch_per_worker);
  units::DataSize dense;
  units::DataSize sparse;
  units::DataSize sparse_ids;
  for (const auto& b : plan.dense)
    dense = dense + b.bytes;
  for (const auto& s : plan.sparse) {
    sparse = sparse + s.bytes;
    sparse_ids = sparse_ids + s.index_bytes();
  }
  int estimated = 0;
  for (const auto& layer : w.layers)
    estimated += layer.estimated ? 1 : 0;

  const auto indexed = [](const char* table, std::size_t i) {
    return std::string(table) + "[" + std::to_string(i) + "]";
  };
  const DeviceCheck calibrated = check_on(w, w.calibration.measured, cli->file, "calibration");
  std::vector<DeviceCheck> device_calibrations;
  for (std::size_t i = 0; i < w.device_calibrations.size(); ++i) {
    const auto& c = w.device_calibrations[i];
    device_calibrations.push_back(
        check_on(w, c.measured, cli->file, indexed("device_calibration", i), c.precision, &c));
  }
  std::vector<DeviceCheck> validations;
  for (std::size_t i = 0; i < w.validations.size(); ++i)
    validations.push_back(check_on(w, w.validations[i], cli->file, indexed("validation", i)));
  std::optional<platform::PlatformSpec> on;
  std::vector<PrecisionRow> rows;
  if (auto path = cli->optional<std::string>("platform")) {
    on = config::load_platform(*path);
    const auto device = workload::compute_device(on->node);
    for (Precision p : platform::all_precisions) {
      const auto chosen = workload::efficiency_for(w, device, platform::to_string(p), ""); // (a stack naming no framework)
      rows.push_back({p, workload::device_iteration(w, device, p, w.batch_per_worker, chosen.efficiency),
                      memory_exceeded(w, w.batch_per_worker, p, on->node), priced_by(w, chosen, on->node, p)});
    }
  }
  const double intensity = arithmetic_intensity(w, w.batch_per_worker);

  if (cli->has("json")) {
    io::JsonWriter json(std::cout);
    json.begin_object();
    json.key("name").value(w.name).key("title").value(w.title).key("domain").value(w.domain);
    json.key("framework").value(w.framework).key("dataset").value(w.dataset);
    json.key("sample").value(w.sample).key("batch_per_worker").value(w.batch_per_worker);
    json.key("precision").value(platform::to_string(w.precision));
    json.key("granularity").value(w.granularity);
    json.key("layers").value(static_cast<long long>(w.layers.size()));
    json.key("estimated_layers").value(estimated);
    json.key("params").value(workload::total_params(w));
    json.key("trained_params").value(workload::total_trained_params(w));
    json.key("dense_gradient_bytes").value(dense.bytes());
    json.key("sparse_gradient_bytes_per_iteration").value(sparse.bytes());
    json.key("sparse_gradient_id_bytes_per_iteration").value(sparse_ids.bytes());
    json.key("forward_flop_per_sample").value(workload::total_forward(w).flop());
    json.key("backward_flop_per_sample").value(workload::total_backward(w).flop());
    json.key("input_bytes_per_sample").value(w.input_per_sample.bytes());
    json.key("arithmetic_intensity_flop_per_byte").value(intensity);
    json.key("buckets").begin_object();
    json.key("threshold_bytes").value(plan.threshold.bytes());
    json.key("dense").begin_array();
    for (const auto& b : plan.dense) {
      json.begin_object().key("bytes").value(b.bytes.bytes());
      json.key("layers").begin_array();
      for (int l : b.layers)
        json.value(w.layers[static_cast<std::size_t>(l)].name);
      json.end_array().end_object();
    }
    json.end_array().key("sparse").begin_array();
    for (const auto& s : plan.sparse)
      json.begin_object().key("layer").value(w.layers[static_cast<std::size_t>(s.layer)].name)
          .key("rows").value(s.rows).key("bytes").value(s.bytes.bytes())
          .key("ids_bytes").value(s.index_bytes().bytes()).end_object();
    json.end_array().end_object();
    json.key("calibration").begin_object();
    json.key("compute_efficiency").value(w.calibration.compute_efficiency);
    json.key("memory_efficiency").value(w.calibration.memory_efficiency);
    json.key("half_batch").value(w.calibration.half_batch);
    json.key("borrowed_from").value(w.calibration.borrowed_from);
    json.key("source").value(w.calibration.measured.source);
    json.end_object();
    json.key("device_checks").begin_array();
    // Why the batch does not fit the device's memory (the estimate `ceiling run` refuses it by),
    // null where it fits.
    auto write_shortfall = [&](const std::string& over_memory) {
      json.key("memory_shortfall");
      if (over_memory.empty())
        json.null();
      else
        json.value(over_memory);
    };
    auto write_check = [&](const DeviceCheck& c, const char* role) {
      json.begin_object().key("role").value(role).key("platform").value(c.platform)
          .key("device").value(c.device).key("batch").value(c.measured.batch)
          .key("accumulation").value(c.measured.accumulation)
          .key("predicted_samples_per_s").value(c.predicted_samples_per_s)
          .key("measured_samples_per_s").value(c.measured.samples_per_second)
          .key("relative_error").value(c.relative_error())
          .key("half_batch").value(c.half_batch)
          .key("own_half_batch").value(c.own_half_batch)
          .key("exceeds_device_memory").value(!c.over_memory.empty());
      write_shortfall(c.over_memory);
      json.key("calibration_framework"); // (the workload's own `framework` is its free-text description)
      if (c.framework.empty())
        json.null();
      else
        json.value(c.framework);
      json.end_object();
    };
    if (w.calibration.borrowed_from.empty())
      write_check(calibrated, "calibration");
    else // the lender's measurement, of another model: nothing of this workload to compare
      json.begin_object().key("role").value("borrowed calibration").key("lender").value(w.calibration.borrowed_from)
          .key("platform").value(calibrated.platform).key("device").value(calibrated.device)
          .key("batch").value(calibrated.measured.batch).key("accumulation").value(calibrated.measured.accumulation)
          .key("lender_measured_samples_per_s")
          .value(calibrated.measured.samples_per_second).key("calibration_framework").null().end_object();
    for (const auto& c : device_calibrations)
      write_check(c, "device calibration");
    for (const auto& v : validations)
      write_check(v, "validation");
    json.end_array();
    if (on) {
      json.key("prediction").begin_object().key("platform").value(on->name);
      json.key("device").value(workload::compute_device(on->node).name).key("batch").value(w.batch_per_worker);
      json.key("per_precision").begin_object();
      for (const auto& row : rows) {
        json.key(platform::to_string(row.precision));
        if (!row.iteration) {
          json.null();
          continue;
        }
        json.begin_object().key("iteration_time_s").value(row.iteration->total().seconds())
            .key("forward_s").value(row.iteration->forward.seconds())
            .key("backward_s").value(row.iteration->backward.seconds())
            .key("optimizer_s").value(row.iteration->optimizer.seconds())
            .key("samples_per_s").value(row.iteration->samples_per_second(w.batch_per_worker))
            .key("exceeds_device_memory").value(!row.over_memory.empty());
        write_shortfall(row.over_memory);
        json.key("calibration").value(row.calibration);
        json.end_object();
      }
      json.end_object().end_object();
    }
    json.end_object();
    return 0;
  }

  std::cout << "workload      " << w.title << " (" << w.name << "), " << w.domain << "\n"
            << "framework     " << w.framework << "\n"
            << "dataset       " << w.dataset << "\n"
            << "batch         " << w.batch_per_worker << " " << w.sample << "s per worker, "
            << platform::to_string(w.precision) << ", " << w.layers.size() << " "
            << w.granularity << "s (" << estimated << " estimated)\n"
            << "parameters    " << workload::total_params(w) << frozen_note(w) << "; gradient " << to_string(dense)
            << " dense + " << to_string(sparse) << " sparse (rows) + " << to_string(sparse_ids)
            << " of their ids per iteration (" << plan.sparse.size() << " embedding tables)\n"
            << "FLOPs/sample  forward " << to_string(workload::total_forward(w)) << ", backward "
            << to_string(workload::total_backward(w)) << "\n";
  std::printf("intensity     %.1f FLOP/B (forward, batch %d, weights read once)\n", intensity,
              w.batch_per_worker);
  std::cout << "input/sample  " << to_string(w.input_per_sample) << " host -> device\n";
  std::cout << "buckets       " << plan.dense.size() << " dense at a " << to_string(plan.threshold)
            << " threshold, in the order backward fills them:\n";
  for (std::size_t i = 0; i < plan.dense.size(); ++i) {
    const auto& b = plan.dense[i];
    std::cout << "  #" << i << "  " << to_string(b.bytes) << ", " << b.layers.size()
              << " layers, " << w.layers[static_cast<std::size_t>(b.layers.front())].name
              << " .. " << w.layers[static_cast<std::size_t>(b.layers.back())].name << "\n";
  }
  std::printf("calibration   compute efficiency %.4f, memory efficiency %.2f, half batch %g%s\n",
              w.calibration.compute_efficiency, w.calibration.memory_efficiency, w.calibration.half_batch,
              w.calibration.borrowed_from.empty()
                  ? ""
                  : (" (borrowed from " + w.calibration.borrowed_from + ")").c_str());
  std::cout << "  source      " << w.calibration.measured.source << "\n";
  const auto print_check = [&](const DeviceCheck& c, const char* role) {
    std::printf(
        "%-13s %s, %s%s, %s%s: predicted %.4g, measured %.4g %s/s (%+.2f %%)\n", role,
        c.platform.c_str(), c.device.c_str(),
        c.framework.empty() ? "" : (" under " + c.framework).c_str(), c.measured.batch_text().c_str(),
        c.own_half_batch ? (" (half batch " + units::number_text(c.half_batch) + ")").c_str() : "",
        c.predicted_samples_per_s, c.measured.samples_per_second, w.sample.c_str(),
        100 * c.relative_error());
    if (!c.over_memory.empty())
      std::printf("              (%s)\n", c.over_memory.c_str());
  };
  if (w.calibration.borrowed_from.empty())
    print_check(calibrated, "calibrated on");
  else // another model's measurement: no prediction of this workload compares with it
    std::printf("lender's data %s's measurement on %s, %s, %s: %.4g of its samples/s (none of this workload)\n",
                w.calibration.borrowed_from.c_str(), calibrated.platform.c_str(), calibrated.device.c_str(),
                calibrated.measured.batch_text().c_str(), calibrated.measured.samples_per_second);
  for (const auto& c : device_calibrations)
    print_check(c, "calibrated on");
  for (const auto& v : validations)
    print_check(v, "validation");
  if (on) {
    std::cout << "one device of " << on->name << " ("
              << workload::compute_device(on->node).name << "), batch " << w.batch_per_worker
              << ", no communication:\n";
    std::printf("  %-9s %12s %12s %12s %12s %14s\n", "precision", "iteration", "forward",
                "backward", "optimizer", "throughput");
    for (const auto& row : rows) {
      if (!row.iteration) {
        std::printf("  %-9s %s\n", platform::to_string(row.precision).data(), "(no peak at this precision)");
        continue;
      }
      std::printf("  %-9s %10.4g s %10.4g s %10.4g s %10.4g s %10.4g %s/s\n",
                  platform::to_string(row.precision).data(), row.iteration->total().seconds(),
                  row.iteration->forward.seconds(), row.iteration->backward.seconds(),
                  row.iteration->optimizer.seconds(),
                  row.iteration->samples_per_second(w.batch_per_worker), w.sample.c_str());
      std::printf("  %-9s (priced by %s)\n", "", row.calibration.c_str());
      if (!row.over_memory.empty())
        std::printf("  %-9s (%s)\n", "", row.over_memory.c_str());
    }
  }
  return 0;
}

int calibrate(const std::vector<std::string>& args) {
  po::options_description options("options");
  options.add_options()("write", "replace compute_efficiency in the file with the fitted value, or add it under its "
                                  "section's header where the section has none");
  const auto cli = parse_command_line(
      args, "workload FILE",
      "usage: ceiling workload calibrate FILE [--write]\n\n"
      "Finds the compute efficiency with which the calibration device ([calibration] platform)\n"
      "reproduces the measured single-device throughput, given the memory efficiency, and the\n"
      "same for each [[device_calibration]] on its own platform; --write writes them in.\n",
      options);
  if (!cli)
    return 0;
  // (each device calibration's device checked; a compute_efficiency still to write is no error)
  const WorkloadSpec w = config::load_workload_to_calibrate(cli->file);
  // The fitted values: [calibration]'s (unless borrowed), then each [[device_calibration]]'s in
  // the file's order (a device calibration's at its own half batch, where it has one).
  std::vector<std::string> values;
  for (const workload::FittedCalibration& f : workload::fitted_calibrations(w)) {
    const workload::Measurement& m = *f.measured;
    const auto device = workload::compute_device(config::load_platform(m.platform_path).node);
    std::string why;
    const auto precision = workload::compute_precision_of(w, f.mode);
    const auto efficiency =
        workload::calibrate_compute_efficiency(w, device, precision, m, f.efficiency, why);
    if (!efficiency)
      throw config::key_error(config::parse_toml_file(cli->file), cli->file, f.key + ".measured_throughput",
                              "cannot calibrate on " + device.name + ": " + why);
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", *efficiency);
    std::cout << w.name << ": compute_efficiency = " << value << " on " << device.name
              << (f.mode.empty() ? "" : " in " + f.mode)
              << (f.framework.empty() ? "" : " under " + f.framework) << " (measured "
              << m.samples_per_second << " " << w.sample << "s/s at " << m.batch_text() << ")\n";
    values.emplace_back(value);
  }
  if (values.empty())
    throw UsageError(cli->file + ": the calibration is borrowed from " + w.calibration.borrowed_from +
                     " and there is no [[device_calibration]]; calibrate that workload instead");
  if (!cli->has("write"))
    return 0;
  const std::string before = config::read_input_file(cli->file);
  const auto places = config::efficiency_places(before, cli->file);
  // Each value goes where the file's TOML puts that section's compute_efficiency (its value's
  // columns, the rest of the line kept), or on a line of its own under the section's header;
  // the last first, so that the earlier lines stay where they are.
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < before.size();) {
    const std::size_t end = std::min(before.find('\n', at), before.size());
    lines.push_back(before.substr(at, end - at));
    at = end + 1;
  }
  std::vector<std::size_t> order(places.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return places[a].line > places[b].line; });
  for (const std::size_t v : order) {
    const config::EfficiencyPlace& at = places[v];
    if (at.line < 1 || static_cast<std::size_t>(at.line) > lines.size())
      throw UsageError(cli->file + ": a [calibration] or [[device_calibration]] without a header line of its own (an "
                       "inline table, dotted keys) and without compute_efficiency: write it as a section, or give the key");
    std::string& line = lines[static_cast<std::size_t>(at.line - 1)];
    if (at.given)
      line.replace(static_cast<std::size_t>(at.begin - 1), static_cast<std::size_t>(at.end - at.begin), values[v]);
    else
      lines.insert(lines.begin() + at.line, "compute_efficiency = " + values[v] + " # fitted by `ceiling workload calibrate --write`");
  }
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i)
    text += lines[i] + (i + 1 < lines.size() || before.ends_with('\n') ? "\n" : "");
  // What is written must load and hold the fitted values where they belong (else the file is
  // left as it was).
  const WorkloadSpec written = config::load_workload_text(text, cli->file);
  std::vector<double> read_back;
  for (const workload::FittedCalibration& f : workload::fitted_calibrations(written))
    read_back.push_back(f.efficiency.compute);
  for (std::size_t v = 0; v < values.size(); ++v)
    if (v >= read_back.size() || read_back[v] != std::stod(values[v]))
      throw UsageError(cli->file + ": could not write compute_efficiency = " + values[v] + " where it belongs; the file "
                       "is left as it was");
  io::AtomicOutput out(cli->file);
  out.stream() << text;
  out.commit();
  std::cout << "wrote " << cli->file << "\n";
  return 0;
}

} // namespace

int workload_command(const std::vector<std::string>& args) {
  return dispatch("workload", args, {{"show", show},{"calibrate", calibrate}});
}

} // namespace ceiling::tools
