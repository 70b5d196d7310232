// From workload and platform specs to per-rank seconds and bytes.
#include "replay/iteration_plan.hpp"

#include "collectives/nccl.hpp"
#include "platform/topology.hpp"
#include "units/parse.hpp"
#include "workload/gradient_buckets.hpp"
#include "workload/layer_graph.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <deque>

namespace ceiling::replay {

std::string_view to_string(Staging s) { return s == Staging::Host ? "host" : "direct"; }
std::string_view to_string(Fidelity f) { return f == Fidelity::Aggregated ? "aggregated" : "exact"; }
std::string_view to_string(PrecisionMode p) {
  switch (p) {
  case PrecisionMode::Fp64: return "fp64";
  case PrecisionMode::Fp32: return "fp32";
  case PrecisionMode::Fp16: return "fp16";
  case PrecisionMode::Mixed: return "mixed";
  }
  return "?";
}

std::optional<PrecisionMode> precision_mode_from_string(std::string_view text) {
  for (PrecisionMode p : {PrecisionMode::Fp64, PrecisionMode::Fp32, PrecisionMode::Fp16, PrecisionMode::Mixed})
    if (to_string(p) == text)
      return p;
  return std::nullopt;
}

platform::Precision compute_precision(PrecisionMode p) {
  switch (p) {
  case PrecisionMode::Fp64: return platform::Precision::Fp64;
  case PrecisionMode::Fp32: return platform::Precision::Fp32;
  default: return platform::Precision::Fp16;
  }
}

platform::Precision gradient_precision(PrecisionMode p) {
  return p == PrecisionMode::Mixed ? platform::Precision::Fp32 : compute_precision(p);
}

PrecisionMode resolved_precision(const Scenario& s) {
  if (s.options.precision)
    return *s.options.precision;
  return *precision_mode_from_string(platform::to_string(s.workload.precision));
}

Staging resolved_staging(const Scenario& s) {
  if (!s.platform.node.is_gpu_node())
    return Staging::Direct;
  if (s.options.staging)
    return *s.options.staging;
  return s.platform.node.nic.gpu_direct ? Staging::Direct : Staging::Host;
}

int ranks_per_node(const platform::PlatformSpec& p) { return p.node.gpu ? p.node.gpu->count : 1; }

long long rank_count(const Scenario& s) { return s.nodes * ranks_per_node(s.platform); }

long long parameter_server_workers(const Scenario& s) {
  return s.options.software.local_aggregation ? s.nodes : rank_count(s);
}

namespace {

/// Why the replay leaves flows to SimGrid (replay_times_flows() is false).
std::string simgrid_timing_reason(const Scenario& s) {
  const auto& network = s.options.network;
  if (network.model != "CM02" || network.cross_traffic || network.tcp_gamma_bytes > 0)
    return "network model " + network.model + (network.cross_traffic ? " with cross-traffic" : "") +
           (network.tcp_gamma_bytes > 0 ? " with a TCP window" : "");
  if (s.options.flows_through_simgrid)
    return "flows through SimGrid";
  return "its PCIe copies inside SimGrid (copies through SimGrid)";
}

} // namespace

std::optional<ScenarioProblem> scenario_problem(const Scenario& s) {
  using Input = ScenarioProblem::Input;
  if (auto problem = platform::allocation_problem(s.platform, s.nodes, s.options.allocation))
    return *problem;
  const auto device = workload::compute_device(s.platform.node);
  const platform::Precision p = compute_precision(resolved_precision(s));
  if (!device.peak.at(p)) { // named as the option where one chose it, else at the workload's key
    const std::string needs = std::string(to_string(resolved_precision(s))) + " needs a " +
                              std::string(platform::to_string(p)) + " peak, which the " +
                              device.name + " of " + s.platform.name + " does not have";
    if (s.options.precision)
      return "--precision: " + needs;
    return ScenarioProblem(Input::Workload, "workload.precision",
                           needs + ": expected a precision the device has, or --precision");
  }
  const long long ranks = rank_count(s);
  const auto& stack = s.options.software;
  if (!stack.collective && !stack.library) // (a stack built in code: a file's reader refuses it)
    return ScenarioProblem(Input::Software, "software.collective",
                           "\"auto\" lets the library choose, but the stack names none: expected an algorithm (" +
                               collectives::algorithm_names() + ")");
  const bool nccl = stack.runs_nccl();
  if (stack.runs_on_gpus_only() && !s.platform.node.is_gpu_node())
    return ScenarioProblem(Input::Software, nccl ? "software.library" : "software.needs_gpus",
                           std::string(nccl ? "NCCL runs on GPUs" : "the stack's code runs on GPUs only") + ", but " +
                               s.platform.name + " has CPU nodes: expected a stack that runs on CPUs (such as mpich or "
                               "horovod-mpi), or a platform with GPUs");
  const auto made_by_stack = [](ScenarioProblem p) {
    p.made_by_stack = true;
    return p;
  };
  if (nccl && s.platform.node.gpu->compute_capability == 0)
    return made_by_stack({Input::Platform, "node.gpu.compute_capability",
                          "the stack " + stack.name + " runs NCCL, whose rules depend on the GPU's compute capability: "
                          "expected one (such as 6.0 for a P100)"});
  if (stack.reducer == stack::Reducer::HostCore && !s.platform.node.cpu.core_memory_bandwidth)
    return made_by_stack({Input::Platform, "node.cpu.core_memory_bandwidth",
                          "the stack " + stack.name + " reduces on a host core: expected that core's memory bandwidth "
                          "(a one-thread STREAM rate, such as \"13 GB/s\")"});
  const long long workers = parameter_server_workers(s);
  if (s.options.software.collective == collectives::Algorithm::ParameterServer &&
      (s.options.servers < 1 || s.options.servers > workers))
    return "--servers: parameter servers must number 1 to " + std::to_string(workers) +
           (stack.local_aggregation ? " (the nodes: each node's first rank serves)" : " (the ranks)") + ", got " +
           std::to_string(s.options.servers);
  // Before exchange_problem, which says the same for files: a file with it is refused as it is
  // read, so the run's --collective made it.
  if (stack.exchange == stack::Exchange::PerVariable && stack.collective != collectives::Algorithm::ParameterServer)
    return "--collective " + (stack.collective ? std::string(collectives::to_string(*stack.collective)) : "auto") +
           ": the software stack " + stack.name + " exchanges every variable on its own with parameter servers: " +
           "drop --collective, or use --collective parameter-server";
  if (const auto problem = stack::exchange_problem(stack))
    return ScenarioProblem(Input::Software, "software." + std::string(problem->key), problem->message);
  if (s.options.fidelity == Fidelity::Exact && ranks > max_exact_ranks)
    return "exact fidelity simulates every message (a ring is 2(N-1) steps of N flows): at most " +
           std::to_string(max_exact_ranks) + " ranks, got " + std::to_string(ranks) +
           "; use aggregated fidelity";
  if (s.options.iterations < 1 || s.options.iterations > max_iterations)
    return "--iterations: must be from 1 to " + std::to_string(max_iterations) + ", got " +
           std::to_string(s.options.iterations) + " (iterations after the first differ only by jitter)";
  // A deviation of 10 already makes the typical rank 8 times slower; far larger ones overflow
  // the simulated clock (1e308 made SimGrid "simulate up to -nan").
  if (const double jitter = s.options.compute_jitter(); !(jitter >= 0 && jitter <= max_jitter))
    return "--jitter: must be a number from 0 to " + std::to_string(static_cast<int>(max_jitter)) + ", got " +
           units::number_text(jitter);
  // The platform file's reader checks the key; a scenario built in code is checked here too.
  if (const double spread = s.platform.node.gpu ? s.platform.node.gpu->device_spread : 0.0;
      !(spread >= 0 && spread <= platform::max_device_spread))
    return ScenarioProblem(Input::Platform, "node.gpu.device_spread",
                           "must be at least 0 and at most " + units::number_text(platform::max_device_spread) + ", got " +
                               units::number_text(spread));
  if (!s.options.allow_oversubscribed_memory)
    if (auto problem = memory_problem(s))
      return *problem + ": use a smaller batch per rank, spread the global batch over more nodes, or allow "
                        "oversubscribed memory (--allow-oversubscribed-memory)";
  if (!s.platform.node.is_gpu_node() && s.options.staging == Staging::Host)
    return "staging through host memory needs GPU nodes; " + s.platform.name + " has CPU nodes";
  const auto& background = s.options.background;
  for (const auto& [kind, load] : {std::pair{"fabric", background.fabric}, std::pair{"global", background.global.value_or(0)}})
    if (!(load >= 0 && load <= platform::BackgroundLoad::max))
      return std::string("--background-load: the load on ") + kind + " links must be a share from 0 to 0.95, got " +
             std::to_string(load);
  const auto& topology = s.platform.interconnect.topology;
  if (background.fabric > 0 && !platform::has_fabric_links(topology))
    return "--background-load: fabric loads the links between routers or switches, and " + s.platform.name +
           " has none (a single switch): the load would change nothing";
  if (background.global.value_or(0) > 0 && !platform::has_global_links(topology))
    return "--background-load: a load on global links needs a dragonfly of two or more groups (its links between "
           "groups); " + s.platform.name + " is a " + std::string(platform::topology_name(topology)) +
           (std::holds_alternative<platform::Dragonfly>(topology) ? " of one group" : "") +
           (platform::has_fabric_links(topology) ? ": use fabric=SHARE" : ", which has no links between switches for any load");
  if (background.any() && !replay_times_flows(s))
    return "--background-load: a load is applied by the replay's own flow sharing, which needs network model CM02 without "
           "cross-traffic or TCP window, and no flow or copy inside SimGrid; this run has " +
           simgrid_timing_reason(s);
  if (s.platform.interconnect.routing != platform::Routing::StaticMinimal && !replay_times_flows(s))
    return ScenarioProblem(
        Input::Platform, "interconnect.routing",
        "\"" + std::string(platform::to_string(s.platform.interconnect.routing)) +
            "\" is computed by the replay's own flow sharing, which needs network model CM02 "
            "without cross-traffic or TCP window, and no flow or copy inside SimGrid; this run has " +
            simgrid_timing_reason(s) +
            ": set interconnect.routing=\"static-minimal\" for SimGrid's own routes");
  return std::nullopt;
}

workload::WorkloadSpec densified(const Scenario& s, PrecisionMode mode); // (below, with the buckets)

std::optional<workload::DeviceMemory> device_memory_estimate(const Scenario& s) {
  if (!workload::memory_capacity(s.platform.node))
    return std::nullopt;
  const PrecisionMode mode = resolved_precision(s);
  // From two workers on, parameter servers apply the update (make_iteration_plan)
  const bool on_servers = s.options.software.collective == collectives::Algorithm::ParameterServer &&
                          parameter_server_workers(s) >= 2;
  // Tables that parameter servers hold stay there: a worker's device holds the rows its batch
  // reads (the layer's outputs) and their gradient, not the table (a frozen one, never exchanged,
  // stays on it).
  const bool tables_on_servers = on_servers && s.options.software.sparse == stack::SparseGradients::Servers;
  workload::WorkloadSpec on_device = s.workload;
  if (tables_on_servers)
    for (auto& layer : on_device.layers)
      if (layer.embedding && layer.trained_params() > 0) {
        layer.params = 0;
        layer.tensors.clear();
      }
  auto need = workload::device_memory(on_device, s.workload.batch_per_worker, compute_precision(mode),
                                      gradient_precision(mode),
                                      on_servers ? workload::OptimizerState::OnServers : workload::OptimizerState::OnDevice);
  if (const long long ranks = rank_count(s); ranks >= 2 && !tables_on_servers) // (the tables the stack exchanges sparse)
    need.gathered = workload::gathered_gradient(densified(s, mode), static_cast<double>(ranks), gradient_precision(mode),
                                                s.workload.batch_per_worker);
  return need;
}

std::optional<std::string> memory_problem(const Scenario& s) {
  const auto estimate = device_memory_estimate(s);
  if (!estimate)
    return std::nullopt;
  const auto capacity = *workload::memory_capacity(s.platform.node);
  auto problem = workload::memory_shortfall(*estimate, s.workload, s.workload.batch_per_worker, capacity);
  // Where the gathered gradients alone make it too much, the dense exchange is a way out.
  if (problem && estimate->gathered.bytes() > 0 &&
      (estimate->total() - estimate->gathered).bytes() <= capacity.bytes.bytes())
    *problem += std::string(" (exchanged dense, --set software.sparse_gradients=") +
                (s.options.software.sparse == stack::SparseGradients::AllGather ? "cheaper or dense" : "dense") +
                ", the embedding gradients are not gathered)";
  return problem;
}

namespace {

/// SimGrid's CM02 without cross-traffic or TCP window cap: the sharing the replay repeats.
bool cm02_closed_forms(const Scenario& s) {
  const auto& network = s.options.network;
  return network.model == "CM02" && !network.cross_traffic && network.tcp_gamma_bytes == 0;
}

} // namespace

bool replay_times_copies(const Scenario& s) {
  return cm02_closed_forms(s) && s.platform.node.is_gpu_node() && resolved_staging(s) == Staging::Host &&
         !s.options.copies_through_simgrid;
}

bool replay_times_flows(const Scenario& s) {
  return cm02_closed_forms(s) && !(s.platform.node.is_gpu_node() && s.options.copies_through_simgrid) &&
         !s.options.flows_through_simgrid;
}

bool replay_shares_copies(const Scenario& s) {
  return replay_times_flows(s) && s.platform.node.is_gpu_node() && resolved_staging(s) == Staging::Direct;
}

SoftwareCosts software_costs(const Scenario& s) {
  const auto& stack = s.options.software;
  const auto& node = s.platform.node;
  SoftwareCosts costs;
  const double loggp_s = node.nic.send_overhead.seconds() + node.nic.receive_overhead.seconds();
  if (stack.message_overheads)
    costs.message_overhead_s = loggp_s;
  costs.gather_message_overhead_s = stack.gather_library ? loggp_s : costs.message_overhead_s;
  if (stack.copy_overheads && node.pcie)
    costs.copy_overhead_s = node.pcie->copy_overhead.seconds();
  costs.collective_launch_s = stack.collective_launch.seconds();
  // Reductions read two operands and write the sum, at the reducing memory's bandwidth: one
  // host core's, or the device's (the GPU where gradients are reduced in place, the CPU's
  // sockets on a CPU node).
  double bandwidth = 0;
  switch (stack.reducer) {
  case stack::Reducer::None: break;
  case stack::Reducer::HostCore: bandwidth = node.cpu.core_memory_bandwidth->bytes_per_second(); break;
  case stack::Reducer::Device: bandwidth = workload::compute_device(node).memory_bandwidth.bytes_per_second(); break;
  }
  if (bandwidth > 0)
    costs.reduce_s_per_byte = stack::reduction_bytes_moved_per_byte / bandwidth;
  return costs;
}

namespace {

/// Whether NCCL copies each ring into a second channel (nccl_channels() counts them; whether the
/// double tree runs both trees on every ring is AllreduceContext's both_trees_on_each_ring):
/// NCCL 2.4 on GPUs joined by NVLink, across nodes (src/misc/rings.cc ncclGetRings, copyRings)
/// and on one node alike (src/transport/p2p.cc: p2pComputeRingsNvLink "Duplicate the rings for
/// direct NVLink", and p2pGetRings on NVSwitch), NCCL 2.7 always (src/graph/connect.cc).
bool rings_duplicated(const Scenario& s) {
  const auto library = s.options.software.library;
  return library == collectives::Library::Nccl27 ||
         (library == collectives::Library::Nccl && s.platform.node.gpu_link.has_value());
}

} // namespace

int nccl_rings(const Scenario& s) {
  // (ring j leaves each node through GPU j: no more rings than GPUs, whatever the stack asks)
  const int gpus = s.platform.node.gpu ? s.platform.node.gpu->count : 1;
  return std::min(s.options.software.channels.value_or(s.platform.node.nic.ports), std::max(1, gpus));
}

int nccl_channels(const Scenario& s) {
  const int rings = nccl_rings(s);
  if (s.options.software.library != collectives::Library::Nccl)
    return rings; // NCCL 2.7's LL128 cap counts its search's channels
  // NCCL 2.4: the rings copied on NVLink GPUs, on one node or several; at least 2 on Kepler
  // (src/misc/rings.cc, defaultMinNrings); at most MAXCHANNELS, 16 (src/include/comm.h).
  int channels = rings_duplicated(s) ? 2 * rings : rings;
  if (s.platform.node.gpu && s.platform.node.gpu->compute_capability / 10 == 3)
    channels = std::max(channels, 2);
  return std::min(channels, 16);
}

namespace {

/// What the stack's library may weigh in choosing: the ranks and nodes, and for NCCL the GPUs'
/// links, compute capability and the bus bandwidths of its tuning model (inside a node: a GPU's
/// NVLinks, or its PCIe link; across: the node's NIC).
collectives::SelectionContext selection_context(const Scenario& s, int ranks, int ranks_per_node,
                                                double element_bytes) {
  const auto& node = s.platform.node;
  collectives::SelectionContext c{.ranks = ranks,
                                  .ranks_per_node = ranks_per_node,
                                  .element_bytes = element_bytes,
                                  .nvlink = node.gpu_link.has_value(),
                                  .channels = nccl_channels(s),
                                  .inter_bytes_per_s = node.nic.bandwidth.bytes_per_second()};
  if (node.gpu) {
    c.compute_capability = node.gpu->compute_capability;
    c.intra_bytes_per_s = node.pcie->host_to_device.bytes_per_second();
    if (node.gpu_link) {
      int links = 0; // of GPU 0: a mesh's pairs, or its one link to the switch
      for (auto [j, k] : node.gpu_link->pairs_among(node.gpu->count))
        links += j == 0 || k == 0;
      c.intra_bytes_per_s = node.gpu_link->bandwidth.bytes_per_second() * (node.gpu_link->pairs.empty() ? 1 : links);
    }
  }
  return c;
}

/// Runs `r` under NCCL's `protocol`: its flows carry the protocol's wire bytes, each phase gets
/// its mean step latency over the links its flows cross, and the collective NCCL's base latency.
void apply_protocol(const Scenario& s, collectives::Library library, collectives::Protocol protocol,
                    int ranks_per_node, Reduction& r) {
  const bool across_nodes = std::any_of(r.plan.begin(), r.plan.end(), [&](const collectives::Phase& phase) {
    return std::any_of(phase.flows.begin(), phase.flows.end(), [&](const collectives::Flow& f) {
      return f.src / ranks_per_node != f.dst / ranks_per_node;
    });
  });
  const auto costs = collectives::protocol_costs(library, r.algorithm, protocol, across_nodes);
  const double inside_s = s.platform.node.gpu_link ? costs.nvlink_step_s : costs.pci_step_s;
  r.protocol = protocol;
  r.protocol_base_s = costs.base_s;
  for (auto& phase : r.plan) {
    double sum_s = 0;
    for (auto& flow : phase.flows) {
      flow.bytes *= costs.wire_bytes_per_byte;
      sum_s += flow.src / ranks_per_node == flow.dst / ranks_per_node ? inside_s : costs.net_step_s;
    }
    r.protocol_step_s.push_back(phase.flows.empty() ? 0 : sum_s / static_cast<double>(phase.flows.size()));
  }
}

/// What planning an all-reduce needs of a run.
struct AllreduceContext {
  collectives::Group group;
  collectives::SelectionContext selection;
  bool exact = false;
  /// The library whose rule gathers sparse gradients: the stack's gather_library, else its library.
  std::optional<collectives::Library> gather_library;
};

AllreduceContext allreduce_context(const Scenario& s, int ranks, int ranks_per_node) {
  const auto& stack = s.options.software;
  const double element_bytes = workload::element_bytes(gradient_precision(resolved_precision(s)));
  // MPI 3 has no half-precision type: an MPI library sums fp16 by an operation of the framework's.
  const bool mpi_library = stack.library == collectives::Library::Mpich || stack.library == collectives::Library::OpenMpi;
  auto selection = selection_context(s, ranks, ranks_per_node, element_bytes);
  // NCCL runs its ring as one ring per channel (src/graph/search.cc, connect.cc), leaving the
  // nodes through different GPUs and NICs; MPI libraries and NCCL 1 (library none) run one.
  const int rings = stack.runs_nccl() ? nccl_rings(s) : 1;
  return {{.ranks = ranks,
           .ranks_per_node = ranks_per_node,
           .rings = rings,
           // (NCCL runs twice as many channels as rings: 2.7 always, 2.4 where nccl_channels() says)
           .both_trees_on_each_ring = !stack.runs_nccl() || stack.library == collectives::Library::Nccl27 ||
                                      selection.channels >= 2 * rings,
           .builtin_sum = element_bytes != 2 || !mpi_library},
          std::move(selection),
          s.options.fidelity == Fidelity::Exact,
          stack.gather_library ? stack.gather_library : stack.library};
}

/// The algorithm (and NCCL's protocol) the stack runs an all-reduce of `bytes` per rank with.
collectives::Selection choose_allreduce(const Scenario& s, const AllreduceContext& c, double bytes) {
  const auto& stack = s.options.software;
  auto choice = stack.collective ? collectives::Selection{*stack.collective, "fixed"}
                                 : collectives::select_allreduce(*stack.library, c.selection, bytes);
  if (stack.collective && stack.library)
    choice.protocol = collectives::select_protocol(*stack.library, c.selection, choice.algorithm, bytes);
  return choice;
}

/// The ranks and the pipelined trees' chunks with which the all-reduce `choice` runs: NCCL's
/// chunks by protocol, else the stack's largest halved by depth; NCCL 2.7's LL128 trees up and
/// down together.
std::pair<collectives::Group, collectives::TreeChunks> allreduce_setup(const Scenario& s, const AllreduceContext& c,
                                                                       const collectives::Selection& choice) {
  const auto& stack = s.options.software;
  auto chunks = stack.runs_nccl() && choice.protocol
                    ? collectives::nccl_tree_chunks(*stack.library, *choice.protocol, c.selection,
                                                    stack.pipeline_chunk.bytes())
                    : collectives::TreeChunks{.step_bytes = stack.pipeline_chunk.bytes()};
  collectives::Group group = c.group;
  group.trees_up_and_down_together =
      stack.library == collectives::Library::Nccl27 && choice.protocol == collectives::Protocol::LL128;
  return {group, std::move(chunks)};
}

/// The all-reduce `choice` of `bytes` per rank over every rank, planned (not on parameter servers).
Reduction plan_allreduce(const Scenario& s, const AllreduceContext& c, std::string name, double bytes,
                         const collectives::Selection& choice) {
  const auto [group, chunks] = allreduce_setup(s, c, choice);
  Reduction r{std::move(name), bytes, bytes, false,
              c.exact ? collectives::allreduce_steps(choice.algorithm, group, bytes, s.options.servers, chunks)
                      : collectives::allreduce_phases(choice.algorithm, group, bytes, s.options.servers, chunks),
              choice.algorithm, choice.rule};
  if (choice.protocol)
    apply_protocol(s, *s.options.software.library, *choice.protocol, c.group.ranks_per_node, r);
  return r;
}

/// The all-gather of `rows` rows of a sparse gradient, `bytes` per rank: their values, or their ids
/// of `id_bytes` each (or of several, fused into one response: Horovod fuses all-gathers of one
/// dtype with each other, controller.cc FuseResponses, v0.16-0.19), as the stack's gather library
/// or its library picks it (collectives::select_allgather).
Reduction sparse_allgather(const AllreduceContext& c, std::string name, double bytes, double rows, int id_bytes) {
  const auto choice = collectives::select_allgather(c.gather_library, c.group.ranks, bytes);
  Reduction r{std::move(name), bytes, bytes * c.group.ranks, true,
              c.exact ? collectives::allgather_steps(c.group, bytes, choice.gather)
                      : collectives::allgather_phases(c.group, bytes, choice.gather),
              collectives::Algorithm::Ring, choice.rule};
  r.rows = rows;
  r.id_bytes = id_bytes;
  r.gather = choice.gather;
  return r;
}

/// Parameter servers as TensorFlow runs them: each variable (a layer's `tensors`, or the layer as
/// one; an embedding table the stack densifies as one) placed by the stack's rule on servers
/// 0..k-1 (ranks), pushed by every other rank and pulled back; a server sums the pushes and
/// applies the update on its CPU (host memory bandwidth) once the last is in, one exchange at a time.
class ParameterServers {
public:
  /// `exchanged`: the workload whose dense gradients the servers take (densified tables dense).
  ParameterServers(const Scenario& s, const workload::WorkloadSpec& exchanged, collectives::Group group,
                   double element_bytes)
      : group_(group), local_(s.options.software.local_aggregation),
        workers_(static_cast<int>(parameter_server_workers(s))),
        count_(std::clamp(s.options.servers, 1, std::max(workers_, 1))),
        placement_(s.options.software.placement),
        pull_next_forward_(s.options.software.pull == stack::Pull::NextForward),
        host_bytes_per_s_(s.platform.node.cpu.memory_bandwidth_per_socket.bytes_per_second() * s.platform.node.cpu.sockets),
        optimizer_per_parameter_(s.workload.optimizer_per_parameter.bytes()), element_bytes_(element_bytes) {
    const auto& layers = exchanged.layers;
    parts_.resize(layers.size());
    if (placement_ == stack::Placement::Even) { // (a table too: partitioned over the servers, ids spread by id mod k)
      for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto params = static_cast<double>(layers[l].trained_params());
        for (int q = 0; q < count_; ++q)
          parts_[l].push_back({q, params * element_bytes * (1.0 / count_), params * (1.0 / count_)});
      }
      return;
    }
    // Every trainable variable in creation order: a layer's tensors, or the layer as one; a
    // table the workers exchange sparse only where the servers hold it.
    const bool tables = s.options.software.sparse == stack::SparseGradients::Servers;
    std::vector<double> bytes;
    std::vector<std::pair<std::size_t, double>> variables; // layer, parameters
    for (std::size_t l = 0; l < layers.size(); ++l) {
      if (layers[l].trained_params() == 0 || (layers[l].embedding && !tables))
        continue;
      const std::vector<long long> whole{layers[l].params};
      for (long long n : layers[l].tensors.empty() ? whole : layers[l].tensors) {
        variables.push_back({l, static_cast<double>(n)});
        bytes.push_back(static_cast<double>(n) * element_bytes);
      }
    }
    const auto placed = stack::place_variables(bytes, count_, placement_);
    for (std::size_t v = 0; v < variables.size(); ++v)
      parts_[variables[v].first].push_back({placed[v], bytes[v], variables[v].second});
  }

