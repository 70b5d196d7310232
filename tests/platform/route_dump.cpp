// Prints a built machine's hosts and a sample of its routes as text, for golden-file tests.
//
// usage: route_dump PLATFORM.toml NODES
//
// The text pins what the replay reads from a machine: every sampled route's links in order
// (name, bandwidth, latency, sharing policy) and its latency, plus each sampled host's speeds
// and cores. Numbers are printed with 17 significant digits, so equal text means equal doubles.
// tests/platform/routes_golden/ holds the text of the construction the tests compare against;
// tests/platform/routes_test.sh compares, and regenerates with --update.
#include "config/load_error.hpp"
#include "config/platform_file.hpp"
#include "machine/engine.hpp"
#include "machine/machine.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using namespace ceiling;

namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

/// Nodes whose routes are printed: both ends, the middle and a few in between, so that on
/// every bundled machine the sample crosses switches, chassis, groups and pods.
std::vector<long long> sampled_nodes(long long n) {
  std::set<long long> picked;
  for (long long r : {0LL, 1LL, 5LL, n / 3, n / 2, 2 * n / 3 + 1, n - 1})
    if (r < n)
      picked.insert(r);
  return {picked.begin(), picked.end()};
}

/// The node's hosts whose routes are printed: the CPU, then GPUs 0, 1 and the last.
std::vector<const sg4::Host*> sampled_hosts(const platform::NodeHosts& node) {
  std::vector<const sg4::Host*> hosts{node.cpu};
  const auto g = static_cast<long long>(node.gpus.size());
  std::set<long long> picked;
  for (long long k : {0LL, 1LL, g - 1})
    if (k >= 0 && k < g)
      picked.insert(k);
  for (long long k : picked)
    hosts.push_back(node.gpus[static_cast<std::size_t>(k)]);
  return hosts;
}

std::string policy_name(sg4::Link::SharingPolicy p) {
  switch (p) {
  case sg4::Link::SharingPolicy::SHARED:
    return "shared";
  case sg4::Link::SharingPolicy::FATPIPE:
    return "fatpipe";
  case sg4::Link::SharingPolicy::SPLITDUPLEX:
    return "splitduplex";
  default:
    return "other";
  }
}

class Dump {
public:
  void host(const sg4::Host* h) {
    std::string speeds;
    for (unsigned long p = 0; p < h->get_pstate_count(); ++p)
      speeds += (speeds.empty() ? "" : ",") + number(h->get_pstate_speed(p));
    const char* cores = h->get_property("cores");
    out_ << "host " << h->get_name() << " speeds " << speeds << " cores " << (cores ? cores : "-")
         << "\n";
  }

  void route(const sg4::Host* src, const sg4::Host* dst) {
    std::vector<sg4::Link*> links;
    double latency_s = 0;
    src->route_to(dst, links, &latency_s);
    out_ << "route " << src->get_name() << " " << dst->get_name() << " latency "
         << number(latency_s) << " :";
    for (const sg4::Link* link : links) {
      out_ << " " << link->get_name();
      if (declared_.insert(link->get_name()).second)
        links_ << "link " << link->get_name() << " bandwidth " << number(link->get_bandwidth())
               << " latency " << number(link->get_latency()) << " "
               << policy_name(link->get_sharing_policy()) << "\n";
    }
    out_ << "\n";
  }

  /// Hosts and routes first, then the links the routes use, each once, in first-use order.
  void print(std::ostream& os) const { os << out_.str() << links_.str(); }

private:
  std::ostringstream out_;
  std::ostringstream links_;
  std::set<std::string, std::less<>> declared_;
};

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: route_dump PLATFORM.toml NODES\n";
    return 2;
  }
  platform::PlatformSpec spec;
  try {
    spec = config::load_platform(argv[1]);
  } catch (const config::LoadError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  const long long n = std::stoll(argv[2]);
  sg4::Engine& engine = platform::start_engine({});
  const platform::Machine machine = platform::Machine::build(spec, n);

  Dump dump;
  const auto nodes = sampled_nodes(n);
  for (long long a : nodes)
    for (const sg4::Host* h : sampled_hosts(machine.node(a)))
      dump.host(h);
  for (long long a : nodes) {
    const auto here = sampled_hosts(machine.node(a));
    // Inside a node: every ordered pair of sampled hosts, each host to itself too.
    for (const sg4::Host* src : here)
      for (const sg4::Host* dst : here)
        dump.route(src, dst);
    // Across nodes: CPU to CPU and GPU to GPU (GPU-direct) between every two sampled nodes,
    // GPU to CPU each way towards the next sampled node; the GPU index varies with the node
    // so that every sampled GPU appears.
    const auto gpu_of = [](const std::vector<const sg4::Host*>& hosts, long long rank) {
      return hosts.size() == 1 ? nullptr
                               : hosts[1 + static_cast<std::size_t>(rank) % (hosts.size() - 1)];
    };
    for (long long b : nodes) {
      if (a == b)
        continue;
      const auto there = sampled_hosts(machine.node(b));
      dump.route(here[0], there[0]);
      if (gpu_of(here, a) != nullptr)
        dump.route(gpu_of(here, a), gpu_of(there, b));
    }
    const auto next = std::upper_bound(nodes.begin(), nodes.end(), a);
    const long long b = next == nodes.end() ? nodes.front() : *next;
    if (b != a && gpu_of(here, a) != nullptr) {
      const auto there = sampled_hosts(machine.node(b));
      dump.route(gpu_of(here, a), there[0]);
      dump.route(here[0], gpu_of(there, b));
    }
  }
  std::cout << "# " << spec.name << " at " << n << " nodes: " << engine.get_host_count()
            << " hosts, " << engine.get_link_count() << " links\n";
  dump.print(std::cout);
  return 0;
}
