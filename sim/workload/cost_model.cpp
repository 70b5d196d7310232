// Roofline per layer and the one-dimensional calibration search.
#include "workload/cost_model.hpp"

#include "units/parse.hpp"

#include <algorithm>
#include <cstdio>

namespace ceiling::workload {

DeviceRates compute_device(const platform::NodeSpec& node) {
  if (node.gpu)
    return {node.gpu->model.empty() ? "GPU" : node.gpu->model, node.gpu->model, node.gpu->calibration_device,
            node.gpu->peak, node.gpu->memory_bandwidth};
  return {std::to_string(node.cpu.sockets) + (node.cpu.model.empty() ? " CPU socket(s)" : " x " + node.cpu.model),
          node.cpu.model, "", node.cpu.peak_per_socket.scaled(node.cpu.sockets),
          node.cpu.memory_bandwidth_per_socket * node.cpu.sockets};
}

platform::Precision compute_precision_of(const WorkloadSpec& w, std::string_view mode) {
  if (mode.empty())
    return w.precision;
  return *platform::precision_from_string(mode == "mixed" ? "fp16" : mode);
}

std::vector<FittedCalibration> fitted_calibrations(const WorkloadSpec& w) {
  std::vector<FittedCalibration> fitted;
  if (w.calibration.borrowed_from.empty())
    fitted.push_back({&w.calibration.measured, "", "", efficiency_of(w.calibration), "calibration"});
  for (std::size_t k = 0; k < w.device_calibrations.size(); ++k) {
    const DeviceCalibration& c = w.device_calibrations[k];
    fitted.push_back({&c.measured, c.precision, c.framework, efficiency_of(w.calibration, c),
                      "device_calibration[" + std::to_string(k) + "]"});
  }
  return fitted;
}

ChosenEfficiency efficiency_for(const WorkloadSpec& w, const DeviceRates& device, std::string_view mode,
                                std::string_view framework) {
  ChosenEfficiency chosen{efficiency_of(w.calibration)};
  // A calibration without precision is in the workload's own. The device's own model before its
  // stand-in; for each, among its calibrations that compute in the run's precision (mixed and
  // fp16 both compute in fp16: they differ in the gradients' precision, not in the device's
  // work), the one measured under the run's framework, else one naming no framework, else
  // another framework's (the same model runs 1.8 times as fast under one framework's kernels as
  // under another's, where the modes differ by nothing the device computes); within each, one
  // in the run's mode before one in another; then the first listed.
  const auto mode_of = [&](const DeviceCalibration& c) {
    return c.precision.empty() ? platform::to_string(w.precision) : std::string_view(c.precision);
  };
  const auto rank = [&](const DeviceCalibration& c) {
    const int by_framework = !framework.empty() && c.framework == framework ? 2 : c.framework.empty() ? 1 : 0;
    return 2 * by_framework + (mode_of(c) == mode ? 1 : 0);
  };
  const auto computes = compute_precision_of(w, mode);
  // Where neither the device nor the workload's own calibration computes in the run's precision,
  // the device's own calibration in another precision, at the same efficiency of the run's peak:
  // that device's kernels rather than another device's (VGG16 in mixed precision on a P100,
  // priced by the V100 fit it borrows, came out slower than in fp32 on its P100 fit; in fp64,
  // 4.8 times slower for a peak half as high). Never a half-precision fit for another precision:
  // it is a fraction of a tensor-core peak that fp32 and fp64 do not have (a V100's mixed fit
  // put fp64 at a sixth of fp32's rate).
  const auto find = [&](bool other_precision) {
    const auto fits = [&](const DeviceCalibration& c) {
      const auto measured = compute_precision_of(w, mode_of(c));
      return other_precision ? measured != platform::Precision::Fp16 : measured == computes;
    };
    for (const std::string& name : {device.model, device.stand_in}) {
      if (name.empty())
        continue;
      for (const auto& c : w.device_calibrations)
        if (c.device == name && fits(c) && (!chosen.device_calibration || rank(c) > rank(*chosen.device_calibration)))
          chosen.device_calibration = &c;
      if (chosen.device_calibration)
        return;
    }
  };
  find(false);
  if (!chosen.device_calibration && w.calibration.precision != computes)
    find(true);
  if (chosen.device_calibration) {
    chosen.efficiency = efficiency_of(w.calibration, *chosen.device_calibration);
    chosen.measured_in = compute_precision_of(w, mode_of(*chosen.device_calibration));
  } else {
    chosen.measured_in = w.calibration.precision;
  }
  return chosen;
}

std::string calibration_notes(const WorkloadSpec& w, const ChosenEfficiency& chosen, const platform::NodeSpec& node,
                              std::string_view mode, platform::Precision computes) {
  std::string notes;
  if (chosen.measured_in != computes)
    notes = ", measured in " + std::string(platform::to_string(chosen.measured_in)) + ": " + std::string(mode) +
            " is uncalibrated (the same efficiency at the " + std::string(platform::to_string(computes)) + " peak)";
  if (chosen.device_calibration)
    return notes;
  const auto device = compute_device(node);
  if (!device.stand_in.empty())
    notes += "; node.gpu.calibration_device \"" + device.stand_in +
             "\" names no calibration of this workload in this precision";
  // A model left unnamed (platform files may) is never known to be the fit's.
  const std::string& fitted = w.calibration.device;
  if (!fitted.empty() && device.model == fitted)
    return notes;
  if (!node.gpu)
    notes += ", fitted on " + std::string(w.calibration.device_is_gpu ? "a GPU" : "another CPU") +
             ": uncalibrated on these CPU nodes (the fit's efficiencies at the CPU sockets' peak and memory bandwidth)";
  else if (!fitted.empty()) // (a fit whose GPU is unnamed: nothing to tell of this one)
    notes += ", fitted on " + fitted + ": uncalibrated on this GPU (the fit's efficiencies at its peak and memory "
                                       "bandwidth)";
  return notes;
}

std::string efficiency_above_one_note(const WorkloadSpec& w, double compute_efficiency) {
  if (!(compute_efficiency > 1))
    return "";
  char efficiency[32];
  std::snprintf(efficiency, sizeof efficiency, "%.3g", compute_efficiency);
  const bool convolutions = std::any_of(w.layers.begin(), w.layers.end(), [](const LayerSpec& l) {
    return l.kind.starts_with("conv");
  });
  const char* why = convolutions ? "the workload counts direct-convolution FLOPs where the library "
                                   "ran Winograd or FFT convolutions, which do fewer"
                                 : "the workload counts more FLOPs than the device computes";
  return "; compute efficiency " + std::string(efficiency) + ", above 1: " + why +
         ", so its FLOP/s exceed the peak";
}

LayerTime layer_time(const WorkloadSpec& w, const LayerSpec& layer, int batch,
                     units::FlopRate peak, units::Bandwidth memory_bandwidth,
                     platform::Precision precision, Efficiency efficiency) {
  const double b = batch;
  const double occupied = b + efficiency.half_batch; // the compute-bound terms' batch (Efficiency)
  const double compute_rate = peak.flop_per_second() * efficiency.compute;
  const double memory_rate = memory_bandwidth.bytes_per_second() * efficiency.memory;
  const double s = element_bytes(precision);
  const double activations = layer.memory_per_sample.bytes() * s / element_bytes(w.precision);
  const double weights = static_cast<double>(layer.params) * s;
  const double forward = std::max(occupied * layer.forward_per_sample.flop() / compute_rate,
                                  (b * activations + weights) / memory_rate);
  // Backward reads the weights for the data gradient and writes the weight gradient; a frozen
  // layer writes none, and with no backward FLOPs (no gradient below it either) does nothing.
  const bool idle = layer.frozen && layer.backward_per_sample.flop() == 0;
  const double backward =
      idle ? 0.0
           : std::max(occupied * layer.backward_per_sample.flop() / compute_rate,
                      (2 * b * activations + (layer.frozen ? 1 : 2) * weights) / memory_rate);
  return {units::Duration::from_seconds(forward), units::Duration::from_seconds(backward)};
}

std::optional<DeviceIteration> device_iteration(const WorkloadSpec& w, const DeviceRates& device,
                                                platform::Precision precision, int batch,
                                                Efficiency efficiency) {
  const auto peak = device.peak.at(precision);
  if (!peak)
    return std::nullopt;
  DeviceIteration it;
  for (const LayerSpec& layer : w.layers) {
    const LayerTime t = layer_time(w, layer, batch, *peak, device.memory_bandwidth, precision, efficiency);
    it.forward = it.forward + t.forward;
    it.backward = it.backward + t.backward;
  }
  it.optimizer = optimizer_time(w, device, efficiency);
  return it;
}

units::Duration optimizer_time(const WorkloadSpec& w, const DeviceRates& device, Efficiency efficiency) {
  return units::Duration::from_seconds(static_cast<double>(total_trained_params(w)) * w.optimizer_per_parameter.bytes() /
                                       (device.memory_bandwidth.bytes_per_second() * efficiency.memory));
}

std::optional<double> calibrate_compute_efficiency(const WorkloadSpec& w, const DeviceRates& device,
                                                   platform::Precision precision,
                                                   const Measurement& measured, Efficiency fixed,
                                                   std::string& why) {
  const double measured_samples_per_s = measured.samples_per_second;
  const auto rate = [&](double compute_efficiency) {
    return device_iteration(w, device, precision, measured.batch,
                            {compute_efficiency, fixed.memory, fixed.half_batch})
        ->samples_per_second(measured.batch, measured.accumulation);
  };
  if (!device.peak.at(precision)) {
    why = device.name + " has no " + std::string(platform::to_string(precision)) + " peak";
    return std::nullopt;
  }
  if (rate(max_compute_efficiency) < measured_samples_per_s) {
    why = "even at " + std::to_string(static_cast<int>(100 * max_compute_efficiency)) +
          " % of peak compute the model predicts " + std::to_string(rate(max_compute_efficiency)) +
          " samples/s, below the measured " + std::to_string(measured_samples_per_s) +
          ": the memory-bound layers alone are too slow (raise memory_efficiency or check the "
          "layer bytes" + std::string(fixed.half_batch > 0 ? " and half_batch, which slows a batch below it" : "") + ")";
    return std::nullopt;
  }
  if (rate(min_compute_efficiency) > measured_samples_per_s) {
    why = "even at a compute efficiency of " + units::number_text(min_compute_efficiency) + " the model predicts " + units::number_text(rate(min_compute_efficiency)) +
          " samples/s, above the measured " + units::number_text(measured_samples_per_s) +
          ": check the measured throughput, its batch and its unit";
    return std::nullopt;
  }
  // Throughput rises monotonically with the compute efficiency: bisect on it.
  double low = min_compute_efficiency;
  double high = max_compute_efficiency;
  while ((high - low) > 1e-12 * high) {
    const double mid = 0.5 * (low + high);
    (rate(mid) < measured_samples_per_s ? low : high) = mid;
  }
  return high;
}

} // namespace ceiling::workload
