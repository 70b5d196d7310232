// The value types that describe one training workload: layers, gradients, calibration.
#pragma once

#include "platform/platform_spec.hpp"
#include "units/quantity.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::workload {

/// Bytes of one element at precision `p`: 8, 4 or 2.
double element_bytes(platform::Precision p);

/// An embedding table: its gradient touches only the rows a batch looked up.
struct EmbeddingSpec {
  long long rows = 0;            ///< rows of the table; params / rows elements per row
  double rows_per_sample = 0;    ///< rows one sample looks up, repeats included
  /// The lookup makes the batch's ids unique first (TensorFlow's embedding_lookup_sparse, which
  /// feature columns use: tensorflow/python/ops/embedding_ops.py, array_ops.unique), so that its
  /// gradient holds each row once; else a gather (tf.gather, tf.nn.embedding_lookup), whose
  /// gradient holds a row per lookup, repeats kept (array_grad.py _GatherV2Grad).
  bool unique_rows = false;
  int id_bytes = 4;              ///< bytes of one looked-up id: 4 (int32) or 8 (int64)
  bool operator==(const EmbeddingSpec&) const = default;
  /// The rows of the sparse gradient of a batch of `batch` samples: rows_per_sample x batch,
  /// at most the table's rows where the lookup makes them unique (an upper bound then).
  double gradient_rows(int batch) const {
    const double looked_up = rows_per_sample * batch;
    return unique_rows ? std::min(looked_up, static_cast<double>(rows)) : looked_up;
  }
};

/// One layer (or block of layers) of the model, per sample.
struct LayerSpec {
  std::string name;
  std::string kind;
  units::Flops forward_per_sample;
  units::Flops backward_per_sample;
  units::DataSize memory_per_sample;   ///< forward reads + writes at the workload's precision
  long long params = 0;
  /// Its trainable variables' parameter counts in creation order (they sum to params), where
  /// the layer holds several (an Inception module); empty: one variable of params. A
  /// parameter server places each whole.
  std::vector<long long> tensors;
  std::vector<int> after;              ///< indices of the layers this one depends on
  std::optional<EmbeddingSpec> embedding;
  /// Its parameters are not trained (a frozen layer, or one the loss never reaches): no gradient
  /// is exchanged or applied; its weights still take memory and are read in the forward pass.
  bool frozen = false;
  bool estimated = false;
  bool operator==(const LayerSpec&) const = default;
  /// The parameters that get a gradient: params, 0 when frozen.
  long long trained_params() const { return frozen ? 0 : params; }
};

/// A single-device throughput measurement.
struct Measurement {
  std::string platform_path;           ///< platform file whose device was measured
  double samples_per_second = 0;
  int batch = 0;
  /// Steps (of `batch` samples) per optimizer update in the measured run: gradient accumulation
  /// spreads one update over them (BERT pre-training's single-GPU figures: 8,192 steps of 4).
  int accumulation = 1;
  std::string source;
  bool operator==(const Measurement&) const = default;
  /// "batch 4", or "batch 4, one update per 8192 steps" where the run accumulated gradients.
  std::string batch_text() const {
    return "batch " + std::to_string(batch) +
           (accumulation > 1 ? ", one update per " + std::to_string(accumulation) + " steps" : "");
  }
};

/// How the compute model was fitted on one device (or borrowed from another workload).
struct CalibrationSpec {
  Measurement measured;
  double memory_efficiency = 1;        ///< achieved / peak memory bandwidth, an input
  double compute_efficiency = 1;       ///< achieved / peak FLOP rate, the fitted value
  /// Samples: the batch at which the device reaches half its saturated compute rate (cost_model.hpp,
  /// Efficiency); fitted on throughputs at several batch sizes, 0 where none are known.
  double half_batch = 0;
  /// The precision the measurement computed in: the workload's own, or its lender's when borrowed.
  platform::Precision precision = platform::Precision::Fp32;
  /// The model of the device measured (its platform's GPU, else its CPU), and whether it is a GPU:
  /// another device runs uncalibrated on this fit (calibration_notes).
  std::string device;
  bool device_is_gpu = true;
  std::string borrowed_from;           ///< workload name when borrowed, else empty
  bool operator==(const CalibrationSpec&) const = default;
};

