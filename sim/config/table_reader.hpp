// Typed, located reads from one TOML table; every failure becomes a LoadError. Internal to config/.
#pragma once

#include "config/input_file.hpp"
#include "config/load_error.hpp"
#include "units/parse.hpp"

#include <toml++/toml.h>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::config {

/// Whether a quantity may be zero.
enum class Sign { Positive, NonNegative };

/// Reads the keys of one table and remembers which it was asked for, so that
/// reject_unknown_keys() can name a stray key and suggest the closest known one.
/// Quantities are written with their unit ("12 GB/s"), or as a bare number under a key whose
/// name ends in the unit, "/" spelled "_per_" (`bandwidth_GB_per_s = 12`, `latency_us = 1.3`).
/// One entry of a table of scalars (scalar_entries): its key, its value as text, where it is.
struct ScalarEntry {
  std::string key;
  std::string text;
  SourceLocation where;
};

/// The key of a quantity without the unit its name may carry ("input_bytes" and "input" are
/// both "input"; "memory_bandwidth" stays itself, "bandwidth" being no unit).
std::string quantity_key_stem(std::string_view key);

/// The error for `dotted_key` ("node.cpu.dgemm") of the document `root` read from `path`, located
/// at the key, or at its table where the key is absent (for a check made after the file was read).
LoadError key_error(const toml::table& root, const std::string& path, std::string_view dotted_key,
                    std::string_view message);

/// The longest a title (of a workload, an experiment, a validation case) and an experiment's
/// question may be, in characters (TableReader::label): they head reports and plots.
inline constexpr std::size_t most_title_characters = 300;
inline constexpr std::size_t most_question_characters = 1000;

/// Whether `text` is empty or white space only (spaces, tabs, line ends): a key given but left
/// blank, refused as empty wherever text is expected.
inline bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\n\r") == std::string_view::npos;
}

class TableReader {
public:
  /// `key_path` is the dotted path of the table in the file ("" for the root, "node.nic").
  TableReader(const toml::table& table, std::string key_path, std::string file);

  template <class Q> Q quantity(std::string_view key, Sign sign);
  template <class Q> std::optional<Q> optional_quantity(std::string_view key, Sign sign);

  /// A number (integer or float) in [min, max]; `min_exclusive` makes the lower bound open.
  double number(std::string_view key, double min, double max, bool min_exclusive = false);
  std::optional<double> optional_number(std::string_view key, double min, double max,
                                        bool min_exclusive = false);
  long long integer(std::string_view key, long long min, long long max);
  std::optional<long long> optional_integer(std::string_view key, long long min, long long max);
  /// A non-empty array of integers, each in [min, max].
  std::vector<long long> integer_list(std::string_view key, long long min, long long max);
  std::optional<std::vector<long long>> optional_integer_list(std::string_view key, long long min,
                                                              long long max);
  std::string string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  /// A string that names a file: refused blank (empty is no file, not "no such file"), `expected`
  /// saying which ("a platform file's path, relative to this workload file").
  std::string path(std::string_view key, std::string_view expected);
  /// A string that names something (a platform, a device): refused empty, `names` saying what
  /// the name is for ("it labels the outputs"), and refused as a label() of at most
  /// most_name_characters.
  std::string name(std::string_view key, std::string_view names);
  std::optional<std::string> optional_name(std::string_view key, std::string_view names);
  static constexpr std::size_t most_name_characters = 100;
  /// A string that outputs print or draw (a title, a question): refused where it holds a control
  /// character or more than `most_characters` characters (support::label_problem).
  std::string label(std::string_view key, std::size_t most_characters);
  std::optional<std::string> optional_label(std::string_view key, std::size_t most_characters);
  /// A label that heads outputs (a title, a question): refused blank too.
  std::string heading(std::string_view key, std::size_t most_characters);
  /// Where figures come from (a paper, a page, a file at a version): refused blank, as a figure
  /// without a source is, and as a label() of at most most_citation_characters (but for line
  /// breaks and tabs: a long source may run over the lines of a multi-line string).
  std::string citation(std::string_view key);
  static constexpr std::size_t most_citation_characters = 4000;
  /// One of `choices`; the message lists them all.
  std::string choice(std::string_view key, std::initializer_list<std::string_view> choices) {
    return choice(key, std::span<const std::string_view>(choices.begin(), choices.size()));
  }
  std::string choice(std::string_view key, std::span<const std::string_view> choices);
  bool boolean_or(std::string_view key, bool fallback);
  /// An array of strings (empty when the key is absent).
  std::vector<std::string> string_list(std::string_view key);
  /// An array of tables, `[[key]]` or `key = [{...}, {...}]` (empty when absent).
  std::vector<TableReader> table_array(std::string_view key);

  /// Every key of the table under `key` with its value as text (strings as they are, numbers
  /// and booleans as TOML writes them), in key order; empty when absent. Throws for a value
  /// that is a table or an array.
  std::vector<ScalarEntry> scalar_entries(std::string_view key);
  /// Whether `key` holds a table; an array.
  bool has_table(std::string_view key) const;
  bool has_array(std::string_view key) const;

