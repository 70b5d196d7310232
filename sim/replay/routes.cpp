// Routes between ranks, read from SimGrid's routing once per pair.
#include "replay/routes.hpp"

#include "platform/machine.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;

namespace ceiling::replay {

const Route& Routes::between(int src, int dst) {
  const auto ranks = static_cast<unsigned long long>(hosts_.size());
  auto [it, fresh] = cache_.try_emplace(static_cast<unsigned long long>(src) * ranks +
                                        static_cast<unsigned long long>(dst));
  Route& route = it->second;
  if (!fresh)
    return route;
  std::vector<sg4::Link*> links;
  hosts_[static_cast<std::size_t>(src)]->route_to(hosts_[static_cast<std::size_t>(dst)], links,
                                                  &route.latency_s);
  route.shared_links_only = !links.empty();
  for (const sg4::Link* link : links) {
    const auto [id, met] = link_ids_.try_emplace(link, link_count());
    if (met) {
      LinkFacts facts{link->get_bandwidth(), {}, link->get_sharing_policy() == sg4::Link::SharingPolicy::SHARED};
      switch (platform::link_class(*link)) {
      case platform::LinkClass::Pcie: facts.per_byte.pcie = 1; break;
      case platform::LinkClass::Nic: facts.per_byte.nic = 1; break;
      case platform::LinkClass::GpuLink: facts.per_byte.gpu_link = 1; break;
      case platform::LinkClass::HostMemory: facts.per_byte.host_memory = 1; break;
      case platform::LinkClass::Fabric: facts.per_byte.fabric = 1; break;
      }
      link_facts_.push_back(facts);
    }
    const LinkFacts& facts = link_facts_[id->second];
    route.link_ids.push_back(id->second);
    route.shared_links_only &= facts.shared;
    if (route.bandwidth_bytes_per_s == 0 || facts.bandwidth_bytes_per_s < route.bandwidth_bytes_per_s)
      route.bandwidth_bytes_per_s = facts.bandwidth_bytes_per_s;
    route.per_byte.add_times(facts.per_byte, 1);
  }
  return route;
}

std::vector<std::vector<char>> Routes::alone(const std::vector<collectives::Phase>& plan) {
  std::vector<const Route*> routes; // of every flow, in plan order
  for (const auto& phase : plan)
    for (const auto& flow : phase.flows)
      routes.push_back(&between(flow.src, flow.dst));
  std::vector<int> crossings(link_count(), 0); // every link is met by now
  for (const Route* route : routes)
    for (std::uint32_t link : route->link_ids)
      ++crossings[link];
  std::vector<std::vector<char>> alone;
  auto route = routes.begin();
  for (const auto& phase : plan) {
    auto& flags = alone.emplace_back();
    for (std::size_t f = 0; f < phase.flows.size(); ++f, ++route) {
      const auto& links = (*route)->link_ids;
      flags.push_back(!links.empty() && std::all_of(links.begin(), links.end(), [&](std::uint32_t link) {
                        return crossings[link] == 1;
                      }));
    }
  }
  return alone;
}

} // namespace ceiling::replay
