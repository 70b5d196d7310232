// The device-memory lower bound of a training job.
#include "workload/device_memory.hpp"

#include "units/parse.hpp"

namespace ceiling::workload {

DeviceMemory device_memory(const WorkloadSpec& w, int batch, platform::Precision compute,
                           platform::Precision gradients, OptimizerState state) {
  const auto params = static_cast<double>(total_params(w));
  const double master = element_bytes(gradients) > element_bytes(compute) ? element_bytes(gradients) : 0.0;
  double layer_bytes = 0; // per sample, inputs and outputs, at the workload's precision
  for (const LayerSpec& layer : w.layers)
    layer_bytes += layer.memory_per_sample.bytes();
  const double outputs = layer_bytes / 2 * element_bytes(compute) / element_bytes(w.precision);
  // (the optimizer's master copy only of the parameters it updates)
  const auto trained = static_cast<double>(total_trained_params(w));
  const double state_bytes = state == OptimizerState::OnDevice ? w.optimizer_state_per_parameter.bytes() : 0.0;
  return {.weights = units::DataSize::from_bytes(params * element_bytes(compute) + trained * master),
          .gradients = units::DataSize::from_bytes(trained * element_bytes(gradients)),
          .optimizer_state = units::DataSize::from_bytes(trained * state_bytes),
          .activations = units::DataSize::from_bytes(outputs * batch),
          .inputs = units::DataSize::from_bytes(w.input_per_sample.bytes() * batch)};
}

std::optional<std::string> memory_shortfall(const DeviceMemory& need, const WorkloadSpec& w, int batch,
                                            const platform::GpuSpec& gpu) {
  if (need.total().bytes() <= gpu.memory.bytes())
    return std::nullopt;
  return "a batch of " + std::to_string(batch) + " samples of " + w.name + " per GPU needs at least " +
         units::to_string(need.total()) + " of device memory (weights " + units::to_string(need.weights) +
         ", gradients " + units::to_string(need.gradients) + ", optimizer state " +
         units::to_string(need.optimizer_state) + ", activations " + units::to_string(need.activations) +
         ", inputs " + units::to_string(need.inputs) + "), more than the " + units::to_string(gpu.memory) + " of the " + gpu.model;
}

} // namespace ceiling::workload
