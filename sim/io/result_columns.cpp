// The helpers of the store's tables: curve group names, argument lists as text, int ranges.
#include "io/result_columns.hpp"

#include <cstdio>
#include <limits>

namespace ceiling::io {

std::string curve_group_name(std::size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "curve_%03zu", i);
  return name;
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? "" : "\n") + lines[i];
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  if (text.empty())
    return lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  lines.push_back(text.substr(start));
  return lines;
}

std::string store_int(int& field, long long value) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    return std::to_string(value) + " is out of range";
  field = static_cast<int>(value);
  return {};
}

} // namespace ceiling::io
