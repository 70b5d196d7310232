// Gradient buckets: sizes, order, thresholds smaller than the largest layer, sparse gradients.
#include "workload/device_memory.hpp"
#include "workload/gradient_buckets.hpp"
#include "workload/layer_graph.hpp"

#include <doctest/doctest.h>

using namespace ceiling;
using namespace ceiling::workload;

namespace {

/// A chain of layers with these parameter counts (fp32: 4 bytes each).
WorkloadSpec chain(const std::vector<long long>& params) {
  WorkloadSpec w;
  for (std::size_t i = 0; i < params.size(); ++i) {
    LayerSpec layer{.name = "l" + std::to_string(i), .params = params[i]};
    if (i > 0)
      layer.after = {static_cast<int>(i) - 1};
    w.layers.push_back(layer);
  }
  return w;
}

std::vector<int> forward(const WorkloadSpec& w) { return LayerGraph(w.layers).topological_order(); }

units::DataSize bytes(double b) { return units::DataSize::from_bytes(b); }

} // namespace

TEST_CASE("buckets fill in reverse layer order and close before the threshold is passed") {
  const WorkloadSpec w = chain({10, 20, 0, 30, 40}); // 40, 80, 0, 120, 160 bytes
  // Expectation: backward order l4 (160), l3 (120), l1 (80), l0 (40); threshold 300:
  // 160 + 120 = 280 fits, + 80 = 360 does not -> {l4, l3}, {l1, l0}.
  const auto plan = plan_buckets(w, forward(w), bytes(300), platform::Precision::Fp32, 1);
  REQUIRE(plan.dense.size() == 2);
  CHECK(plan.dense[0].layers == std::vector<int>{4, 3});
  CHECK(plan.dense[0].bytes.bytes() == 280);
  CHECK(plan.dense[1].layers == std::vector<int>{1, 0});
  CHECK(plan.dense[1].bytes.bytes() == 120);
  CHECK(plan.sparse.empty());
}

TEST_CASE("a layer larger than the threshold gets a bucket of its own") {
  const WorkloadSpec w = chain({10, 1000, 10}); // 40, 4000, 40 bytes
  const auto plan = plan_buckets(w, forward(w), bytes(100), platform::Precision::Fp32, 1);
  REQUIRE(plan.dense.size() == 3);
  CHECK(plan.dense[0].layers == std::vector<int>{2});
  CHECK(plan.dense[1].layers == std::vector<int>{1});
  CHECK(plan.dense[1].bytes.bytes() == 4000);
  CHECK(plan.dense[2].layers == std::vector<int>{0});
}

TEST_CASE("the bucket bytes add up to the dense gradient at the gradient precision") {
  const WorkloadSpec w = chain({7, 11, 13, 17});
  for (auto [precision, size] : {std::pair{platform::Precision::Fp32, 4}, {platform::Precision::Fp16, 2}}) {
    const auto plan = plan_buckets(w, forward(w), bytes(64.0 * 1024 * 1024), precision, 1);
    REQUIRE(plan.dense.size() == 1); // everything fits one default-size bucket
    CHECK(plan.dense[0].bytes.bytes() == 48.0 * size);
  }
}

TEST_CASE("embedding gradients are sparse: a row per lookup and its id, or each row once where the lookup makes them unique") {
  WorkloadSpec w = chain({1000, 64});
  w.layers[0].embedding = EmbeddingSpec{.rows = 100, .rows_per_sample = 3};
  // Expectation: 10 elements per row; batch 8 looks up 24 rows = 960 bytes and 24 int32 ids = 96.
  const auto small = plan_buckets(w, forward(w), bytes(1e9), platform::Precision::Fp32, 8);
  REQUIRE(small.sparse.size() == 1);
  CHECK(small.sparse[0].layer == 0);
  CHECK(small.sparse[0].bytes.bytes() == 960);
  CHECK(small.sparse[0].index_bytes().bytes() == 96);
  CHECK(small.dense.size() == 1);
  CHECK(small.dense[0].layers == std::vector<int>{1});
  // Batch 64 looks up 192 rows of a 100-row table: a gather's gradient keeps the repeats, 7,680
  // bytes and 768 of ids; a unique lookup's holds the table at most, 4,000 bytes, 800 of int64 ids.
  const auto large = plan_buckets(w, forward(w), bytes(1e9), platform::Precision::Fp32, 64);
  CHECK(large.sparse[0].bytes.bytes() == 7680);
  CHECK(large.sparse[0].index_bytes().bytes() == 768);
  w.layers[0].embedding->unique_rows = true;
  w.layers[0].embedding->id_bytes = 8;
  const auto unique = plan_buckets(w, forward(w), bytes(1e9), platform::Precision::Fp32, 64);
  CHECK(unique.sparse[0].bytes.bytes() == 4000);
  CHECK(unique.sparse[0].index_bytes().bytes() == 800);
}

