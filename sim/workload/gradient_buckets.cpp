// Bucket planning in backward order.
#include "workload/gradient_buckets.hpp"

#include <algorithm>

namespace ceiling::workload {

SparseGradient sparse_gradient(const LayerSpec& layer, int index, double bytes_per_element, int batch) {
  const EmbeddingSpec& table = *layer.embedding;
  const double rows = table.gradient_rows(batch);
  const double row_elements = static_cast<double>(layer.params) / static_cast<double>(table.rows);
  return {index, rows, units::DataSize::from_bytes(rows * row_elements * bytes_per_element), table.id_bytes};
}

BucketPlan plan_buckets(const WorkloadSpec& w, const std::vector<int>& forward_order,
                        units::DataSize threshold, platform::Precision precision, int batch) {
  BucketPlan plan;
  plan.threshold = threshold;
  const double bytes_per_element = element_bytes(precision);
  GradientBucket current;
  for (auto it = forward_order.rbegin(); it != forward_order.rend(); ++it) {
    const LayerSpec& layer = w.layers[static_cast<std::size_t>(*it)];
    if (layer.trained_params() == 0)
      continue;
    if (layer.embedding) {
      plan.sparse.push_back(sparse_gradient(layer, *it, bytes_per_element, batch));
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

BucketPlan plan_buckets_ddp(const WorkloadSpec& w, const std::vector<int>& forward_order, units::DataSize first_limit,
                            units::DataSize limit, platform::Precision precision, int batch, bool rebuilt) {
  BucketPlan plan;
  plan.threshold = limit;
  const double bytes_per_element = element_bytes(precision);
  std::vector<int> order = forward_order;
  if (rebuilt) // the order the gradients become ready
    std::reverse(order.begin(), order.end());
  GradientBucket current;
  for (int index : order) {
    const LayerSpec& layer = w.layers[static_cast<std::size_t>(index)];
    if (layer.trained_params() == 0)
      continue;
    if (layer.embedding) {
      plan.sparse.push_back(sparse_gradient(layer, index, bytes_per_element, batch));
      continue;
    }
    if (rebuilt)
      current.layers.push_back(index);
    else
      current.layers.insert(current.layers.begin(), index); // kept in backward order
    current.bytes = current.bytes + units::DataSize::from_bytes(static_cast<double>(layer.params) * bytes_per_element);
    if (!(current.bytes < (plan.dense.empty() ? first_limit : limit))) {
      plan.dense.push_back(std::move(current));
      current = {};
    }
  }
  if (!current.layers.empty())
    plan.dense.push_back(std::move(current));
  if (!rebuilt) { // into backward order
    std::reverse(plan.dense.begin(), plan.dense.end());
    std::reverse(plan.sparse.begin(), plan.sparse.end());
  }
  return plan;
}

} // namespace ceiling::workload
