// Sizes, peaks and bisection bandwidth from the spec alone.
#include "platform/topology.hpp"

#include "support/enum_names.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <utility>

namespace ceiling::platform {

std::string_view to_string(Precision p) {
  switch (p) {
  case Precision::Fp64: return "fp64";
  case Precision::Fp32: return "fp32";
  case Precision::Fp16: return "fp16";
  }
  return "?";
}

std::optional<Precision> precision_from_string(std::string_view text) {
  for (Precision p : all_precisions)
    if (to_string(p) == text)
      return p;
  return std::nullopt;
}

std::optional<units::FlopRate> PeakRates::at(Precision p) const {
  switch (p) {
  case Precision::Fp64: return fp64;
  case Precision::Fp32: return fp32;
  case Precision::Fp16: return fp16;
  }
  return std::nullopt;
}

PeakRates PeakRates::scaled(double factor) const {
  const auto times = [factor](std::optional<units::FlopRate> r) {
    return r ? std::optional(*r * factor) : std::nullopt;
  };
  return {times(fp64), times(fp32), times(fp16)};
}

namespace {
constexpr support::EnumNames<Routing, 3> routing_names{{{
    {Routing::StaticMinimal, "static-minimal"},
    {Routing::Adaptive, "adaptive"},
    {Routing::Ecmp, "ecmp"},
}}};
} // namespace

std::string_view to_string(Routing r) { return routing_names.name(r); }
std::optional<Routing> routing_from_string(std::string_view text) { return routing_names.parse(text); }
std::string routing_list() { return routing_names.list(); }

Routing default_routing(const Topology& t) {
  return std::holds_alternative<Dragonfly>(t) ? Routing::Adaptive : Routing::StaticMinimal;
}

std::optional<std::string> routing_problem(const Topology& t, Routing r) {
  if (r == Routing::StaticMinimal || std::holds_alternative<FatTree>(t) || std::holds_alternative<Dragonfly>(t))
    return std::nullopt;
  return std::string("a ") + std::string(topology_name(t)) + " routes statically only (" +
         (std::holds_alternative<Torus>(t) ? "dimension order" : "one path per pair") +
         "): routing must be \"static-minimal\"";
}

std::string_view topology_name(const Topology& t) {
  static constexpr std::string_view names[] = {"single-switch", "fat-tree", "torus", "dragonfly"};
  return names[t.index()];
}

bool has_fabric_links(const Topology& t) {
  if (const auto* tree = std::get_if<FatTree>(&t))
    return tree->down.size() >= 2;
  if (const auto* d = std::get_if<Dragonfly>(&t))
    return d->groups > 1 || d->chassis_per_group > 1 || d->routers_per_chassis > 1;
  return std::holds_alternative<Torus>(t);
}

bool has_global_links(const Topology& t) {
  const auto* d = std::get_if<Dragonfly>(&t);
  return d && d->groups > 1;
}

namespace {

/// a x b, or max_slots + 1 when that is larger (never a wrapped, negative product).
long long capped_times(long long a, long long b) {
  long long p = 0;
  if (__builtin_mul_overflow(a, b, &p) || p > max_slots)
    return max_slots + 1;
  return p;
}

long long product(const std::vector<int>& v, std::size_t count) {
  long long p = 1;
  for (std::size_t i = 0; i < count; ++i)
    p = capped_times(p, v[i]);
  return p;
}

long long half_floor(long long n) { return n / 2; }
long long half_ceil(long long n) { return n - n / 2; }
long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

} // namespace

long long slot_count(const Topology& t) {
  struct {
    long long operator()(const SingleSwitch&) const { return 0; } // sized by the machine
    long long operator()(const FatTree& f) const { return product(f.down, f.down.size()); }
    long long operator()(const Torus& t) const { return product(t.dimensions, t.dimensions.size()); }
    long long operator()(const Dragonfly& d) const {
      return capped_times(capped_times(capped_times(d.groups, d.chassis_per_group), d.routers_per_chassis),
                          d.nodes_per_router);
    }
  } visitor;
  return std::visit(visitor, t);
}

long long slot_count(const PlatformSpec& spec) {
  const Topology& t = spec.interconnect.topology;
  return std::holds_alternative<SingleSwitch>(t) ? spec.nodes : slot_count(t);
}

std::optional<FatTree> simgrid_fat_tree(const PlatformSpec& spec) {
  const Topology& t = spec.interconnect.topology;
  if (std::holds_alternative<SingleSwitch>(t))
    return FatTree{{static_cast<int>(slot_count(spec))}, {1}, {1}};
  if (const auto* f = std::get_if<FatTree>(&t))
    return *f;
  return std::nullopt;
}

long long cable_count(const PlatformSpec& spec) {
  const auto slots = static_cast<double>(slot_count(spec));
  double cables = slots; // each node's cable to its switch
  if (const auto* f = std::get_if<FatTree>(&spec.interconnect.topology)) {
    // Level k (0: the nodes) has slots / prod(down[0..k-1]) x prod(up[0..k-1]) elements, each with
    // up[k] x links[k] cables to level k + 1.
    double elements = slots;
    cables = 0;
    for (std::size_t k = 0; k < f->down.size() && k < f->up.size() && k < f->links.size(); ++k) {
      if (k > 0)
        elements = elements / f->down[k - 1] * f->up[k - 1];
      cables += elements * f->up[k] * f->links[k] + elements / f->down[k] * f->up[k]; // and the switches above
    }
  } else if (const auto* t = std::get_if<Torus>(&spec.interconnect.topology)) {
    cables += slots * static_cast<double>(t->dimensions.size()) + slots; // and a router per slot
  } else if (const auto* d = std::get_if<Dragonfly>(&spec.interconnect.topology)) {
    const double r = d->routers_per_chassis, c = d->chassis_per_group, g = d->groups;
    cables += g * c * r                                   // the routers
              + g * c * r * (r - 1) / 2 * d->router_links  // green, inside each chassis
              + g * r * c * (c - 1) / 2 * d->chassis_links // black, router l of each chassis pair
              + g * (g - 1) / 2 * d->global_links;          // blue, between each pair of groups
  }
  return cables > static_cast<double>(max_cables) ? max_cables + 1 : static_cast<long long>(cables);
}

std::optional<std::string> shape_problem(const Topology& t) {
  if (const auto* f = std::get_if<FatTree>(&t)) {
    if (f->down.empty() || f->down.size() != f->up.size() || f->down.size() != f->links.size())
      return "down, up and links must have one entry per level, at least one level, got " +
             std::to_string(f->down.size()) + ", " + std::to_string(f->up.size()) + " and " +
             std::to_string(f->links.size());
    const auto below_one = [](const std::vector<int>& v) {
      return std::any_of(v.begin(), v.end(), [](int x) { return x < 1; });
    };
    if (below_one(f->down) || below_one(f->up) || below_one(f->links))
      return "down, up and links must count 1 or more at every level";
  }
  if (const auto* d = std::get_if<Dragonfly>(&t)) {
    // SimGrid 3.32 attaches the global link towards group j to router j of chassis 0, so
    // there must be a router for every other group (more groups crash its routing).
    if (d->groups > d->routers_per_chassis)
      return "groups (" + std::to_string(d->groups) + ") must not exceed routers_per_chassis (" +
             std::to_string(d->routers_per_chassis) +
             "): SimGrid attaches the global link towards group j to router j of chassis 0";
  }
  return std::nullopt;
}

std::optional<std::string> allocation_problem(const PlatformSpec& spec, long long nodes) {
  if (nodes < 1)
    return "the node count must be at least 1, got " + std::to_string(nodes);
  if (nodes > spec.nodes)
    return "the machine " + spec.name + " has " + std::to_string(spec.nodes) + (spec.nodes == 1 ? " node" : " nodes") +
           ", fewer than the " + std::to_string(nodes) + " asked for";
  return std::nullopt;
}

namespace {
constexpr support::EnumNames<AllocationPolicy, 4> allocation_names{{{
    {AllocationPolicy::Contiguous, "contiguous"},
    {AllocationPolicy::Random, "random"},
    {AllocationPolicy::Spread, "spread"},
    {AllocationPolicy::List, "list"},
}}};
} // namespace

std::string_view to_string(AllocationPolicy p) { return allocation_names.name(p); }
std::optional<AllocationPolicy> allocation_policy_from_string(std::string_view text) {
  return allocation_names.parse(text);
}
std::string allocation_policy_list() { return allocation_names.list(); }

long long domain_size(const Topology& t) {
  if (const auto* d = std::get_if<Dragonfly>(&t))
    return 1LL * d->chassis_per_group * d->routers_per_chassis * d->nodes_per_router;
  if (const auto* f = std::get_if<FatTree>(&t))
    return f->down.front();
  if (const auto* torus = std::get_if<Torus>(&t))
    return product(torus->dimensions, torus->dimensions.size() - 1);
  return 1;
}

long long domain_count(const PlatformSpec& spec) {
  return ceil_div(spec.nodes, domain_size(spec.interconnect.topology));
}

std::string_view domain_name(const Topology& t) {
  static constexpr std::string_view names[] = {"nodes", "leaf switches", "planes", "groups"};
  return names[t.index()];
}

std::optional<std::string> allocation_problem(const PlatformSpec& spec, long long nodes, const Allocation& allocation) {
  if (auto problem = allocation_problem(spec, nodes))
    return problem;
  if (allocation.policy != AllocationPolicy::List)
    return std::nullopt;
  if (static_cast<long long>(allocation.slots.size()) != nodes)
    return "--node-list: the list has " + std::to_string(allocation.slots.size()) +
           (allocation.slots.size() == 1 ? " node" : " nodes") + ", the run " + std::to_string(nodes);
  std::vector<long long> sorted = allocation.slots;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= spec.nodes)
      return "--node-list: node " + std::to_string(sorted[i]) + " of the list is not one of the machine's nodes 0 to " +
             std::to_string(spec.nodes - 1);
    if (i > 0 && sorted[i] == sorted[i - 1])
      return "--node-list: node " + std::to_string(sorted[i]) + " is twice in the list";
  }
  return std::nullopt;
}

