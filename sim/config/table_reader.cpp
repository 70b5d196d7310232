// TableReader: located, typed reads with closest-key suggestions.
#include "config/table_reader.hpp"
#include "support/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ceiling::config {
namespace {

/// A NUL in a string (TOML's "\u0000") cuts it short wherever it is used as a C string: a path
/// opens another file, a message stops there. None of the project's strings may hold one.
std::optional<std::string> nul_problem(const std::string& text) {
  const auto at = text.find('\0');
  if (at == std::string::npos)
    return std::nullopt;
  return "holds a NUL character (U+0000) at byte " + std::to_string(at + 1) +
         ": expected text without it";
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

/// `value` as %g writes it with 6 significant digits (0.0001, 10, 1e-300), or more where that
/// does not read back as `value`: a message says 0.10000001, not 0.1, of a value refused for
/// being above 0.1.
std::string shortest(double value) { return units::number_text(value, 6); }

/// Edit distance for "did you mean" suggestions: insertions, deletions, substitutions and swaps of
/// two neighbouring characters, one each (the optimal string alignment distance: "fp23" is one
/// swap from "fp32", two substitutions from "fp64"), letters of either case alike.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  // (letters compared without their case: "FP32" is no edit from "fp32")
  const auto same = [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); };
  // Three rows of the table: i - 2, i - 1 and i.
  std::vector<std::size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    above[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({above[j] + 1, row[j - 1] + 1, above[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, above);
    std::swap(above, row);
  }
  return above[b.size()];
}

} // namespace

template <class Range> std::optional<std::string> closest_name(std::string_view word, const Range& candidates) {
  std::string_view best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best.empty() ? std::nullopt : std::optional<std::string>(best);
}
template std::optional<std::string> closest_name(std::string_view, const std::vector<std::string>&);
template std::optional<std::string> closest_name(std::string_view, const std::span<const std::string_view>&);
template std::optional<std::string> closest_name(std::string_view, const std::set<std::string, std::less<>>&);

template <class Range> std::string did_you_mean(std::string_view word, const Range& candidates) {
  const auto best = closest_name(word, candidates);
  return best ? " (did you mean " + quoted(*best) + "?)" : "";
}
template std::string did_you_mean(std::string_view, const std::vector<std::string>&);
template std::string did_you_mean(std::string_view, const std::span<const std::string_view>&);
template std::string did_you_mean(std::string_view, const std::set<std::string, std::less<>>&);

std::optional<std::string> suggested_name(std::string_view word, const std::vector<std::string>& candidates) {
  const auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::vector<std::string> extending;
  for (const std::string& c : candidates)
    if (lower(c).starts_with(lower(word)))
      extending.push_back(c);
  return extending.size() == 1 ? extending.front() : closest_name(word, candidates);
}

std::string did_you_mean_listed(std::string_view word, std::string_view listed) {
  std::vector<std::string> candidates;
  for (std::size_t at = 0; at < listed.size();) {
    const std::size_t comma = std::min(listed.find(", ", at), listed.size());
    candidates.emplace_back(listed.substr(at, comma - at));
    at = comma + 2;
  }
  return did_you_mean(word, candidates);
}

namespace {

std::string type_name(const toml::node& node) {
  switch (node.type()) {
  case toml::node_type::string: return "a string";
  case toml::node_type::integer: return "an integer";
  case toml::node_type::floating_point: return "a number";
  case toml::node_type::boolean: return "a boolean";
  case toml::node_type::table: return "a table";
  case toml::node_type::array: return "an array";
  default: return "a date or time";
  }
}

/// A unit written inside a key name ("GB_per_s") as the parser reads it ("GB/s").
std::string unit_from_key_suffix(std::string_view suffix) {
  std::string unit(suffix);
  for (std::size_t at; (at = unit.find("_per_")) != std::string::npos;)
    unit.replace(at, 5, "/");
  return unit;
}

} // namespace

std::string quantity_key_stem(std::string_view key) {
  for (auto at = key.find('_'); at != std::string_view::npos; at = key.find('_', at + 1)) {
    const std::string unit = unit_from_key_suffix(key.substr(at + 1));
    if (units::parse_in_unit<units::DataSize>(1, unit).value || units::parse_in_unit<units::Duration>(1, unit).value ||
        units::parse_in_unit<units::Bandwidth>(1, unit).value || units::parse_in_unit<units::Flops>(1, unit).value ||
        units::parse_in_unit<units::FlopRate>(1, unit).value)
      return std::string(key.substr(0, at));
  }
  return std::string(key);
}

TableReader::TableReader(const toml::table& table, std::string key_path, std::string file)
    : table_(table), key_path_(std::move(key_path)), file_(std::move(file)) {}

std::string TableReader::full_key(std::string_view key) const {
  return key_path_.empty() ? std::string(key) : key_path_ + "." + std::string(key);
}

SourceLocation TableReader::location_of(const toml::source_region& region) const {
  // A value that an override put in the table carries the override's origin ("--set").
  return {region.path ? *region.path : file_, static_cast<int>(region.begin.line),
          static_cast<int>(region.begin.column)};
}

SourceLocation TableReader::location_of_entry(const toml::key& key, const toml::node& value) const {
  // A key that an override put in the table has no place of its own; its value carries the
  // override's origin.
  return location_of(key.source().path ? key.source() : value.source());
}

std::string_view TableReader::written_key(std::string_view key) const {
  if (!table_.get(key)) // a quantity read with its unit in the name: "forward_flop" for "forward"
    for (const std::string& k : unit_keys_)
      if (quantity_key_stem(k) == key) // (not "memory_bandwidth_GB_per_s" for "memory")
        return k;
  return key;
}

SourceLocation TableReader::location_of_key(std::string_view key) const {
  if (const toml::node* node = table_.get(written_key(key)))
    return location_of(node->source());
  return location_of(table_.source());
}

void TableReader::fail(std::string_view key, std::string_view message) const {
  throw LoadError(location_of_key(key), full_key(written_key(key)), message);
}

void TableReader::missing(std::string_view key, std::string_view expected, bool quantity, bool table) const {
  // A misspelt key is the likeliest cause: name it rather than the absence.
  for (auto&& [k, node] : table_) {
    const std::string name(k.str());
    if (asked_.contains(name) || unit_keys_.contains(name) || (table && !node.is_table()))
      continue;
    if (edit_distance(name, key) <= 2)
      throw LoadError(location_of_entry(k, node), full_key(name), "unknown key (did you mean " + quoted(key) + "?)");
    // A quantity's key with a unit in its name that is none of its units, or misspelt before it.
    for (auto cut = name.find('_'); quantity && cut != std::string::npos; cut = name.find('_', cut + 1)) {
      const std::string stem = name.substr(0, cut);
      const std::string unit = name.substr(cut + 1);
      if (stem == key)
        throw LoadError(location_of_entry(k, node), full_key(name),
                        "unknown key: \"" + unit + "\" after " + quoted(key) + " is no unit of it: " + std::string(expected));
      if (edit_distance(stem, key) <= 2)
        throw LoadError(location_of_entry(k, node), full_key(name),
                        "unknown key (did you mean " + quoted(std::string(key) + "_" + unit) + "?)");
    }
  }
  fail(key, "missing key: " + std::string(expected));
}

void TableReader::fail_here(std::string_view message) const {
  throw LoadError(location_of(table_.source()), key_path_, message);
}

namespace {

/// A number's value as a double: an integer beyond 2^53 rounded to the nearest (toml++'s
/// value<double>() refuses it, as not exact).
double number_of(const toml::node& node) {
  return node.is_integer() ? static_cast<double>(node.as_integer()->get()) : node.as_floating_point()->get();
}

} // namespace

bool TableReader::has(std::string_view key) {
  asked_.emplace(key);
  return table_.contains(key);
}

const toml::node* TableReader::find(std::string_view key) {
  asked_.emplace(key);
  return table_.get(key);
}

std::optional<std::pair<const toml::node*, std::string>>
TableReader::find_quantity(std::string_view key, bool (*is_unit)(std::string_view)) {
  asked_.emplace(key);
  quantity_keys_.emplace(key);
  std::optional<std::pair<const toml::node*, std::string>> found;
  if (const toml::node* node = table_.get(key))
    found.emplace(node, "");
  const std::string stem = std::string(key) + "_";
  for (auto&& [k, node] : table_) {
    if (!k.str().starts_with(stem) || !is_unit(unit_from_key_suffix(k.str().substr(stem.size()))))
      continue;
    if (found)
      fail(k.str(), "given twice, also as " + quoted(found->second.empty()
                                                          ? full_key(key)
                                                          : full_key(key) + "_" + found->second));
    found.emplace(&node, std::string(k.str().substr(stem.size())));
    unit_keys_.emplace(k.str());
  }
  return found;
}

template <class Q> std::optional<Q> TableReader::optional_quantity(std::string_view key, Sign sign) {
  const auto found = find_quantity(key, [](std::string_view unit) {
    return units::parse_in_unit<Q>(1, unit).value.has_value();
  });
  if (!found)
    return std::nullopt;
  const auto& [node, unit_suffix] = *found;
  const std::string key_written =
      unit_suffix.empty() ? std::string(key) : std::string(key) + "_" + unit_suffix;
  units::Parsed<Q> parsed;
  std::string shown;
  if (unit_suffix.empty()) {
    if (node->is_number())
      fail(key_written, "missing unit: write it as a string with its unit, " +
                            std::string(units::expected_form<Q>()) +
                            ", or put the unit in the key name, as in " +
                            quoted(full_key(key) + "_" + std::string(units::key_suffix_example<Q>())));
    if (!node->is_string())
      fail(key_written, "expected " + std::string(units::expected_form<Q>()) + ", got " +
                            type_name(*node));
    shown = node->as_string()->get();
    if (const auto nul = nul_problem(shown))
      fail(key_written, *nul);
    parsed = units::parse<Q>(shown);
  } else {
    if (!node->is_number())
      fail(key_written, "expected a bare number (the unit " +
                            quoted(unit_from_key_suffix(unit_suffix)) + " is in the key name), got " +
                            type_name(*node));
    const double number = number_of(*node);
    parsed = units::parse_in_unit<Q>(number, unit_from_key_suffix(unit_suffix));
    std::ostringstream text;
    text << number;
    shown = text.str() + " " + unit_from_key_suffix(unit_suffix);
  }
  if (!parsed)
    fail(key_written, parsed.error);
  const Q value = *parsed.value;
  if (sign == Sign::Positive && !(value > Q{}))
    fail(key_written, "must be positive, got " + quoted(shown));
  if (sign == Sign::NonNegative && value < Q{})
    fail(key_written, "must not be negative, got " + quoted(shown));
  if (const auto beyond = units::beyond_plausible(value, shown))
    fail(key_written, *beyond);
  return value;
}

template <class Q> Q TableReader::quantity(std::string_view key, Sign sign) {
  if (auto value = optional_quantity<Q>(key, sign))
    return *value;
  missing(key, "expected " + std::string(units::expected_form<Q>()), true);
}

#define CEILING_CONFIG_INSTANTIATE(Q)                                                              \
  template Q TableReader::quantity<Q>(std::string_view, Sign);                                     \
  template std::optional<Q> TableReader::optional_quantity<Q>(std::string_view, Sign);
CEILING_CONFIG_INSTANTIATE(units::DataSize)
CEILING_CONFIG_INSTANTIATE(units::Duration)
CEILING_CONFIG_INSTANTIATE(units::Bandwidth)
CEILING_CONFIG_INSTANTIATE(units::Flops)
CEILING_CONFIG_INSTANTIATE(units::FlopRate)
#undef CEILING_CONFIG_INSTANTIATE

std::optional<long long> TableReader::optional_integer(std::string_view key, long long min,
                                                       long long max) {
  const toml::node* node = find(key);
  if (!node)
    return std::nullopt;
  if (!node->is_integer())
    fail(key, "expected an integer, got " + type_name(*node));
  const long long value = node->as_integer()->get();
  if (value < min || value > max)
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                  ", got " + std::to_string(value));
  return value;
}

