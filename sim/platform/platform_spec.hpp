// The value types that describe one machine: nodes, their devices and links, the interconnect.
#pragma once

#include "units/quantity.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <variant>
#include <vector>

namespace ceiling::platform {

/// Floating-point precisions a device may offer a peak rate for.
enum class Precision { Fp64, Fp32, Fp16 };
inline constexpr std::array<Precision, 3> all_precisions{Precision::Fp64, Precision::Fp32,
                                                         Precision::Fp16};
/// "fp64", "fp32" or "fp16", as in files and on the command line.
std::string_view to_string(Precision p);
std::optional<Precision> precision_from_string(std::string_view text);

/// Peak compute rate per precision; a precision the device lacks is absent.
struct PeakRates {
  std::optional<units::FlopRate> fp64;
  std::optional<units::FlopRate> fp32;
  std::optional<units::FlopRate> fp16;
  std::optional<units::FlopRate> at(Precision p) const;
  /// Every rate multiplied by `factor` (sockets, devices).
  PeakRates scaled(double factor) const;
  bool operator==(const PeakRates&) const = default;
};

/// The host processors of a node. Rates and bandwidth are per socket.
struct CpuSpec {
  /// e.g. "Intel Xeon Platinum 8180": names the device a workload's device calibration prices
  /// (CPU-only nodes); empty when the file does not give it.
  std::string model;
  int sockets = 1;
  int cores_per_socket = 1;
  PeakRates peak_per_socket;
  units::Bandwidth memory_bandwidth_per_socket;
  /// What one core streams on its own (a one-thread STREAM): the rate of a reduction an MPI
  /// library computes on the calling core. Absent when the platform file does not give it.
  std::optional<units::Bandwidth> core_memory_bandwidth;
  /// Host memory of the node (all sockets): what sizes an HPL matrix. Absent when not given.
  std::optional<units::DataSize> host_memory;
  /// Measured single-device micro-benchmarks, per socket, for the HPC workloads (sim/hpc/):
  /// the rate of a large fp64 matrix product (DGEMM) and of a STREAM-like triad on all cores.
  std::optional<units::FlopRate> dgemm;
  std::optional<units::Bandwidth> stream_bandwidth;
  bool operator==(const CpuSpec&) const = default;
};

/// The largest GpuSpec::device_spread: at 10 %, the slowest of 10 million GPUs (z = 5.3)
/// computes 1.5 times its calibrated time, the fastest half of it.
inline constexpr double max_device_spread = 0.1;

/// One accelerator; a node holds `count` identical ones.
struct GpuSpec {
  int count = 1;
  std::string model; ///< e.g. "NVIDIA Tesla P100 PCIe 16 GB": names it in reports and device calibrations
  /// Another model whose device calibrations price this GPU where none names its own (the same
  /// chip at another clock or memory size: efficiencies are fractions of peak); empty: none.
  std::string calibration_device;
  PeakRates peak;     ///< at the clock the GPU runs at under load (its boost clock): the model's
  /// The fp64 peak at the base clock, which TOP500's R_peak counts; for reports (platform show),
  /// absent when the file does not give it.
  std::optional<units::FlopRate> base_clock_peak_fp64;
  units::Bandwidth memory_bandwidth;
  units::DataSize memory;
  /// Streaming multiprocessors: what TOP500's "Total Cores" counts per GPU. 0 when not given.
  int multiprocessors = 0;
  /// CUDA compute capability, major x 10 + minor (60: P100, 70: V100); 0 when not given. NCCL's
  /// rules need it (thread thresholds, LL128).
  int compute_capability = 0;
  /// How much one GPU's compute time varies from one GPU of this model to the next (the
  /// coefficient of variation over the model's GPUs: manufacturing and power management), each
  /// GPU keeping its own pace for the whole run; 0 (the default) where every GPU computes alike.
  /// Synchronous training waits for the slowest GPU at every step (replay/device_spread.hpp).
  double device_spread = 0;
  /// Measured micro-benchmarks of one GPU for the HPC workloads, as CpuSpec's.
  std::optional<units::FlopRate> dgemm;
  std::optional<units::Bandwidth> stream_bandwidth;
  bool operator==(const GpuSpec&) const = default;
};

/// Host memory <-> one GPU. Bandwidths are per direction.
struct PcieSpec {
  units::Bandwidth host_to_device;
  units::Bandwidth device_to_host;
  units::Duration latency;      ///< the link's: paid by every crossing, copies and GPU-direct messages
  /// The CUDA driver's cost of one copy call (cudaMemcpy), paid before a copy starts when the
  /// software stack has copy overheads; GPU-direct messages do not pay it. 0 when not given.
  units::Duration copy_overhead;
  bool operator==(const PcieSpec&) const = default;
};

/// A direct GPU <-> GPU link inside a node (NVLink-like): one per GPU to a non-blocking switch.
struct GpuLinkSpec {
  units::Bandwidth bandwidth; ///< per direction: per GPU to the switch, or per link of a pair
  units::Duration latency;
  /// A mesh instead of the switch: the GPU pairs (indices from 0) joined by a link of their own
  /// (an NVLink), a pair listed once per link between them; GPUs of no pair exchange through the
  /// host (their PCIe links). Pairs naming a GPU the node lacks (its count set lower) are left out.
  std::vector<std::pair<int, int>> pairs;
  /// The listed pairs whose GPUs a node of `gpus` GPUs has: the links a machine builds.
  std::vector<std::pair<int, int>> pairs_among(int gpus) const {
    std::vector<std::pair<int, int>> among;
    for (auto [j, k] : pairs)
      if (j < gpus && k < gpus)
        among.emplace_back(j, k);
    return among;
  }
  bool operator==(const GpuLinkSpec&) const = default;
};

/// The node's network interface, attached to the host side.
struct NicSpec {
  units::Bandwidth bandwidth; // injection, per direction
  units::Duration latency;    // the hardware's: the NIC's share of a message's wire latency
  /// LogGP overheads: the CPU time the message library spends per message to send and to
  /// receive one, paid when the software stack has message overheads. 0 when not given.
  units::Duration send_overhead;
  units::Duration receive_overhead;
  /// GPU-direct RDMA: the NIC reads and writes GPU memory, so no staging copy through host
  /// memory is needed (the data still crosses the GPU's PCIe link).
  bool gpu_direct = false;
  /// The ports the node's link stands for (its bandwidth is theirs together). NCCL builds one
  /// ring per port across nodes (software stacks without `channels`).
  int ports = 1;
  bool operator==(const NicSpec&) const = default;
};

/// One node kind per machine: a CPU node (no GPU) or a GPU node.
struct NodeSpec {
  CpuSpec cpu;
  std::optional<GpuSpec> gpu;
  std::optional<PcieSpec> pcie;         // present exactly when gpu is
  std::optional<GpuLinkSpec> gpu_link;  // only with two or more GPUs
  NicSpec nic;
  bool is_gpu_node() const { return gpu.has_value(); }
  bool operator==(const NodeSpec&) const = default;
};

/// One crossbar switch with a link to every node.
struct SingleSwitch {
  bool operator==(const SingleSwitch&) const = default;
};

/// SimGrid's multi-level fat-tree (d-mod-k routing). Entry i of each list is level i+1 counted
/// from the nodes: `down` children per switch, `up` parents per node or switch, `links`
/// parallel cables per connection. Taper shows as up * links < down.
struct FatTree {
  std::vector<int> down;
  std::vector<int> up;
  std::vector<int> links;
  bool operator==(const FatTree&) const = default;
};

/// A k-ary n-cube with wrap-around links and dimension-order routing.
struct Torus {
  std::vector<int> dimensions;
  bool operator==(const Torus&) const = default;
};

/// Cray-style dragonfly, SimGrid's shape string "groups,global_links;chassis,chassis_links;
/// routers,router_links;nodes". A link count k is one link of k times the bandwidth (the global
/// cables of the routing's own fabric are one link each: routing/fabric.hpp).
struct Dragonfly {
  int groups = 1;
  int global_links = 1;        // blue (optical) links between each pair of groups
  int chassis_per_group = 1;
  int chassis_links = 1;       // black links between each pair of chassis in a group
  int routers_per_chassis = 1;
  int router_links = 1;        // green links between each pair of routers in a chassis
  int nodes_per_router = 1;
  bool operator==(const Dragonfly&) const = default;
};

using Topology = std::variant<SingleSwitch, FatTree, Torus, Dragonfly>;

/// "single-switch", "fat-tree", "torus" or "dragonfly".
std::string_view topology_name(const Topology& t);
/// Whether `t` has links between its routers or switches (a one-level fat-tree or a one-router
/// dragonfly is a single switch), which a fabric background load takes a share of.
bool has_fabric_links(const Topology& t);
/// Whether `t` is a dragonfly of two or more groups, with global links between them.
bool has_global_links(const Topology& t);

/// How the fabric routes a flow between two nodes (sim/routing/ for the paths and the choice):
/// - StaticMinimal: SimGrid's own route, one fixed path per pair: d-mod-k on a fat-tree,
///   dimension order on a torus, the one minimal path of SimGrid's dragonfly builder;
/// - Adaptive: the flow spreads over minimal and non-minimal paths by load, UGAL-style (the
///   dragonfly: Aries; the fat-tree: minimal paths only, as adaptive InfiniBand);
/// - Ecmp: each flow hashed, seeded, onto one of its minimal paths, as Ethernet ECMP does.
/// Adaptive and Ecmp are computed by the replay's own flow sharing (replay/routes.hpp).
enum class Routing { StaticMinimal, Adaptive, Ecmp };
std::string_view to_string(Routing r);
std::optional<Routing> routing_from_string(std::string_view text);
/// "static-minimal, adaptive, ecmp", for messages.
std::string routing_list();

/// The network between the nodes. Every fabric link has the same bandwidth and latency.
struct InterconnectSpec {
  Topology topology;
  units::Bandwidth link_bandwidth; // per direction
  units::Duration link_latency;
  Routing routing = Routing::StaticMinimal;
  bool operator==(const InterconnectSpec&) const = default;
};

/// Where a fabric link sits: at a node (its port into the fabric; on a torus none, the nodes
/// are the routers), between routers or switches, or between dragonfly groups.
enum class FabricLinkKind { NodePort, Inside, Global };

/// Other jobs' traffic, as the share of a link's bandwidth it keeps busy (0 to max): on every
/// link between routers or switches (`fabric`), and on a dragonfly's global links (`global`,
/// which replaces `fabric` there when given). A node's port carries only its own job. The job
/// gets the rest of each link: the others' traffic is a constant stream that does not yield.
struct BackgroundLoad {
  static constexpr double max = 0.95;
  double fabric = 0;
  std::optional<double> global;
  double of(FabricLinkKind kind) const {
    return kind == FabricLinkKind::NodePort ? 0.0 : kind == FabricLinkKind::Global ? global.value_or(fabric) : fabric;
  }
  bool any() const { return fabric > 0 || global.value_or(0) > 0; }
  bool operator==(const BackgroundLoad&) const = default;
};

/// How a job's nodes are chosen among the machine's, as a batch scheduler hands them out. Ranks
/// follow the chosen slots in ascending order (a sorted host list).
/// - Contiguous: slots 0 to N-1, an empty machine's first N;
/// - Random: N slots drawn uniformly among the machine's `nodes`, seeded (a busy machine);
/// - Spread: round-robin over the topology's domains (dragonfly groups, a fat-tree's lowest
///   switches, a torus's planes across its last dimension), each domain filled from its start;
/// - List: the given slots.
enum class AllocationPolicy { Contiguous, Random, Spread, List };
std::string_view to_string(AllocationPolicy p);
std::optional<AllocationPolicy> allocation_policy_from_string(std::string_view text);
std::string allocation_policy_list();

struct Allocation {
  AllocationPolicy policy = AllocationPolicy::Contiguous;
  std::vector<long long> slots; ///< with List: the node slots, in any order
  bool operator==(const Allocation&) const = default;
};

/// One whole machine, as read from a platform file.
struct PlatformSpec {
  std::string name;
  std::string description;
  int nodes = 1; // nodes the machine has; at most the topology's slot count
  /// The software stack its users ran (a bundled stack's name or a software file), the
  /// default of `ceiling run`; empty: the ideal stack.
  std::string software;
  NodeSpec node;
  InterconnectSpec interconnect;
  bool operator==(const PlatformSpec&) const = default;
};

} // namespace ceiling::platform
