// Time of a layer on one device: a roofline per layer, with calibrated efficiencies.
#pragma once

#include "workload/workload_spec.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ceiling::workload {

/// Peak rates of one compute device: a GPU, or all CPU sockets of a node without GPU.
struct DeviceRates {
  std::string name;
  std::string model; ///< the GPU's or CPU's model name, which device calibrations name ("" if not given)
  /// Another model whose device calibrations price it where none names its own (the GPU's
  /// node.gpu.calibration_device); "" if none.
  std::string stand_in;
  platform::PeakRates peak;
  units::Bandwidth memory_bandwidth;
};

/// The device a node computes on: its GPU when it has one, else its CPU sockets together.
DeviceRates compute_device(const platform::NodeSpec& node);

/// Fractions of peak the device achieves on this workload. A device's compute rate saturates
/// with the batch: a batch of B runs at compute x B / (B + half_batch) of peak (an occupancy
/// model: small batches leave the device partly idle and pay per-kernel costs), so its
/// compute-bound time is (B + half_batch) x FLOPs / (peak x compute), a constant per iteration
/// plus a cost per sample, and its throughput B / (a + b B). half_batch 0: no batch dependence.
struct Efficiency {
  double compute = 1;
  double memory = 1;
  double half_batch = 0;
};

/// The efficiencies of a calibration.
inline Efficiency efficiency_of(const CalibrationSpec& c) {
  return {c.compute_efficiency, c.memory_efficiency, c.half_batch};
}

/// The efficiencies of device calibration `d` of a workload calibrated by `c`: its compute
/// efficiency, and its half batch where it has one, `c`'s memory efficiency (and half batch).
inline Efficiency efficiency_of(const CalibrationSpec& c, const DeviceCalibration& d) {
  return {d.compute_efficiency, c.memory_efficiency, d.half_batch.value_or(c.half_batch)};
}

/// A compute efficiency of a workload file that `ceiling workload calibrate` fits.
struct FittedCalibration {
  const Measurement* measured;
  std::string mode;      ///< the precision mode it was measured in ("": the workload's own)
  std::string framework; ///< the framework it was measured under ("": none named)
  Efficiency efficiency; ///< what it prices with: the fitted compute efficiency, its half batch
  std::string key;       ///< its section in the file: "calibration", "device_calibration[K]"
};
/// Those of `w`: its own [calibration]'s (none where borrowed: the lender's), then each
/// [[device_calibration]]'s, in the file's order.
std::vector<FittedCalibration> fitted_calibrations(const WorkloadSpec& w);

/// The efficiencies a run uses on `device` in precision mode `mode` ("fp32", "mixed", ...) under
/// `framework` (its software stack's; empty: none named): the workload's [[device_calibration]]
/// for that device's model when it has one in the run's compute precision
/// (`device_calibration` points at it), else for its stand-in's, else its own calibration's
/// where that computes in the run's precision, else the device's (or its stand-in's)
/// [[device_calibration]] in fp32 or fp64 (never a half-precision one for another precision: its
/// efficiency is of a tensor-core peak), else its own calibration's, whatever its precision (no
/// bundled workload's own is in half precision); the last two at the same efficiency of the run's
/// peak. Of several: the one measured under `framework`, else one naming no framework, else
/// another framework's; within each, one in the run's mode before one in another; then the first
/// listed.
struct ChosenEfficiency {
  Efficiency efficiency;
  const DeviceCalibration* device_calibration = nullptr;
  /// The precision the chosen calibration computed in: where it is not the run's, the run's
  /// precision is uncalibrated (the same efficiency at its peak).
  platform::Precision measured_in = platform::Precision::Fp32;
};
ChosenEfficiency efficiency_for(const WorkloadSpec& w, const DeviceRates& device, std::string_view mode,
                                std::string_view framework);

/// What a run on `node` in mode `mode`, computing in `computes`, says of the calibration `chosen`
/// where it was not measured on that device in that precision (empty where it was), as `run` and
/// `workload show` say it:
/// - measured in another precision: ", measured in fp32: mixed is uncalibrated (the same
///   efficiency at the fp16 peak)";
/// - a GPU's stand-in that no calibration covers: "; node.gpu.calibration_device "X" names no
///   calibration of this workload in this precision";
/// - the workload's own fit, on a CPU node of another model (or an unnamed one): ", fitted on a
///   GPU: uncalibrated on these CPU nodes (...)" (", fitted on another CPU: ..." for a CPU's fit);
/// - on a GPU of another model than the fit's: ", fitted on MODEL: uncalibrated on this GPU (...)"
///   (nothing where the fit's GPU is unnamed).
std::string calibration_notes(const WorkloadSpec& w, const ChosenEfficiency& chosen, const platform::NodeSpec& node,
                              std::string_view mode, platform::Precision computes);

