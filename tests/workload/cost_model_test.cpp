// The roofline per layer and the calibration search, against closed forms.
#include "workload/cost_model.hpp"
#include "workload/device_memory.hpp"

#include <doctest/doctest.h>

using namespace ceiling;
using namespace ceiling::workload;

namespace {

WorkloadSpec one_layer(double flop, double memory_bytes, long long params) {
  WorkloadSpec w{.precision = platform::Precision::Fp32,
                 .optimizer_per_parameter = units::DataSize::from_bytes(20)};
  w.layers.push_back({.name = "l",
                      .forward_per_sample = units::Flops::from_flop(flop),
                      .backward_per_sample = units::Flops::from_flop(2 * flop),
                      .memory_per_sample = units::DataSize::from_bytes(memory_bytes),
                      .params = params});
  return w;
}

DeviceRates device(double peak_fp32, double fp16, double bandwidth) {
  return {.name = "d",
          .peak = {.fp32 = units::FlopRate::from_flop_per_second(peak_fp32),
                   .fp16 = units::FlopRate::from_flop_per_second(fp16)},
          .memory_bandwidth = units::Bandwidth::from_bytes_per_second(bandwidth)};
}

} // namespace

TEST_CASE("a compute-bound layer takes batch x FLOPs over the efficient peak") {
  const WorkloadSpec w = one_layer(1e9, 1e6, 1000);
  const auto t = layer_time(w, w.layers[0], 10, units::FlopRate::from_flop_per_second(1e12),
                            units::Bandwidth::from_bytes_per_second(1e11),
                            platform::Precision::Fp32, {.compute = 0.5, .memory = 0.8});
  // Expectation: forward 10 x 1e9 / (0.5 x 1e12) = 0.02 s (memory: (1e7 + 4e3) / 8e10 = 1.25e-4 s);
  // backward twice the FLOPs: 0.04 s.
  CHECK(t.forward.seconds() == doctest::Approx(0.02).epsilon(1e-12));
  CHECK(t.backward.seconds() == doctest::Approx(0.04).epsilon(1e-12));
}

TEST_CASE("a memory-bound layer takes its bytes over the efficient bandwidth") {
  const WorkloadSpec w = one_layer(1e3, 1e6, 1000);
  const auto at = [&](platform::Precision p) {
    return layer_time(w, w.layers[0], 10, units::FlopRate::from_flop_per_second(1e12),
                      units::Bandwidth::from_bytes_per_second(1e11), p, {.compute = 0.5, .memory = 0.8});
  };
  // Expectation: forward (10 x 1e6 + 1000 x 4) / (0.8 x 1e11); backward twice the bytes.
  CHECK(at(platform::Precision::Fp32).forward.seconds() == doctest::Approx(10.004e6 / 8e10).epsilon(1e-12));
  CHECK(at(platform::Precision::Fp32).backward.seconds() == doctest::Approx(2 * 10.004e6 / 8e10).epsilon(1e-12));
  // At fp16 activations and weights take half the bytes.
  CHECK(at(platform::Precision::Fp16).forward.seconds() == doctest::Approx(5.002e6 / 8e10).epsilon(1e-12));
}

TEST_CASE("a frozen layer writes no weight gradient, and with no backward FLOPs does nothing backward") {
  WorkloadSpec w = one_layer(1e3, 1e6, 1000);
  w.layers[0].frozen = true;
  const auto at = [&] {
    return layer_time(w, w.layers[0], 10, units::FlopRate::from_flop_per_second(1e12),
                      units::Bandwidth::from_bytes_per_second(1e11), platform::Precision::Fp32,
                      {.compute = 0.5, .memory = 0.8});
  };
  // Expectation: forward as a trained layer's, (10 x 1e6 + 1000 x 4) / 8e10; backward reads the
  // weights once for the data gradient: (2 x 10 x 1e6 + 1000 x 4) / 8e10.
  CHECK(at().forward.seconds() == doctest::Approx(10.004e6 / 8e10).epsilon(1e-12));
  CHECK(at().backward.seconds() == doctest::Approx(20.004e6 / 8e10).epsilon(1e-12));
  w.layers[0].backward_per_sample = units::Flops::from_flop(0);
  CHECK(at().backward.seconds() == 0);
  // The optimizer updates no frozen parameter: the iteration is forward alone.
  const auto it = device_iteration(w, device(1e12, 4e12, 1e11), platform::Precision::Fp32, 10,
                                   {.compute = 0.5, .memory = 0.8});
  REQUIRE(it.has_value());
  CHECK(it->total().seconds() == doctest::Approx(10.004e6 / 8e10).epsilon(1e-12));
}

TEST_CASE("one device's iteration adds forward, backward and the optimizer update") {
  const WorkloadSpec w = one_layer(1e9, 1e6, 1000);
  const auto it = device_iteration(w, device(1e12, 4e12, 1e11), platform::Precision::Fp32, 10,
                                   {.compute = 0.5, .memory = 0.8});
  REQUIRE(it.has_value());
  // Expectation: 0.02 + 0.04 + 1000 x 20 B / 8e10 B/s.
  CHECK(it->total().seconds() == doctest::Approx(0.06 + 2.5e-7).epsilon(1e-12));
  CHECK(it->samples_per_second(10) == doctest::Approx(10 / (0.06 + 2.5e-7)).epsilon(1e-12));
  CHECK_FALSE(device_iteration(w, device(1e12, 4e12, 1e11), platform::Precision::Fp64, 10, {}).has_value());
}

