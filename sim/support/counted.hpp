// A count and its noun: "1 node", "3 nodes".
#pragma once

#include <string>
#include <string_view>

namespace ceiling::support {

/// `n` and `noun`, plural (with an s) but for one.
inline std::string counted(long long n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

} // namespace ceiling::support