/// What a run says of a compute efficiency above 1 (empty at 1 or below): the workload counts
/// more FLOPs than the device computes, so its delivered FLOP/s exceed the peak; for a workload
/// with convolutions, because it counts direct convolutions where cuDNN ran Winograd or FFT
/// ones (README, "The workload suite": VGG16's 1.58 on the P100 SXM2).
std::string efficiency_above_one_note(const WorkloadSpec& w, double compute_efficiency);

/// The precision a device computes in for precision mode `mode` ("fp32", "mixed", ...; empty: the
/// workload's own): mixed precision computes in fp16 (its fp32 gradients are not compute).
platform::Precision compute_precision_of(const WorkloadSpec& w, std::string_view mode);

/// Time of one layer for a batch on one device at `precision` (a roofline):
///   forward  = max((B + h) F / (peak e_c), (B M + P s) / (bw e_m))
///   backward = max((B + h) F_b / (peak e_c), (2 B M + 2 P s) / (bw e_m))
/// with h the half batch (Efficiency), F, F_b the FLOPs and M the memory bytes per sample, P the parameters, s the element
/// size at `precision` (M is scaled from the workload's precision). Backward reads and writes
/// twice the forward's activation bytes and reads weights and writes gradients: an assumption
/// of this model, not a measurement.
struct LayerTime {
  units::Duration forward;
  units::Duration backward;
};
LayerTime layer_time(const WorkloadSpec& w, const LayerSpec& layer, int batch,
                     units::FlopRate peak, units::Bandwidth memory_bandwidth,
                     platform::Precision precision, Efficiency efficiency);

/// One training iteration of `w` on one device, no communication, input already on the
/// device (as in AI Matrix's synthetic-input runs): forward, backward, optimizer update
/// (params x optimizer bytes per parameter at the memory bandwidth).
struct DeviceIteration {
  units::Duration forward;
  units::Duration backward;
  units::Duration optimizer;
  units::Duration total() const { return forward + backward + optimizer; }
  /// Steps of `batch` samples, `accumulation` of them per optimizer update (gradient accumulation:
  /// forward and backward each step, the update once after the last).
  double samples_per_second(int batch, int accumulation = 1) const {
    return static_cast<double>(batch) * accumulation /
           (accumulation * (forward + backward).seconds() + optimizer.seconds());
  }
};

/// The optimizer update: every parameter's optimizer bytes through device memory.
units::Duration optimizer_time(const WorkloadSpec& w, const DeviceRates& device, Efficiency efficiency);

/// nullopt when the device has no peak at `precision`.
std::optional<DeviceIteration> device_iteration(const WorkloadSpec& w, const DeviceRates& device,
                                                platform::Precision precision, int batch,
                                                Efficiency efficiency);

/// Largest compute efficiency accepted: FLOPs are counted as direct convolutions, and a framework
/// that uses Winograd or FFT convolutions does fewer multiplications, so the measured rate can
/// exceed the peak in these units (SSD300-VGG16 on the V100: 101 %).
inline constexpr double max_compute_efficiency = 2.0;
/// Smallest compute and memory efficiencies accepted: 0.01 % of the device's peak, far below any
/// measured (the least bundled fit is 5 % of a peak), so that a slip of units is caught.
inline constexpr double min_compute_efficiency = 1e-4;
inline constexpr double min_memory_efficiency = 1e-4;

/// The compute efficiency in [min_compute_efficiency, max_compute_efficiency] with which `device`
/// reproduces `measured`'s throughput at its batch and accumulation, given the memory efficiency
/// and half batch of `fixed` (its compute is not read); solved by bisection to a relative 1e-12.
/// Returns nullopt with `why` set when no allowed efficiency is fast enough (the memory-bound part
/// alone is slower than the measurement) or the device lacks `precision`.
std::optional<double> calibrate_compute_efficiency(const WorkloadSpec& w, const DeviceRates& device,
                                                   platform::Precision precision,
                                                   const Measurement& measured, Efficiency fixed,
                                                   std::string& why);

} // namespace ceiling::workload