  /// Whether workers exchange with servers at all (two or more workers).
  bool exchange() const { return workers_ >= 2; }

  /// The push and pull of the dense gradients of `layers` (the push alone when the workers pull
  /// at the next forward: pull()); adds each server's bytes to `loads`.
  std::vector<collectives::Phase> plan(const std::vector<int>& layers, std::vector<double>& loads) const {
    std::vector<double> server_bytes(static_cast<std::size_t>(count_), 0.0);
    std::vector<double> server_params(static_cast<std::size_t>(count_), 0.0);
    shares(layers, server_bytes, server_params);
    loads.resize(static_cast<std::size_t>(count_), 0.0);
    for (int q = 0; q < count_; ++q)
      loads[static_cast<std::size_t>(q)] += server_bytes[static_cast<std::size_t>(q)];
    double bytes = 0;
    for (double b : server_bytes)
      bytes += b;
    auto phases = local_ ? collectives::node_parameter_server_phases(group_, bytes, server_bytes)
                         : collectives::parameter_server_phases(group_.ranks, server_bytes);
    if (workers_ < 2)
      return phases;
    if (pull_next_forward_) // never with local aggregation (stack::exchange_problem): the last phase is the pull
      phases.pop_back();
    // A server sums every other worker's push (3 bytes moved per byte) and applies the optimizer
    // to its parameters, all at host memory bandwidth, once its last push is in and it is done
    // with the work of the exchanges before (the replay's flow_transferred): every push to it
    // carries that work, and the last to arrive pays it. The pushes follow the reduce inside the
    // nodes, when workers aggregate locally first.
    const int stride = local_ ? group_.ranks_per_node : 1;
    auto& push = phases[static_cast<std::size_t>(local_ ? group_.ranks_per_node - 1 : 0)];
    for (auto& f : push.flows) {
      const auto q = static_cast<std::size_t>(f.dst / stride);
      f.reduce_bytes = 0;
      f.receiver_s = ((workers_ - 1) * server_bytes[q] * stack::reduction_bytes_moved_per_byte +
                      server_params[q] * optimizer_per_parameter_) / host_bytes_per_s_;
    }
    return phases;
  }

