// The replay engine against closed forms, fidelities against each other, and its invariants.
// Every simulation runs in a child process (SimGrid allows one engine per process).
#include "config/platform_file.hpp"
#include "replay/device_spread.hpp"
#include "replay/engine.hpp"
#include "replay/iteration_plan.hpp"

#include "support/edit_text.hpp"
#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

using namespace ceiling;
using replay::Scenario;

namespace {

/// What a child process reports of its run: each iteration's time, the mean breakdown, how
/// many copies the replay shared out itself, and how many flows went through SimGrid, how
/// many the replay timed in closed form and how many it shared out itself.
struct Summary {
  std::vector<double> iteration_s;
  replay::Breakdown breakdown;
  long long link_copies = 0;
  long long transfers = 0;
  long long flows_in_closed_form = 0;
  long long flows_shared = 0;
  long long fan_events = 0; ///< FlowSharing's events on level clocks
};

Summary run_isolated(const Scenario& s) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(fds[0]);
    replay::RunResult r;
    try {
      r = replay::run(s);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      std::_Exit(3);
    }
    const auto m = r.measured_mean();
    std::vector<double> out{static_cast<double>(r.iterations.size())};
    for (const auto& it : r.iterations)
      out.push_back(it.time_s);
    out.insert(out.end(), {m.breakdown.compute_s, m.breakdown.copy_s, m.breakdown.communication_s,
                           m.breakdown.synchronisation_s, static_cast<double>(r.link_copies),
                           static_cast<double>(r.transfers), static_cast<double>(r.flows_in_closed_form),
                           static_cast<double>(r.flows_shared), static_cast<double>(r.sharing.fan_events)});
    const auto bytes = static_cast<ssize_t>(out.size() * sizeof(double));
    std::_Exit(write(fds[1], out.data(), static_cast<std::size_t>(bytes)) == bytes ? 0 : 1);
  }
  close(fds[1]);
  std::vector<double> in(1024);
  std::size_t got = 0; // bytes
  for (ssize_t n; (n = read(fds[0], reinterpret_cast<char*>(in.data()) + got, in.size() * sizeof(double) - got)) > 0;)
    if ((got += static_cast<std::size_t>(n)) == in.size() * sizeof(double))
      in.resize(2 * in.size()); // a long run's iterations
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  Summary summary;
  const auto count = static_cast<std::size_t>(in[0]);
  summary.iteration_s.assign(in.begin() + 1, in.begin() + 1 + static_cast<long>(count));
  const double* b = in.data() + 1 + count;
  summary.breakdown = {b[0], b[1], b[2], b[3]};
  summary.link_copies = static_cast<long long>(b[4]);
  summary.transfers = static_cast<long long>(b[5]);
  summary.flows_in_closed_form = static_cast<long long>(b[6]);
  summary.flows_shared = static_cast<long long>(b[7]);
  summary.fan_events = static_cast<long long>(b[8]);
  return summary;
}

double mean_time(const Summary& s) {
  double sum = 0;
  for (std::size_t i = 1; i < s.iteration_s.size(); ++i)
    sum += s.iteration_s[i];
  return sum / static_cast<double>(s.iteration_s.size() - 1);
}

// Nodes: NIC 12.5 GB/s and 1 us, fabric links 25 GB/s and 100 ns (the NIC is the bottleneck).
std::string platform_text(const std::string& interconnect, int nodes, const std::string& gpus) {
  return "[platform]\nname = \"t\"\nnodes = " + std::to_string(nodes) +
         "\n[node.cpu]\nsockets = 1\ncores_per_socket = 8\npeak_fp64 = \"1 TFLOP/s\"\n"
         "peak_fp32 = \"2 TFLOP/s\"\nmemory_bandwidth = \"100 GB/s\"\n"
         "[node.nic]\nbandwidth = \"12.5 GB/s\"\nlatency = \"1 us\"\ngpu_direct = true\n" + gpus +
         "[interconnect]\nlink_bandwidth = \"25 GB/s\"\nlink_latency = \"100 ns\"\n" + interconnect;
}

std::string gpus(int count, const std::string& pcie_latency = "2 us") {
  return "[node.gpu]\ncount = " + std::to_string(count) +
         "\npeak_fp32 = \"10 TFLOP/s\"\npeak_fp16 = \"40 TFLOP/s\"\nmemory_bandwidth = \"900 GB/s\"\n"
         "memory = \"16 GiB\"\n[node.pcie]\nhost_to_device = \"20 GB/s\"\ndevice_to_host = \"16 GB/s\"\n"
         "latency = \"" + pcie_latency + "\"\n";
}

/// `count` Volta GPUs joined by a 50 GB/s NVLink switch (1 us), each on a PCIe link of
/// `pcie_bandwidth` (2 us).
std::string nvlink_gpus(int count, const std::string& pcie_bandwidth) {
  return "[node.gpu]\ncount = " + std::to_string(count) +
         "\npeak_fp32 = \"10 TFLOP/s\"\nmemory_bandwidth = \"900 GB/s\"\nmemory = \"16 GiB\"\n"
         "compute_capability = 7.0\n[node.pcie]\nbandwidth = \"" + pcie_bandwidth + "\"\nlatency = \"2 us\"\n"
         "[node.gpu_link]\nbandwidth = \"50 GB/s\"\nlatency = \"1 us\"\n";
}

/// The topologies the replay is held to SimGrid on: SimGrid's own (static) routing, the one
/// its comms can take.
const std::vector<std::pair<std::string, std::string>> topologies{
    {"single switch", "topology = \"single-switch\"\n"},
    {"fat-tree", "topology = \"fat-tree\"\ndown = [4, 16]\nup = [1, 4]\nlinks = [1, 1]\n"},
    {"fat-tree 4:1", "topology = \"fat-tree\"\ndown = [4, 16]\nup = [1, 1]\nlinks = [1, 1]\n"},
    {"torus", "topology = \"torus\"\ndimensions = [4, 4, 4]\n"},
    {"dragonfly", "topology = \"dragonfly\"\ngroups = 4\nglobal_links = 2\nchassis_per_group = 2\n"
                  "chassis_links = 1\nrouters_per_chassis = 4\nrouter_links = 1\nnodes_per_router = 2\n"
                  "routing = \"static-minimal\"\n"}};

/// The latency of a route across the single switch: 2 x 1 us NIC + 2 x 100 ns fabric links.
constexpr double switch_alpha_s = 2e-6 + 2 * 100e-9;

/// Three layers of 10 M parameters each (fp32: two buckets at a 64 MiB threshold), compute
/// about 5 ms per iteration on the test GPU.
workload::WorkloadSpec three_layers() {
  workload::WorkloadSpec w{.name = "w", .sample = "sample", .batch_per_worker = 32,
                           .precision = platform::Precision::Fp32,
                           .input_per_sample = units::DataSize::from_bytes(100e3),
                           .optimizer_per_parameter = units::DataSize::from_bytes(20)};
  for (int i = 0; i < 3; ++i) {
    workload::LayerSpec layer{.name = "l" + std::to_string(i), .kind = "fc",
                              .forward_per_sample = units::Flops::from_flop(0.3e9),
                              .backward_per_sample = units::Flops::from_flop(0.6e9),
                              .memory_per_sample = units::DataSize::from_bytes(1e6), .params = 10'000'000};
    if (i > 0)
      layer.after = {i - 1};
    w.layers.push_back(layer);
  }
  w.calibration.compute_efficiency = 0.5;
  w.calibration.memory_efficiency = 0.8;
  return w;
}

Scenario scenario(const std::string& interconnect, int nodes, const std::string& node_gpus) {
  Scenario s;
  s.platform = config::load_platform_text(platform_text(interconnect, 64, node_gpus), "t.toml");
  s.workload = three_layers();
  s.nodes = nodes;
  s.options.iterations = 3;
  return s;
}

/// `nodes` CPU nodes on one switch, the reductions after backward (no overlap): an iteration is
/// the compute, then the collectives.
Scenario cpu_nodes_reducing_after_backward(int nodes) {
  Scenario s = scenario(topologies[0].second, nodes, "");
  s.options.overlap = false;
  return s;
}

/// Eight identical GPU nodes on one switch, host staging through PCIe without latency, one
/// bucket, nothing overlapped: every rank computes, copies and communicates in turn and never
/// waits for another.
Scenario eight_staged_nodes_in_turn() {
  Scenario s = scenario(topologies[0].second, 8, gpus(1, "0 s"));
  s.options.overlap = false;
  s.options.input_overlap = false;
  s.options.software.fusion_threshold = units::DataSize::from_bytes(1e9);
  s.options.staging = replay::Staging::Host;
  return s;
}

double compute_seconds(const replay::IterationPlan& plan) {
  double total = plan.forward_s + plan.optimizer_s;
  for (double s : plan.backward_segments_s)
    total += s;
  return total;
}

/// Parameter servers (2) over the test workload's three layers of 10 M parameters and a fourth,
/// l3, of 30 M made of the variables `tensors` (one when empty).
Scenario two_servers_and_a_big_layer(std::vector<long long> tensors) {
  Scenario s = scenario(topologies[0].second, 4, "");
  workload::LayerSpec big = s.workload.layers.back();
  big.name = "l3";
  big.params = 30'000'000;
  big.tensors = std::move(tensors);
  big.after = {2};
  s.workload.layers.push_back(big);
  s.options.software.collective = collectives::Algorithm::ParameterServer;
  s.options.servers = 2;
  return s;
}

/// What scenario_problem() says of `s`: "" when nothing, else the message, after "FILE KEY: "
/// where the problem is a key of the software or platform file ("software software.library: ...").
std::string problem_of(const Scenario& s) {
  const auto problem = replay::scenario_problem(s);
  if (!problem)
    return "";
  using Input = replay::ScenarioProblem::Input;
  const std::string file = problem->input == Input::Software   ? "software"
                           : problem->input == Input::Platform ? "platform"
                           : problem->input == Input::Workload ? "workload file"
                                                               : "";
  return file.empty() ? problem->message : file + " " + problem->key + ": " + problem->message;
}

} // namespace

TEST_CASE("one rank computing alone takes the roofline time of its layers") {
  for (const std::string& node : {std::string(), gpus(1)}) {
    Scenario s = scenario(topologies[0].second, 1, node);
    s.options.input_overlap = false;
    REQUIRE_FALSE(replay::scenario_problem(s).has_value());
    const auto plan = replay::make_iteration_plan(s);
    CHECK(plan.reductions.empty()); // nothing to reduce with one rank
    // Expectation: each of the three layers compute-bound (its memory terms are under a tenth of
    // its compute), forward 32 x 0.3 GFLOP and backward 32 x 0.6 GFLOP at half the peak (2
    // TFLOP/s on the CPU node, 10 on the GPU); the optimizer 30 M parameters x 20 B at 0.8 of the
    // memory bandwidth (100 GB/s, 900 GB/s); on a GPU node plus the input copy, 2 us + 32 x 100
    // kB / 20 GB/s.
    const double peak = node.empty() ? 2e12 : 10e12, bandwidth = node.empty() ? 100e9 : 900e9;
    const double copy = node.empty() ? 0 : 2e-6 + 32 * 100e3 / 20e9;
    const double expected = 3 * 32 * (0.3e9 + 0.6e9) / (0.5 * peak) + 30e6 * 20 / (0.8 * bandwidth) + copy;
    const auto times = run_isolated(s).iteration_s;
    REQUIRE(!times.empty());
    for (double t : times)
      CHECK(t == testing::relative(expected, 1e-9));
  }
}

TEST_CASE("a sweep's count of a run's flows follows each algorithm's plan within 10 %") {
  // 16 CPU nodes, and 8 nodes of 2 GPUs, on one switch, every all-reduce fixed in turn in both
  // fidelities (exact: a ring's 2(N-1) steps, each chunk of a pipelined tree), and TensorFlow's
  // parameter servers (4) exchanging each variable on its own, placed whole by the greedy rule,
  // read at the next step, a table among them. Expectation: estimated_flows() (the sweep's ETA) within 10 % of the
  // flows the plan has.
  using collectives::Algorithm;
  const auto flows_of = [](const replay::IterationPlan& plan) {
    double n = 0;
    for (const auto& r : plan.reductions)
      for (const auto& phase : r.plan)
        n += static_cast<double>(phase.flows.size());
    return n;
  };
  const auto check = [&](const Scenario& s, bool shared) {
    REQUIRE_FALSE(replay::scenario_problem(s).has_value());
    const double planned = flows_of(replay::make_iteration_plan(s));
    const auto estimated = replay::estimated_flows(s);
    REQUIRE(planned > 0);
    CHECK((shared ? estimated.shared : estimated.alone) == doctest::Approx(planned).epsilon(0.10));
    CHECK((shared ? estimated.alone : estimated.shared) == 0);
  };
  for (auto fidelity : {replay::Fidelity::Aggregated, replay::Fidelity::Exact})
    for (auto algorithm : {Algorithm::Ring, Algorithm::Hierarchical, Algorithm::HalvingDoubling,
                           Algorithm::RecursiveDoubling, Algorithm::HierarchicalHalvingDoubling,
                           Algorithm::HierarchicalRecursiveDoubling, Algorithm::BinaryTree, Algorithm::DoubleBinaryTree,
                           Algorithm::PipelinedTree, Algorithm::PipelinedDoubleTree, Algorithm::ParameterServer}) {
      CAPTURE(replay::to_string(fidelity));
      CAPTURE(collectives::to_string(algorithm));
      Scenario two_gpus = scenario(topologies[0].second, 8, gpus(2));
      two_gpus.options.overlap = false;
      for (Scenario s : {cpu_nodes_reducing_after_backward(16), two_gpus}) {
        CAPTURE(s.platform.node.gpu.has_value());
        s.options.software.collective = algorithm;
        s.options.servers = 4;
        s.options.fidelity = fidelity;
        check(s, algorithm != Algorithm::Ring && algorithm != Algorithm::Hierarchical &&
                     algorithm != Algorithm::PipelinedTree && algorithm != Algorithm::PipelinedDoubleTree);
      }
    }
  Scenario ps = two_servers_and_a_big_layer({10'000'000, 20'000'000});
  ps.nodes = 16;
  ps.options.servers = 4;
  ps.options.software.exchange = stack::Exchange::PerVariable;
  ps.options.software.placement = stack::Placement::Greedy;
  ps.options.software.pull = stack::Pull::NextForward;
  check(ps, true);
  // With l0 a table the servers hold, its rows pushed, then read at the next step (ids, then rows).
  ps.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
  ps.options.software.sparse = stack::SparseGradients::Servers;
  check(ps, true);
}