TEST_CASE("calibration recovers the compute efficiency that produced a throughput") {
  WorkloadSpec w = one_layer(4e9, 2e6, 25'000'000);
  w.layers.push_back({.name = "bn", .memory_per_sample = units::DataSize::from_bytes(8e6)});
  const auto d = device(15.7e12, 125e12, 900e9);
  for (double truth : {0.05, 0.37, 0.93}) {
    CAPTURE(truth);
    const double measured =
        device_iteration(w, d, platform::Precision::Fp32, 64, {truth, 0.68})->samples_per_second(64);
    std::string why;
    const auto fitted = calibrate_compute_efficiency(w, d, platform::Precision::Fp32,
                                                     {.samples_per_second = measured, .batch = 64},
                                                     {.memory = 0.68}, why);
    REQUIRE(fitted.has_value());
    CHECK(*fitted == doctest::Approx(truth).epsilon(1e-9));
  }
}

TEST_CASE("gradient accumulation counts the optimizer update once per its steps") {
  const DeviceIteration it{.forward = units::Duration::from_seconds(0.1),
                           .backward = units::Duration::from_seconds(0.2),
                           .optimizer = units::Duration::from_seconds(0.3)};
  // Expectation: 4 samples a step; 8 steps of 0.3 s and one update of 0.3 s carry 32 samples.
  CHECK(it.samples_per_second(4) == doctest::Approx(4 / 0.6).epsilon(1e-12));
  CHECK(it.samples_per_second(4, 1) == doctest::Approx(4 / 0.6).epsilon(1e-12));
  CHECK(it.samples_per_second(4, 8) == doctest::Approx(32 / 2.7).epsilon(1e-12));
}