  TableReader table(std::string_view key);
  std::optional<TableReader> optional_table(std::string_view key);
  /// Whether the table holds `key`; the key counts as known from then on (reject_unknown_keys()
  /// suggests it for a misspelt one), as a read's does.
  bool has(std::string_view key);

  /// Throws for the first key in the table that no read asked for.
  void reject_unknown_keys() const;

  /// Throws a LoadError at `key` (its value, or the table when the key is absent).
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  /// Throws a LoadError at element `index` of the array under `key`, named KEY[index].
  [[noreturn]] void fail_element(std::string_view key, std::size_t index,
                                 std::string_view message) const;
  /// Throws a LoadError at the table itself, naming no key.
  [[noreturn]] void fail_here(std::string_view message) const;

  const std::string& file() const { return file_; }
  /// Where the table itself starts (line and column from 1).
  SourceLocation location() const { return location_of(table_.source()); }
  /// Where `key`'s value is written; the table's place when it is absent.
  SourceLocation location_of_key(std::string_view key) const;
  /// Where element `index` of the array under `key` is written.
  SourceLocation location_of_element(std::string_view key, std::size_t index) const;
  /// `key` with the table's path before it ("variants[0].options"), as errors name keys.
  std::string full_key(std::string_view key) const;

  /// Throws for an absent required key `key` ("missing key: <expected>"), or at a present key that
  /// looks like a misspelling of it (a `quantity`'s key also with a unit in its name that is none
  /// of its units; for a table, only at a table: an experiment's [[platforms]] is no misspelt
  /// [platform]).
  [[noreturn]] void missing(std::string_view key, std::string_view expected, bool quantity = false,
                            bool table = false) const;

private:
  /// The array under `key`, or null when the key is absent; throws when it is not an array
  /// ("expected an array of <of_what>").
  const toml::array* optional_array(std::string_view key, std::string_view of_what);
  /// `key` as the file writes it: a quantity's key with its unit in the name where it was read so.
  std::string_view written_key(std::string_view key) const;
  SourceLocation location_of(const toml::source_region& region) const;
  /// Where the entry `key` = `value` of this table was written.
  SourceLocation location_of_entry(const toml::key& key, const toml::node& value) const;
  const toml::node* find(std::string_view key);
  /// Text and unit-in-name form of a quantity key, if present: (node, unit suffix or "").
  /// `is_unit` tells a unit suffix ("GB_per_s") from another key sharing the stem
  /// ("memory" and "memory_bandwidth").
  std::optional<std::pair<const toml::node*, std::string>>
  find_quantity(std::string_view key, bool (*is_unit)(std::string_view));

  const toml::table& table_;
  std::string key_path_;
  std::string file_;
  std::set<std::string, std::less<>> asked_;
  std::set<std::string, std::less<>> unit_keys_; ///< keys read as a quantity with the unit in the name
  std::set<std::string, std::less<>> quantity_keys_; ///< the keys asked for as quantities (their stems)
};

/// The candidate closest to `word` within a few edits (letters of either case alike), else nullopt.
template <class Range> std::optional<std::string> closest_name(std::string_view word, const Range& candidates);
/// " (did you mean \"X\"?)" for the candidate closest to `word` within a few edits, else "".
template <class Range> std::string did_you_mean(std::string_view word, const Range& candidates);
/// The one candidate that `word` begins, in either case (an abbreviation), where there is one,
/// else the closest.
std::optional<std::string> suggested_name(std::string_view word, const std::vector<std::string>& candidates);
/// The same for candidates listed as messages list them: "a, b, c" (an enum's names).
std::string did_you_mean_listed(std::string_view word, std::string_view listed);

/// The enum value named under `key` (by `parse`), `fallback` when the key is absent (required
/// when there is no fallback); a name `parse` does not know fails listing `names`.
template <class E>
E named(TableReader& t, std::string_view key, std::optional<E> (*parse)(std::string_view), const std::string& names,
        std::optional<E> fallback = std::nullopt) {
  const auto text = fallback ? t.optional_string(key) : std::optional<std::string>(t.string(key));
  if (!text)
    return *fallback;
  const auto value = parse(*text);
  if (!value)
    t.fail(key, "expected one of " + names + ", got \"" + *text + "\"" + did_you_mean_listed(*text, names));
  return *value;
}

/// `relative` resolved against the folder of `file` (paths inside input files are relative
/// to the file that names them).
std::string beside(const std::string& file, const std::string& relative);

/// Parses `path` as TOML; a syntax error becomes a LoadError at its line and column, a
/// missing or unreadable file a LoadError naming the file.
toml::table parse_toml_file(const std::string& path);

/// Parses TOML `text` that claims to come from `path` (for tests and embedded documents). A
/// dotted key of more than 256 parts is refused at its place before toml++ parses it (toml++
/// recurses on each part and overflows the stack on some 31,000).
toml::table parse_toml_text(std::string_view text, const std::string& path);

} // namespace ceiling::config