TEST_CASE("communication alone follows each algorithm's alpha-beta form where nothing is shared") {
  // CPU nodes on one switch, reductions after backward: iteration = compute + the collectives.
  // Expectation: every step costs alpha + largest flow / 12.5 GB/s, alpha = 2 x 1 us + 2 x 100 ns.
  const double alpha = switch_alpha_s;
  for (auto algorithm : {collectives::Algorithm::Ring, collectives::Algorithm::HalvingDoubling,
                         collectives::Algorithm::BinaryTree})
    for (int n : {2, 6, 8}) {
      for (auto fidelity : {replay::Fidelity::Aggregated, replay::Fidelity::Exact}) {
        CAPTURE(collectives::to_string(algorithm));
        CAPTURE(n);
        CAPTURE(replay::to_string(fidelity));
        Scenario s = cpu_nodes_reducing_after_backward(n);
        s.options.software.collective = algorithm;
        s.options.fidelity = fidelity;
        const auto plan = replay::make_iteration_plan(s);
        double communication = 0;
        for (const auto& r : plan.reductions)
          communication += collectives::alpha_beta_seconds(r.plan, alpha, 12.5e9);
        const double simulated = mean_time(run_isolated(s)) - compute_seconds(plan);
        CHECK(std::abs(simulated - communication) / communication <= 1e-6);
      }
    }
  // The same written out, apart from the plans, for 8 nodes: three buckets of B = 40 MB (the
  // 64 MiB threshold holds one 10 M-parameter layer); a ring takes 2 (N - 1) steps of B / N;
  // halving-doubling 2 log2 N steps of B / 2, B / 4, B / 8 and back.
  const double B = 40e6;
  for (const auto& form : {std::pair{collectives::Algorithm::Ring, 14 * alpha + 14 * (B / 8) / 12.5e9},
                           std::pair{collectives::Algorithm::HalvingDoubling,
                                     6 * alpha + 2 * (B / 2 + B / 4 + B / 8) / 12.5e9}}) {
    // (no structured binding: clang does not capture one in CAPTURE's lambda)
    const collectives::Algorithm algorithm = form.first;
    const double bucket_s = form.second;
    CAPTURE(collectives::to_string(algorithm));
    Scenario s = cpu_nodes_reducing_after_backward(8);
    s.options.software.collective = algorithm;
    const auto plan = replay::make_iteration_plan(s);
    REQUIRE(plan.reductions.size() == 3);
    for (const auto& r : plan.reductions)
      CHECK(r.bytes == B);
    CHECK(mean_time(run_isolated(s)) - compute_seconds(plan) == testing::relative(3 * bucket_s, 1e-9));
  }
}

TEST_CASE("a software stack adds its launch, message overheads and reduction arithmetic to each collective's closed form") {
  // CPU nodes on one switch, reductions after backward. Expectation: the collective costs its
  // launch (5 us), then every step alpha (2 x 1 us + 2 x 100 ns) + the LogGP overheads
  // (0.3 + 0.2 us) + its largest flow / 12.5 GB/s + what the receiver reduces x 3 bytes moved
  // per byte / 10 GB/s (one host core).
  const double alpha = switch_alpha_s;
  for (auto algorithm : {collectives::Algorithm::Ring, collectives::Algorithm::HalvingDoubling,
                         collectives::Algorithm::RecursiveDoubling, collectives::Algorithm::BinaryTree})
    for (int n : {2, 6, 8})
      for (auto fidelity : {replay::Fidelity::Aggregated, replay::Fidelity::Exact}) {
        CAPTURE(collectives::to_string(algorithm));
        CAPTURE(n);
        CAPTURE(replay::to_string(fidelity));
        Scenario s = cpu_nodes_reducing_after_backward(n);
        s.options.fidelity = fidelity;
        s.platform.node.nic.send_overhead = units::Duration::from_seconds(0.3e-6);
        s.platform.node.nic.receive_overhead = units::Duration::from_seconds(0.2e-6);
        s.platform.node.cpu.core_memory_bandwidth = units::Bandwidth::from_bytes_per_second(10e9);
        auto& stack = s.options.software;
        stack.collective = algorithm;
        stack.message_overheads = true;
        stack.collective_launch = units::Duration::from_seconds(5e-6);
        stack.reducer = stack::Reducer::HostCore;
        REQUIRE_FALSE(replay::scenario_problem(s).has_value());
        const auto plan = replay::make_iteration_plan(s);
        double communication = 0;
        for (const auto& r : plan.reductions)
          communication += 5e-6 + collectives::alpha_beta_seconds(r.plan, alpha, 12.5e9, 0.5e-6, 3 / 10e9);
        const double simulated = mean_time(run_isolated(s)) - compute_seconds(plan);
        // Flows carry whole bytes: B / 6 rounds, by up to 2e-8 of the time over 10 exact steps.
        CHECK(simulated == testing::relative(communication, 1e-7));
      }
}

TEST_CASE("the sparse all-gathers of an MPI library beside NCCL pay MPI's message overheads, the all-reduces none") {
  // CPU nodes on one switch, reductions after backward; layer 0 a table (a row each of 8 samples,
  // then its ids). The stack charges no message overheads (NCCL's kernels drive its all-reduces),
  // but gathers through MPICH (Horovod 0.19's MPI_Allgatherv). Expectation: every collective its
  // closed form, the all-gathers' steps each with the LogGP overheads (0.3 + 0.2 us), the
  // all-reduces' without.
  for (int n : {2, 8}) {
    CAPTURE(n);
    Scenario s = cpu_nodes_reducing_after_backward(n);
    s.platform.node.nic.send_overhead = units::Duration::from_seconds(0.3e-6);
    s.platform.node.nic.receive_overhead = units::Duration::from_seconds(0.2e-6);
    s.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
    s.options.software.gather_library = collectives::Library::Mpich;
    const auto plan = replay::make_iteration_plan(s);
    CHECK(plan.costs.message_overhead_s == 0);
    CHECK(plan.costs.gather_message_overhead_s == testing::relative(0.5e-6, 1e-12));
    double communication = 0;
    int gathers = 0;
    for (const auto& r : plan.reductions) {
      gathers += r.sparse ? 1 : 0;
      communication += collectives::alpha_beta_seconds(r.plan, switch_alpha_s, 12.5e9, r.sparse ? 0.5e-6 : 0.0);
    }
    REQUIRE(gathers == 2); // the rows, then the ids
    CHECK(mean_time(run_isolated(s)) - compute_seconds(plan) == testing::relative(communication, 1e-7));
    // Without a gather library the all-gathers pay what the stack's messages pay: nothing here.
    s.options.software.gather_library.reset();
    CHECK(replay::make_iteration_plan(s).costs.gather_message_overhead_s == 0);
  }
}

TEST_CASE("a framework cycle starts the reductions at the next tick, after a negotiation that grows with log2 N") {
  // N CPU nodes on one switch, reductions after backward (all ready at once): Horovod's loop
  // ticks every 5 ms from time 0. Expectation for the first iteration: backward ends at t_b; the
  // cycle starts at the next multiple of 5 ms; its negotiation is MPICH's recursive doubling over
  // N ranks, log2 N steps (on 6: 4 = 2 + a fold in and out) of alpha (2 x 1 us + 2 x 100 ns) + the
  // MPI overheads (0.3 + 0.2 us); then every bucket's ring back to back (they were all ready when
  // the cycle began); then the optimizer.
  for (const auto& ranks_steps : {std::pair{2, 1}, {6, 4}, {8, 3}, {32, 5}}) {
    const int n = ranks_steps.first, steps = ranks_steps.second; // (clang's CAPTURE takes no binding)
    CAPTURE(n);
    Scenario s = cpu_nodes_reducing_after_backward(n);
    s.platform.node.nic.send_overhead = units::Duration::from_seconds(0.3e-6);
    s.platform.node.nic.receive_overhead = units::Duration::from_seconds(0.2e-6);
    s.options.software.cycle = units::Duration::from_seconds(5e-3);
    s.options.software.negotiation = true;
    const auto plan = replay::make_iteration_plan(s);
    const double backward_end = compute_seconds(plan) - plan.optimizer_s;
    const double tick = std::ceil(backward_end / 5e-3) * 5e-3;
    const double alpha = switch_alpha_s;
    double collectives = 0;
    for (const auto& r : plan.reductions)
      collectives += collectives::alpha_beta_seconds(r.plan, alpha, 12.5e9);
    const double expected = tick + steps * (alpha + 0.5e-6) + collectives + plan.optimizer_s;
    CHECK(run_isolated(s).iteration_s.front() == testing::relative(expected, 1e-9));
  }
}

TEST_CASE("fused by cycle, Horovod's tick fuses the gradients ready on every rank into one response") {
  // Eight CPU nodes on one switch, backward overlapped, a 70 ms cycle ticking from time 0, the
  // fusion threshold above the model. Expectation for the first iteration: l2's gradient is ready
  // at t2 (forward, then its backward), l1's at t1 and l0's at t0; the tick after t2 comes after
  // t1 and before t0, so it fuses l2 and l1 into one ring of 80 MB (after the negotiation); that
  // ring ends before t0, so l0 waits for the next tick, max(tick + 70 ms, the ring's end) raised
  // to the cycle's grid past t0, and goes alone; then the optimizer.
  Scenario s = scenario(topologies[0].second, 8, "");
  s.platform.node.nic.send_overhead = units::Duration::from_seconds(0.3e-6);
  s.platform.node.nic.receive_overhead = units::Duration::from_seconds(0.2e-6);
  const double cycle = 70e-3;
  s.options.software.cycle = units::Duration::from_seconds(cycle);
  s.options.software.negotiation = true;
  s.options.software.fusion = stack::Fusion::ByCycle;
  s.options.software.fusion_threshold = units::DataSize::from_bytes(1e9);
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.fused_by_cycle);
  REQUIRE(plan.reductions.size() == 3); // the units: l2, l1, l0 in backward order
  const double t2 = plan.forward_s + plan.backward_segments_s[0];
  const double t1 = t2 + plan.backward_segments_s[1], t0 = t1 + plan.backward_segments_s[2];
  const double alpha = switch_alpha_s, negotiation = 3 * (alpha + 0.5e-6);
  const auto ring = [&](double bytes) {
    return collectives::alpha_beta_seconds(collectives::allreduce_phases(collectives::Algorithm::Ring, {8, 1}, bytes, 1),
                                           alpha, 12.5e9);
  };
  const double first_tick = std::ceil(t2 / cycle) * cycle;
  REQUIRE(t1 <= first_tick);
  REQUIRE(first_tick < t0);
  const double fused_end = first_tick + negotiation + ring(80e6);
  REQUIRE(fused_end < t0);
  double second_tick = std::max(first_tick + cycle, fused_end);
  if (second_tick < t0)
    second_tick += std::ceil((t0 - second_tick) / cycle) * cycle;
  const double expected = second_tick + negotiation + ring(40e6) + plan.optimizer_s;
  const Summary run = run_isolated(s);
  CHECK(run.iteration_s.front() == testing::relative(expected, 1e-9));
  // The ranks, alike (no jitter), never wait for one another: the waits for the ticks are the
  // framework's communication, as where buckets are fused by size. Expectation: no
  // synchronisation (1e-12 s), the communication all but the compute (1e-9 relative).
  CHECK(run.breakdown.synchronisation_s < 1e-12);
  CHECK(run.breakdown.communication_s ==
        testing::relative(mean_time(run) - run.breakdown.compute_s - run.breakdown.copy_s, 1e-9));
}

TEST_CASE("Horovod's fusion takes the units of its first's kind within the threshold, looking past others while they fit") {
  // Units in order: d0 (dense, 10 bytes), r0 (a table's 2 rows, 8 bytes a rank, 32 gathered from
  // 4 ranks), i0 (their int32 ids: 8, 32), d1 (10), r1 (as r0), i1 (its int64 ids: 16, 64),
  // d2 (50). Sizes as Horovod 0.19 counts them (controller.cc FuseResponses): behind an
  // all-reduce, an all-gather's rows at a byte each; behind an all-gather, what it gathers.
  // Expectation, threshold 40: d0 passes over r0, i0 (2 + 2), takes d1 (20), passes over r1 and
  // i1 (2 + 2: 28); d2 would make 78: stop. Then r0 alone (i0 would make 64), i0 alone (r1: 64),
  // r1, i1, d2.
  replay::IterationPlan plan;
  const auto dense = [](double bytes) { return replay::Reduction{.name = "d", .bytes = bytes, .result_bytes = bytes}; };
  const auto gather = [](double bytes, int id_bytes) {
    return replay::Reduction{
        .name = "s", .bytes = bytes, .result_bytes = 4 * bytes, .sparse = true, .rows = 2, .id_bytes = id_bytes};
  };
  plan.reductions = {dense(10), gather(8, 0), gather(8, 4), dense(10), gather(8, 0), gather(16, 8), dense(50)};
  using Responses = std::vector<std::vector<int>>;
  CHECK(replay::fuse_responses(plan, 0, 7, 40) == Responses{{0, 3}, {1}, {2}, {4}, {5}, {6}});
  // A threshold above everything: each kind in one response, in the order their first came; ids
  // of two widths are two dtypes.
  CHECK(replay::fuse_responses(plan, 0, 7, 1e9) == Responses{{0, 3, 6}, {1, 4}, {2}, {5}});
  // From i0 on, threshold 100: i0 passes over d1 (its bytes: 10) and r1 (32), not i1 (106); then
  // d1 passes over r1 and i1 (2 + 2) and takes d2 (60).
  CHECK(replay::fuse_responses(plan, 2, 7, 100) == Responses{{2}, {3, 6}, {4}, {5}});
  // The rows at a byte each, behind an all-reduce. Threshold 25: d0 passes over r0 and i0 (2 + 2)
  // and takes d1 (20); their bytes a rank (8 + 8) would stop it at i0 (26).
  CHECK(replay::fuse_responses(plan, 0, 4, 25) == Responses{{0, 3}, {1}, {2}});
  // Threshold 13, a dense unit of 2 after them: r0 (12) but not i0 (14) is passed over; were
  // they counted as nothing, d0 would take the 2 bytes.
  plan.reductions = {dense(10), gather(8, 0), gather(8, 4), dense(2)};
  CHECK(replay::fuse_responses(plan, 0, 4, 13) == Responses{{0}, {1}, {2}, {3}});
  // One kind: a unit past the threshold ends the response (what it would pass over is itself).
  plan.reductions = {dense(30), dense(30), dense(5)};
  CHECK(replay::fuse_responses(plan, 0, 3, 50) == Responses{{0}, {1, 2}});
}

