// Bucket planning in backward order.
#include "workload/gradient_buckets.hpp"

#include <algorithm>

namespace ceiling::workload {

BucketPlan plan_buckets(const WorkloadSpec& w, const std::vector<int>& forward_order,
                        units::DataSize threshold, platform::Precision precision, int batch) {
  BucketPlan plan;
  plan.threshold = threshold;
  const double bytes_per_element = element_bytes(precision);
  GradientBucket current;
  for (auto it = forward_order.rbegin(); it != forward_order.rend(); ++it) {
    const LayerSpec& layer = w.layers[static_cast<std::size_t>(*it)];
    if (layer.params == 0)
      continue;
    if (layer.embedding) {
      const double rows = std::min(layer.embedding->rows_per_sample * batch,
                                   static_cast<double>(layer.embedding->rows));
      const double row_elements = static_cast<double>(layer.params) / layer.embedding->rows;
      plan.sparse.push_back(
          {*it, units::DataSize::from_bytes(rows * row_elements * bytes_per_element)});
      continue;
    }
    const auto bytes = units::DataSize::from_bytes(static_cast<double>(layer.params) * bytes_per_element);
    if (!current.layers.empty() && current.bytes + bytes > threshold) {
      plan.dense.push_back(std::move(current));
      current = {};
    }
    current.layers.push_back(*it);
    current.bytes = current.bytes + bytes;
  }
  if (!current.layers.empty())
    plan.dense.push_back(std::move(current));
  return plan;
}

} // namespace ceiling::workload