  /// How many servers hold some of `layers`' variables.
  int holding(const std::vector<int>& layers) const {
    std::vector<double> server_bytes(static_cast<std::size_t>(count_), 0.0);
    std::vector<double> server_params(static_cast<std::size_t>(count_), 0.0);
    shares(layers, server_bytes, server_params);
    return static_cast<int>(std::count_if(server_bytes.begin(), server_bytes.end(), [](double b) { return b > 0; }));
  }

  /// The next step's read of layer `layer`'s variables: every server holding some sends them to
  /// every other worker (one phase); empty when the layer has none on the servers.
  std::vector<collectives::Phase> pull(int layer) const {
    std::vector<double> server_bytes(static_cast<std::size_t>(count_), 0.0);
    std::vector<double> server_params(static_cast<std::size_t>(count_), 0.0);
    shares({layer}, server_bytes, server_params);
    auto phases = collectives::parameter_server_phases(group_.ranks, server_bytes);
    if (!phases.empty())
      phases.erase(phases.begin()); // the push: backward's exchanges carry it
    return phases;
  }

  /// The push of a sparse gradient `g` (the rows a worker's batch touched, and their ids) to the
  /// servers that hold its table: every other worker sends each its part, as the table is placed
  /// (whole on one, or partitioned evenly); a server adds every worker's rows into the table and
  /// updates the rows touched (at host memory bandwidth, as plan()'s dense sums), once the last
  /// push is in (TensorFlow 1.x: an IndexedSlices gradient of a variable is applied by the
  /// optimizer's _apply_sparse on the variable's device, training/optimizer.py apply_gradients).
  /// The next step reads the rows it looks up (sparse_read()). Adds to `loads` each server's
  /// bytes from a worker, the next read's requests included.
  std::vector<collectives::Phase> sparse_push(const workload::SparseGradient& g, double table_rows,
                                              std::vector<double>& loads) const {
    const std::vector<double> share = table_shares(g.layer);
    const double row_bytes = g.bytes.bytes(), id_bytes = g.index_bytes().bytes();
    std::vector<double> pushed_bytes(share.size());
    loads.resize(static_cast<std::size_t>(count_), 0.0);
    for (std::size_t q = 0; q < share.size(); ++q) {
      pushed_bytes[q] = share[q] * (row_bytes + id_bytes);
      loads[q] += pushed_bytes[q] + share[q] * id_bytes;
    }
    auto phases = collectives::parameter_server_phases(group_.ranks, pushed_bytes);
    if (phases.empty())
      return phases;
    phases.pop_back(); // (the rows come back with the next step's read)
    // The rows the workers touched, at most the table's: an upper bound where lookups repeat rows,
    // which TensorFlow sums before the optimizer runs (optimizer.py _apply_sparse_duplicate_indices).
    const double updated_bytes = std::min(table_rows, workers_ * g.rows) / g.rows * row_bytes;
    for (auto& f : phases.front().flows) {
      const auto q = static_cast<std::size_t>(f.dst);
      f.reduce_bytes = 0;
      f.receiver_s = ((workers_ - 1) * share[q] * row_bytes * stack::reduction_bytes_moved_per_byte +
                      share[q] * updated_bytes / element_bytes_ * optimizer_per_parameter_) / host_bytes_per_s_;
    }
    return phases;
  }