std::vector<long long> allocate(const PlatformSpec& spec, long long nodes, const Allocation& allocation,
                                std::uint64_t seed) {
  std::vector<long long> slots;
  switch (allocation.policy) {
  case AllocationPolicy::Contiguous:
    for (long long n = 0; n < nodes; ++n)
      slots.push_back(n);
    break;
  case AllocationPolicy::List: slots = allocation.slots; break;
  case AllocationPolicy::Random: {
    // A partial Fisher-Yates shuffle with splitmix64 draws: the same slots on every machine.
    std::vector<long long> all(static_cast<std::size_t>(spec.nodes));
    std::iota(all.begin(), all.end(), 0LL);
    std::uint64_t state = seed;
    for (long long i = 0; i < nodes; ++i) {
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      const auto j = i + static_cast<long long>(z % static_cast<std::uint64_t>(spec.nodes - i));
      std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(j)]);
      slots.push_back(all[static_cast<std::size_t>(i)]);
    }
    break;
  }
  case AllocationPolicy::Spread: {
    // Node k into domain k mod D at its next free place; domains that are full (the machine's
    // last, partly populated one) are skipped.
    const long long size = domain_size(spec.interconnect.topology);
    const long long domains = ceil_div(spec.nodes, size);
    std::vector<long long> used(static_cast<std::size_t>(domains), 0);
    for (long long d = 0; static_cast<long long>(slots.size()) < nodes; d = (d + 1) % domains) {
      const long long slot = d * size + used[static_cast<std::size_t>(d)];
      if (used[static_cast<std::size_t>(d)] < size && slot < spec.nodes) {
        slots.push_back(slot);
        ++used[static_cast<std::size_t>(d)];
      }
    }
    break;
  }
  }
  std::sort(slots.begin(), slots.end());
  return slots;
}