/// A file that loading a workload file read besides it: a workload its calibration is borrowed
/// from, or the platform of a device measured (its calibration's, a device calibration's).
struct FileRead {
  std::string kind; ///< "calibration lender" (a workload) or "calibration platform"
  std::string path;
  bool operator==(const FileRead&) const = default;
};

/// A compute efficiency fitted on one more device, used instead of the workload's calibration
/// when a run's device is that one (its model name, node.gpu.model, or node.cpu.model on nodes
/// without GPUs, equal to `device`): the single-device measurements of other devices (a P100
/// SXM2, a K80, a Xeon node) price this model there.
struct DeviceCalibration {
  std::string device;              ///< the GPU's (or CPU-only node's processor's) model name
  /// The precision mode measured ("fp32", "fp16", "mixed": fp16 compute, fp32 gradients); it
  /// applies to runs in that mode, and to runs in a mode computing in the same precision that
  /// no calibration of their own covers (efficiency_for). Empty: the workload's precision.
  std::string precision;
  /// The framework whose code was measured (one of framework_names): a run whose software stack
  /// names it takes this calibration before another framework's for the same device and mode
  /// (the same model runs at another speed under another framework's kernels). Empty: not named.
  std::string framework;
  Measurement measured;
  double compute_efficiency = 1;   ///< fitted by `ceiling workload calibrate --write`
  /// Its own batch curve (CalibrationSpec::half_batch), where the device's data gives one in this
  /// mode; else the workload's calibration's.
  std::optional<double> half_batch;
  bool operator==(const DeviceCalibration&) const = default;
  /// What was measured beside the device, as messages say it: " in mixed under pytorch", or less.
  std::string conditions() const {
    return (precision.empty() ? std::string() : " in " + precision) + (framework.empty() ? std::string() : " under " + framework);
  }
};

/// The frameworks a device calibration and a software stack may name (their `framework` key).
inline constexpr std::array<std::string_view, 5> framework_names{"caffe", "caffe2", "mxnet", "pytorch", "tensorflow"};

/// Published totals the layers must add up to.
struct ReferenceTotals {
  long long params = 0;
  units::Flops forward_per_sample;
  std::string source;
  bool operator==(const ReferenceTotals&) const = default;
};

/// The most samples per worker a workload file or an option may ask for.
inline constexpr long long max_batch_per_worker = 10'000'000;
/// The most steps per optimizer update a measurement may state (Measurement::accumulation).
inline constexpr long long max_accumulation = 1'000'000;

/// One model's data-parallel training job, as read from a workload file.
struct WorkloadSpec {
  std::string name;
  std::string title;
  std::string domain;
  std::string framework;
  std::string dataset;
  std::string sample;                  ///< what one sample is: "image", "sequence"
  int batch_per_worker = 1;
  platform::Precision precision = platform::Precision::Fp32;
  std::string granularity;             ///< "layer" or "block"
  units::DataSize input_per_sample;
  units::DataSize optimizer_per_parameter;
  /// What the optimizer keeps per trained parameter between steps (momentum 4 B, Adam's m and v
  /// 8 B, plain SGD none): device memory where the workers update, none on a parameter server's.
  units::DataSize optimizer_state_per_parameter;
  std::string source;
  ReferenceTotals reference;
  std::vector<LayerSpec> layers;
  CalibrationSpec calibration;
  std::vector<Measurement> validations;
  std::vector<DeviceCalibration> device_calibrations;
  /// Every other file its loading read, each once, in the order read (a lender's own after it):
  /// inputs of a run as much as the file itself (a sweep's digest; no output may write over them).
  std::vector<FileRead> files_read;
  bool operator==(const WorkloadSpec&) const = default;
};

/// Totals over the layers.
long long total_params(const WorkloadSpec& w);
long long total_trained_params(const WorkloadSpec& w); ///< those with a gradient (LayerSpec::trained_params)
units::Flops total_forward(const WorkloadSpec& w);
units::Flops total_backward(const WorkloadSpec& w);

} // namespace ceiling::workload