long long TableReader::integer(std::string_view key, long long min, long long max) {
  if (auto value = optional_integer(key, min, max))
    return *value;
  missing(key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
}

std::vector<long long> TableReader::integer_list(std::string_view key, long long min,
                                                 long long max) {
  const toml::node* node = find(key);
  if (!node)
    missing(key, "expected an array of integers");
  const toml::array* array = node->as_array();
  if (!array || array->empty())
    fail(key, "expected a non-empty array of integers, got " +
                  (array ? std::string("an empty array") : type_name(*node)));
  std::vector<long long> values;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = (*array)[i];
    if (!element.is_integer())
      fail_element(key, i, "expected integers only, got " + type_name(element));
    const long long value = element.as_integer()->get();
    if (value < min || value > max)
      fail_element(key, i, "each entry must be between " + std::to_string(min) + " and " +
                               std::to_string(max) + ", got " + std::to_string(value));
    values.push_back(value);
  }
  return values;
}

std::optional<std::vector<long long>>
TableReader::optional_integer_list(std::string_view key, long long min, long long max) {
  if (!find(key))
    return std::nullopt;
  return integer_list(key, min, max);
}

std::optional<std::string> TableReader::optional_string(std::string_view key) {
  const toml::node* node = find(key);
  if (!node)
    return std::nullopt;
  if (!node->is_string())
    fail(key, "expected a string, got " + type_name(*node));
  const std::string& text = node->as_string()->get();
  if (const auto nul = nul_problem(text))
    fail(key, *nul);
  return text;
}