std::optional<units::FlopRate> node_peak(const NodeSpec& node, Precision p) {
  std::optional<units::FlopRate> total;
  if (auto cpu = node.cpu.peak_per_socket.at(p))
    total = *cpu * node.cpu.sockets;
  if (node.gpu)
    if (auto gpu = node.gpu->peak.at(p))
      total = total.value_or(units::FlopRate{}) + *gpu * node.gpu->count;
  return total;
}

std::optional<units::FlopRate> node_rpeak(const NodeSpec& node) {
  if (!node.gpu || !node.gpu->base_clock_peak_fp64 || !node.cpu.peak_per_socket.fp64)
    return std::nullopt;
  return *node.cpu.peak_per_socket.fp64 * node.cpu.sockets + *node.gpu->base_clock_peak_fp64 * node.gpu->count;
}

units::Bandwidth injection_bandwidth(const PlatformSpec& spec) {
  const double link = spec.interconnect.link_bandwidth.bytes_per_second();
  const auto* f = std::get_if<FatTree>(&spec.interconnect.topology);
  double node_cables = f ? static_cast<double>(f->up[0]) * f->links[0] : 1.0;
  if (const auto* t = std::get_if<Torus>(&spec.interconnect.topology)) {
    node_cables = 0; // two neighbours along a dimension longer than 2, one along a 2-long one
    for (const int extent : t->dimensions)
      node_cables += extent > 2 ? 2 : extent == 2 ? 1 : 0;
  }
  return units::Bandwidth::from_bytes_per_second(std::min(spec.node.nic.bandwidth.bytes_per_second(), node_cables * link));
}

