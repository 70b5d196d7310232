// Gradient buckets: gradients grouped in the order backward produces them (Horovod, DDP).
#pragma once

#include "workload/workload_spec.hpp"

#include <vector>

namespace ceiling::workload {

/// A group of dense gradients reduced together, ready when its last layer's backward ends.
struct GradientBucket {
  std::vector<int> layers;   ///< layer indices, in the order backward finishes them
  units::DataSize bytes;
  bool operator==(const GradientBucket&) const = default;
};

/// A sparse (embedding) gradient, exchanged by all-gather of the rows a batch touched
/// (EmbeddingSpec::gradient_rows) and of their ids.
struct SparseGradient {
  int layer = 0;
  double rows = 0;             ///< per worker and iteration
  units::DataSize bytes;       ///< the rows' values, per worker and iteration
  int id_bytes = 4;            ///< the bytes of a row's id (the gradient's indices)
  bool operator==(const SparseGradient&) const = default;
  /// The rows' ids, per worker and iteration.
  units::DataSize index_bytes() const { return units::DataSize::from_bytes(rows * id_bytes); }
};

/// The sparse gradient of embedding layer `layer` (index `index`), elements of
/// `bytes_per_element`, for a batch of `batch` samples: the rows of its lookups, and their ids.
SparseGradient sparse_gradient(const LayerSpec& layer, int index, double bytes_per_element, int batch);

struct BucketPlan {
  std::vector<GradientBucket> dense; ///< in the order they become ready
  std::vector<SparseGradient> sparse;
  units::DataSize threshold;
};

/// Groups the dense gradients of `w` in reverse `forward_order` (the order backward finishes
/// layers): a bucket is closed before a layer whose gradient would push it past `threshold`,
/// so a layer larger than the threshold gets a bucket of its own. Layers without parameters
/// are skipped. Gradient elements take element_bytes(`precision`); `batch` sizes the sparse
/// gradients (EmbeddingSpec::gradient_rows).
BucketPlan plan_buckets(const WorkloadSpec& w, const std::vector<int>& forward_order,
                        units::DataSize threshold, platform::Precision precision, int batch);

/// PyTorch DDP's buckets (torch/csrc/distributed/c10d/reducer.cpp,
/// compute_bucket_assignment_by_size, 1.7-1.10): the dense gradients in parameter (forward)
/// order, a bucket closed once it reaches its limit (the tensor that reaches it included), the
/// first limited to `first_limit` (kDefaultFirstBucketBytes, 1 MiB), the others to `limit`
/// (bucket_cap_mb); returned in reverse, the order backward makes them ready, so the first
/// bucket, holding the earliest layers, comes last. `rebuilt`: the buckets DDP rebuilds after
/// the first iteration (Reducer::rebuild_buckets, PyTorch 1.6 on: pytorch/pytorch#35137), filled
/// the same way but in the order the gradients became ready (backward), so the first bucket,
/// to `first_limit`, holds the last layers and is reduced first. Sparse gradients as
/// plan_buckets.
BucketPlan plan_buckets_ddp(const WorkloadSpec& w, const std::vector<int>& forward_order, units::DataSize first_limit,
                            units::DataSize limit, platform::Precision precision, int batch, bool rebuilt = false);

} // namespace ceiling::workload