TEST_CASE("a parameter server takes the pushes, sums them and applies the update, then serves the pulls") {
  // Four CPU nodes on one switch, one server (rank 0) holding every variable, reductions after
  // backward. Expectation per bucket of B bytes and P parameters: the three other ranks push B
  // into the server's NIC at once (alpha + 3 B / 12.5 GB/s), the server sums 3 B (3 bytes moved
  // per byte) and updates P parameters (20 optimizer bytes each) at 100 GB/s, then the three pull
  // B back (alpha + 3 B / 12.5 GB/s). The workers run no optimizer of their own.
  const double alpha = switch_alpha_s;
  for (auto placement : {stack::Placement::Even, stack::Placement::Greedy}) {
    CAPTURE(stack::to_string(placement));
    Scenario s = cpu_nodes_reducing_after_backward(4);
    s.options.software.collective = collectives::Algorithm::ParameterServer;
    s.options.software.placement = placement;
    const auto plan = replay::make_iteration_plan(s);
    CHECK(plan.optimizer_s == 0);
    REQUIRE(plan.server_bytes.size() == 1);
    double expected = compute_seconds(plan);
    for (const auto& r : plan.reductions) {
      const double params = r.bytes / 4;
      expected += 2 * (alpha + 3 * r.bytes / 12.5e9) + (3 * r.bytes * 3 + params * 20) / 100e9;
    }
    CHECK(mean_time(run_isolated(s)) == testing::relative(expected, 1e-9));
  }
}

/// Two CPU nodes on one switch, rank 0 the server of every variable (greedy), reductions after
/// backward, every layer's variables exchanged on their own (TensorFlow's stacks).
Scenario two_nodes_exchanging_per_variable() {
  Scenario s = cpu_nodes_reducing_after_backward(2);
  s.options.software.collective = collectives::Algorithm::ParameterServer;
  s.options.software.placement = stack::Placement::Greedy;
  s.options.software.exchange = stack::Exchange::PerVariable;
  return s;
}

TEST_CASE("per-variable exchanges released together share the links, and the server works through them in turn") {
  // The three layers (P = 10 M parameters, B = 40 MB each), 40 optimizer bytes per parameter.
  // Expectation: the three pushes 1 -> 0 leave together and share the NIC, all in at
  // alpha + 3 B / 12.5 GB/s; the server works through them one at a time, w = (B x 3 + P x 40) /
  // 100 GB/s = 5.2 ms each, and each pull leaves once its push is worked through: the pulls, 3.2 ms
  // each alone, never meet, and the last ends at alpha + B / 12.5 GB/s after the third work.
  const double alpha = switch_alpha_s;
  Scenario s = two_nodes_exchanging_per_variable();
  s.workload.optimizer_per_parameter = units::DataSize::from_bytes(40);
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.reductions.size() == 3);
  for (const auto& r : plan.reductions) {
    CHECK(r.concurrent);
    CHECK(r.plan.size() == 2); // the push, then the pull
  }
  const double B = 40e6, P = 10e6, work_s = (3 * B + 40 * P) / 100e9;
  REQUIRE(work_s > B / 12.5e9);
  const double expected = compute_seconds(plan) + alpha + 3 * B / 12.5e9 + 3 * work_s + alpha + B / 12.5e9;
  CHECK(mean_time(run_isolated(s)) == testing::relative(expected, 1e-9));
}

TEST_CASE("under host staging each read goes to the device before its layer's forward, each push leaves it first") {
  // Two GPU nodes (PCIe without latency: 20 GB/s host->device, 16 GB/s device->host), no input
  // batch to copy, the three layers (B = 40 MB, P = 10 M) read at the next step, pushes after
  // backward. Expectation for the worker (rank 1): the three reads share the NIC (alpha + 3 B /
  // 12.5 GB/s), then their three copies share its host->device link (3 B / 20 GB/s) before the
  // first layer's forward; after backward the three gradients share the device->host link
  // (3 B / 16 GB/s), the pushes share the NIC (alpha + 3 B / 12.5 GB/s) and the server works
  // through the three exchanges, w = (3 B + 20 P) / 100 GB/s each.
  const double alpha = switch_alpha_s, B = 40e6, P = 10e6, nic = 12.5e9;
  Scenario s = scenario(topologies[0].second, 2, gpus(1, "0 s"));
  s.workload.input_per_sample = units::DataSize::from_bytes(0);
  s.options.overlap = false;
  s.options.staging = replay::Staging::Host;
  s.options.software.collective = collectives::Algorithm::ParameterServer;
  s.options.software.placement = stack::Placement::Greedy;
  s.options.software.exchange = stack::Exchange::PerVariable;
  s.options.software.pull = stack::Pull::NextForward;
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.pulls == 3);
  const double expected = (alpha + 3 * B / nic) + 3 * B / 20e9 + compute_seconds(plan) + 3 * B / 16e9 +
                          (alpha + 3 * B / nic) + 3 * (3 * B + 20 * P) / 100e9;
  CHECK(mean_time(run_isolated(s)) == testing::relative(expected, 1e-9));
}

TEST_CASE("a stack built in code is held to the same rules as a software file") {
  Scenario s = two_nodes_exchanging_per_variable();
  s.options.software.pull = stack::Pull::NextForward;
  s.options.software.local_aggregation = true;
  CHECK(problem_of(s) ==
        "software software.pull: \"next-forward\" with local_aggregation is not modelled (the GPUs of a worker "
        "would read the variables from its CPU): expected \"after-push\"");
  s.options.software.local_aggregation = false;
  s.options.software.cycle = units::Duration::from_seconds(5e-3);
  CHECK(problem_of(s) ==
        "software software.cycle: exchange = \"per-variable\" (TensorFlow's sends to parameter servers) has no "
        "framework cycle: expected \"0 s\" or no key");
  // Fused by cycle, the responses are planned as they form, beside GPU-direct copies or host staging.
  Scenario horovod = scenario(topologies[0].second, 2, gpus(1));
  horovod.options.software.cycle = units::Duration::from_seconds(5e-3);
  horovod.options.software.fusion = stack::Fusion::ByCycle;
  for (auto staging : {replay::Staging::Direct, replay::Staging::Host}) {
    horovod.options.staging = staging;
    CHECK(replay::scenario_problem(horovod) == std::nullopt);
  }
}

TEST_CASE("reading the variables at the next step splits the forward pass before each layer that has some") {
  Scenario s = two_nodes_exchanging_per_variable();
  s.options.software.pull = stack::Pull::NextForward;
  const auto plan = replay::make_iteration_plan(s);
  // Three pushes (backward's order: l2, l1, l0), then three reads in forward order.
  REQUIRE(plan.reductions.size() == 6);
  CHECK(plan.pulls == 3);
  CHECK(plan.backward_reductions() == 3);
  CHECK(plan.reductions[3].name == "pull l0");
  CHECK(plan.reductions[5].name == "pull l2");
  // Expectation: the server sums the 40 MB it receives (3 bytes moved a byte) and applies the
  // update (the optimizer's bytes a parameter, 10 M parameters) at the host's 100 GB/s.
  const double work_s = (3 * 40e6 + 10e6 * s.workload.optimizer_per_parameter.bytes()) / 100e9;
  for (int k = 0; k < 3; ++k) {
    const auto& push = plan.reductions[static_cast<std::size_t>(k)];
    REQUIRE(push.plan.size() == 1); // the variables come back with the reads
    REQUIRE(push.plan[0].flows.size() == 1);
    CHECK(push.plan[0].flows[0].receiver_s == testing::relative(work_s, 1e-12));
    CHECK(push.plan[0].flows == std::vector<collectives::Flow>{{1, 0, 40e6, 0, push.plan[0].flows[0].receiver_s}});
    CHECK(push.result_bytes == 0);
    const auto& read = plan.reductions[static_cast<std::size_t>(k + 3)];
    REQUIRE(read.plan.size() == 1);
    CHECK(read.plan[0].flows == std::vector<collectives::Flow>{{0, 1, 40e6}});
    CHECK(read.concurrent);
  }
  // Segment 0 has no layer; segment j + 1 is layer j's forward.
  REQUIRE(plan.forward_segments_s.size() == 4);
  CHECK(plan.forward_segments_s[0] == 0);
  CHECK(plan.forward_segments_s[1] + plan.forward_segments_s[2] + plan.forward_segments_s[3] ==
        testing::relative(plan.forward_s, 1e-12));
}

TEST_CASE("the next step's reads: each layer's forward waits for its own variables, the others stream on") {
  // l0 shrunk to P0 = 1 M parameters (B0 = 4 MB); l1 and l2 keep B = 40 MB. Expectation for the
  // worker (rank 1): the three reads leave the server together and share the NIC, so l0's is in
  // at alpha + 3 B0 / 12.5 GB/s; l0's forward starts then and lasts longer than the rest of the
  // reads (in at alpha + (B0 + 2 B) / 12.5 GB/s), so forward and backward run without a wait; the
  // pushes after backward share the NIC the same way, l0's in first (its work done before the
  // others arrive), l1's and l2's at alpha + (B0 + 2 B) / 12.5 GB/s, and the server's work on
  // them, (3 B + 20 P) / 100 GB/s each, one after the other, ends the iteration.
  const double alpha = switch_alpha_s, bw = 12.5e9;
  Scenario s = two_nodes_exchanging_per_variable();
  s.workload.layers[0].params = 1'000'000;
  s.options.software.pull = stack::Pull::NextForward;
  const auto plan = replay::make_iteration_plan(s);
  const double B0 = 4e6, B = 40e6, P = 10e6;
  REQUIRE(plan.forward_segments_s[1] > (B0 + 2 * B - 3 * B0) / bw); // l0's forward outlasts the reads
  const double reads_s = alpha + 3 * B0 / bw;
  REQUIRE((3 * B0 + 20 * 1e6) / 100e9 < (B0 + 2 * B - 3 * B0) / bw); // l0's work ends before the others arrive
  const double pushes_s = alpha + (B0 + 2 * B) / bw + 2 * (3 * B + 20 * P) / 100e9;
  CHECK(mean_time(run_isolated(s)) == testing::relative(reads_s + compute_seconds(plan) + pushes_s, 1e-9));
  // Forward waiting for every read instead would start at alpha + (B0 + 2 B) / bw: this is earlier.
  CHECK(reads_s < alpha + (B0 + 2 * B) / bw);
}

TEST_CASE("greedy placement loads the server of the largest variable with it whole") {
  // Expectation: greedy puts l0 on 0, l1 on 1, l2 on 0 (tie), l3 on 1: loads 80 MB and 160 MB;
  // even placement gives each 120 MB.
  Scenario s = two_servers_and_a_big_layer({});
  s.options.software.placement = stack::Placement::Greedy;
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{80e6, 160e6});
  s.options.software.placement = stack::Placement::Even;
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{120e6, 120e6});
}

TEST_CASE("a layer of several variables is placed variable by variable") {
  // As above, with l3's 30 M parameters three variables of 10 M (an Inception module's kernels).
  // Expectation: greedy puts l0 on 0, l1 on 1, l2 on 0, then l3's variables on 1, 0 and 1
  // (40 MB each): loads 120 MB and 120 MB, where l3 whole made them 80 and 160 MB.
  Scenario s = two_servers_and_a_big_layer({10'000'000, 10'000'000, 10'000'000});
  s.options.software.placement = stack::Placement::Greedy;
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{120e6, 120e6});
  // Round-robin deals them out in creation order: l0 0, l1 1, l2 0, l3's 1, 0, 1: 120 and 120 MB;
  // three variables of 5, 20 and 5 M: l3's on 1, 0, 1: 160 and 80 MB.
  s.options.software.placement = stack::Placement::RoundRobin;
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{120e6, 120e6});
  s.workload.layers.back().tensors = {5'000'000, 20'000'000, 5'000'000};
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{160e6, 80e6});
}

TEST_CASE("an embedding table the stack densifies is a variable the parameter servers hold") {
  // Layer 0 (10 M parameters, 40 MB) becomes a table exchanged dense. Expectation: the servers
  // hold every layer's gradient, as when l0 is no table: greedy puts l0 on 0, l1 on 1, l2 on 0
  // and l3 (120 MB) on 1: 80 and 160 MB.
  Scenario s = two_servers_and_a_big_layer({});
  s.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
  s.options.software.sparse = stack::SparseGradients::Dense;
  s.options.software.placement = stack::Placement::Greedy;
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{80e6, 160e6});
}

/// Two CPU nodes exchanging per variable with rank 0, their server, the variables read at the
/// next step; l0 a table of 1,000 rows of 10,000 parameters (40 kB a row) the servers hold, one
/// row looked up per sample (32 a batch: 1.28 MB of rows, 128 bytes of int32 ids); l1 and l2
/// frozen, so the table alone is exchanged.
Scenario a_table_on_the_server() {
  Scenario s = two_nodes_exchanging_per_variable();
  s.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
  s.workload.layers[1].frozen = s.workload.layers[2].frozen = true;
  s.options.software.sparse = stack::SparseGradients::Servers;
  s.options.software.pull = stack::Pull::NextForward;
  return s;
}

TEST_CASE("a table on a parameter server: the worker pushes its rows and ids, the server adds them and updates the rows") {
  // Expectation: the worker (rank 1) sends the server its rows and ids, V + I bytes, nothing coming
  // back (the next step reads the rows); the server adds them (3 V: 3 bytes moved per byte) and
  // updates the rows the two workers touched, U = min(1,000, 2 x 32) = 64 rows of 10,000
  // parameters at 20 optimizer bytes each, at the host's 100 GB/s. It receives V + I, and I more
  // with the next step's request. The workers run no optimizer of their own.
  const double V = 32 * 40e3, I = 32 * 4.0, update_s = (3 * V + 64 * 1e4 * 20) / 100e9;
  Scenario s = a_table_on_the_server();
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.backward_reductions() == 1);
  const auto& push = plan.reductions[0];
  CHECK(push.sparse);
  CHECK(push.bytes == V + I);
  CHECK(push.result_bytes == 0);
  REQUIRE(push.plan.size() == 1);
  CHECK(push.plan[0].flows == std::vector<collectives::Flow>{{1, 0, V + I, 0, push.plan[0].flows[0].receiver_s}});
  CHECK(push.plan[0].flows[0].receiver_s == testing::relative(update_s, 1e-12));
  CHECK(plan.optimizer_s == 0);
  CHECK(plan.server_bytes == std::vector<double>{V + 2 * I});
}