  /// The next step's read of sparse gradient `g`'s table: every worker sends the ids its batch
  /// looks up to the servers holding the table, each of which gathers the rows (reads them and
  /// writes its replies, at host memory bandwidth, once the last request is in) and sends them
  /// back (two phases: embedding_lookup gathers on the table's device, TensorFlow 1.x
  /// ops/embedding_ops.py, `colocate_with(params[0])`, one shard per partition).
  std::vector<collectives::Phase> sparse_read(const workload::SparseGradient& g) const {
    const std::vector<double> share = table_shares(g.layer);
    const double row_bytes = g.bytes.bytes(), id_bytes = g.index_bytes().bytes();
    std::vector<double> asked_bytes(share.size()), sent_bytes(share.size());
    for (std::size_t q = 0; q < share.size(); ++q) {
      asked_bytes[q] = share[q] * id_bytes;
      sent_bytes[q] = share[q] * row_bytes;
    }
    auto request = collectives::parameter_server_phases(group_.ranks, asked_bytes);
    if (request.empty())
      return request;
    for (auto& f : request.front().flows) {
      f.reduce_bytes = 0;
      f.receiver_s = (workers_ - 1) * share[static_cast<std::size_t>(f.dst)] * row_bytes *
                     stack::gather_bytes_moved_per_byte / host_bytes_per_s_;
    }
    return {request.front(), collectives::parameter_server_phases(group_.ranks, sent_bytes).back()};
  }

private:
  /// The part of `layer`'s variables each server holds, summing to 1.
  std::vector<double> table_shares(int layer) const {
    std::vector<double> share(static_cast<std::size_t>(count_), 0.0);
    double total = 0;
    for (const Part& part : parts_[static_cast<std::size_t>(layer)])
      total += part.bytes;
    for (const Part& part : parts_[static_cast<std::size_t>(layer)])
      share[static_cast<std::size_t>(part.server)] += part.bytes / total;
    return share;
  }