units::Bandwidth bisection_bandwidth(const PlatformSpec& spec, long long nodes) {
  const double link = spec.interconnect.link_bandwidth.bytes_per_second();
  // Node level: half the nodes inject towards the other half.
  double best = half_floor(nodes) * injection_bandwidth(spec).bytes_per_second();
  const auto* f = std::get_if<FatTree>(&spec.interconnect.topology);

  // Each topology adds the cut of its own levels that the allocation spans. Nodes are placed
  // contiguously, so the worst balanced cut follows the topology's own grouping.
  if (f) {
    // A pod of level k holds the nodes below one level-k switch: prod(down[0..k-1]) nodes,
    // prod(up[0..k-1]) level-k switches, each with up[k] * links[k] cables to level k+1.
    const std::size_t levels = f->down.size();
    for (std::size_t k = 1; k < levels; ++k) {
      const long long pod_size = product(f->down, k);
      if (nodes <= pod_size)
        break;
      const double pod_uplinks = product(f->up, k) * f->up[k] * f->links[k] * link;
      best = std::min(best, half_floor(ceil_div(nodes, pod_size)) * pod_uplinks);
    }
  } else if (const auto* t = std::get_if<Torus>(&spec.interconnect.topology)) {
    // Nodes fill the first dimensions whole and the outermost they reach in part: the least cut
    // in half across any of them. Across dimension k, one link per line of nodes along it (the
    // allocation's nodes over the extent it spans there), two where dimension k is complete and
    // wraps around (more than 2 long: with 2, the wrap is the same neighbour).
    long long inner = 1;
    for (std::size_t k = 0; k < t->dimensions.size(); ++k) {
      const long long extent = t->dimensions[k];
      if (nodes <= inner * extent || k + 1 == t->dimensions.size()) {
        const long long spanned = std::min(extent, ceil_div(nodes, inner));
        const auto cut = [&](long long across, long long length, bool complete) {
          if (length > 1)
            best = std::min(best, static_cast<double>(across) * (complete && length > 2 ? 2 : 1) * link);
        };
        cut(nodes / spanned, spanned, spanned == extent); // across the outermost
        for (std::size_t j = 0; j < k; ++j)               // across an inner one, complete
          cut(nodes / t->dimensions[j], t->dimensions[j], true);
        break;
      }
      inner *= extent;
    }
  } else if (const auto* d = std::get_if<Dragonfly>(&spec.interconnect.topology)) {
    const long long per_router = d->nodes_per_router;
    const long long per_chassis = per_router * d->routers_per_chassis;
    const long long per_group = per_chassis * d->chassis_per_group;
    if (nodes > per_group) { // all-to-all global links between groups
      const long long g = ceil_div(nodes, per_group);
      best = std::min(best, half_floor(g) * half_ceil(g) * d->global_links * link);
    } else if (nodes > per_chassis) { // router l of each chassis links router l of the others
      const long long c = ceil_div(nodes, per_chassis);
      best = std::min(best, half_floor(c) * half_ceil(c) * d->routers_per_chassis *
                                d->chassis_links * link);
    } else if (nodes > per_router) { // all-to-all green links inside the chassis
      const long long r = ceil_div(nodes, per_router);
      best = std::min(best, half_floor(r) * half_ceil(r) * d->router_links * link);
    }
  }
  return units::Bandwidth::from_bytes_per_second(best);
}

} // namespace ceiling::platform