TEST_CASE("a table on a parameter server is read at the next step: the ids go, the server gathers the rows, they come back") {
  // Expectation for the worker: its ids reach the server (alpha + I / 12.5 GB/s), which gathers
  // their rows (2 V: each read, then written into its reply, at 100 GB/s) and sends them
  // (alpha + V / 12.5 GB/s); then the compute; then the push of rows and ids (alpha + (V + I) /
  // 12.5 GB/s) and the server's update, as above, end the iteration.
  const double alpha = switch_alpha_s, bw = 12.5e9, V = 32 * 40e3, I = 32 * 4.0, update_s = (3 * V + 64 * 1e4 * 20) / 100e9;
  Scenario s = a_table_on_the_server();
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.reductions.size() == 2);
  CHECK(plan.pulls == 1);
  const auto& read = plan.reductions[1];
  CHECK(read.name == "pull l0");
  CHECK(read.bytes == V);
  REQUIRE(read.plan.size() == 2);
  CHECK(read.plan[0].flows == std::vector<collectives::Flow>{{1, 0, I, 0, read.plan[0].flows[0].receiver_s}});
  CHECK(read.plan[0].flows[0].receiver_s == testing::relative(2 * V / 100e9, 1e-12));
  CHECK(read.plan[1].flows == std::vector<collectives::Flow>{{0, 1, V}});
  const double reads_s = alpha + I / bw + 2 * V / 100e9 + alpha + V / bw;
  const double expected = reads_s + compute_seconds(plan) + alpha + (V + I) / bw + update_s;
  CHECK(mean_time(run_isolated(s)) == testing::relative(expected, 1e-9));
}

TEST_CASE("greedy placement puts a table on a server whole with the dense variables, even placement partitions it") {
  // Layer 0 of the four (10 M parameters: 40 MB) a table of 1,000 rows, 32 looked up a batch: a
  // server holding it receives V + I = 1,280,128 bytes of rows and ids from each worker, and I =
  // 128 bytes of ids when it reads them at the next step. Expectation: greedy puts the table on
  // 0, l1 on 1, l2 on 0 (tie), l3 (120 MB) on 1: the servers receive V + 2 I + 40 MB and 160 MB
  // from each worker; even placement gives each half of everything.
  Scenario s = two_servers_and_a_big_layer({});
  s.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
  s.options.software.sparse = stack::SparseGradients::Servers;
  s.options.software.placement = stack::Placement::Greedy;
  s.options.software.exchange = stack::Exchange::PerVariable;
  s.options.software.pull = stack::Pull::NextForward;
  REQUIRE(problem_of(s) == "");
  const double table_push = 32 * 40e3 + 2 * 32 * 4.0; // (rows and ids pushed, ids asked for at the next step)
  CHECK(replay::make_iteration_plan(s).server_bytes == std::vector<double>{table_push + 40e6, 160e6});
  s.options.software.placement = stack::Placement::Even;
  const auto even = replay::make_iteration_plan(s).server_bytes;
  REQUIRE(even.size() == 2);
  for (double bytes : even)
    CHECK(bytes == testing::relative(table_push / 2 + 100e6, 1e-12));
}

TEST_CASE("tables go to parameter servers only where there are some, read at the next step, not from nodes that aggregate first") {
  Scenario s = a_table_on_the_server();
  s.options.software.exchange = stack::Exchange::Buckets;
  s.options.software.placement = stack::Placement::Even;
  s.options.software.collective = collectives::Algorithm::Ring;
  CHECK(problem_of(s) == "software software.sparse_gradients: \"servers\" sends the embedding tables' rows to and from "
                         "the parameter servers that hold them, but the collective is not \"parameter-server\": "
                         "expected \"allgather\", \"dense\" or \"cheaper\"");
  s.options.software.collective = collectives::Algorithm::ParameterServer;
  s.options.software.local_aggregation = true;
  CHECK(problem_of(s) == "software software.sparse_gradients: \"servers\" with local_aggregation is not modelled (a "
                         "worker's GPUs would first combine their rows): expected \"allgather\", \"dense\" or "
                         "\"cheaper\"");
  s.options.software.local_aggregation = false;
  s.options.software.pull = stack::Pull::AfterPush;
  CHECK(problem_of(s) == "software software.sparse_gradients: \"servers\" reads the rows each step looks up from the "
                         "tables' servers, as TensorFlow's embedding_lookup does, which needs pull = \"next-forward\" "
                         "(and exchange = \"per-variable\"): expected \"allgather\", \"dense\" or \"cheaper\", or "
                         "those keys");
  s.options.software.pull = stack::Pull::NextForward;
  s.options.software.exchange = stack::Exchange::PerVariable;
  CHECK(problem_of(s) == "");
}

TEST_CASE("sparse gradients turn dense where a dense all-reduce moves fewer bytes, past N = 2 x table / touched rows and ids") {
  // Layer 0 becomes a table of 1,000 rows of 10 parameters (40 bytes a row); a batch of 32
  // touches 32 rows, with 32 int32 ids. Expectation: the all-gathers move (N - 1) x 32 x 44 bytes
  // per rank, a dense all-reduce 2 (N - 1) / N x 40 kB: dense is cheaper from
  // N > 2 x 40,000 / (32 x 44) = 56.8 on (62.5 without the ids). Each table sparse is two
  // all-gathers, rows and ids.
  Scenario s = scenario(topologies[0].second, 56, "");
  s.workload.layers[0].params = 10'000;
  s.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
  const auto sparse_count = [&s] {
    int sparse = 0;
    for (const auto& r : replay::make_iteration_plan(s).reductions)
      sparse += r.sparse ? 1 : 0;
    return sparse;
  };
  s.options.software.sparse = stack::SparseGradients::Cheaper;
  CHECK(sparse_count() == 2);
  CHECK(replay::make_iteration_plan(s).dense_tables.empty());
  s.nodes = 57;
  CHECK(sparse_count() == 0);
  // The plan names the table that went dense, and its whole gradient: 10,000 fp32 parameters.
  const auto dense = replay::make_iteration_plan(s).dense_tables;
  REQUIRE(dense.size() == 1);
  CHECK(dense[0].name == "l0");
  CHECK(dense[0].bytes == 40'000);
  s.options.software.sparse = stack::SparseGradients::AllGather;
  CHECK(sparse_count() == 2);
  s.nodes = 2;
  s.options.software.sparse = stack::SparseGradients::Dense;
  CHECK(sparse_count() == 0);
  CHECK(replay::make_iteration_plan(s).dense_tables.size() == 1);
  // One rank exchanges nothing, dense or not.
  s.nodes = 1;
  CHECK(replay::make_iteration_plan(s).dense_tables.empty());
}

TEST_CASE("a device with a calibration of its own is priced with it, the others with the workload's") {
  // Expectation: compute time is inversely proportional to the compute efficiency where compute
  // bound; a device calibration of half the workload's efficiency doubles it on that GPU model.
  Scenario s = scenario(topologies[0].second, 1, gpus(1));
  s.platform.node.gpu->model = "test GPU";
  const auto base = replay::make_iteration_plan(s);
  CHECK(base.calibration.find("the workload's calibration") == 0);
  s.workload.device_calibrations.push_back(
      {.device = "test GPU", .compute_efficiency = s.workload.calibration.compute_efficiency / 2});
  const auto own = replay::make_iteration_plan(s);
  CHECK(own.calibration == "calibrated on this device (test GPU)");
  CHECK(own.forward_s == testing::relative(2 * base.forward_s, 1e-12));
  s.platform.node.gpu->model = "another GPU";
  CHECK(replay::make_iteration_plan(s).forward_s == base.forward_s);
  // A calibration measured in mixed precision prices mixed runs, not fp32 ones; fp16 runs (the
  // same fp16 compute) too, unless a calibration in fp16 covers them.
  s.platform.node.gpu->model = "test GPU";
  s.workload.device_calibrations.front().precision = "mixed";
  CHECK(replay::make_iteration_plan(s).forward_s == base.forward_s);
  s.options.precision = replay::PrecisionMode::Mixed;
  CHECK(replay::make_iteration_plan(s).calibration == "calibrated on this device (test GPU) in mixed");
  s.options.precision = replay::PrecisionMode::Fp16;
  CHECK(replay::make_iteration_plan(s).calibration == "calibrated on this device (test GPU) in mixed");
  s.workload.device_calibrations.push_back({.device = "test GPU", .precision = "fp16", .compute_efficiency = 0.1});
  CHECK(replay::make_iteration_plan(s).calibration == "calibrated on this device (test GPU) in fp16");
}

TEST_CASE("of a device's calibrations under several frameworks, the stack's framework's prices the run, else one naming none, then the run's mode, then the first listed") {
  // Expectation: compute-bound time is inversely proportional to the compute efficiency: each
  // calibration's efficiency gives its own forward time. The one measured under the stack's
  // framework is taken wherever it is listed; a stack that names none, or one no calibration
  // names, takes a calibration naming no framework, else the first listed.
  Scenario s = scenario(topologies[0].second, 1, gpus(1));
  s.platform.node.gpu->model = "test GPU";
  const double e = s.workload.calibration.compute_efficiency;
  s.workload.device_calibrations.push_back({.device = "test GPU", .framework = "pytorch", .compute_efficiency = 0.75 * e});
  s.workload.device_calibrations.push_back({.device = "test GPU", .framework = "mxnet", .compute_efficiency = e / 2});
  const auto workload_s = [&] {
    auto own = s;
    own.workload.device_calibrations.clear();
    return replay::make_iteration_plan(own).forward_s;
  }();
  const auto first = replay::make_iteration_plan(s);
  CHECK(first.calibration == "calibrated on this device (test GPU) under pytorch");
  CHECK(first.forward_s == testing::relative(workload_s / 0.75, 1e-12));
  s.options.software.framework = "tensorflow";
  const auto tensorflow = replay::make_iteration_plan(s);
  CHECK(tensorflow.forward_s == first.forward_s);
  CHECK(tensorflow.calibration == "calibrated on this device (test GPU) under pytorch (none under tensorflow)");
  s.options.software.framework = "mxnet";
  const auto mxnet = replay::make_iteration_plan(s);
  CHECK(mxnet.calibration == "calibrated on this device (test GPU) under mxnet");
  CHECK(mxnet.forward_s == testing::relative(1.5 * first.forward_s, 1e-12));
  std::swap(s.workload.device_calibrations[0], s.workload.device_calibrations[1]);
  CHECK(replay::make_iteration_plan(s).forward_s == mxnet.forward_s);
  s.options.software.framework = "pytorch";
  CHECK(replay::make_iteration_plan(s).forward_s == first.forward_s);
  s.options.software.framework = "tensorflow";
  CHECK(replay::make_iteration_plan(s).forward_s == mxnet.forward_s); // now listed first
  s.options.software.framework.clear();
  CHECK(replay::make_iteration_plan(s).forward_s == mxnet.forward_s);
  // One naming no framework goes before another framework's, wherever it is listed.
  s.workload.device_calibrations.push_back({.device = "test GPU", .compute_efficiency = e});
  CHECK(replay::make_iteration_plan(s).forward_s == workload_s);
  s.options.software.framework = "tensorflow";
  CHECK(replay::make_iteration_plan(s).calibration == "calibrated on this device (test GPU)");
  s.options.software.framework = "pytorch";
  CHECK(replay::make_iteration_plan(s).forward_s == first.forward_s);
  // The framework goes before the mode: mixed and fp16 compute alike, frameworks do not; between
  // two frameworks other than the stack's, the run's mode decides.
  {
    auto modes = s;
    modes.workload.device_calibrations = {{.device = "test GPU", .precision = "mixed", .framework = "mxnet", .compute_efficiency = e / 2},
                                          {.device = "test GPU", .precision = "fp16", .framework = "pytorch", .compute_efficiency = e}};
    modes.options.precision = replay::PrecisionMode::Mixed;
    modes.options.software.framework = "pytorch";
    CHECK(replay::make_iteration_plan(modes).calibration == "calibrated on this device (test GPU) in fp16 under pytorch");
    modes.options.precision = replay::PrecisionMode::Fp16;
    modes.options.software.framework = "mxnet";
    CHECK(replay::make_iteration_plan(modes).calibration == "calibrated on this device (test GPU) in mixed under mxnet");
    modes.options.software.framework.clear();
    CHECK(replay::make_iteration_plan(modes).calibration == "calibrated on this device (test GPU) in fp16 under pytorch");
    modes.options.precision = replay::PrecisionMode::Mixed;
    CHECK(replay::make_iteration_plan(modes).calibration == "calibrated on this device (test GPU) in mixed under mxnet");
    modes.options.software.framework = "tensorflow"; // (neither is its: the mode decides, and the run says so)
    CHECK(replay::make_iteration_plan(modes).calibration ==
          "calibrated on this device (test GPU) in mixed under mxnet (none under tensorflow)");
  }
  // The device's own model still goes before its stand-in's, whatever their frameworks.
  s.platform.node.gpu->calibration_device = "measured GPU";
  s.workload.device_calibrations.push_back({.device = "measured GPU", .framework = "tensorflow", .compute_efficiency = e / 4});
  s.options.software.framework = "tensorflow";
  CHECK(replay::make_iteration_plan(s).forward_s == workload_s);
}

TEST_CASE("a CPU node named by a device calibration is priced with it and called calibrated") {
  // Expectation: as on a GPU, half the efficiency doubles the compute-bound forward time; a CPU
  // model the workload has no calibration for runs uncalibrated and says so.
  Scenario s = scenario(topologies[0].second, 1, "");
  REQUIRE_FALSE(s.platform.node.gpu.has_value());
  s.platform.node.cpu.model = "test CPU";
  const auto base = replay::make_iteration_plan(s);
  CHECK(base.calibration.find("uncalibrated on these CPU nodes") != std::string::npos);
  s.workload.device_calibrations.push_back(
      {.device = "test CPU", .compute_efficiency = s.workload.calibration.compute_efficiency / 2});
  const auto own = replay::make_iteration_plan(s);
  CHECK(own.calibration == "calibrated on this device (test CPU)");
  CHECK(own.forward_s == testing::relative(2 * base.forward_s, 1e-12));
  s.platform.node.cpu.model = "another CPU";
  CHECK(replay::make_iteration_plan(s).forward_s == base.forward_s);
}

TEST_CASE("a GPU's stand-in (node.gpu.calibration_device) lends it its calibrations, and the run says so") {
  // Expectation: the stand-in's calibration at half the workload's efficiency doubles the
  // compute-bound forward time; a stand-in no calibration names is said to be so.
  Scenario s = scenario(topologies[0].second, 1, gpus(1));
  s.platform.node.gpu->model = "new GPU";
  s.workload.device_calibrations.push_back(
      {.device = "measured GPU", .compute_efficiency = s.workload.calibration.compute_efficiency / 2});
  const auto workload_s = replay::make_iteration_plan(s);
  s.platform.node.gpu->calibration_device = "measured GPU";
  const auto stand_in = replay::make_iteration_plan(s);
  CHECK(stand_in.calibration == "calibrated on its stand-in (node.gpu.calibration_device: measured GPU)");
  CHECK(stand_in.forward_s == testing::relative(2 * workload_s.forward_s, 1e-12));
  s.platform.node.gpu->calibration_device = "misspelt GPU";
  CHECK(replay::make_iteration_plan(s).calibration.find("names no calibration of this workload") != std::string::npos);
  // A calibration naming the GPU itself wins over its stand-in's.
  s.platform.node.gpu->calibration_device = "measured GPU";
  s.workload.device_calibrations.push_back({.device = "new GPU", .compute_efficiency = s.workload.calibration.compute_efficiency});
  const auto own = replay::make_iteration_plan(s);
  CHECK(own.calibration == "calibrated on this device (new GPU)");
  CHECK(own.forward_s == workload_s.forward_s);
}

TEST_CASE("a device of another model than the workload's own fit runs on that fit and says it is uncalibrated") {
  // Expectation: the fit's own model is calibrated and says nothing more; another GPU, or a CPU
  // node, is priced alike (the same efficiencies) and the run names the device that was fitted.
  Scenario s = scenario(topologies[0].second, 1, gpus(1));
  s.workload.calibration.device = "fit GPU";
  s.platform.node.gpu->model = "fit GPU";
  const auto fitted = replay::make_iteration_plan(s);
  CHECK(fitted.calibration == "the workload's calibration");
  s.platform.node.gpu->model = "new GPU";
  const auto other = replay::make_iteration_plan(s);
  CHECK(other.calibration == "the workload's calibration, fitted on fit GPU: uncalibrated on this GPU (the fit's "
                             "efficiencies at its peak and memory bandwidth)");
  CHECK(other.forward_s == fitted.forward_s);
  Scenario cpu = scenario(topologies[0].second, 1, "");
  cpu.platform.node.cpu.model = "test CPU";
  cpu.workload.calibration.device = "fit CPU";
  cpu.workload.calibration.device_is_gpu = false;
  CHECK(replay::make_iteration_plan(cpu).calibration.find(", fitted on another CPU: uncalibrated on these CPU nodes") !=
        std::string::npos);
  cpu.workload.calibration.device = "test CPU";
  CHECK(replay::make_iteration_plan(cpu).calibration == "the workload's calibration");
}

TEST_CASE("a calibration measured in another precision than the run computes in is said to be uncalibrated") {
  // Expectation: an fp16 workload whose calibration was measured in fp32 (as one borrowed from an
  // fp32 lender is) runs at the fp16 peak with that efficiency, and says so; in fp32 it is calibrated.
  Scenario s = scenario(topologies[0].second, 1, gpus(1));
  s.workload.precision = platform::Precision::Fp16;
  s.workload.calibration.precision = platform::Precision::Fp32;
  CHECK(replay::make_iteration_plan(s).calibration.find("measured in fp32: fp16 is uncalibrated") != std::string::npos);
  s.options.precision = replay::PrecisionMode::Fp32;
  CHECK(replay::make_iteration_plan(s).calibration == "the workload's calibration");
}

TEST_CASE("a stack's copy overhead comes before every host<->device copy") {
  // Expectation: the copy time grows by three overheads (input, out, back) of 4 us.
  Scenario s = eight_staged_nodes_in_turn();
  s.platform.node.pcie->copy_overhead = units::Duration::from_seconds(4e-6);
  const auto without = run_isolated(s).breakdown;
  s.options.software.copy_overheads = true;
  const auto with = run_isolated(s).breakdown;
  CHECK(with.copy_s - without.copy_s == testing::relative(3 * 4e-6, 1e-6));
  CHECK(with.communication_s == testing::relative(without.communication_s, 1e-9));
  CHECK(with.compute_s == testing::relative(without.compute_s, 1e-9));
}

TEST_CASE("GPU-direct messages pay the PCIe link's latency at both ends and no copy call, staged copies pay both") {
  // Eight single-GPU nodes in turn, one bucket (a ring: 14 message steps), PCIe latency L = 2 us
  // and a copy call C = 4 us against none of either. Expectation: under GPU-direct every step's
  // route crosses PCIe at each end, so the communication grows by 14 x 2L and the one copy (the
  // input) by L + C; under host staging the messages stay in host memory and the three copies
  // (input, out, back) each grow by L + C.
  const double L = 2e-6, C = 4e-6;
  for (auto staging : {replay::Staging::Direct, replay::Staging::Host}) {
    CAPTURE(replay::to_string(staging));
    Scenario s = eight_staged_nodes_in_turn();
    s.options.staging = staging;
    const auto without = run_isolated(s).breakdown;
    s.platform.node.pcie->latency = units::Duration::from_seconds(L);
    s.platform.node.pcie->copy_overhead = units::Duration::from_seconds(C);
    s.options.software.copy_overheads = true;
    const auto with = run_isolated(s).breakdown;
    const bool direct = staging == replay::Staging::Direct;
    CHECK(with.communication_s == testing::relative(without.communication_s + (direct ? 14 * 2 * L : 0.0), 1e-9));
    CHECK(with.copy_s - without.copy_s == testing::relative((direct ? 1 : 3) * (L + C), 1e-6));
  }
}

TEST_CASE("a reduction on the GPU pays its gamma term at the GPU's memory bandwidth") {
  // Eight single-GPU nodes in turn under GPU-direct, one bucket, the stack's reducer the device
  // (NCCL reduces in GPU memory). Expectation: 3 bytes moved per byte reduced at 900 GB/s, and
  // the communication grows by what each step's receiver reduces times that gamma, summed over
  // the ring's steps (collectives::alpha_beta_seconds with and without gamma).
  Scenario s = eight_staged_nodes_in_turn();
  s.options.staging = replay::Staging::Direct;
  const auto without = run_isolated(s).breakdown;
  s.options.software.reducer = stack::Reducer::Device;
  const auto plan = replay::make_iteration_plan(s);
  const double gamma = 3 / 900e9;
  CHECK(plan.costs.reduce_s_per_byte == testing::relative(gamma, 1e-12));
  REQUIRE(plan.reductions.size() == 1);
  const auto& ring = plan.reductions[0].plan;
  const double reducing = collectives::alpha_beta_seconds(ring, switch_alpha_s, 12.5e9, 0, gamma) -
                          collectives::alpha_beta_seconds(ring, switch_alpha_s, 12.5e9);
  REQUIRE(reducing > 0);
  const auto with = run_isolated(s).breakdown;
  CHECK(with.communication_s - without.communication_s == testing::relative(reducing, 1e-6));
  CHECK(with.compute_s == testing::relative(without.compute_s, 1e-12));
}

TEST_CASE("NCCL's protocol: a collective pays its base latency, each step what the route's latency leaves of the protocol's") {
  // Eight single-GPU nodes in turn, one 120 MB bucket, NCCL 2.7 with the ring fixed: Simple
  // (tuning.cc: the ring's LL is 4 times slower in bandwidth). Expectation: a base latency of
  // 8.4 us, and 14 steps of max(0, 9.6 us (network, Simple) - 2.2 us (the route)).
  Scenario s = eight_staged_nodes_in_turn();
  s.platform.node.gpu->compute_capability = 60;
  const double without = mean_time(run_isolated(s));
  s.options.software.library = collectives::Library::Nccl27;
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.reductions.size() == 1);
  CHECK(plan.reductions[0].protocol == collectives::Protocol::Simple);
  const double with = mean_time(run_isolated(s));
  CHECK(with - without == testing::relative(8.4e-6 + 14 * (9.6e-6 - switch_alpha_s), 1e-6));
}