  /// Each server's bytes and parameters of `layers`.
  void shares(const std::vector<int>& layers, std::vector<double>& server_bytes,
              std::vector<double>& server_params) const {
    for (int l : layers)
      for (const Part& part : parts_[static_cast<std::size_t>(l)]) {
        server_bytes[static_cast<std::size_t>(part.server)] += part.bytes;
        server_params[static_cast<std::size_t>(part.server)] += part.params;
      }
  }

  collectives::Group group_;
  bool local_;   ///< workers aggregate their GPUs' gradients first; the nodes are the workers
  int workers_;
  int count_;
  stack::Placement placement_;
  bool pull_next_forward_;
  double host_bytes_per_s_;
  double optimizer_per_parameter_;
  double element_bytes_; ///< of a gradient
  /// What one server holds of a layer: its variables placed there whole, or its even share.
  struct Part {
    int server;
    double bytes;  ///< of dense gradient
    double params;
  };
  std::vector<std::vector<Part>> parts_; ///< per layer
};

} // namespace

/// The workload with the embedding tables whose gradient the stack exchanges dense made dense
/// layers: all of them (Dense), none (AllGather, Servers), or those for which a dense all-reduce
/// moves fewer bytes per rank, 2 (N-1)/N of the table, than the all-gathers, (N-1) x the rows a
/// batch looks up and their ids (Cheaper).
workload::WorkloadSpec densified(const Scenario& s, PrecisionMode mode) {
  workload::WorkloadSpec w = s.workload;
  const auto rule = s.options.software.sparse;
  if (rule == stack::SparseGradients::AllGather || rule == stack::SparseGradients::Servers)
    return w;
  const double n = static_cast<double>(rank_count(s));
  const double element = workload::element_bytes(gradient_precision(mode));
  for (auto& layer : w.layers) {
    if (!layer.embedding)
      continue;
    const double table = static_cast<double>(layer.params) * element;
    const auto gathered = workload::sparse_gradient(layer, 0, element, w.batch_per_worker);
    const double touched = gathered.bytes.bytes() + gathered.index_bytes().bytes();
    if (rule == stack::SparseGradients::Dense || 2 * (n - 1) / n * table < (n - 1) * touched)
      layer.embedding.reset();
  }
  return w;
}

