// The device-memory lower bound of a training job.
#include "workload/device_memory.hpp"

#include "units/parse.hpp"
#include "workload/gradient_buckets.hpp"
#include "workload/layer_graph.hpp"

#include <algorithm>
#include <vector>

namespace ceiling::workload {

namespace {

/// The layers' outputs per sample, at the workload's precision: the lesser of two counts, each
/// exact where the layers' memory bytes count as it assumes. Half the sum of the memory bytes
/// (each layer counts its input and its output, one layer's output the next one's input: a
/// chain); and each layer's memory bytes less the outputs of the layers it reads (the sample's
/// for a first layer), at least 0 (a layer that counts every input it reads: a join's inputs
/// are the outputs of its predecessors, which half the sum counts twice; ResNet-50 v1: 65 MB
/// where half the sum gives 77).
double output_bytes_per_sample(const WorkloadSpec& w) {
  double half = 0;
  std::vector<double> output(w.layers.size(), 0.0);
  double outputs = 0;
  for (const int layer : LayerGraph(w.layers).topological_order()) { // (a file may list a layer before what it reads)
    const auto l = static_cast<std::size_t>(layer);
    const double memory = w.layers[l].memory_per_sample.bytes();
    half += memory / 2;
    double inputs = w.layers[l].after.empty() ? w.input_per_sample.bytes() : 0.0;
    for (int before : w.layers[l].after)
      inputs += output[static_cast<std::size_t>(before)];
    output[l] = std::max(0.0, memory - inputs);
    outputs += output[l];
  }
  return std::min(half, outputs);
}

} // namespace

DeviceMemory device_memory(const WorkloadSpec& w, int batch, platform::Precision compute,
                           platform::Precision gradients, OptimizerState state) {
  const auto params = static_cast<double>(total_params(w));
  const double master = element_bytes(gradients) > element_bytes(compute) ? element_bytes(gradients) : 0.0;
  const double outputs = output_bytes_per_sample(w) * element_bytes(compute) / element_bytes(w.precision);
  // (the optimizer's master copy only of the parameters it updates)
  const auto trained = static_cast<double>(total_trained_params(w));
  const double state_bytes = state == OptimizerState::OnDevice ? w.optimizer_state_per_parameter.bytes() : 0.0;
  return {.weights = units::DataSize::from_bytes(params * element_bytes(compute) + trained * master),
          .gradients = units::DataSize::from_bytes(trained * element_bytes(gradients)),
          .optimizer_state = units::DataSize::from_bytes(trained * state_bytes),
          .activations = units::DataSize::from_bytes(outputs * batch),
          .inputs = units::DataSize::from_bytes(w.input_per_sample.bytes() * batch)};
}

units::DataSize gathered_gradient(const WorkloadSpec& w, double ranks, platform::Precision gradients, int batch) {
  double largest = 0;
  for (std::size_t i = 0; i < w.layers.size(); ++i)
    if (w.layers[i].embedding) {
      const auto g = sparse_gradient(w.layers[i], static_cast<int>(i), element_bytes(gradients), batch);
      largest = std::max(largest, ranks * (g.bytes.bytes() + g.index_bytes().bytes()));
    }
  return units::DataSize::from_bytes(largest);
}

std::string parts_text(const DeviceMemory& need) {
  std::string text = "weights " + units::to_string(need.weights) + ", gradients " + units::to_string(need.gradients) +
                     ", optimizer state " + units::to_string(need.optimizer_state) + ", activations " +
                     units::to_string(need.activations) + ", inputs " + units::to_string(need.inputs);
  if (need.gathered.bytes() > 0)
    text += ", gathered embedding gradients " + units::to_string(need.gathered);
  return text;
}

std::optional<MemoryCapacity> memory_capacity(const platform::NodeSpec& node) {
  if (node.gpu)
    return MemoryCapacity{node.gpu->memory, "GPU", "device memory", "the " + node.gpu->model};
  if (node.cpu.host_memory)
    return MemoryCapacity{*node.cpu.host_memory, "node", "host memory", "the node's host memory (node.cpu.host_memory)"};
  return std::nullopt;
}

std::optional<std::string> memory_shortfall(const DeviceMemory& need, const WorkloadSpec& w, int batch,
                                            const MemoryCapacity& capacity) {
  if (need.total().bytes() <= capacity.bytes.bytes())
    return std::nullopt;
  return "a batch of " + std::to_string(batch) + " samples of " + w.name + " per " + capacity.per + " needs at least " +
         units::to_string(need.total()) + " of " + capacity.kind + " (" + parts_text(need) + "), more than the " +
         units::to_string(capacity.bytes) + " of " + capacity.holder;
}

} // namespace ceiling::workload