std::string TableReader::string(std::string_view key) {
  if (auto value = optional_string(key))
    return *value;
  missing(key, "expected a string");
}

std::string TableReader::path(std::string_view key, std::string_view expected) {
  if (!has(key))
    missing(key, "expected " + std::string(expected));
  std::string value = string(key);
  if (is_blank(value))
    fail(key, "empty: expected " + std::string(expected));
  return value;
}

std::optional<std::string> TableReader::optional_name(std::string_view key, std::string_view names) {
  auto value = optional_string(key);
  if (!value)
    return value;
  if (is_blank(*value))
    fail(key, "empty: expected a name (" + std::string(names) + ")");
  if (const auto problem = support::label_problem(*value, most_name_characters))
    fail(key, "the name " + *problem);
  return value;
}

std::string TableReader::label(std::string_view key, std::size_t most_characters) {
  if (auto value = optional_label(key, most_characters))
    return *value;
  missing(key, "expected a string");
}

std::optional<std::string> TableReader::optional_label(std::string_view key, std::size_t most_characters) {
  auto value = optional_string(key);
  if (value)
    if (const auto problem = support::label_problem(*value, most_characters))
      fail(key, "the text " + *problem);
  return value;
}

std::string TableReader::heading(std::string_view key, std::size_t most_characters) {
  std::string value = label(key, most_characters);
  if (is_blank(value))
    fail(key, "empty: expected the text that heads the outputs");
  return value;
}

