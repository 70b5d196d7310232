// The names of an enum's values, as files and the command line spell them: one table serves
// to_string, parsing and the list for messages.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ceiling::support {

template <class Enum, std::size_t N> struct EnumNames {
  std::array<std::pair<Enum, std::string_view>, N> entries;

  constexpr std::string_view name(Enum value) const {
    for (const auto& [e, n] : entries)
      if (e == value)
        return n;
    return "?";
  }

  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (const auto& [e, n] : entries)
      if (n == text)
        return e;
    return std::nullopt;
  }

  /// "a, b, c", for messages and --help.
  std::string list() const {
    std::string out;
    for (const auto& [e, n] : entries)
      out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
  }
};

} // namespace ceiling::support