TEST_CASE("NCCL's LL protocol sends twice the bytes: a 4-byte flag with every 4 data bytes") {
  // Expectation: 24-byte buckets go by LL (tuning.cc: 3.6 + 14 x 2.7 us against Simple's
  // 8.4 + 14 x 9.6 us); every flow of the plan carries twice the bytes it carries without NCCL.
  Scenario s = eight_staged_nodes_in_turn();
  s.platform.node.gpu->compute_capability = 60;
  for (auto& layer : s.workload.layers)
    layer.params = 2;
  const auto plain = replay::make_iteration_plan(s);
  s.options.software.library = collectives::Library::Nccl27;
  const auto nccl = replay::make_iteration_plan(s);
  REQUIRE(nccl.reductions.size() == plain.reductions.size());
  CHECK(nccl.reductions[0].protocol == collectives::Protocol::LL);
  const auto& a = plain.reductions[0].plan;
  const auto& b = nccl.reductions[0].plan;
  REQUIRE(a.size() == b.size());
  for (std::size_t p = 0; p < a.size(); ++p)
    for (std::size_t f = 0; f < a[p].flows.size(); ++f) {
      CHECK(b[p].flows[f].bytes == 2 * a[p].flows[f].bytes);
      CHECK(b[p].flows[f].reduce_bytes == a[p].flows[f].reduce_bytes);
    }
}

TEST_CASE("NCCL's pipelined trees cut their shares as NCCL does for the protocol each bucket runs") {
  // Eight P100 nodes of one GPU, NCCL 2.4 forced to its pipelined tree (one ring, one tree of the
  // whole bucket). Expectation: 20 kB buckets go by LL (below 2.4's LL threshold for a tree:
  // nccl_test), in 16 KiB chunks: ceil(20,000 / 16,384) = 2; 12 MB buckets by Simple, 512 KiB
  // halved while the share holds fewer than 8 x NCCL's depth (1 + log2 8 = 4: 32) chunks: 22 at
  // 512 KiB, 45 at 256 KiB, so 256 KiB chunks: ceil(12e6 / 262,144) = 46.
  Scenario s = eight_staged_nodes_in_turn();
  s.platform.node.gpu->compute_capability = 60;
  s.options.software.library = collectives::Library::Nccl;
  s.options.software.collective = collectives::Algorithm::PipelinedTree;
  const auto chunks_of = [&](long long params_per_layer) {
    for (auto& layer : s.workload.layers)
      layer.params = params_per_layer;
    s.options.software.fusion_threshold = units::DataSize::from_bytes(static_cast<double>(params_per_layer) * 4);
    const auto plan = replay::make_iteration_plan(s);
    REQUIRE_FALSE(plan.reductions.empty());
    const auto& r = plan.reductions[0];
    REQUIRE(r.bytes == static_cast<double>(params_per_layer) * 4); // one layer a bucket
    return std::pair{r.protocol, r.plan.front().chunks};
  };
  CHECK(chunks_of(5000) == std::pair{std::optional{collectives::Protocol::LL}, 2});
  CHECK(chunks_of(3'000'000) == std::pair{std::optional{collectives::Protocol::Simple}, 46});
}

TEST_CASE("a GPU-only stack needs GPU nodes, and NCCL their compute capability") {
  Scenario s = eight_staged_nodes_in_turn();
  s.options.software.library = collectives::Library::Nccl;
  CHECK(problem_of(s).starts_with("platform node.gpu.compute_capability: the stack ideal runs NCCL"));
  Scenario cpu = cpu_nodes_reducing_after_backward(2);
  cpu.options.software.library = collectives::Library::Nccl27;
  CHECK(problem_of(cpu).starts_with("software software.library: NCCL runs on GPUs, but"));
  CHECK(problem_of(cpu).find("has CPU nodes") != std::string::npos);
  cpu.options.software.library.reset();
  CHECK(!replay::scenario_problem(cpu));
  cpu.options.software.needs_gpus = true; // (tf-replicated-nccl: NCCL 1 under a fixed ring)
  CHECK(problem_of(cpu).starts_with("software software.needs_gpus: the stack's code runs on GPUs only, but"));
}

TEST_CASE("a library's selection gives every bucket the algorithm its rule names") {
  // Three 10 M-parameter layers, fp32, 64 MiB threshold: a bucket of 40 MB each (two would pass the
  // threshold), for which MPICH picks Rabenseifner; with 2 parameters per layer, one 24-byte
  // bucket: recursive doubling.
  Scenario s = scenario(topologies[0].second, 16, "");
  s.options.software.library = collectives::Library::Mpich;
  s.options.software.collective.reset();
  const auto large = replay::make_iteration_plan(s).reductions;
  REQUIRE(large.size() == 3);
  CHECK(large[0].bytes == 40e6);
  CHECK(large[1].bytes == 40e6);
  CHECK(large[2].bytes == 40e6);
  for (const auto& r : large)
    CHECK(r.algorithm == collectives::Algorithm::HalvingDoubling);
  for (auto& layer : s.workload.layers)
    layer.params = 2; // 8 bytes of fp32 gradient per layer
  const auto small = replay::make_iteration_plan(s).reductions;
  REQUIRE(small.size() == 1);
  CHECK(small[0].bytes == 24);
  CHECK(small[0].algorithm == collectives::Algorithm::RecursiveDoubling);
  s.options.software.library.reset(); // neither an algorithm nor a library to choose one
  CHECK(problem_of(s).starts_with("software software.collective: \"auto\" lets the library choose, but the stack names none"));
}

namespace {

/// A pipelined tree over `nodes` CPU nodes on one switch, in 1 MB chunks (40 and 80 of them: no
/// halving at these depths).
Scenario pipelined_tree_on(int nodes) {
  Scenario s = cpu_nodes_reducing_after_backward(nodes);
  s.options.software.collective = collectives::Algorithm::PipelinedTree;
  s.options.software.pipeline_chunk = units::DataSize::from_bytes(1e6);
  return s;
}

/// The sum over the reductions of `s` of `seconds(B, K)`, B the reduction's bytes and K its
/// 1 MB chunks.
template <class Seconds>
double over_reductions(const Scenario& s, Seconds seconds) {
  double sum = 0;
  for (const auto& r : replay::make_iteration_plan(s).reductions)
    sum += seconds(r.bytes, std::ceil(r.bytes / 1e6));
  return sum;
}

/// The simulated seconds of an iteration of `result` spent beyond the compute of `s`.
double communication_s(const Scenario& s, const Summary& result) {
  return mean_time(result) - compute_seconds(replay::make_iteration_plan(s));
}

/// Checks that a pipelined tree over `nodes` nodes (pipelined_tree_on, then `adjust`) in
/// `fidelity` communicates for `seconds(B, K)` summed over its reductions.
template <class Adjust, class Seconds>
void check_pipelined_tree(int nodes, replay::Fidelity fidelity, Adjust adjust, Seconds seconds) {
  CAPTURE(replay::to_string(fidelity));
  Scenario s = pipelined_tree_on(nodes);
  s.options.fidelity = fidelity;
  adjust(s);
  CHECK(communication_s(s, run_isolated(s)) == testing::relative(over_reductions(s, seconds), 1e-6));
}

constexpr replay::Fidelity both_fidelities[] = {replay::Fidelity::Aggregated, replay::Fidelity::Exact};

} // namespace