bool gathers_sparse_gradients(const Scenario& s) {
  if (rank_count(s) < 2 || s.options.software.sparse == stack::SparseGradients::Servers)
    return false;
  const auto w = densified(s, resolved_precision(s));
  return std::any_of(w.layers.begin(), w.layers.end(),
                     [](const workload::LayerSpec& l) { return l.embedding && l.trained_params() > 0; });
}

bool fuses_by_cycle(const Scenario& s) {
  return s.options.software.fusion == stack::Fusion::ByCycle; // with a cycle and buckets: exchange_problem
}

std::vector<std::vector<int>> fuse_responses(const IterationPlan& plan, int first, int last, double threshold_bytes) {
  const auto unit = [&](int u) -> const Reduction& { return plan.reductions[static_cast<std::size_t>(u)]; };
  const auto size = [&](int leader, int u) {
    if (!unit(u).sparse)
      return unit(u).bytes;
    return unit(leader).sparse ? unit(u).result_bytes : unit(u).rows;
  };
  std::deque<int> left;
  for (int u = first; u < last; ++u)
    left.push_back(u);
  std::vector<std::vector<int>> responses;
  while (!left.empty()) {
    std::vector<int> response{left.front()};
    left.pop_front();
    const int leader = response.front();
    double bytes = size(leader, leader);
    std::vector<int> passed;
    double passed_bytes = 0;
    while (!left.empty()) {
      const int next = left.front();
      if (fuse_together(unit(leader), unit(next)) && bytes + size(leader, next) <= threshold_bytes) {
        bytes += size(leader, next);
        response.push_back(next);
      } else if (passed_bytes += size(leader, next); bytes + passed_bytes <= threshold_bytes) {
        passed.push_back(next);
      } else {
        break;
      }
      left.pop_front();
    }
    left.insert(left.begin(), passed.begin(), passed.end());
    responses.push_back(std::move(response));
  }
  return responses;
}

Reduction plan_response(const Scenario& s, const IterationPlan& plan, std::span<const int> units) {
  const Reduction& unit = plan.reductions[static_cast<std::size_t>(units.front())];
  if (units.size() == 1 && unit.sparse) // an all-gather alone: planned already
    return unit;
  double bytes = 0, rows = 0;
  for (int u : units) {
    assert(fuse_together(unit, plan.reductions[static_cast<std::size_t>(u)]) && "a response fuses units of one kind");
    bytes += plan.reductions[static_cast<std::size_t>(u)].bytes;
    rows += plan.reductions[static_cast<std::size_t>(u)].rows;
  }
  const AllreduceContext context = allreduce_context(s, plan.ranks, plan.ranks_per_node);
  std::string name = unit.name;
  if (units.size() > 1)
    name += " + " + std::to_string(units.size() - 1) + " more";
  if (unit.sparse) // all-gathers fused into one
    return sparse_allgather(context, std::move(name), bytes, rows, unit.id_bytes);
  return plan_allreduce(s, context, std::move(name), bytes, choose_allreduce(s, context, bytes));
}

namespace {

/// The gradient buckets of `exchanged` (densified(s, mode)) in `order`, as the stack cuts them: a
/// bucket per layer where each variable is exchanged on its own or Horovod fuses by cycle at run
/// time (`fused_by_cycle`: a layer's variables are ready together), DDP's with its first bucket,
/// else by the fusion threshold.
workload::BucketPlan stack_buckets(const Scenario& s, PrecisionMode mode, const workload::WorkloadSpec& exchanged,
                                   const std::vector<int>& order, bool fused_by_cycle) {
  const auto& stack = s.options.software;
  const auto threshold =
      stack.exchange == stack::Exchange::PerVariable || fused_by_cycle ? units::DataSize{} : stack.fusion_threshold;
  return stack.first_bucket
             ? workload::plan_buckets_ddp(exchanged, order, *stack.first_bucket, stack.fusion_threshold,
                                          gradient_precision(mode), s.workload.batch_per_worker, stack.rebuild_buckets)
             : workload::plan_buckets(exchanged, order, threshold, gradient_precision(mode), s.workload.batch_per_worker);
}

} // namespace

