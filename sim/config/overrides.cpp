// Overrides: parse "KEY=VALUE" as TOML and merge it into a file's table.
#include "config/overrides.hpp"

#include "config/load_error.hpp"
#include "config/overrides_internal.hpp"
#include "config/table_reader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>

namespace ceiling::config {
namespace {

/// `text` without the spaces and tabs around it.
std::string trimmed(std::string_view text) {
  const auto b = text.find_first_not_of(" \t");
  const auto e = text.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(text.substr(b, e - b + 1));
}

constexpr std::array<std::string_view, 3> platform_tables{"platform", "node", "interconnect"};
constexpr std::array<std::string_view, 7> workload_tables{"workload", "reference", "graph", "calibration",
                                                          "validation", "hpl",       "hpcg"};

/// The text as a TOML basic string: quotes and backslashes escaped.
std::string quoted_toml(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// Moves the values of `over` into `base` (the table at `prefix` of the file at `path`): a moved
/// node keeps its source region (a copied one would not), so errors in it point at the override.
/// A table the override's dotted key goes through must be a table in the file too: another value
/// there is refused at the file, as its reader refuses it (an override does not make it one).
void merge(toml::table& base, toml::table& over, const std::string& prefix,
           const std::string& path) {
  for (auto&& [key, value] : over) {
    toml::node* here = base.get(key.str());
    if (value.is_table() && !value.as_table()->is_inline() && here) {
      if (!here->is_table())
        TableReader(base, prefix, path).table(key.str()); // (throws: not a table)
      merge(*here->as_table(), *value.as_table(),
            (prefix.empty() ? "" : prefix + ".") + std::string(key.str()), path);
      continue;
    }
    // A quantity given in the other spelling replaces the file's ("input" for "input_bytes").
    const std::string stem = quantity_key_stem(key.str());
    std::vector<std::string> other_spellings;
    for (auto&& [k, v] : base)
      if (k.str() != key.str() && quantity_key_stem(k.str()) == stem)
        other_spellings.push_back(std::string(k.str()));
    for (const std::string& k : other_spellings)
      base.erase(k);
    base.insert_or_assign(key.str(), std::move(value));
  }
}

} // namespace

bool overrides_set(std::span<const std::string> overrides, std::string_view dotted_key) {
  return std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) {
    return static_cast<bool>(parse_override(o, "--set").at_path(dotted_key));
  });
}

bool override_reaches(std::string_view text, std::string_view dotted_key) {
  const auto equals = text.find('=');
  if (equals == std::string_view::npos)
    return false;
  // Its dotted key, down the tables its dotted key made (an inline table is a value).
  std::string key;
  try {
    const toml::table parsed = parse_override(text, "--set");
    for (const toml::table* t = &parsed;
         t && t->size() == 1 && (t == &parsed || !t->is_inline());) {
      const auto only = t->begin();
      key += (key.empty() ? "" : ".") + std::string(only->first.str());
      t = only->second.as_table();
    }
  } catch (const LoadError&) { // (a value it cannot read: its key as written, but spaces)
    key = std::string(text.substr(0, equals));
    std::erase_if(key, [](char c) { return c == ' ' || c == '\t'; });
  }
  return !key.empty() && dotted_key.starts_with(key) &&
         (dotted_key.size() == key.size() || dotted_key[key.size()] == '.' ||
          dotted_key[key.size()] == '[');
}

std::optional<std::size_t> last_reaching(std::span<const std::string> overrides, std::string_view dotted_key) {
  for (std::size_t j = overrides.size(); j-- > 0;)
    if (override_reaches(overrides[j], dotted_key))
      return j;
  return std::nullopt;
}

OverrideTarget override_target(std::string_view text, const std::string& origin) {
  const auto equals = text.find('=');
  const std::string key(text.substr(0, equals));
  const std::string first = key.substr(0, key.find('.'));
  if (equals == std::string_view::npos || trimmed(key).empty())
    throw LoadError({origin, 0, 0}, "",
                    "expected KEY=VALUE (such as interconnect.link_bandwidth=\"25 GB/s\"), got \"" +
                        std::string(text) + "\"");
  const std::string table = trimmed(first);
  for (std::string_view t : platform_tables)
    if (table == t)
      return OverrideTarget::Platform;
  for (std::string_view t : workload_tables)
    if (table == t)
      return OverrideTarget::Workload;
  if (table == "software")
    return OverrideTarget::Software;
  std::vector<std::string> known(platform_tables.begin(), platform_tables.end());
  known.insert(known.end(), workload_tables.begin(), workload_tables.end());
  known.emplace_back("software");
  throw LoadError({origin, 1, 1}, trimmed(key),
                  "unknown key" + did_you_mean(table, known) +
                      ": an override starts with a table of the platform file (platform, node, "
                      "interconnect), of the workload file (workload, reference, graph, "
                      "calibration, validation, hpl, hpcg) or of the software file (software)");
}