TEST_CASE(
    "calibration on a run that accumulates gradients recovers the efficiency that produced it") {
  // A compute-bound step whose optimizer update takes four tenths as long: counted every step, the
  // fit would be far off. (Step: 4 x 1.2e11 FLOP at 40 % of 15.7 TFLOP/s, 76.4 ms, above the
  // weights' 6.5 + 13.1 ms through memory; update: 1e9 x 20 B at 68 % of 900 GB/s, 32.7 ms.)
  const WorkloadSpec w = one_layer(4e10, 2e6, 1'000'000'000);
  const auto d = device(15.7e12, 125e12, 900e9);
  const Measurement measured_run{.batch = 4, .accumulation = 8192};
  const auto it = device_iteration(w, d, platform::Precision::Fp32, 4, {0.4, 0.68});
  REQUIRE(it.has_value());
  REQUIRE(it->optimizer.seconds() > 0.4 * (it->forward + it->backward).seconds());
  Measurement m = measured_run;
  m.samples_per_second = it->samples_per_second(4, 8192);
  std::string why;
  const auto fitted =
      calibrate_compute_efficiency(w, d, platform::Precision::Fp32, m, {.memory = 0.68}, why);
  REQUIRE(fitted.has_value());
  CHECK(*fitted == doctest::Approx(0.4).epsilon(1e-9));
  m.accumulation = 1; // the same rate read as one update a step: a faster device than it was
  const auto one_update_a_step =
      calibrate_compute_efficiency(w, d, platform::Precision::Fp32, m, {.memory = 0.68}, why);
  REQUIRE_MESSAGE(one_update_a_step.has_value(), why);
  CHECK(*one_update_a_step > 0.6);
}

TEST_CASE("calibration refuses a throughput the memory-bound part cannot reach") {
  const WorkloadSpec w = one_layer(1, 1e9, 0); // 1 GB per sample: memory-bound
  std::string why;
  CHECK_FALSE(calibrate_compute_efficiency(w, device(1e12, 1e12, 1e11), platform::Precision::Fp32,
                                           {.samples_per_second = 1000, .batch = 1},
                                           {.memory = 1.0}, why)
                  .has_value());
  CHECK(why.starts_with("even at 200 % of peak compute the model predicts"));
}

TEST_CASE("a CPU node computes on all its sockets together") {
  platform::NodeSpec node;
  node.cpu.sockets = 2;
  node.cpu.peak_per_socket.fp64 = units::FlopRate::from_flop_per_second(166.4e9);
  node.cpu.memory_bandwidth_per_socket = units::Bandwidth::from_bytes_per_second(51.2e9);
  const auto d = compute_device(node);
  CHECK(d.peak.fp64->flop_per_second() == 332.8e9);
  CHECK(d.memory_bandwidth.bytes_per_second() == 102.4e9);
}

TEST_CASE("device memory holds weights, gradients and half the layers' bytes per sample, batch times") {
  WorkloadSpec w = one_layer(1e9, 6e6, 1000);
  w.layers.push_back({.name = "m", .memory_per_sample = units::DataSize::from_bytes(2e6), .params = 500});
  using platform::Precision;
  // fp32: 1,500 parameters x 4 B twice; (6 + 2) MB / 2 of outputs per sample, 32 samples.
  const auto fp32 = device_memory(w, 32, Precision::Fp32, Precision::Fp32, OptimizerState::OnDevice);
  CHECK(fp32.weights.bytes() == 1500 * 4);
  CHECK(fp32.gradients.bytes() == 1500 * 4);
  CHECK(fp32.activations.bytes() == 32 * 4e6);
  CHECK(fp32.total().bytes() == 1500 * 8 + 32 * 4e6);
  // Mixed: fp16 weights and an fp32 master copy, fp32 gradients, activations at half the size.
  const auto mixed = device_memory(w, 32, Precision::Fp16, Precision::Fp32, OptimizerState::OnDevice);
  CHECK(mixed.weights.bytes() == 1500 * (2 + 4));
  CHECK(mixed.gradients.bytes() == 1500 * 4);
  CHECK(mixed.activations.bytes() == 32 * 2e6);
}

TEST_CASE("a join's inputs are its predecessors' outputs, kept once for backward") {
  // a reads the 1 MB sample and writes 2 MB (3 MB); b reads a's output and writes 2 MB (4 MB);
  // c adds a's and b's outputs into 2 MB (6 MB). Expectation: the outputs 2 + 2 + 2 = 6 MB per
  // sample, where half the memory bytes (a chain's count) would say 6.5 MB.
  WorkloadSpec w = one_layer(1e9, 3e6, 1000);
  w.input_per_sample = units::DataSize::from_bytes(1e6);
  w.layers.push_back({.name = "b", .memory_per_sample = units::DataSize::from_bytes(4e6), .after = {0}});
  w.layers.push_back({.name = "c", .memory_per_sample = units::DataSize::from_bytes(6e6), .after = {0, 1}});
  const auto m = device_memory(w, 8, platform::Precision::Fp32, platform::Precision::Fp32, OptimizerState::OnDevice);
  CHECK(m.activations.bytes() == doctest::Approx(8 * 6e6).epsilon(1e-12));
  // The same graph listed with the join before one of its inputs: the same outputs.
  std::swap(w.layers[1], w.layers[2]); // c (after a and b) now second, b third
  w.layers[1].after = {0, 2};
  const auto listed = device_memory(w, 8, platform::Precision::Fp32, platform::Precision::Fp32, OptimizerState::OnDevice);
  CHECK(listed.activations.bytes() == doctest::Approx(8 * 6e6).epsilon(1e-12));
}

TEST_CASE("the optimizer's state takes device memory per trained parameter, unless parameter servers update") {
  WorkloadSpec w = one_layer(1e9, 6e6, 1000);
  w.layers.push_back({.name = "m", .memory_per_sample = units::DataSize::from_bytes(2e6), .params = 500, .frozen = true});
  w.optimizer_state_per_parameter = units::DataSize::from_bytes(8); // Adam's m and v in fp32
  w.input_per_sample = units::DataSize::from_bytes(602112);
  using platform::Precision;
  // Expectation: 1,000 trained parameters x 8 B of state (m's 500 are frozen), 32 x 602,112 B of
  // input, on top of weights, gradients and activations.
  const auto own = device_memory(w, 32, Precision::Fp32, Precision::Fp32, OptimizerState::OnDevice);
  CHECK(own.optimizer_state.bytes() == 1000 * 8);
  CHECK(own.inputs.bytes() == 32 * 602112.0);
  CHECK(own.total().bytes() == 1500 * 4 + 1000 * 4 + 1000 * 8 + 32 * 4e6 + 32 * 602112.0);
  const auto served = device_memory(w, 32, Precision::Fp32, Precision::Fp32, OptimizerState::OnServers);
  CHECK(served.optimizer_state.bytes() == 0);
  CHECK(served.total().bytes() == own.total().bytes() - 1000 * 8);
}

TEST_CASE("a frozen layer's parameters take weight memory and no gradient memory") {
  WorkloadSpec w = one_layer(1e9, 6e6, 1000);
  w.layers.push_back({.name = "m", .memory_per_sample = units::DataSize::from_bytes(2e6), .params = 500, .frozen = true});
  using platform::Precision;
  // Expectation: weights 1,500 x 4 B, gradients 1,000 x 4 B (m's 500 are frozen).
  const auto fp32 = device_memory(w, 32, Precision::Fp32, Precision::Fp32, OptimizerState::OnDevice);
  CHECK(fp32.weights.bytes() == 1500 * 4);
  CHECK(fp32.gradients.bytes() == 1000 * 4);
  // Mixed: fp16 weights of all 1,500, an fp32 master copy of the 1,000 the optimizer updates.
  const auto mixed = device_memory(w, 32, Precision::Fp16, Precision::Fp32, OptimizerState::OnDevice);
  CHECK(mixed.weights.bytes() == 1500 * 2 + 1000 * 4);
}