TEST_CASE("a pipeline between two nodes sends every chunk up, then every chunk down, paying alpha once each way") {
  // Two CPU nodes on one switch: the tree is one edge. NCCL's tree all-reduce runs its up loop,
  // then its down loop (all_reduce.h, NCCL 2.4 and 2.7), so the edge carries K chunks of C bytes
  // up, then K down, one after another, each chunk's latency running beside the next one's bytes
  // (a FIFO holds several in flight): alpha + B / 12.5 GB/s each way, whatever K.
  for (auto fidelity : both_fidelities)
    check_pipelined_tree(2, fidelity, [](Scenario&) {},
                         [](double bytes, double) { return 2 * (switch_alpha_s + bytes / 12.5e9); });
}

TEST_CASE("a pipeline's chunks each pay the message overheads before the next one leaves, in either fidelity") {
  // The two nodes above, under a stack with the LogGP overheads (0.3 + 0.2 us per message): each
  // chunk costs its sender's and receiver's CPU, one chunk after another, so each way adds
  // K x 0.5 us: 2 (alpha + B / 12.5 GB/s + K x 0.5 us).
  const auto with_overheads = [](Scenario& s) {
    s.platform.node.nic.send_overhead = units::Duration::from_seconds(0.3e-6);
    s.platform.node.nic.receive_overhead = units::Duration::from_seconds(0.2e-6);
    s.options.software.message_overheads = true;
  };
  for (auto fidelity : both_fidelities)
    check_pipelined_tree(2, fidelity, with_overheads, [](double bytes, double chunks) {
      return 2 * (switch_alpha_s + bytes / 12.5e9 + chunks * 0.5e-6);
    });
}

TEST_CASE("exactly, a sender whose receiver's FIFO is full waits for the chunk 8 before to arrive") {
  // The two nodes above, the NICs' latency 1 ms: alpha = 2 ms + 0.2 us, far above the 8 chunk
  // times (80 us each) a FIFO holds. Up, the root frees chunk j - 8's slot once it has it: chunk j
  // leaves at g (alpha + tau) + i tau (g = j / 8, i = j mod 8, tau a chunk's time), the last of
  // K = 8 m arrives at m (alpha + tau) + 7 tau; down, the child is a leaf and nothing waits:
  // K tau + alpha.
  const double alpha = 2 * 1e-3 + 2 * 100e-9;
  check_pipelined_tree(
      2, replay::Fidelity::Exact, [](Scenario& s) { s.platform.node.nic.latency = units::Duration::from_seconds(1e-3); },
      [&](double bytes, double chunks) {
        REQUIRE(std::fmod(chunks, 8.0) == 0);
        const double tau = bytes / chunks / 12.5e9;
        return chunks / 8 * (alpha + tau) + 7 * tau + chunks * tau + alpha;
      });
}

TEST_CASE("a pipeline over three nodes is NCCL's chain: every edge at the links' rate, one round of fill and drain") {
  // Three CPU nodes on one switch: NCCL's tree over 3 is 0 <- 2 <- 1 (ncclGetBtree: the root's one
  // child, the largest power of two below 3), so no link carries two edges. Expectation, up then
  // down: K + 1 rounds of a chunk at 12.5 GB/s (one of fill, its first chunk only on 1 -> 2),
  // the first chunk paying alpha on each of its 2 hops: 2 (2 alpha + B / 12.5 GB/s + B / K / 12.5 GB/s).
  for (auto fidelity : {replay::Fidelity::Aggregated, replay::Fidelity::Exact}) {
    CAPTURE(replay::to_string(fidelity));
    Scenario s = pipelined_tree_on(3);
    s.options.fidelity = fidelity;
    const double expected = over_reductions(s, [](double bytes, double chunks) {
      return 2 * (2 * switch_alpha_s + bytes / 12.5e9 + bytes / chunks / 12.5e9);
    });
    const auto result = run_isolated(s);
    CHECK(result.flows_shared > 0);
    CHECK(communication_s(s, result) == testing::relative(expected, 1e-6));
  }
}

TEST_CASE("a pipeline two levels deep pays one round of fill and one of drain each way, through the links then busy") {
  // Four CPU nodes on one switch: NCCL's tree has rank 0 the root, 2 its one child, 1 and 3 the
  // children of 2 (depth 2: each way K + 1 rounds, the first chunk's 2 hops each paying alpha).
  // Up, rank 2's NIC carries two edges in: the pipeline streams B at 12.5 / 2 GB/s. Its first
  // round runs 1 -> 2 and 3 -> 2 (two chunks through rank 2's link), its last only 2 -> 0 (one
  // chunk); less one round of the steady state (two): one chunk time. Down the same, mirrored.
  // Expectation: 2 (2 alpha + 2 B / 12.5 GB/s + B / K / 12.5 GB/s).
  const Scenario s = pipelined_tree_on(4);
  const double expected = over_reductions(s, [](double bytes, double chunks) {
    return 2 * (2 * switch_alpha_s + 2 * bytes / 12.5e9 + bytes / chunks / 12.5e9);
  });
  CHECK(communication_s(s, run_isolated(s)) == testing::relative(expected, 1e-6));
}

TEST_CASE("aggregated collectives stay within 2 % of the exact ones on every topology") {
  using collectives::Algorithm;
  double worst = 0;
  std::string where;
  for (const auto& [topology, text] : topologies)
    for (Algorithm a : {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::RecursiveDoubling,
                        Algorithm::BinaryTree, Algorithm::DoubleBinaryTree, Algorithm::Hierarchical,
                        Algorithm::HierarchicalHalvingDoubling, Algorithm::ParameterServer,
                        Algorithm::PipelinedTree, Algorithm::PipelinedDoubleTree})
      for (int nodes : {3, 8, 32}) {
        Scenario s = scenario(text, nodes, gpus(2));
        s.options.software.collective = a;
        s.options.servers = 2;
        const double aggregated = mean_time(run_isolated(s));
        s.options.fidelity = replay::Fidelity::Exact;
        const double exact = mean_time(run_isolated(s));
        const double difference = std::abs(aggregated - exact) / exact;
        if (difference >= worst) {
          worst = difference;
          where = topology + ", " + std::string(collectives::to_string(a)) + ", " + std::to_string(nodes) + " nodes, aggregated " + std::to_string(aggregated) + " s, exact " + std::to_string(exact) + " s";
        }
        const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
        CAPTURE(topology_name);
        CAPTURE(collectives::to_string(a));
        CAPTURE(nodes);
        // Both forms are timed by the replay (each held to SimGrid on its own, the tests above; the
        // exact pipelined trees to their messages).
        // Pipelines, up then down: the aggregated form streams every edge at the tree's pace, its
        // busiest link's, as one flow weighed by its longest latency, and adds the fill and drain
        // as lockstep rounds; the exact form sends each chunk as NCCL's primitives do, once its
        // data and a FIFO slot are there, a chunk to all a rank's children as one, every chunk
        // weighed as its tree (collective_plan.cpp, Phase::sent_with and stream). Both pay each
        // hop's latency once, beside the bytes. Measured: within 0.65 % (the exact form slower by
        // up to 4.7 % and 0.5 % faster while each chunk weighed by its own route's latency and a
        // rank sent a chunk to each child on its own, and the aggregated form's pace was that of
        // lockstep rounds weighed so).
        CHECK(difference <= 0.02);
      }
  MESSAGE("largest relative difference, aggregated vs exact: " << worst << " (" << where << ")");
}

TEST_CASE("an aggregated ring splits communication and waiting as the exact one does") {
  // Four GPUs per node on NVLink: the ring's edges inside a node are faster than those between nodes, and
  // every rank forwards each step what it received in the one before, so no rank is through
  // before the slowest edge has delivered: without jitter every rank communicates the whole
  // all-reduce and hardly waits. (Released at the end of its own two flows, a rank with two fast
  // edges counted most of it as waiting: 0.0018 s of communication and 0.0035 s of waiting for
  // 0.0051 and 0.0002 exact, on DGX-1 nodes.) Expectation: the communication and the waiting
  // within 5 % of the iteration time of the exact ring's.
  for (const auto& [topology, text] : topologies) {
    Scenario s = scenario(text, 2, nvlink_gpus(4, "20 GB/s"));
    s.options.software.collective = collectives::Algorithm::Ring;
    const Summary aggregated = run_isolated(s);
    s.options.fidelity = replay::Fidelity::Exact;
    const Summary exact = run_isolated(s);
    const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
    CAPTURE(topology_name);
    const double time = mean_time(exact);
    CHECK(std::abs(aggregated.breakdown.communication_s - exact.breakdown.communication_s) <= 0.05 * time);
    CHECK(std::abs(aggregated.breakdown.synchronisation_s - exact.breakdown.synchronisation_s) <= 0.05 * time);
    MESSAGE(topology_name << ": communication " << aggregated.breakdown.communication_s << " / " << exact.breakdown.communication_s
                          << " s, waiting " << aggregated.breakdown.synchronisation_s << " / " << exact.breakdown.synchronisation_s
                          << " s (aggregated / exact)");
    CHECK(exact.breakdown.communication_s > 4 * exact.breakdown.synchronisation_s); // (what the check is about)
  }
}

TEST_CASE("NCCL's channels side by side, rings and pipelined trees: aggregated near exact, and faster where one GPU's PCIe link bottlenecks") {
  // Two GPUs per node joined by a 50 GB/s NVLink switch, whose PCIe links (5 GB/s) are narrower
  // than the NIC (12.5 GB/s): with one channel, the ring or tree leaves each node through one
  // GPU's PCIe link; with two, the second channel's through the other GPU's (NCCL 2.4.8
  // setupChannel: a channel's tree follows its ring inside the node; NCCL 2.7, this test's
  // library, runs both trees of the double tree on each ring). Expectation: the aggregated plan
  // within 2 % of the exact one (measured: 0.23 % faster to 0.51 % slower here), and
  // the collective at least 1.5 times faster with two channels on the single switch: each
  // GPU's PCIe link carries half of what one channel put through the busiest (at most 2 x: the
  // latencies do not halve).
  using collectives::Algorithm;
  const std::string node = nvlink_gpus(2, "5 GB/s");
  for (Algorithm a : {Algorithm::Ring, Algorithm::PipelinedTree, Algorithm::PipelinedDoubleTree}) {
    CAPTURE(collectives::to_string(a));
    double single = 0;
    for (int channels : {1, 2})
      for (const auto& [topology, text] : topologies) {
        const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
        CAPTURE(topology_name);
        CAPTURE(channels);
        Scenario s = scenario(text, 8, node);
        s.options.staging = replay::Staging::Direct;
        s.options.overlap = false;
        s.options.software.library = collectives::Library::Nccl27;
        s.options.software.collective = a;
        s.options.software.channels = channels;
        const auto plan = replay::make_iteration_plan(s);
        const double aggregated = mean_time(run_isolated(s)) - compute_seconds(plan);
        s.options.fidelity = replay::Fidelity::Exact;
        const double exact = mean_time(run_isolated(s)) - compute_seconds(plan);
        CHECK(std::abs(aggregated - exact) / exact <= 0.02);
        if (topology_name == "single switch") {
          if (channels == 1)
            single = aggregated;
          else
            CHECK(single > 1.5 * aggregated);
        }
      }
  }
}

TEST_CASE("NCCL 2.4's tree threshold counts the channels it copies for the trees on several NVLink nodes, one ring per NIC port by default") {
  // 16 nodes of 8 GPUs joined by NVLink, NCCL 2.4 choosing, 2 channels, one 40 MB bucket per
  // layer. NCCL copies each ring into a second channel (src/misc/rings.cc copyRings), so its
  // threshold (src/init.cc ncclTreeThreshold) counts 4: ring 20,000 B/us, tree 15,000, latencies
  // 6 x 127 and 15 x 4 + 4 x 7 us: 40.44 MB. Expectation: the 40 MB buckets go by the tree
  // (with 2 channels counted, 20.22 MB, they would go by the ring). A stack without channels
  // runs one ring per NIC port: 2 ports, the tree again; 1 port (2 channels counted), the ring.
  const std::string node = nvlink_gpus(8, "16 GB/s");
  Scenario s = scenario(topologies[0].second, 16, node);
  s.options.software.library = collectives::Library::Nccl;
  s.options.software.collective.reset();
  s.options.software.channels = 2;
  s.options.software.fusion_threshold = units::DataSize::from_bytes(1);
  const auto algorithms = [](const Scenario& run) {
    std::vector<collectives::Algorithm> out;
    for (const auto& r : replay::make_iteration_plan(run).reductions) {
      CHECK(r.bytes == 40e6);
      out.push_back(r.algorithm);
    }
    return out;
  };
  using collectives::Algorithm;
  const std::vector<Algorithm> trees(3, Algorithm::PipelinedDoubleTree);
  CHECK(algorithms(s) == trees);
  s.options.software.channels.reset();
  for (int ports : {1, 2}) {
    CAPTURE(ports);
    const std::string nic = "gpu_direct = true\nports = " + std::to_string(ports) + "\n";
    s.platform = config::load_platform_text(
        testing::edited(platform_text(topologies[0].second, 64, node), "gpu_direct = true\n", nic), "t.toml");
    CHECK(algorithms(s) == (ports == 2 ? trees : std::vector<Algorithm>(3, Algorithm::Ring)));
  }
}

TEST_CASE("NCCL 2.4's rules count its rings copied on NVLink, at least 2 on Kepler and at most 16, NCCL 2.7's count the rings") {
  // NCCL 2.4.8 copies its rings on NVLink GPUs: across nodes src/misc/rings.cc ncclGetRings
  // (copyRings), on one node src/transport/p2p.cc (p2pComputeRingsNvLink, p2pGetRings on
  // NVSwitch); defaultMinNrings 2 on compute capability 3.x; MAXCHANNELS 16 (src/include/comm.h).
  // Expectation, 8 GPUs per node: 2 rings on NVLink count 4, whatever the nodes; without NVLink
  // 2; 12 rings count 16; under NCCL 2.7, 2; one ring of Kepler GPUs without NVLink counts 2.
  Scenario s = scenario(topologies[0].second, 16, nvlink_gpus(8, "16 GB/s"));
  s.options.software.library = collectives::Library::Nccl;
  s.options.software.channels = 2;
  CHECK(replay::nccl_channels(s) == 4);
  Scenario one_node = scenario(topologies[0].second, 1, nvlink_gpus(8, "16 GB/s"));
  one_node.options.software = s.options.software;
  CHECK(replay::nccl_channels(one_node) == 4);
  Scenario pcie = scenario(topologies[0].second, 16, gpus(8));
  pcie.options.software = s.options.software;
  CHECK(replay::nccl_channels(pcie) == 2);
  s.options.software.channels = 12;
  CHECK(replay::nccl_channels(s) == 16);
  s.options.software.library = collectives::Library::Nccl27;
  s.options.software.channels = 2;
  CHECK(replay::nccl_channels(s) == 2);
  s.options.software.library = collectives::Library::Nccl;
  s.options.software.channels.reset();
  s.platform = config::load_platform_text(
      testing::edited(platform_text(topologies[0].second, 64, gpus(8)), "[node.pcie]", "compute_capability = 3.7\n[node.pcie]"),
      "t.toml");
  CHECK(replay::nccl_rings(s) == 1);
  CHECK(replay::nccl_channels(s) == 2);
}