std::string overrides_text(std::span<const std::string> overrides, OverrideTarget target) {
  std::string given;
  for (const std::string& text : overrides)
    if (override_target(text, "--set") == target)
      given += (given.empty() ? "--set " : ", --set ") + text;
  return given;
}

LoadError noting_overrides(const LoadError& error, std::span<const std::string> overrides,
                           OverrideTarget target) {
  if (error.where().path == "--set") // (located at its override already)
    return error;
  const std::string given = overrides_text(overrides, target);
  if (given.empty())
    return error;
  return LoadError(error.where(), error.key(),
                   error.message() + " (the file as " + given + " leaves it)");
}

toml::table parse_override(std::string_view text, const std::string& origin) {
  const auto equals = text.find('=');
  try {
    return parse_toml_text(text, origin);
  } catch (const LoadError&) {
    // Not TOML: take the value as plain text (interconnect.topology=fat-tree); a key too deep is
    // refused again below. But a whole number TOML cannot hold is not taken as text unasked.
    const std::string value = trimmed(text.substr(equals + 1));
    const std::string_view digits =
        std::string_view(value).substr(value.starts_with('-') || value.starts_with('+') ? 1 : 0);
    const bool all_digits =
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    const SourceLocation at{origin, 1, static_cast<int>(equals + 2 + text.substr(equals + 1).find_first_not_of(" \t"))};
    if (all_digits && digits.size() >= 19 && digits.front() != '0') // (TOML refuses 007 too: text)
      throw LoadError(at, trimmed(text.substr(0, equals)),
                      value +
                          " is beyond a 64-bit integer (-9223372036854775808 to 9223372036854775807): for a "
                          "text, quote it (\"" +
                          value + "\")");
    // Nor a decimal number beyond a double's range (1e400, 1e-400).
    const bool decimal = !digits.empty() && digits.front() >= '0' && digits.front() <= '9' &&
                         std::all_of(digits.begin(), digits.end(), [](char c) {
                           return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+';
                         });
    if (decimal) {
      char* end = nullptr;
      errno = 0;
      std::strtod(value.c_str(), &end);
      if (end == value.c_str() + value.size() && errno == ERANGE)
        throw LoadError(at, trimmed(text.substr(0, equals)),
                        value + " is beyond the range of a number (a double: magnitudes from about 2.2e-308 to "
                                "1.8e308, or 0): for a text, quote it (\"" + value + "\")");
    }
  }
  const std::string as_string =
      std::string(text.substr(0, equals)) + "=" + quoted_toml(text.substr(equals + 1));
  return parse_toml_text(as_string, origin);
}

void apply_overrides(toml::table& base, const std::string& path,
                     std::span<const std::string> overrides, OverrideTarget target,
                     const std::function<void(toml::table&, const toml::table&)>& before_merge) {
  // Every override is seen by before_merge before any is merged, so that their order does
  // not matter (the keys of the topology given before the topology itself are kept).
  const std::string origin = "--set";
  std::vector<toml::table> parsed;
  for (const std::string& text : overrides)
    if (override_target(text, origin) == target)
      parsed.push_back(parse_override(text, origin));
  // A file without its kind's own table is another kind of file: refused as its reader refuses
  // it, before an override adds the table and a key missing from it is blamed on the override.
  const std::string_view own = target == OverrideTarget::Platform   ? "platform"
                               : target == OverrideTarget::Workload ? "workload"
                                                                    : "software";
  if (!parsed.empty() && !(base.contains(own) && base[own].is_table()))
    TableReader(base, "", path).table(own); // (throws: it is not there, or not a table)
  for (const toml::table& over : parsed)
    if (before_merge)
      before_merge(base, over);
  for (toml::table& over : parsed)
    merge(base, over, "", path);
}

} // namespace ceiling::config