std::string TableReader::citation(std::string_view key) {
  std::string value = string(key);
  std::string one_line = value; // (a long source may run over lines of a multi-line string)
  std::replace_if(one_line.begin(), one_line.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
  if (const auto problem = support::label_problem(one_line, most_citation_characters))
    fail(key, "the text " + *problem);
  if (is_blank(value))
    fail(key,
         "empty: expected where the figures come from (a paper, a page, a file and its version)");
  return value;
}

std::string TableReader::name(std::string_view key, std::string_view names) {
  if (auto value = optional_name(key, names))
    return *value;
  missing(key, "expected a name (" + std::string(names) + ")");
}

std::string TableReader::choice(std::string_view key, std::span<const std::string_view> choices) {
  std::string listed;
  for (std::string_view c : choices)
    listed += (listed.empty() ? "" : ", ") + quoted(c);
  const auto value = optional_string(key);
  if (!value)
    missing(key, "expected one of " + listed);
  if (std::find(choices.begin(), choices.end(), *value) == choices.end()) {
    fail(key, "unknown value " + quoted(*value) + ": expected one of " + listed +
                  did_you_mean(*value, choices));
  }
  return *value;
}

std::optional<double> TableReader::optional_number(std::string_view key, double min, double max,
                                                   bool min_exclusive) {
  const toml::node* node = find(key);
  if (!node)
    return std::nullopt;
  if (!node->is_number())
    fail(key, "expected a number, got " + type_name(*node));
  const double value = number_of(*node);
  if (!std::isfinite(value) || value < min || (min_exclusive && value == min) || value > max) {
    fail(key, "must be " + std::string(min_exclusive ? "greater than " : "at least ") + shortest(min) +
                  " and at most " + shortest(max) + ", got " + shortest(value));
  }
  return value;
}

double TableReader::number(std::string_view key, double min, double max, bool min_exclusive) {
  if (auto value = optional_number(key, min, max, min_exclusive))
    return *value;
  missing(key, "expected a number");
}

const toml::array* TableReader::optional_array(std::string_view key, std::string_view of_what) {
  const toml::node* node = find(key);
  if (!node)
    return nullptr;
  const toml::array* array = node->as_array();
  if (!array)
    fail(key, "expected an array of " + std::string(of_what) + ", got " + type_name(*node));
  return array;
}

std::vector<std::string> TableReader::string_list(std::string_view key) {
  const toml::array* array = optional_array(key, "strings");
  std::vector<std::string> values;
  for (std::size_t i = 0; array && i < array->size(); ++i) {
    if (!(*array)[i].is_string())
      fail_element(key, i, "expected strings only, got " + type_name((*array)[i]));
    values.push_back((*array)[i].as_string()->get());
    if (const auto nul = nul_problem(values.back()))
      fail_element(key, i, *nul);
  }
  return values;
}

std::vector<TableReader> TableReader::table_array(std::string_view key) {
  const toml::array* array = optional_array(key, "tables");
  std::vector<TableReader> tables;
  for (std::size_t i = 0; array && i < array->size(); ++i) {
    if (!(*array)[i].is_table())
      fail_element(key, i, "expected tables only, got " + type_name((*array)[i]));
    tables.emplace_back(*(*array)[i].as_table(), full_key(key) + "[" + std::to_string(i) + "]", file_);
  }
  return tables;
}

SourceLocation TableReader::location_of_element(std::string_view key, std::size_t index) const {
  const toml::array* array = table_.get(key)->as_array();
  return location_of((*array)[index].source());
}

void TableReader::fail_element(std::string_view key, std::size_t index,
                               std::string_view message) const {
  throw LoadError(location_of_element(key, index), full_key(key) + "[" + std::to_string(index) + "]", message);
}

bool TableReader::boolean_or(std::string_view key, bool fallback) {
  const toml::node* node = find(key);
  if (!node)
    return fallback;
  if (!node->is_boolean())
    fail(key, "expected true or false, got " + type_name(*node));
  return node->as_boolean()->get();
}

bool TableReader::has_table(std::string_view key) const {
  const toml::node* node = table_.get(key);
  return node && node->is_table();
}

bool TableReader::has_array(std::string_view key) const {
  const toml::node* node = table_.get(key);
  return node && node->is_array();
}

std::vector<ScalarEntry> TableReader::scalar_entries(std::string_view key) {
  std::vector<ScalarEntry> entries;
  auto inner = optional_table(key);
  if (!inner)
    return entries;
  for (auto&& [k, node] : inner->table_) {
    inner->asked_.emplace(k.str());
    std::ostringstream text;
    if (node.is_string()) {
      if (const auto nul = nul_problem(node.as_string()->get()))
        inner->fail(k.str(), *nul);
      text << node.as_string()->get();
    } else if (node.is_integer())
      text << node.as_integer()->get();
    else if (node.is_floating_point()) {
      text << shortest(node.as_floating_point()->get());
    }
    else if (node.is_boolean())
      text << (node.as_boolean()->get() ? "true" : "false");
    else
      inner->fail(k.str(), "expected a string, a number or a boolean, got " + type_name(node));
    entries.push_back({std::string(k.str()), text.str(), inner->location_of_entry(k, node)});
  }
  return entries;
}

std::optional<TableReader> TableReader::optional_table(std::string_view key) {
  const toml::node* node = find(key);
  if (!node)
    return std::nullopt;
  if (!node->is_table())
    fail(key, "expected a table ([" + full_key(key) + "]), got " + type_name(*node));
  return TableReader(*node->as_table(), full_key(key), file_);
}

TableReader TableReader::table(std::string_view key) {
  if (auto reader = optional_table(key))
    return *reader;
  missing(key, "expected a table [" + full_key(key) + "]", false, true);
}

void TableReader::reject_unknown_keys() const {
  for (auto&& [k, node] : table_) {
    const std::string_view name = k.str();
    if (asked_.contains(name) || unit_keys_.contains(name))
      continue;
    std::string message = "unknown key" + did_you_mean(name, asked_);
    if (message == "unknown key") {
      std::string listed;
      for (const std::string& known : asked_) // a quantity either way: "forward" or "forward_<unit>"
        listed += (listed.empty() ? "" : ", ") + known + (quantity_keys_.contains(known) ? "[_UNIT]" : "");
      message += "; known keys here: " + listed;
    }
    throw LoadError(location_of_entry(k, node), full_key(name), message);
  }
}

namespace {

/// The most parts a dotted key may have ("a.b.c" has 3): toml++'s own bound on nested arrays and
/// inline tables (TOML_MAX_NESTED_VALUES, 256), which it does not apply to dotted keys and table
/// headers; it parses and frees those recursively, and some 31,000 parts overflow the stack.
constexpr int max_key_parts = 256;

/// Refuses a key of more than max_key_parts parts before toml++ sees it: dots outside strings and
/// comments, in a run of key parts (bare or quoted, spaces between) that nothing else breaks.
void check_key_depth(std::string_view text, const std::string& path) {
  int dots = 0; // in the current run of key parts
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') { // a comment, to the end of the line
      i = std::min(text.find('\n', i), text.size()) - 1;
    } else if (c == '"' || c == '\'') { // a string: skipped (a quoted key part keeps the run)
      const bool multi = text.substr(i, 3) == std::string(3, c);
      const std::size_t width = multi ? 3 : 1;
      std::size_t j = i + width;
      for (; j < text.size() && text.substr(j, width) != text.substr(i, width); ++j) {
        if (text[j] == '\n' && !multi)
          break; // (an unterminated string: toml++ says so)
        if (c == '"' && text[j] == '\\')
          ++j; // (an escaped character)
      }
      if (j < text.size() && text[j] == '\n') {
        i = j - 1; // (the line end, read next, ends the run)
        continue;
      }
      j += width;
      // A multi-line string's closing quotes may come with up to two of the string's own: """a"""" is a".
      for (int extra = 0; multi && extra < 2 && j < text.size() && text[j] == c; ++extra)
        ++j;
      i = std::min(j, text.size()) - 1;
    } else if (c == '.') {
      if (++dots >= max_key_parts) {
        const std::size_t line_start = text.rfind('\n', i) == std::string_view::npos ? 0 : text.rfind('\n', i) + 1;
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '\n');
        throw LoadError({path, static_cast<int>(line), static_cast<int>(i - line_start + 1)}, "",
                        "a dotted key of more than " + std::to_string(max_key_parts) +
                            " parts: nothing in a ceiling file nests that deep");
      }
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ' || c == '\t')) {
      dots = 0; // (=, [, ], {, }, commas, line ends: the run of key parts ends)
    }
  }
}

