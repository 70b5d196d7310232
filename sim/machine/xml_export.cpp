// XML export: routes are read back from the built machine, so the file routes as it does.
#include "machine/xml_export.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cassert>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace ceiling::platform {
namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

/// Declares each link once, in first-use order, as a shared link with its own bandwidth.
class LinkTable {
public:
  void declare(const sg4::Link* link, std::ostream& out, const std::string& indent) {
    if (!declared_.insert(link->get_name()).second)
      return;
    out << indent << "<link id=\"" << link->get_name() << "\" bandwidth=\""
        << number(link->get_bandwidth()) << "Bps\" latency=\"" << number(link->get_latency())
        << "s\"/>\n";
  }

private:
  std::set<std::string, std::less<>> declared_;
};

std::vector<const sg4::Link*> route_links(const sg4::Host* src, const sg4::Host* dst) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  src->route_to(dst, links, &latency);
  return {links.begin(), links.end()};
}

/// Whether a host's route to itself is SimGrid's default, its loopback link alone (or nothing),
/// which a loaded platform has without a route: a CPU's through its node's memory is written.
bool loopback(const std::vector<const sg4::Link*>& links) {
  return links.empty() || (links.size() == 1 && links.front()->get_name() == "__loopback__");
}

/// Opening tag of a route and its links.
using Routes = std::vector<std::pair<std::string, std::vector<const sg4::Link*>>>;

/// Declares the links `routes` use (the DTD wants links before routes), then the routes.
void write_routes(std::ostream& out, LinkTable& links, const Routes& routes,
                  const std::string& indent) {
  for (const auto& [tag, route] : routes)
    for (const sg4::Link* link : route)
      links.declare(link, out, indent);
  for (const auto& [tag, route] : routes) {
    out << indent << tag << "\n";
    for (const sg4::Link* link : route)
      out << indent << "  <link_ctn id=\"" << link->get_name() << "\"/>\n";
    out << indent << (tag.starts_with("<zoneRoute") ? "</zoneRoute>\n" : "</route>\n");
  }
}

std::string speeds(const sg4::Host* host) {
  std::string list;
  for (unsigned long p = 0; p < host->get_pstate_count(); ++p)
    list += (list.empty() ? "" : ",") + number(host->get_pstate_speed(p)) + "f";
  return list;
}

/// The node's internal endpoints: CPU first, then its GPUs.
std::vector<const sg4::Host*> endpoints(const NodeHosts& node) {
  std::vector<const sg4::Host*> hosts{node.cpu};
  hosts.insert(hosts.end(), node.gpus.begin(), node.gpus.end());
  return hosts;
}

/// `text` as an XML comment may hold it: no "--" (XML 1.0, section 2.5), a space put between
/// two hyphens.
std::string comment_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '-' && !out.empty() && out.back() == '-')
      out += ' ';
    out += c;
  }
  return out;
}

} // namespace

void export_xml(const Machine& machine, std::ostream& out) {
  assert(machine.size() <= max_xml_export_nodes && "export_xml: too many nodes for explicit routes");
  out << xml_export_start << "<!-- " << comment_text(machine.spec().name) << ", " << machine.size()
      << " nodes, written by ceiling platform export; routes: SimGrid's static minimal ones"
      << (machine.spec().interconnect.routing == Routing::StaticMinimal
              ? ""
              : std::string(" (the platform routes ") +
                    std::string(to_string(machine.spec().interconnect.routing)) +
                    ", which the replay computes itself: not exported)")
      << " -->\n"
      << "<platform version=\"4.1\">\n"
      << "<zone id=\"fabric\" routing=\"Full\">\n";
  LinkTable links;
  const long long n = machine.size();
  for (long long rank = 0; rank < n; ++rank) {
    const std::string name = machine.node_name(rank);
    const auto hosts = endpoints(machine.node(rank));
    out << "  <zone id=\"" << name << "\" routing=\"Full\">\n";
    for (const sg4::Host* h : hosts) {
      out << "    <host id=\"" << h->get_name() << "\" speed=\"" << speeds(h) << "\"";
      // Its properties (the CPU's `cores`), by name.
      std::map<std::string, std::string> properties;
      if (const auto* given = h->get_properties())
        properties.insert(given->begin(), given->end());
      if (properties.empty()) {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      for (const auto& [key, value] : properties)
        out << "      <prop id=\"" << key << "\" value=\"" << value << "\"/>\n";
      out << "    </host>\n";
    }
    out << "    <router id=\"" << name << "-nic\"/>\n";
    // Internal links, then internal routes: host <-> host and host <-> NIC router. A route to
    // the router is the route to any host of another node minus what lies beyond the NIC.
    const sg4::Host* remote = machine.node(rank == 0 ? 1 % n : 0).cpu;
    Routes routes;
    for (const sg4::Host* a : hosts) {
      for (const sg4::Host* b : hosts)
        if (auto between = route_links(a, b); a != b || !loopback(between)) // a host's own: its memory, if any
          routes.emplace_back("<route src=\"" + a->get_name() + "\" dst=\"" + b->get_name() +
                                  "\" symmetrical=\"NO\">",
                              std::move(between));
      if (n > 1) {
        // Inside the node, a route out ends with the NIC's UP half, one in starts with DOWN.
        auto out_links = route_links(a, remote);
        auto in_links = route_links(remote, a);
        const std::string nic_up = name + "-nic_UP";
        const std::string nic_down = name + "-nic_DOWN";
        while (!out_links.empty() && out_links.back()->get_name() != nic_up)
          out_links.pop_back();
        while (!in_links.empty() && in_links.front()->get_name() != nic_down)
          in_links.erase(in_links.begin());
        routes.emplace_back("<route src=\"" + a->get_name() + "\" dst=\"" + name +
                                "-nic\" symmetrical=\"NO\">",
                            out_links);
        routes.emplace_back("<route src=\"" + name + "-nic\" dst=\"" + a->get_name() +
                                "\" symmetrical=\"NO\">",
                            in_links);
      }
    }
    write_routes(out, links, routes, "    ");
    out << "  </zone>\n";
  }
  // Fabric links and node-to-node routes between the NIC gateways: the CPU-to-CPU route less
  // the first link (out through the source NIC) and the last (in through the destination NIC).
  Routes zone_routes;
  for (long long i = 0; i < n; ++i)
    for (long long j = 0; j < n; ++j) {
      if (i == j)
        continue;
      auto route = route_links(machine.node(i).cpu, machine.node(j).cpu);
      assert(route.size() >= 2 && "a node-to-node route crosses both NICs");
      route = {route.begin() + 1, route.end() - 1};
      const std::string a = machine.node_name(i);
      const std::string b = machine.node_name(j);
      zone_routes.emplace_back("<zoneRoute src=\"" + a + "\" dst=\"" + b + "\" gw_src=\"" + a +
                                   "-nic\" gw_dst=\"" + b + "-nic\" symmetrical=\"NO\">",
                               route);
    }
  write_routes(out, links, zone_routes, "  ");
  out << "</zone>\n</platform>\n";
}

} // namespace ceiling::platform