FlowCount estimated_flows(const Scenario& s) {
  using collectives::Algorithm;
  const PrecisionMode mode = resolved_precision(s);
  const int per_node = ranks_per_node(s.platform);
  const int ranks = static_cast<int>(s.nodes) * per_node;
  FlowCount count;
  if (ranks < 2)
    return count;
  const workload::WorkloadSpec exchanged = densified(s, mode);
  const auto buckets = stack_buckets(s, mode, exchanged, workload::LayerGraph(exchanged.layers).topological_order(),
                                     fuses_by_cycle(s));
  const AllreduceContext context = allreduce_context(s, ranks, per_node);
  std::optional<ParameterServers> servers; // (only a fixed collective puts buckets on servers)
  if (s.options.software.collective == Algorithm::ParameterServer)
    servers.emplace(s, exchanged, context.group, workload::element_bytes(gradient_precision(mode)));
  const double r = ranks, nodes = static_cast<double>(s.nodes), rings = context.group.rings;
  const double inside = per_node > 1 ? 2 * r : 0; // the hierarchical doublings' reduce and broadcast in the nodes
  // Exact fidelity has more: a ring of n is one phase aggregated, its 2(n - 1) steps exact;
  // halving-doubling's last halving and first doubling, one phase aggregated, are two; a
  // pipelined tree's edges carry each chunk as a flow of its own (counted from the aggregated
  // plan's chunks, O(N)). The other algorithms' steps differ from one to the next: the same.
  const bool exact = s.options.fidelity == Fidelity::Exact;
  const auto ring_phases = [&](double n) { return exact ? 2 * (n - 1) : 1.0; };
  const auto halving_doubling_phases = [&](double n) { return 2 * std::log2(n) - (exact ? 0 : 1); };
  for (const auto& bucket : buckets.dense) {
    const auto choice = choose_allreduce(s, context, bucket.bytes.bytes());
    if (exact && (choice.algorithm == Algorithm::PipelinedTree || choice.algorithm == Algorithm::PipelinedDoubleTree)) {
      const auto [group, chunks] = allreduce_setup(s, context, choice);
      for (const auto& phase : collectives::allreduce_phases(choice.algorithm, group, bucket.bytes.bytes(), 1, chunks))
        count.alone += static_cast<double>(phase.flows.size()) * std::max(1, phase.chunks);
      continue;
    }
    switch (choice.algorithm) {
    case Algorithm::Ring:
      count.alone += r * rings * ring_phases(r);
      break;
    case Algorithm::Hierarchical: // (its reduce in each node and the broadcast that mirrors it: one flow per other rank)
      count.alone += nodes * rings * ring_phases(nodes) + 2 * (r - nodes);
      break;
    case Algorithm::HalvingDoubling:
      count.shared += r * halving_doubling_phases(r);
      break;
    case Algorithm::RecursiveDoubling:
      count.shared += r * std::log2(r);
      break;
    case Algorithm::HierarchicalHalvingDoubling:
      count.shared += (nodes > 1 ? nodes * halving_doubling_phases(nodes) : 0) + inside;
      break;
    case Algorithm::HierarchicalRecursiveDoubling:
      count.shared += nodes * std::log2(nodes) + inside;
      break;
    case Algorithm::BinaryTree:
      count.shared += 2 * (r - 1);
      break;
    case Algorithm::DoubleBinaryTree:
      count.shared += 4 * (r - 1);
      break;
    case Algorithm::PipelinedTree: // each tree one flow at one pace
      count.alone += 2 * (r - 1) * rings;
      break;
    case Algorithm::PipelinedDoubleTree:
      count.alone += (context.group.both_trees_on_each_ring ? 4 : 2) * (r - 1) * rings;
      break;
    case Algorithm::ParameterServer: // a push and a pull to each server holding some of it
      count.shared += 2 * (r - 1) * servers->holding(bucket.layers); // (a server sends itself nothing)
      break;
    }
  }
  if (s.options.software.sparse == stack::SparseGradients::Servers && servers) { // a push and a read (the ids, then the rows)
    for (const auto& g : buckets.sparse)
      count.shared += 3 * (r - 1) * servers->holding({g.layer});
  } else {
    count.alone += 2 * r * static_cast<double>(buckets.sparse.size()); // the rows' and their ids' all-gathers
  }
  return count;
}