/// Refuses a decimal number written nonzero that TOML read as 0 (1e-400: below a double's range,
/// which toml++ rounds to 0 without a word), under `node`, whose key is `key`; `lines` are the
/// offsets in `text` where its lines begin.
void refuse_underflow(const toml::node& node, const std::string& key, std::string_view text,
                      const std::vector<std::size_t>& lines, const std::string& path) {
  if (const auto* table = node.as_table()) {
    for (const auto& [k, child] : *table)
      refuse_underflow(child, key.empty() ? std::string(k.str()) : key + "." + std::string(k.str()), text, lines, path);
  } else if (const auto* array = node.as_array()) {
    for (std::size_t i = 0; i < array->size(); ++i)
      refuse_underflow(*array->get(i), key + "[" + std::to_string(i) + "]", text, lines, path);
  } else if (const auto* number = node.as_floating_point(); number && number->get() == 0.0) {
    const auto& at = node.source().begin;
    if (at.line == 0 || at.line > lines.size())
      return;
    std::size_t start = lines[at.line - 1]; // (columns count characters, not bytes)
    for (auto column = at.column; column > 1 && start < text.size(); --column)
      do
        ++start;
      while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80);
    std::size_t end = start;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                                 text[end] == '_' || text[end] == '+' || text[end] == '-'))
      ++end;
    const std::string_view written = start < text.size() ? text.substr(start, end - start) : std::string_view();
    const std::string_view mantissa = written.substr(0, written.find_first_of("eE"));
    if (mantissa.find_first_of("123456789") != std::string_view::npos)
      throw LoadError({path, static_cast<int>(at.line), static_cast<int>(at.column)}, key,
                      std::string(written) + " is beyond the range of a number (a double: magnitudes from about "
                                             "2.2e-308 to 1.8e308, or 0)");
  }
}

} // namespace