TEST_CASE("staging through host memory adds exactly the PCIe copies when nothing overlaps") {
  // PCIe faster than the NIC and without latency, so that a GPU-direct route costs what the
  // host route costs: the only difference left is the copies.
  Scenario s = scenario(topologies[0].second, 8, gpus(1, "0 s"));
  s.options.overlap = false;
  s.options.software.fusion_threshold = units::DataSize::from_bytes(1e9); // one bucket: no pipelining
  s.options.input_overlap = false;
  s.options.staging = replay::Staging::Direct;
  const double direct = mean_time(run_isolated(s));
  s.options.staging = replay::Staging::Host;
  const double host = mean_time(run_isolated(s));
  double copies = 0;
  for (const auto& r : replay::make_iteration_plan(s).reductions)
    copies += r.bytes / 16e9 + r.bytes / 20e9; // device->host, then host->device
  CHECK(host - direct == testing::relative(copies, 1e-6));
}

TEST_CASE("overlapping communication with backward never makes an iteration slower") {
  for (const auto& [topology, text] : topologies)
    for (auto staging : {replay::Staging::Host, replay::Staging::Direct}) {
      const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
      CAPTURE(topology_name);
      Scenario s = scenario(text, 16, gpus(2));
      s.options.staging = staging;
      const double on = mean_time(run_isolated(s));
      s.options.overlap = false;
      const double off = mean_time(run_isolated(s));
      CHECK(on <= off * (1 + 1e-12));
    }
}

TEST_CASE("a stack without overlap reduces after backward as --overlap off does, and --overlap on overrides it") {
  // Expectation: the stack's overlap = false alone gives the closed form of a run that
  // overlaps nothing (compute, then the copies and the ring between host memories, as below);
  // on 16 nodes of 2 GPUs with several buckets, the same time as --overlap off to the bit,
  // more than with overlap, and --overlap on gives the time of a stack that overlaps.
  Scenario s = eight_staged_nodes_in_turn();
  s.options.overlap.reset();
  s.options.software.overlap = false;
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.reductions.size() == 1);
  const auto& reduction = plan.reductions.front();
  const double copy = 32 * 100e3 / 20e9 + reduction.bytes / 16e9 + reduction.result_bytes / 20e9;
  const double communication = collectives::alpha_beta_seconds(reduction.plan, switch_alpha_s, 12.5e9);
  CHECK(mean_time(run_isolated(s)) == testing::relative(compute_seconds(plan) + copy + communication, 1e-6));

  Scenario t = scenario(topologies[0].second, 16, gpus(2));
  t.options.software.fusion_threshold = units::DataSize::from_bytes(2e6);
  REQUIRE(replay::make_iteration_plan(t).reductions.size() > 1);
  const double overlapping = mean_time(run_isolated(t));
  t.options.overlap = false;
  const double off = mean_time(run_isolated(t));
  t.options.overlap.reset();
  t.options.software.overlap = false;
  CHECK(mean_time(run_isolated(t)) == off);
  CHECK(off > overlapping);
  t.options.overlap = true;
  CHECK(mean_time(run_isolated(t)) == overlapping);
}

TEST_CASE("each part of the breakdown is its closed form when nothing overlaps and no rank waits") {
  Scenario s = eight_staged_nodes_in_turn();
  const auto plan = replay::make_iteration_plan(s);
  REQUIRE(plan.reductions.size() == 1);
  const auto& reduction = plan.reductions.front();
  // Expectation: compute is the cost model's; copies are the input batch (32 x 100 kB at
  // 20 GB/s) and the bucket out (16 GB/s) and back (20 GB/s); communication is the ring's
  // alpha-beta form between host memories (alpha = 2 x 1 us NIC + 2 x 100 ns fabric).
  const double copy = 32 * 100e3 / 20e9 + reduction.bytes / 16e9 + reduction.result_bytes / 20e9;
  const double communication = collectives::alpha_beta_seconds(reduction.plan, switch_alpha_s, 12.5e9);
  const auto b = run_isolated(s).breakdown;
  CHECK(b.compute_s == testing::relative(compute_seconds(plan), 1e-9));
  CHECK(b.copy_s == testing::relative(copy, 1e-6));
  CHECK(b.communication_s == testing::relative(communication, 1e-6));
  CHECK(b.synchronisation_s <= 1e-12 * (b.compute_s + b.copy_s + b.communication_s));
}

TEST_CASE("the breakdown parts add up to the iteration time") {
  Scenario s = scenario(topologies[4].second, 16, gpus(2));
  s.options.jitter = 0.2;
  s.options.staging = replay::Staging::Host;
  const auto summary = run_isolated(s);
  CHECK(summary.breakdown.compute_s + summary.breakdown.copy_s + summary.breakdown.communication_s +
            summary.breakdown.synchronisation_s ==
        testing::relative(mean_time(summary), 1e-9));
  CHECK(summary.breakdown.synchronisation_s > 0); // stragglers make the others wait
}

TEST_CASE("a stack's jitter draws as the run's would, the run's jitter wins, and one rank averages 1 + s sqrt(2/pi)") {
  // One CPU node on its own: an iteration is its compute, times the rank's draw.
  Scenario s = cpu_nodes_reducing_after_backward(1);
  s.options.iterations = 1601;
  const auto plain = run_isolated(s).iteration_s;
  s.options.software.jitter = 0.1;
  const auto by_stack = run_isolated(s).iteration_s;
  s.options.software.jitter = 0;
  s.options.jitter = 0.1;
  CHECK(run_isolated(s).iteration_s == by_stack); // the same draws, bit for bit
  s.options.software.jitter = 0.1;
  s.options.jitter = 0.0;
  CHECK(run_isolated(s).iteration_s == plain);
  // |N(0, s)| has mean s sqrt(2 / pi) and deviation s sqrt(1 - 2 / pi): over 1,600 iterations the
  // mean factor is within 4 standard errors of 1 + 0.0798 (4 x 0.0603 / 40 = 0.0060; a factor
  // 1 + s, or 1 + N(0, s), would miss by 0.020 or 0.080).
  double factor = 0;
  for (std::size_t i = 1; i < by_stack.size(); ++i)
    factor += by_stack[i] / plain[i] / static_cast<double>(by_stack.size() - 1);
  CHECK(std::abs(factor - (1 + 0.1 * std::sqrt(2 / M_PI))) <= 0.0060);
}

TEST_CASE("the slowest of the devices sets every step: ranks in turn take compute x spread x z longer, whatever the seed") {
  // Eight GPUs (eight nodes of one, or four of two), each rank computing, copying and
  // communicating in turn: with a device spread s, the slowest GPU computes 1 + s z times the
  // others' calibrated time, z = 1.4342 (Blom's slowest of 8: replay/device_spread.hpp), and the
  // all-reduce waits for it; copies and communication are unchanged. The ranks' compute averages
  // the calibration (the paces are symmetric); the others wait the difference. The seed only
  // decides which rank is slowest.
  Scenario in_turn = eight_staged_nodes_in_turn();
  Scenario two_per_node = in_turn;
  two_per_node.platform = config::load_platform_text(platform_text(topologies[0].second, 64, gpus(2, "0 s")), "t.toml");
  two_per_node.nodes = 4;
  for (Scenario s : {in_turn, two_per_node}) {
    CAPTURE(s.nodes);
    const auto plan = replay::make_iteration_plan(s);
    const auto plain = run_isolated(s);
    s.platform.node.gpu->device_spread = 0.02;
    const auto spread = run_isolated(s);
    const double slower_s = compute_seconds(plan) * 0.02 * 1.4342001596863794;
    for (std::size_t i = 0; i < plain.iteration_s.size(); ++i)
      CHECK(spread.iteration_s[i] - plain.iteration_s[i] == testing::relative(slower_s, 1e-9));
    CHECK(spread.breakdown.compute_s == testing::relative(plain.breakdown.compute_s, 1e-12));
    CHECK(spread.breakdown.copy_s == testing::relative(plain.breakdown.copy_s, 1e-12));
    CHECK(spread.breakdown.communication_s == testing::relative(plain.breakdown.communication_s, 1e-9));
    CHECK(spread.breakdown.synchronisation_s ==
          testing::relative(plain.breakdown.synchronisation_s + slower_s, 1e-9));
    // Another seed makes another rank the slowest (the engine deals device_time_factors to
    // ranks in order): the same times.
    const auto slowest = [](std::uint64_t seed) {
      const auto paces = replay::device_time_factors(8, 0.02, seed);
      return std::max_element(paces.begin(), paces.end()) - paces.begin();
    };
    REQUIRE(slowest(4) != slowest(s.options.seed));
    s.options.seed = 4;
    const auto reseeded = run_isolated(s).iteration_s;
    for (std::size_t i = 0; i < reseeded.size(); ++i)
      CHECK(reseeded[i] == testing::relative(spread.iteration_s[i], 1e-12));
  }
  // One node alone computes at its calibration, whatever the spread.
  Scenario alone = scenario(topologies[0].second, 1, gpus(1));
  const auto calibrated = run_isolated(alone).iteration_s;
  alone.platform.node.gpu->device_spread = 0.1;
  CHECK(run_isolated(alone).iteration_s == calibrated);
  // A spread beyond 10 % set in code is refused as the platform file's key would be.
  alone.platform.node.gpu->device_spread = 0.5;
  CHECK(problem_of(alone) == "platform node.gpu.device_spread: must be at least 0 and at most 0.1, got 0.5");
}

TEST_CASE("transfers carried by couriers give the same iterations as transfers started by maestro") {
  for (const auto& [topology, text] : topologies)
    for (auto fidelity : {replay::Fidelity::Aggregated, replay::Fidelity::Exact}) {
      const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
      CAPTURE(topology_name);
      Scenario s = scenario(text, 16, gpus(2));
      s.options.staging = replay::Staging::Host;
      s.options.jitter = 0.1;
      s.options.fidelity = fidelity;
      // Copies too go through the driver; a large input keeps the last prefetch in flight when
      // the last iteration ends.
      s.options.copies_through_simgrid = true;
      s.workload.input_per_sample = units::DataSize::from_bytes(100e6);
      const auto maestro = run_isolated(s).iteration_s;
      s.options.courier_transfers_from_ranks = 0;
      const auto couriers = run_isolated(s).iteration_s;
      CHECK(couriers == maestro); // the same comms at the same instants: bit for bit
    }
}

TEST_CASE("PCIe copies shared out by the replay give the iterations SimGrid gives") {
  // 20 MB of input per sample: the next batch's copy (32 ms) still runs when the gradients come
  // back, so copies share the host->device direction. With 100 M parameters per layer and one
  // bucket per layer, a layer's device->host copy (25 ms) outlasts the next layer's backward
  // (6 ms), so copies share the device->host direction. Without input overlap nothing shares.
  enum Variant { HostToDeviceShared, DeviceToHostShared, InputNotOverlapped };
  double largest = 0;
  for (const auto& [topology, text] : topologies)
    for (Variant variant : {HostToDeviceShared, DeviceToHostShared, InputNotOverlapped}) {
      const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
      CAPTURE(topology_name);
      CAPTURE(variant);
      Scenario s = scenario(text, 16, gpus(2));
      s.options.staging = replay::Staging::Host;
      s.options.jitter = 0.1;
      s.workload.input_per_sample = units::DataSize::from_bytes(20e6);
      s.options.input_overlap = variant != InputNotOverlapped;
      if (variant == DeviceToHostShared) {
        for (auto& layer : s.workload.layers)
          layer.params = 100'000'000;
        s.options.software.fusion_threshold = units::DataSize::from_bytes(1e6);
      }
      const auto shared_run = run_isolated(s);
      s.options.copies_through_simgrid = true;
      const auto simgrid_run = run_isolated(s);
      CHECK(shared_run.link_copies > 0);
      CHECK(simgrid_run.link_copies == 0);
      const auto& shared = shared_run.iteration_s;
      const auto& through_simgrid = simgrid_run.iteration_s;
      REQUIRE(shared.size() == through_simgrid.size());
      for (std::size_t i = 0; i < shared.size(); ++i) {
        CHECK(shared[i] == testing::relative(through_simgrid[i], 1e-9));
        largest = std::max(largest, std::abs(shared[i] / through_simgrid[i] - 1));
      }
    }
  MESSAGE("largest relative difference, copies shared by the replay vs by SimGrid: " << largest);
}

