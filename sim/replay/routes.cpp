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
  route.links.assign(links.begin(), links.end());
  route.shared_links_only = !links.empty();
  LinkBytes& count = route.per_byte;
  for (const sg4::Link* link : links) {
    const auto [id, met] = link_ids_.try_emplace(link, link_count());
    if (met)
      link_bandwidths_.push_back(link->get_bandwidth());
    route.link_ids.push_back(id->second);
    route.shared_links_only &= link->get_sharing_policy() == sg4::Link::SharingPolicy::SHARED;
    if (route.bandwidth_bytes_per_s == 0 || link->get_bandwidth() < route.bandwidth_bytes_per_s)
      route.bandwidth_bytes_per_s = link->get_bandwidth();
    switch (platform::link_class(*link)) {
    case platform::LinkClass::Pcie: count.pcie += 1; break;
    case platform::LinkClass::Nic: count.nic += 1; break;
    case platform::LinkClass::GpuLink: count.gpu_link += 1; break;
    case platform::LinkClass::HostMemory: count.host_memory += 1; break;
    case platform::LinkClass::Fabric: count.fabric += 1; break;
    }
  }
  return route;
}

std::vector<std::vector<char>> Routes::alone(const std::vector<collectives::Phase>& plan) {
  std::unordered_map<const sg4::Link*, int> crossings;
  for (const auto& phase : plan)
    for (const auto& flow : phase.flows)
      for (const sg4::Link* link : between(flow.src, flow.dst).links)
        ++crossings[link];
  std::vector<std::vector<char>> alone;
  for (const auto& phase : plan) {
    auto& flags = alone.emplace_back();
    for (const auto& flow : phase.flows) {
      const auto& links = between(flow.src, flow.dst).links;
      flags.push_back(!links.empty() && std::all_of(links.begin(), links.end(), [&](const sg4::Link* link) {
                        return crossings[link] == 1;
                      }));
    }
  }
  return alone;
}

} // namespace ceiling::replay