toml::table parse_toml_text(std::string_view text, const std::string& path) {
  check_key_depth(text, path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw LoadError({path, static_cast<int>(where.line), static_cast<int>(where.column)}, "",
                    "invalid TOML: " + std::string(e.description()));
  }
  std::vector<std::size_t> lines{text.starts_with("\xEF\xBB\xBF") ? std::size_t{3} : 0}; // (toml++ counts no BOM)
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      lines.push_back(i + 1);
  refuse_underflow(root, "", text, lines, path);
  return root;
}

toml::table parse_toml_file(const std::string& path) {
  return parse_toml_text(read_input_file(path), path);
}

LoadError key_error(const toml::table& root, const std::string& path, std::string_view dotted_key,
                    std::string_view message) {
  const auto dot = dotted_key.rfind('.');
  const std::string table_path(dot == std::string_view::npos ? "" : dotted_key.substr(0, dot));
  const std::string_view key = dotted_key.substr(dot == std::string_view::npos ? 0 : dot + 1);
  const toml::table* table = &root;
  if (!table_path.empty())
    if (const auto* inner = root.at_path(table_path).as_table())
      table = inner;
  try {
    TableReader(*table, table == &root ? "" : table_path, path).fail(key, message);
  } catch (const LoadError& e) {
    return e;
  }
  return LoadError({path, 0, 0}, std::string(dotted_key), std::string(message)); // (fail() always throws)
}

} // namespace ceiling::config
