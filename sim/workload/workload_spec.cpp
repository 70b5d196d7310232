// Totals over a workload's layers.
#include "workload/workload_spec.hpp"

namespace ceiling::workload {

double element_bytes(platform::Precision p) {
  switch (p) {
  case platform::Precision::Fp64: return 8;
  case platform::Precision::Fp32: return 4;
  case platform::Precision::Fp16: return 2;
  }
  return 4;
}

long long total_params(const WorkloadSpec& w) {
  long long sum = 0;
  for (const LayerSpec& layer : w.layers)
    sum += layer.params;
  return sum;
}

long long total_trained_params(const WorkloadSpec& w) {
  long long sum = 0;
  for (const LayerSpec& layer : w.layers)
    sum += layer.trained_params();
  return sum;
}

units::Flops total_forward(const WorkloadSpec& w) {
  units::Flops sum;
  for (const LayerSpec& layer : w.layers)
    sum = sum + layer.forward_per_sample;
  return sum;
}

units::Flops total_backward(const WorkloadSpec& w) {
  units::Flops sum;
  for (const LayerSpec& layer : w.layers)
    sum = sum + layer.backward_per_sample;
  return sum;
}

} // namespace ceiling::workload
