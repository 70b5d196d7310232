// What one node of a platform offers the HPC workloads: measured kernel rates, memories, PCIe,
// message overheads and the peaks that TOP500 counts.
#pragma once

#include "platform/platform_spec.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace ceiling::hpc {

/// Rates are per node (all sockets, all GPUs), in SI units: flop/s, bytes/s, seconds, bytes.
struct NodeKernels {
  double cpu_dgemm_flop_per_s = 0;   ///< node.cpu.dgemm x sockets
  double cpu_stream_bytes_per_s = 0;  ///< node.cpu.stream_bandwidth x sockets
  int cpu_cores = 0;
  bool gpu = false;
  int gpus = 0;
  double gpu_dgemm_flop_per_s = 0;   ///< node.gpu.dgemm x count
  double gpu_stream_bytes_per_s = 0;  ///< node.gpu.stream_bandwidth x count
  double gpu_memory_bytes = 0;  ///< bytes, all GPUs
  int gpu_multiprocessors = 0; ///< all GPUs
  double host_to_device_bytes_per_s = 0;
  double device_to_host_bytes_per_s = 0;
  double copy_s = 0;      ///< what a copy pays besides its bytes: PCIe latency + the copy call's overhead
  double host_memory_bytes = 0; ///< bytes; 0 when the platform does not give it
  double message_overhead_s = 0; ///< MPI's send + receive overhead per message (node.nic)
  bool gpu_direct = false;       ///< the NIC reads and writes GPU memory (node.nic)
  double peak_flop_per_s = 0;        ///< fp64 peak of the node as the model runs it (GPU boost clock)
  std::optional<double> base_clock_peak_flop_per_s; ///< fp64 peak as TOP500 counts it (GPU base clock)

  /// Seconds of one host->device or device->host copy of `bytes` (0 bytes: nothing).
  double to_device_s(double bytes) const { return bytes > 0 ? copy_s + bytes / host_to_device_bytes_per_s : 0; }
  double to_host_s(double bytes) const { return bytes > 0 ? copy_s + bytes / device_to_host_bytes_per_s : 0; }
  /// Cores as TOP500's "Total Cores" counts them: CPU cores + GPU streaming multiprocessors.
  int top500_cores() const { return cpu_cores + gpu_multiprocessors; }
};

/// What a workload needs of the platform file.
enum class Needs { Dgemm, Stream };

/// A run refused for one key of a file, which the command locates there: the platform's
/// ("node.cpu.dgemm") or the HPC workload's ("hpl.grid_rows"); what() says why.
struct KeyRefusal : std::invalid_argument {
  enum class File { Platform, Workload };
  KeyRefusal(File file_, std::string key_, const std::string& why)
      : std::invalid_argument(why), file(file_), key(std::move(key_)) {}
  File file;
  std::string key;
};

/// A platform key the workload needs that the platform does not give.
struct MissingRate : KeyRefusal {
  MissingRate(std::string key_, const std::string& why) : KeyRefusal(File::Platform, std::move(key_), why) {}
};

/// The node's kernels; throws MissingRate for a platform key that is missing: HPL needs the
/// CPU's DGEMM and STREAM rates (its panel) and, on a GPU node, the GPU's DGEMM; HPCG the STREAM
/// rate of the device it runs on, the GPU's on a GPU node, else the CPU's.
NodeKernels node_kernels(const platform::NodeSpec& node, Needs needs);

} // namespace ceiling::hpc