IterationPlan make_iteration_plan(const Scenario& s) {
  const auto& w = s.workload;
  const PrecisionMode mode = resolved_precision(s);
  IterationPlan plan;
  plan.ranks_per_node = ranks_per_node(s.platform);
  plan.ranks = static_cast<int>(s.nodes) * plan.ranks_per_node;
  plan.compute_precision = compute_precision(mode);
  plan.costs = software_costs(s);
  const int batch = w.batch_per_worker;
  const auto device = workload::compute_device(s.platform.node);
  // The device's own calibration where the workload has one for it, else the workload's.
  const std::string_view run_precision = to_string(mode);
  const auto chosen = workload::efficiency_for(w, device, run_precision, s.options.software.framework);
  const workload::Efficiency efficiency = chosen.efficiency;
  if (const auto* c = chosen.device_calibration) {
    const bool stand_in = c->device != device.model;
    plan.calibration = (stand_in ? "calibrated on its stand-in (node.gpu.calibration_device: " + c->device + ")"
                                 : "calibrated on this device (" + c->device + ")") +
                       c->conditions();
    const std::string& framework = s.options.software.framework;
    if (!c->framework.empty() && !framework.empty() && c->framework != framework)
      plan.calibration += " (none under " + framework + ")";
  } else {
    plan.calibration = "the workload's calibration" +
                       (w.calibration.borrowed_from.empty() ? std::string() : " (borrowed from " + w.calibration.borrowed_from + ")");
  }
  plan.calibration += workload::calibration_notes(w, chosen, s.platform.node, run_precision, plan.compute_precision);
  plan.calibration += workload::efficiency_above_one_note(w, efficiency.compute);
  const auto peak = *device.peak.at(plan.compute_precision);

  if (s.platform.node.is_gpu_node())
    plan.input_copy_bytes = w.input_per_sample.bytes() * batch;
  const auto order = workload::LayerGraph(w.layers).topological_order();
  std::vector<workload::LayerTime> times;
  for (const auto& layer : w.layers) {
    times.push_back(workload::layer_time(w, layer, batch, peak, device.memory_bandwidth,
                                         plan.compute_precision, efficiency));
    plan.forward_s += times.back().forward.seconds();
    plan.flop_per_rank += batch * (layer.forward_per_sample + layer.backward_per_sample).flop();
  }
  plan.optimizer_s = workload::optimizer_time(w, device, efficiency).seconds();

  // Reductions in the order backward makes them ready: the position of a reduction is the
  // backward position of its last layer. Embedding tables the stack densifies join the buckets.
  const auto& stack = s.options.software;
  const double gradient_element_bytes = workload::element_bytes(gradient_precision(mode));
  const workload::WorkloadSpec exchanged = densified(s, mode);
  for (std::size_t l = 0; l < w.layers.size() && plan.ranks > 1; ++l) // (one rank exchanges nothing)
    if (w.layers[l].embedding && !exchanged.layers[l].embedding)
      plan.dense_tables.push_back(
          {w.layers[l].name, static_cast<double>(w.layers[l].params) * gradient_element_bytes});
  plan.fused_by_cycle = fuses_by_cycle(s) && plan.ranks > 1;
  auto buckets = stack_buckets(s, mode, exchanged, order, plan.fused_by_cycle);
  std::vector<int> backward_position(w.layers.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    backward_position[static_cast<std::size_t>(order[order.size() - 1 - k])] = static_cast<int>(k);
  struct Ready {
    int position;
    Reduction reduction;
  };
  std::vector<Ready> ready;
  if (plan.ranks == 1) // one rank alone has nothing to reduce: backward is one segment
    buckets = {};
  const AllreduceContext context = allreduce_context(s, plan.ranks, plan.ranks_per_node);
  const collectives::Group group = context.group;
  const ParameterServers servers(s, exchanged, group, gradient_element_bytes);
  plan.server_rank_stride = stack.local_aggregation ? std::max(1, group.ranks_per_node) : 1;
  const bool tables_on_servers = stack.sparse == stack::SparseGradients::Servers; // (with parameter servers: exchange_problem)
  bool all_on_servers = !buckets.dense.empty() || (tables_on_servers && !buckets.sparse.empty());
  for (std::size_t b = 0; b < buckets.dense.size(); ++b) {
    int last = 0;
    for (int l : buckets.dense[b].layers)
      last = std::max(last, backward_position[static_cast<std::size_t>(l)]);
    const double bytes = buckets.dense[b].bytes.bytes();
    if (plan.fused_by_cycle) { // a unit: the replay fuses the ready ones at each cycle (plan_response)
      ready.push_back({last, {w.layers[static_cast<std::size_t>(buckets.dense[b].layers.front())].name, bytes, bytes}});
      all_on_servers = false;
      continue;
    }
    const auto choice = choose_allreduce(s, context, bytes);
    const bool on_servers = choice.algorithm == collectives::Algorithm::ParameterServer;
    all_on_servers = all_on_servers && on_servers;
    Reduction reduction = on_servers ? Reduction{"bucket " + std::to_string(b), bytes, bytes, false,
                                                 servers.plan(buckets.dense[b].layers, plan.server_bytes),
                                                 choice.algorithm, choice.rule}
                                     : plan_allreduce(s, context, "bucket " + std::to_string(b), bytes, choice);
    reduction.concurrent = on_servers && stack.exchange == stack::Exchange::PerVariable;
    if (on_servers && stack.pull == stack::Pull::NextForward && servers.exchange())
      reduction.result_bytes = 0; // the push alone: the variables come back with the next step's pulls
    ready.push_back({last, std::move(reduction)});
  }
  if (all_on_servers && servers.exchange()) // the servers apply the update; the workers pull the weights
    plan.optimizer_s = 0;
  // Each sparse gradient's rows and ids to the servers holding its table; else its rows, then its
  // ids: two all-gathers, ready together (Horovod 0.19 horovod/tensorflow/__init__.py allreduce:
  // allgather(values), then allgather(indices)).
  for (const auto& sparse : buckets.sparse) {
    const int position = backward_position[static_cast<std::size_t>(sparse.layer)];
    const auto& table = w.layers[static_cast<std::size_t>(sparse.layer)];
    const std::string name = "sparse " + table.name;
    if (tables_on_servers) { // (each variable on its own, read at the next step: exchange_problem)
      const double bytes = sparse.bytes.bytes() + sparse.index_bytes().bytes();
      // Nothing comes back: the next step reads the rows it looks up.
      Reduction push{name, bytes, 0, true,
                     servers.sparse_push(sparse, static_cast<double>(table.embedding->rows), plan.server_bytes),
                     collectives::Algorithm::ParameterServer, "the touched rows and their ids to the table's servers"};
      push.concurrent = true;
      push.rows = sparse.rows;
      ready.push_back({position, std::move(push)});
      continue;
    }
    ready.push_back({position, sparse_allgather(context, name, sparse.bytes.bytes(), sparse.rows, 0)});
    ready.push_back(
        {position, sparse_allgather(context, name + " ids", sparse.index_bytes().bytes(), sparse.rows, sparse.id_bytes)});
  }
  std::stable_sort(ready.begin(), ready.end(),
                   [](const Ready& a, const Ready& b) { return a.position < b.position; });
  int next = 0; // backward position of the first layer of the current segment
  for (Ready& r : ready) {
    double segment = 0;
    for (; next <= r.position; ++next)
      segment += times[static_cast<std::size_t>(order[order.size() - 1 - static_cast<std::size_t>(next)])].backward.seconds();
    plan.backward_segments_s.push_back(segment);
    plan.reductions.push_back(std::move(r.reduction));
  }
  double tail = 0;
  for (; next < static_cast<int>(order.size()); ++next)
    tail += times[static_cast<std::size_t>(order[order.size() - 1 - static_cast<std::size_t>(next)])].backward.seconds();
  plan.backward_segments_s.push_back(tail);

  // The next step's reads, when the workers pull then: one per layer with variables on the
  // servers, in forward order, each before that layer's forward.
  double segment = 0;
  const bool reads = stack.pull == stack::Pull::NextForward && all_on_servers && servers.exchange();
  for (int l : order) {
    const auto layer = static_cast<std::size_t>(l);
    const auto sparse = std::find_if(buckets.sparse.begin(), buckets.sparse.end(),
                                     [&](const workload::SparseGradient& g) { return g.layer == l; });
    const bool table = tables_on_servers && sparse != buckets.sparse.end(); // a table's rows, else its variables
    std::vector<collectives::Phase> pull;
    if (reads && table)
      pull = servers.sparse_read(*sparse);
    else if (reads && !exchanged.layers[layer].embedding) // (a table exchanged sparse otherwise is not on the servers)
      pull = servers.pull(l);
    if (!pull.empty()) {
      plan.forward_segments_s.push_back(segment);
      segment = 0;
      // Nothing comes back from a read: its bytes go to the device as they arrive.
      Reduction read{"pull " + w.layers[layer].name,
                     table ? sparse->bytes.bytes()
                           : static_cast<double>(exchanged.layers[layer].params) * gradient_element_bytes,
                     0, table, std::move(pull), collectives::Algorithm::ParameterServer,
                     table ? "the looked-up rows read as the forward pass needs them" : "pulled as the forward pass needs it"};
      read.concurrent = true;
      read.rows = table ? sparse->rows : 0;
      plan.reductions.push_back(std::move(read));
      ++plan.pulls;
    }
    segment += times[layer].forward.seconds();
  }
  if (plan.pulls == 0)
    plan.forward_segments_s = {plan.forward_s}; // the same sum, bit for bit
  else
    plan.forward_segments_s.push_back(segment);
  return plan;
}

} // namespace ceiling::replay
