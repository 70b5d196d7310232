// What a training job holds in one device's memory, estimated from the workload's layers.
#pragma once

#include "platform/platform_spec.hpp"
#include "units/quantity.hpp"
#include "workload/workload_spec.hpp"

#include <optional>
#include <string>

namespace ceiling::workload {

/// A lower bound of one rank's device memory: what training must hold at once, with nothing a
/// framework adds (cuDNN workspaces, allocator slack, the CUDA context, a prefetched next batch,
/// which the workload files do not give).
/// - weights: every parameter at the compute precision, plus an fp32 master copy when gradients
///   are kept in a wider precision (mixed precision);
/// - gradients: every parameter at the gradient precision;
/// - optimizer state: the workload's state per trained parameter (momentum, Adam's m and v), where
///   the rank applies the update itself (not where parameter servers do);
/// - activations: each layer's output kept for backward, `batch` samples, at the compute
///   precision: a layer's memory bytes count its inputs and its output, so its output is its
///   memory bytes less its inputs' layers' outputs; the sum of these, or half the memory bytes
///   of all layers (a chain's count, one layer's output the next one's input), the lesser;
/// - inputs: the batch being computed, `batch` times the input bytes per sample;
/// - gathered embedding gradients, where the stack all-gathers them (gathered_gradient): the
///   largest table's rows and ids from every rank, the all-gather's result, which the framework
///   holds whole to apply it (Horovod's allgather of TensorFlow's IndexedSlices).
/// A batch whose estimate exceeds the device's memory cannot run; one within it may still not.
struct DeviceMemory {
  units::DataSize weights;
  units::DataSize gradients;
  units::DataSize optimizer_state;
  units::DataSize activations;
  units::DataSize inputs;
  units::DataSize gathered;
  units::DataSize total() const { return weights + gradients + optimizer_state + activations + inputs + gathered; }
};

/// The parts of `need`, as messages list them: "weights 102.2 MB, gradients ..., inputs 38.54
/// MB" (and the gathered embedding gradients where there are any).
std::string parts_text(const DeviceMemory& need);

/// Where the rank keeps the optimizer's state: on its device when it updates its own weights,
/// not when parameter servers apply the update.
enum class OptimizerState : bool { OnDevice, OnServers };

DeviceMemory device_memory(const WorkloadSpec& w, int batch, platform::Precision compute,
                           platform::Precision gradients, OptimizerState state);

/// The largest all-gathered embedding gradient a rank holds: over the embedding layers of `w`
/// (those the stack exchanges sparse), `ranks` times the rows a batch of `batch` touches, at
/// the gradient precision, and their ids; zero without embedding layers.
units::DataSize gathered_gradient(const WorkloadSpec& w, double ranks, platform::Precision gradients, int batch);

/// The memory one rank's estimate must fit: a GPU's device memory, or on CPU nodes (one rank
/// each) the node's host memory.
struct MemoryCapacity {
  units::DataSize bytes;
  std::string per;    ///< what holds one rank's share: "GPU" or "node"
  std::string kind;   ///< "device memory" or "host memory"
  std::string holder; ///< "the NVIDIA Tesla P100 PCIe 16 GB", "the node's host memory (node.cpu.host_memory)"
};

/// The capacity of `node`'s computing device; none for a CPU node whose file gives no host_memory.
std::optional<MemoryCapacity> memory_capacity(const platform::NodeSpec& node);

/// Why `need`, for `batch` samples of `w` per rank, exceeds `capacity` (the reason `ceiling run`
/// refuses such a batch with); nothing where it fits.
std::optional<std::string> memory_shortfall(const DeviceMemory& need, const WorkloadSpec& w, int batch,
                                            const MemoryCapacity& capacity);

} // namespace ceiling::workload