TEST_CASE("flows timed by the replay, in closed form or shared out, give the iterations SimGrid gives") {
  // Every algorithm on every topology, GPU nodes staging through the host and CPU nodes, half
  // and all of the machine, with stragglers: rings are timed in closed form, while
  // halving-doubling, trees and parameter servers cross the same links in several phases and the
  // replay shares them out as CM02's max-min does (FlowSharing). No flow goes through SimGrid.
  // And the exact fidelity's messages on 8 nodes (every algorithm but the pipelined trees, whose
  // exact chunks a SimGrid comm makes pay their latency before their bytes).
  using collectives::Algorithm;
  double largest = 0, largest_clocked = 0;
  long long closed_form = 0, shared = 0, fan_events = 0;
  std::map<std::string, long long> fan_events_by_topology;
  const std::pair<replay::Fidelity, int> runs[] = {
      {replay::Fidelity::Aggregated, 32}, {replay::Fidelity::Aggregated, 64}, {replay::Fidelity::Exact, 8}};
  for (const auto& [topology, text] : topologies)
    for (Algorithm a : {Algorithm::Ring, Algorithm::HalvingDoubling, Algorithm::BinaryTree,
                        Algorithm::DoubleBinaryTree, Algorithm::Hierarchical, Algorithm::ParameterServer})
      for (const std::string& node : {gpus(2), std::string()})
        for (const auto& run : runs) {
          const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
          CAPTURE(topology_name);
          CAPTURE(collectives::to_string(a));
          CAPTURE(node.empty());
          CAPTURE(replay::to_string(run.first));
          CAPTURE(run.second);
          Scenario s = scenario(text, run.second, node);
          s.options.fidelity = run.first;
          s.options.software.collective = a;
          s.options.servers = 2;
          if (!node.empty())
            s.options.staging = replay::Staging::Host;
          s.options.jitter = 0.1;
          REQUIRE_FALSE(replay::scenario_problem(s).has_value());
          s.options.fan_clock_flows = 0; // the solver alone
          const auto mixed = run_isolated(s);
          // And with the fans on level clocks from the least solve on, wherever they may go.
          s.options.fan_clock_flows = 2;
          const auto clocked = run_isolated(s);
          s.options.flows_through_simgrid = true;
          const auto simgrid = run_isolated(s);
          CHECK(simgrid.flows_in_closed_form + simgrid.flows_shared == 0);
          CHECK(mixed.transfers == 0);
          closed_form += mixed.flows_in_closed_form;
          shared += mixed.flows_shared;
          fan_events += clocked.fan_events;
          if (a == Algorithm::ParameterServer)
            fan_events_by_topology[topology_name] += clocked.fan_events;
          REQUIRE(mixed.iteration_s.size() == simgrid.iteration_s.size());
          REQUIRE(clocked.iteration_s.size() == simgrid.iteration_s.size());
          for (std::size_t i = 0; i < mixed.iteration_s.size(); ++i) {
            CHECK(mixed.iteration_s[i] == testing::relative(simgrid.iteration_s[i], 1e-9));
            CHECK(clocked.iteration_s[i] == testing::relative(simgrid.iteration_s[i], 1e-9));
            CHECK(clocked.iteration_s[i] == testing::relative(mixed.iteration_s[i], 1e-12));
            largest = std::max(largest, std::abs(mixed.iteration_s[i] / simgrid.iteration_s[i] - 1));
            largest_clocked = std::max(largest_clocked, std::abs(clocked.iteration_s[i] / simgrid.iteration_s[i] - 1));
          }
        }
  CHECK(closed_form > 0);
  CHECK(shared > 0);
  CHECK(fan_events > 0);
  for (const auto& by_topology : fan_events_by_topology) {
    CAPTURE(by_topology.first);
    CHECK(by_topology.second > 0); // a parameter server's fans went on clocks there
  }
  MESSAGE("largest relative difference, flows timed by the replay vs through SimGrid: " << largest << " ("
          << closed_form << " flows in closed form, " << shared << " shared out by the replay); with fans on "
          << "level clocks: " << largest_clocked << " (" << fan_events << " events on the clocks)");
}

TEST_CASE("tables on parameter servers, their rows pushed and read, give the iterations SimGrid gives") {
  // TensorFlow's parameter servers with l0 a table they hold (1,000 rows, 32 looked up a batch),
  // greedy placement on 2 servers, each variable exchanged on its own and read at the next step
  // (a table: the ids, then the rows); every topology, GPU nodes staging through the host and CPU
  // nodes, with stragglers. Expectation: the replay's flow sharing gives SimGrid's iterations
  // within 1e-9.
  double largest = 0;
  for (const auto& [topology, text] : topologies)
    for (const std::string& node : {gpus(1), std::string()}) {
      const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
      CAPTURE(topology_name);
      CAPTURE(node.empty());
      Scenario s = scenario(text, 32, node);
      s.workload.layers[0].embedding = workload::EmbeddingSpec{.rows = 1000, .rows_per_sample = 1};
      s.options.software.collective = collectives::Algorithm::ParameterServer;
      s.options.software.placement = stack::Placement::Greedy;
      s.options.software.exchange = stack::Exchange::PerVariable;
      s.options.software.pull = stack::Pull::NextForward;
      s.options.software.sparse = stack::SparseGradients::Servers;
      s.options.servers = 2;
      if (!node.empty())
        s.options.staging = replay::Staging::Host;
      s.options.jitter = 0.1;
      REQUIRE_FALSE(replay::scenario_problem(s).has_value());
      const auto mixed = run_isolated(s);
      CHECK(mixed.transfers == 0);
      CHECK(mixed.flows_shared > 0);
      s.options.flows_through_simgrid = true;
      const auto simgrid = run_isolated(s);
      REQUIRE(mixed.iteration_s.size() == simgrid.iteration_s.size());
      for (std::size_t i = 0; i < mixed.iteration_s.size(); ++i) {
        CHECK(mixed.iteration_s[i] == testing::relative(simgrid.iteration_s[i], 1e-9));
        largest = std::max(largest, std::abs(mixed.iteration_s[i] / simgrid.iteration_s[i] - 1));
      }
    }
  MESSAGE("largest relative difference, tables on parameter servers by the replay vs through SimGrid: " << largest);
}

TEST_CASE("GPU-direct flows and input copies shared out by the replay give the iterations SimGrid gives") {
  // Every algorithm family on every topology, two GPUs per node sending from device memory: the flows
  // cross the PCIe links, where a 20 MB-per-sample input copy (the next batch, overlapped) still
  // runs when gradients arrive. FlowSharing times flows and copies together; SimGrid all of them.
  // The ring after them runs as NCCL 2.7 runs it, with its protocol's costs; the last two are
  // fused by cycle as Horovod does, the collectives planned as they form (a 5 ms cycle, 8 MB
  // responses). (The pipelined trees are held to their exact messages instead: the replay runs
  // each tree as one flow at one pace, which a SimGrid comm per edge does not.)
  using collectives::Algorithm;
  double largest = 0;
  struct Case {
    Algorithm algorithm;
    bool nccl = false;
    bool by_cycle = false;
  };
  for (const auto& [topology, text] : topologies)
    for (const Case& c : {Case{Algorithm::Ring}, Case{Algorithm::HalvingDoubling}, Case{Algorithm::BinaryTree},
                          Case{Algorithm::DoubleBinaryTree}, Case{Algorithm::Hierarchical},
                          Case{Algorithm::ParameterServer}, Case{Algorithm::Ring, true},
                          Case{Algorithm::Ring, false, true}, Case{Algorithm::HalvingDoubling, false, true}}) {
      const Algorithm a = c.algorithm;
      const bool nccl = c.nccl;
      const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
      CAPTURE(topology_name);
      CAPTURE(collectives::to_string(a));
      CAPTURE(nccl);
      CAPTURE(c.by_cycle);
      Scenario s = scenario(text, 16, gpus(2));
      s.options.software.collective = a;
      if (nccl) {
        s.options.software.library = collectives::Library::Nccl27;
        s.platform.node.gpu->compute_capability = 70;
      }
      if (c.by_cycle) {
        s.options.software.cycle = units::Duration::from_seconds(5e-3);
        s.options.software.fusion = stack::Fusion::ByCycle;
        s.options.software.fusion_threshold = units::DataSize::from_bytes(8e6);
      }
      s.options.servers = 2;
      s.options.staging = replay::Staging::Direct;
      s.options.jitter = 0.1;
      s.workload.input_per_sample = units::DataSize::from_bytes(20e6);
      REQUIRE_FALSE(replay::scenario_problem(s).has_value());
      REQUIRE(replay::make_iteration_plan(s).fused_by_cycle == c.by_cycle);
      const auto shared = run_isolated(s);
      CHECK(shared.transfers == 0);
      CHECK(shared.link_copies > 0);
      s.options.flows_through_simgrid = true;
      const auto simgrid = run_isolated(s);
      CHECK(simgrid.flows_in_closed_form + simgrid.flows_shared == 0);
      REQUIRE(shared.iteration_s.size() == simgrid.iteration_s.size());
      for (std::size_t i = 0; i < shared.iteration_s.size(); ++i) {
        CHECK(shared.iteration_s[i] == testing::relative(simgrid.iteration_s[i], 1e-9));
        largest = std::max(largest, std::abs(shared.iteration_s[i] / simgrid.iteration_s[i] - 1));
      }
    }
  MESSAGE("largest relative difference, GPU-direct flows and copies by the replay vs by SimGrid: " << largest);
}

TEST_CASE("GPU-direct over routes longer than the replay's flow sharing takes leaves every flow and copy to SimGrid") {
  // A ring of 140 nodes (a 1-D torus): routes of up to 70 fabric hops plus the nodes' links,
  // more than FlowSharing::max_hops; the run is SimGrid's alone, as with --flows simgrid.
  Scenario s = scenario("topology = \"torus\"\ndimensions = [140]\n", 140, gpus(1));
  s.platform = config::load_platform_text(platform_text("topology = \"torus\"\ndimensions = [140]\n", 140, gpus(1)), "t.toml");
  s.options.staging = replay::Staging::Direct;
  s.options.software.collective = collectives::Algorithm::HalvingDoubling;
  const auto r = run_isolated(s);
  CHECK(r.flows_in_closed_form + r.flows_shared == 0);
  CHECK(r.transfers > 0);
  s.options.flows_through_simgrid = true;
  CHECK(run_isolated(s).iteration_s == r.iteration_s);
}

TEST_CASE("GPU-direct runs on an adaptively routed dragonfly") {
  // Expectation: the replay times flows and copies, so the fabric's own routing applies.
  Scenario s = scenario("topology = \"dragonfly\"\ngroups = 4\nglobal_links = 2\nchassis_per_group = 2\n"
                        "chassis_links = 1\nrouters_per_chassis = 4\nrouter_links = 1\nnodes_per_router = 2\n"
                        "routing = \"adaptive\"\n",
                        32, gpus(1));
  s.options.staging = replay::Staging::Direct;
  s.options.software.collective = collectives::Algorithm::HalvingDoubling;
  REQUIRE_FALSE(replay::scenario_problem(s).has_value());
  const auto r = run_isolated(s);
  CHECK(r.transfers == 0);
  CHECK(r.flows_shared > 0);
  s.options.copies_through_simgrid = true;
  CHECK(problem_of(s).starts_with(
      "platform interconnect.routing: \"adaptive\" is computed by the replay's own flow sharing"));
}

TEST_CASE("flows timed by the replay apply the latency and bandwidth factors as SimGrid does") {
  // The ring's flows are alone (closed form), halving-doubling's share links (FlowSharing).
  for (const auto& [topology, text] : topologies)
    for (auto algorithm : {collectives::Algorithm::Ring, collectives::Algorithm::HalvingDoubling}) {
      const std::string& topology_name = topology; // clang 14 cannot capture a structured binding
      CAPTURE(topology_name);
      CAPTURE(collectives::to_string(algorithm));
      Scenario s = scenario(text, 16, gpus(1));
      s.options.staging = replay::Staging::Host;
      s.options.software.collective = algorithm;
      s.options.network.latency_factor = 2.5;
      s.options.network.bandwidth_factor = 0.8;
      const auto mixed = run_isolated(s);
      CHECK(mixed.flows_in_closed_form + mixed.flows_shared > 0);
      CHECK(mixed.transfers == 0);
      s.options.flows_through_simgrid = true;
      const auto simgrid = run_isolated(s);
      REQUIRE(mixed.iteration_s.size() == simgrid.iteration_s.size());
      for (std::size_t i = 0; i < mixed.iteration_s.size(); ++i)
        CHECK(mixed.iteration_s[i] == testing::relative(simgrid.iteration_s[i], 1e-9));
    }
}

TEST_CASE("flows alone on their route are timed in closed form, the others shared out, unless SimGrid must") {
  // Expectation: on one switch every ring flow has its own NIC directions and switch ports
  // (closed form); a hierarchical all-reduce over two GPUs per node gathers and broadcasts
  // through each node's host-memory link (crossed twice: shared out) around a ring of node
  // leaders (alone); a parameter server receives every flow on its NIC (shared out); under
  // GPU-direct every network flow crosses PCIe links that the input copies use too: shared out
  // with them; copies through SimGrid send every flow through SimGrid. The exact fidelity's
  // messages are the replay's too: a ring's 2 (N - 1) steps cross the same links, and its ranks
  // run them at their own pace: shared out.
  Scenario s = scenario(topologies[0].second, 32, gpus(1));
  s.options.staging = replay::Staging::Host;
  auto r = run_isolated(s);
  CHECK(r.transfers == 0);
  CHECK(r.flows_in_closed_form > 0);
  CHECK(r.flows_shared == 0);
  s.options.staging = replay::Staging::Direct;
  r = run_isolated(s);
  CHECK(r.flows_in_closed_form == 0);
  CHECK(r.flows_shared > 0);
  CHECK(r.link_copies > 0);
  CHECK(r.transfers == 0);
  s.options.copies_through_simgrid = true;
  r = run_isolated(s);
  CHECK(r.flows_in_closed_form + r.flows_shared == 0);
  CHECK(r.transfers > 0);
  s = scenario(topologies[0].second, 32, gpus(1));
  s.options.staging = replay::Staging::Host;
  s.options.fidelity = replay::Fidelity::Exact;
  r = run_isolated(s);
  CHECK(r.flows_shared > 0);
  CHECK(r.transfers == 0);
  s = scenario(topologies[0].second, 16, gpus(2));
  s.options.staging = replay::Staging::Host;
  s.options.software.collective = collectives::Algorithm::Hierarchical;
  r = run_isolated(s);
  CHECK(r.flows_in_closed_form > 0);
  CHECK(r.flows_shared > 0);
  CHECK(r.transfers == 0);
  s = scenario(topologies[2].second, 64, "");
  s.options.software.collective = collectives::Algorithm::ParameterServer; // every rank sends to rank 0
  r = run_isolated(s);
  CHECK(r.flows_in_closed_form == 0);
  CHECK(r.flows_shared > 0);
  CHECK(r.transfers == 0);
  s.options.network.model = "LV08"; // no closed form: SimGrid shares
  r = run_isolated(s);
  CHECK(r.flows_in_closed_form + r.flows_shared == 0);
  CHECK(r.transfers > 0);
}

TEST_CASE("scenarios a machine cannot run are refused with the reason") {
  Scenario s = scenario(topologies[0].second, 65, "");
  CHECK(problem_of(s) == "the machine t has 64 nodes, fewer than the 65 asked for");
  s.nodes = 4;
  s.options.precision = replay::PrecisionMode::Fp16;
  CHECK(problem_of(s) == "--precision: fp16 needs a fp16 peak, which the 1 CPU socket(s) of t does not have");
  s.options.precision.reset();
  s.workload.precision = platform::Precision::Fp16;
  CHECK(problem_of(s) == "workload file workload.precision: fp16 needs a fp16 peak, which the 1 "
                         "CPU socket(s) of t does "
                         "not have: expected a precision the device has, or --precision");
}