TEST_CASE("a rank holds the largest all-gathered embedding gradient: every rank's rows and ids of that table") {
  WorkloadSpec w = chain({1000, 64, 2000});
  CHECK(gathered_gradient(w, 16, platform::Precision::Fp32, 8).bytes() == 0); // no embedding table
  w.layers[0].embedding = EmbeddingSpec{.rows = 100, .rows_per_sample = 3}; // 10 elements a row
  w.layers[2].embedding = EmbeddingSpec{.rows = 50, .rows_per_sample = 1};  // 40 elements a row
  // Expectation, batch 8 on 16 ranks: the first table 24 rows x 40 B + 24 x 4 B of ids = 1,056 B a
  // rank, the third 8 x 160 + 8 x 4 = 1,312 B: the largest, 16 x 1,312 gathered. In fp16, 24 x 20
  // + 96 = 576 and 8 x 80 + 32 = 672: 16 x 672.
  CHECK(gathered_gradient(w, 16, platform::Precision::Fp32, 8).bytes() == 16 * 1312.0);
  CHECK(gathered_gradient(w, 16, platform::Precision::Fp16, 8).bytes() == 16 * 672.0);
}

TEST_CASE("DDP fills buckets in parameter order, the first to its own limit, each closed once it reaches its limit") {
  const WorkloadSpec w = chain({10, 20, 0, 30, 40}); // 40, 80, 0, 120, 160 bytes
  // Expectation (reducer.cpp compute_bucket_assignment_by_size): first limit 100, then 200:
  // l0 (40) + l1 (80) = 120 >= 100 closes {l0, l1}; l3 (120) + l4 (160) = 280 >= 200 closes
  // {l3, l4}. Reversed into backward order: {l4, l3} (280), then {l1, l0} (120).
  const auto plan = plan_buckets_ddp(w, forward(w), bytes(100), bytes(200), platform::Precision::Fp32, 1);
  REQUIRE(plan.dense.size() == 2);
  CHECK(plan.dense[0].layers == std::vector<int>{4, 3});
  CHECK(plan.dense[0].bytes.bytes() == 280);
  CHECK(plan.dense[1].layers == std::vector<int>{1, 0});
  CHECK(plan.dense[1].bytes.bytes() == 120);
  // A first limit of 1 byte: the first layer alone is the first bucket, reduced last.
  const auto small = plan_buckets_ddp(w, forward(w), bytes(1), bytes(1000), platform::Precision::Fp32, 1);
  REQUIRE(small.dense.size() == 2);
  CHECK(small.dense.back().layers == std::vector<int>{0});
}

TEST_CASE("DDP's rebuilt buckets fill in the order gradients become ready, the first to its own limit") {
  const WorkloadSpec w = chain({10, 20, 0, 30, 40}); // 40, 80, 0, 120, 160 bytes
  // Expectation (Reducer::rebuild_buckets: compute_bucket_assignment_by_size over the ready
  // order l4, l3, l1, l0): first limit 100: l4 (160) closes {l4}; then 200: l3 (120) + l1 (80)
  // = 200 closes {l3, l1}; {l0} (40) is left, reduced last.
  const auto plan = plan_buckets_ddp(w, forward(w), bytes(100), bytes(200), platform::Precision::Fp32, 1, true);
  REQUIRE(plan.dense.size() == 3);
  CHECK(plan.dense[0].layers == std::vector<int>{4});
  CHECK(plan.dense[0].bytes.bytes() == 160);
  CHECK(plan.dense[1].layers == std::vector<int>{3, 1});
  CHECK(plan.dense[1].bytes.bytes() == 200);
  CHECK(plan.dense[2].layers == std::vector<int>{0});
  CHECK(plan.dense[2].bytes.bytes() == 40);
}

TEST_CASE("a frozen layer gets no gradient: no bucket holds it, whichever way buckets fill") {
  WorkloadSpec w = chain({10, 20, 30}); // 40, 80, 120 bytes
  w.layers[1].frozen = true;
  // Expectation: l2 (120) and l0 (40) alone, 160 bytes; l1's 80 bytes nowhere.
  const auto plan = plan_buckets(w, forward(w), bytes(1000), platform::Precision::Fp32, 1);
  REQUIRE(plan.dense.size() == 1);
  CHECK(plan.dense[0].layers == std::vector<int>{2, 0});
  CHECK(plan.dense[0].bytes.bytes() == 160);
  const auto ddp = plan_buckets_ddp(w, forward(w), bytes(1000), bytes(1000), platform::Precision::Fp32, 1, false);
  REQUIRE(ddp.dense.size() == 1);
  CHECK(ddp.dense[0].bytes.bytes() == 160);
  CHECK(total_params(w) == 60);
  CHECK(total_trained_params(w) == 40);
}
