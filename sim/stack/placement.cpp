#include "stack/placement.hpp"

#include "support/enum_names.hpp"

#include <algorithm>

namespace ceiling::stack {
namespace {

constexpr support::EnumNames<Placement, 3> names{{{
    {Placement::Even, "even"},
    {Placement::Greedy, "greedy"},
    {Placement::RoundRobin, "round-robin"},
}}};

} // namespace

std::string_view to_string(Placement p) { return names.name(p); }
std::optional<Placement> placement_from_string(std::string_view text) { return names.parse(text); }
std::string placement_names() { return names.list(); }

std::vector<int> place_variables(const std::vector<double>& bytes, int servers, Placement rule) {
  std::vector<int> server(bytes.size(), 0);
  std::vector<double> load(static_cast<std::size_t>(std::max(servers, 1)), 0.0);
  for (std::size_t v = 0; v < bytes.size(); ++v) {
    const auto task = rule == Placement::RoundRobin
                          ? v % load.size()
                          : static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    server[v] = static_cast<int>(task);
    load[task] += bytes[v];
  }
  return server;
}

} // namespace ceiling::stack
