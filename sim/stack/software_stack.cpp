#include "stack/software_stack.hpp"

#include <array>

namespace ceiling::stack {
namespace {

constexpr std::array<std::pair<Reducer, std::string_view>, 3> reducer_names{{
    {Reducer::None, "none"},
    {Reducer::HostCore, "host-core"},
    {Reducer::Device, "device"},
}};

} // namespace

std::string_view to_string(Reducer r) {
  for (const auto& [reducer, name] : reducer_names)
    if (reducer == r)
      return name;
  return "?";
}

std::optional<Reducer> reducer_from_string(std::string_view text) {
  for (const auto& [reducer, name] : reducer_names)
    if (name == text)
      return reducer;
  return std::nullopt;
}

} // namespace ceiling::stack
