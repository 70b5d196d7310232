// Reading experiment files: the question, what is swept, and a check that every input loads.
#include "config/experiment_file.hpp"

#include "config/load_error.hpp"
#include "config/overrides.hpp"
#include "config/platform_file.hpp"
#include "config/software_file.hpp"
#include "config/table_reader.hpp"
#include "config/workload_file.hpp"
#include "platform/topology.hpp"
#include "workload/workload_spec.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>

namespace ceiling::config {
namespace {

constexpr long long max_nodes = platform::max_slots; // the most any machine has
constexpr long long max_batch = workload::max_batch_per_worker; // as batch_per_worker in workload files


sweep::EntryLocation where(const TableReader& t) {
  const SourceLocation at = t.location();
  return {at.path, at.line, at.column};
}

/// Where `key` of `t` is written; the table's place when it is absent.
sweep::EntryLocation where(const TableReader& t, std::string_view key) {
  const SourceLocation at = t.location_of_key(key);
  return {at.path, at.line, at.column};
}

/// Where each of the `count` elements of the array under `key` is written.
std::vector<sweep::EntryLocation> element_wheres(const TableReader& t, std::string_view key, std::size_t count) {
  std::vector<sweep::EntryLocation> wheres;
  for (std::size_t i = 0; i < count; ++i) {
    const SourceLocation at = t.location_of_element(key, i);
    wheres.push_back({at.path, at.line, at.column});
  }
  return wheres;
}

/// Refuses an element of `set` that is no override (no "=", a table no file has) at that element,
/// without override_target's --set place; returns each one's target.
std::vector<OverrideTarget> override_targets(const TableReader& t, const std::vector<std::string>& set) {
  std::vector<OverrideTarget> targets;
  for (std::size_t i = 0; i < set.size(); ++i) {
    try {
      targets.push_back(override_target(set[i]));
    } catch (const LoadError& error) {
      t.fail_element("set", i, error.key().empty() ? error.message() : error.key() + ": " + error.message());
    }
  }
  return targets;
}

std::vector<long long> read_nodes(TableReader& t) {
  if (!t.has_table("nodes"))
    return t.integer_list("nodes", 1, max_nodes);
  TableReader range = t.table("nodes");
  const long long from = range.integer("from", 1, max_nodes);
  const long long to = range.integer("to", 1, max_nodes);
  const long long factor = range.integer("factor", 2, 1024);
  range.reject_unknown_keys();
  if (to < from)
    range.fail("to", "must be at least from (" + std::to_string(from) + "), got " +
                         std::to_string(to));
  std::vector<long long> nodes;
  for (long long n = from; n <= to; n *= factor)
    nodes.push_back(n);
  return nodes;
}

void check_ascending(TableReader& t, const std::vector<long long>& nodes) {
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (nodes[i] <= nodes[i - 1])
      t.fail_element("nodes", i, "node counts must be distinct and ascending, got " +
                                     std::to_string(nodes[i]) + " after " +
                                     std::to_string(nodes[i - 1]));
}

/// Names must tell curves apart: unique within their list, not empty, and without the " / " that
/// joins them into a curve's id, inside them or half of it at an end ("A" beside "A / B", or "A /"
/// beside "/ W", would make one id of two curves).
template <class Entry>
void check_unique_names(std::vector<TableReader>& readers, const std::vector<Entry>& entries) {
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string& name = entries[i].name;
    if (name.empty())
      readers[i].fail("name", "must not be empty: it labels the curves");
    if (name.find(" / ") != std::string::npos || name.starts_with("/ ") || name.ends_with(" /"))
      readers[i].fail("name", "\"" + name + "\" holds \" / \" (or half of it at an end), which joins the names of a "
                              "curve's platform, workload, variant and scaling into its id: write it otherwise");
    if (!seen.insert(name).second)
      readers[i].fail("name", "duplicate name \"" + name + "\": each entry needs its own");
  }
}

/// A point's arguments are stored one per line: an override or option on several lines is
/// refused (write it on one line).
std::vector<std::string> one_line_each(TableReader& t, std::string_view key,
                                       std::vector<std::string> values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i].find_first_of("\n\r") != std::string::npos)
      t.fail(key, "a line break in \"" + values[i].substr(0, values[i].find_first_of("\n\r")) +
                      "...\" is not supported: write each override on one line");
  return values;
}

sweep::InputEntry read_input(TableReader& t, bool is_workload) {
  sweep::InputEntry e;
  e.name = t.label("name", TableReader::most_name_characters);
  e.file = beside(t.file(), t.path("file", std::string("a ") + (is_workload ? "workload" : "platform") +
                                                 " file's path, relative to this experiment file"));
  e.set = one_line_each(t, "set", t.string_list("set"));
  // An entry's overrides change its own file: another kind's would reach every point's run from
  // the wrong entry (and fail there, far from this line).
  const auto own = is_workload ? OverrideTarget::Workload : OverrideTarget::Platform;
  const auto targets = override_targets(t, e.set);
  for (std::size_t i = 0; i < e.set.size(); ++i) {
    const OverrideTarget target = targets[i];
    if (target != own)
      t.fail_element("set", i, "\"" + e.set[i] + "\" changes a " +
                                   (target == OverrideTarget::Software ? "software" : is_workload ? "platform" : "workload") +
                                   " file, but this entry's overrides change its " + (is_workload ? "workload" : "platform") +
                                   " file: give it in the " +
                                   (target == OverrideTarget::Software ? "variants' options (set)" : is_workload ? "[[platforms]] entry" : "[[workloads]] entry"));
  }
  if (is_workload) {
    e.batch = t.optional_integer("batch", 1, max_batch);
    e.global_batch = t.optional_integer("global_batch", 1, max_batch * max_nodes);
  } else {
    e.cost_per_node = t.optional_number("cost_per_node", 1e-9, 1e15); // (0 would make the performance per cost infinite)
  }
  e.where = where(t);
  e.global_batch_where = where(t, "global_batch");
  e.set_where = where(t, "set");
  e.set_element_where = element_wheres(t, "set", e.set.size());
  t.reject_unknown_keys();
  return e;
}

sweep::VariantSpec read_variant(TableReader& t) {
  sweep::VariantSpec v;
  v.name = t.label("name", TableReader::most_name_characters);
  // (the overrides are the variant's own list, not an option of the options table)
  if (t.has_table("options"))
    if (TableReader options = t.table("options"); options.has("set"))
      options.fail("set", "the overrides go in the variant's own list, `set = [\"KEY=VALUE\", ...]` beside "
                          "`options`, not in the options table");
  for (const ScalarEntry& option : t.scalar_entries("options")) {
    one_line_each(t, "options", {option.key, option.text});
    v.run_args.push_back("--" + option.key);
    if (option.key == "software") { // a software file beside the experiment, as its other files
      auto reference = software_reference(t.file(), option.text);
      if (reference.problem)
        throw LoadError(option.where, t.full_key("options.software"), *reference.problem);
      v.run_args.push_back(reference.name_or_path);
    } else {
      v.run_args.push_back(option.text);
    }
    v.option_where.push_back({option.where.path, option.where.line, option.where.column});
  }
  const auto set = one_line_each(t, "set", t.string_list("set"));
  override_targets(t, set); // (any file's: a variant's overrides reach every platform and workload)
  for (const std::string& s : set) {
    v.run_args.push_back("--set");
    v.run_args.push_back(s);
  }
  v.where = where(t);
  v.set_where = where(t, "set");
  v.set_element_where = element_wheres(t, "set", set.size());
  t.reject_unknown_keys();
  return v;
}

/// Every platform and workload with its own and each variant's overrides must load: a bad file
/// or set of overrides is reported at the entry or variant that names it, an override at the
/// element of `set` that holds it, before anything runs.
void check_inputs_load(const sweep::ExperimentSpec& e) {
  const auto at = [](const sweep::EntryLocation& w) {
    return SourceLocation{w.path, w.line, w.column};
  };
  for (std::size_t v = 0; v < e.variants.size(); ++v) {
    const auto variant_set = e.variants[v].overrides();
    for (std::size_t k = 0; k < 2; ++k) {
      const auto& entries = k == 0 ? e.platforms : e.workloads;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const sweep::InputEntry& entry = entries[i];
        std::vector<std::string> set = entry.set;
        set.insert(set.end(), variant_set.begin(), variant_set.end());
        const std::string key = std::string(k == 0 ? "platforms[" : "workloads[") +
                                std::to_string(i) + "]";
        long long machine_nodes = 0;
        const auto load = [&](const std::vector<std::string>& overrides) {
          if (k == 0)
            machine_nodes = load_platform(entry.file, overrides).nodes;
          else
            load_workload(entry.file, overrides);
        };
        try {
          load(set);
        } catch (const LoadError& whole) {
          // With its own overrides the entry fails (the file, or one of them), or the variant's
          // make it fail: an override's error ("--set:1:N: error: KEY: ...") at the element that
          // sets KEY, the last that does (it wins); else at the entry, or at the variant.
          std::optional<LoadError> own;
          try {
            load(entry.set);
          } catch (const LoadError& error) {
            own = error;
          }
          const LoadError& cause = own ? *own : whole;
          const auto& overrides = own ? entry.set : variant_set;
          const auto& wheres = own ? entry.set_element_where : e.variants[v].set_element_where;
          const std::string holder = own ? key : "variants[" + std::to_string(v) + "]";
          const std::string with = own ? "" : "with " + key + " \"" + entry.name + "\": ";
          if (const auto j = cause.where().path == "--set" ? last_reaching(overrides, cause.key()) : std::nullopt;
              j && *j < wheres.size())
            throw LoadError(at(wheres[*j]), holder + ".set[" + std::to_string(*j) + "]",
                            with + cause.key() + ": " + cause.message());
          throw LoadError(at(own ? entry.where : e.variants[v].where), holder,
                          with + "does not load: " + cause.what());
        }
        // A node count beyond the machine is said at `nodes`, with the machine's size.
        if (k == 0 && !e.nodes.empty() && e.nodes.back() > machine_nodes)
          throw LoadError(at(e.nodes_where), "experiment.nodes",
                          std::to_string(e.nodes.back()) + " nodes, more than the " + std::to_string(machine_nodes) +
                              " of " + key + " \"" + entry.name + "\"" +
                              (variant_set.empty() ? "" : " with variants[" + std::to_string(v) + "]'s overrides") +
                              " (its platform.nodes)");
      }
    }
  }
}

sweep::ExperimentSpec read_experiment(const toml::table& root, const std::string& path,
                                      std::string text) {
  TableReader file(root, "", path);
  sweep::ExperimentSpec e;
  e.path = path;
  e.text = std::move(text);
  TableReader head = file.table("experiment");
  e.title = head.heading("title", most_title_characters);
  e.question = head.heading("question", most_question_characters);
  e.output = head.optional_string("output").value_or(
      "out/" + std::filesystem::path(path).stem().string() + ".h5");
  if (e.output.empty() || e.output.back() == '/')
    head.fail("output", "\"" + e.output + "\" names no file: expected the result file's path, such as \"out/sweep.h5\"");
  e.nodes = read_nodes(head);
  check_ascending(head, e.nodes);
  if (!head.has("scaling"))
    head.missing("scaling", "expected [\"weak\"], [\"strong\"] or both");
  const auto scalings = head.string_list("scaling");
  if (scalings.empty())
    head.fail("scaling", "empty: expected [\"weak\"], [\"strong\"] or both");
  for (std::size_t i = 0; i < scalings.size(); ++i) {
    if (scalings[i] != "weak" && scalings[i] != "strong")
      head.fail_element("scaling", i, "expected \"weak\" or \"strong\", got \"" + scalings[i] + "\"");
    const auto s = scalings[i] == "weak" ? analysis::Scaling::Weak : analysis::Scaling::Strong;
    if (std::find(e.scalings.begin(), e.scalings.end(), s) != e.scalings.end())
      head.fail_element("scaling", i, "\"" + scalings[i] + "\" is listed twice");
    e.scalings.push_back(s);
  }
  e.batch = head.optional_integer("batch", 1, max_batch);
  e.global_batch = head.optional_integer("global_batch", 1, max_batch * max_nodes);
  e.iterations = static_cast<int>(head.optional_integer("iterations", 1, 1000).value_or(3));
  if (auto seeds = head.optional_integer_list("seeds", 0, std::numeric_limits<long long>::max())) {
    for (std::size_t i = 0; i < seeds->size(); ++i)
      if (std::find(seeds->begin(), seeds->begin() + static_cast<std::ptrdiff_t>(i), (*seeds)[i]) !=
          seeds->begin() + static_cast<std::ptrdiff_t>(i))
        head.fail_element("seeds", i, "seed " + std::to_string((*seeds)[i]) + " is listed twice");
    e.seeds.assign(seeds->begin(), seeds->end());
  }
  const bool has_cost_unit = head.optional_string("cost_unit").has_value();
  e.cost_unit = has_cost_unit ? head.label("cost_unit", TableReader::most_name_characters) : "";
  if (has_cost_unit && is_blank(e.cost_unit))
    head.fail("cost_unit", "empty: expected the unit of the platforms' cost_per_node (\"kUSD\")");
  e.where = where(head);
  e.nodes_where = where(head, "nodes");
  e.output_where = where(head, "output");
  e.global_batch_where = where(head, "global_batch");
  head.reject_unknown_keys();

  auto platform_readers = file.table_array("platforms");
  auto workload_readers = file.table_array("workloads");
  auto variant_readers = file.table_array("variants");
  if (platform_readers.empty())
    file.missing("platforms", "expected [[platforms]] tables (name, file, set)");
  if (workload_readers.empty())
    file.missing("workloads", "expected [[workloads]] tables (name, file, set)");
  for (auto& t : platform_readers)
    e.platforms.push_back(read_input(t, false));
  for (auto& t : workload_readers)
    e.workloads.push_back(read_input(t, true));
  for (auto& t : variant_readers)
    e.variants.push_back(read_variant(t));
  check_unique_names(platform_readers, e.platforms);
  check_unique_names(workload_readers, e.workloads);
  check_unique_names(variant_readers, e.variants);
  if (e.variants.empty())
    e.variants.push_back({.name = "baseline", .run_args = {}, .where = where(file)});
  file.reject_unknown_keys();

  const bool strong =
      std::find(e.scalings.begin(), e.scalings.end(), analysis::Scaling::Strong) != e.scalings.end();
  const bool weak = std::find(e.scalings.begin(), e.scalings.end(), analysis::Scaling::Weak) != e.scalings.end();
  for (std::size_t i = 0; i < e.workloads.size(); ++i)
    if (strong && !e.workloads[i].global_batch && !e.global_batch)
      workload_readers[i].fail_here(
          "strong scaling needs a global batch: give global_batch here or in [experiment]");
  // A batch that no curve would use is a mistake, not a default.
  const std::string no_strong = "sets the strong curves' global batch, but scaling has no \"strong\": remove it or add \"strong\"";
  const std::string no_weak = "sets the weak curves' batch per rank, but scaling has no \"weak\": remove it or add \"weak\"";
  if (!strong && e.global_batch)
    head.fail("global_batch", no_strong);
  if (!weak && e.batch)
    head.fail("batch", no_weak);
  for (std::size_t i = 0; i < e.workloads.size(); ++i) {
    if (!strong && e.workloads[i].global_batch)
      workload_readers[i].fail("global_batch", no_strong);
    if (!weak && e.workloads[i].batch)
      workload_readers[i].fail("batch", no_weak);
  }
  // Nor one that every workload replaces with its own.
  const auto every_workload = [&](auto given) { return std::all_of(e.workloads.begin(), e.workloads.end(), given); };
  if (e.global_batch && every_workload([](const auto& w) { return w.global_batch.has_value(); }))
    head.fail("global_batch", "every workload gives its own global_batch, so this one is used by none: remove it");
  if (e.batch && every_workload([](const auto& w) { return w.batch.has_value(); }))
    head.fail("batch", "every workload gives its own batch, so this one is used by none: remove it");
  const bool any_cost =
      std::any_of(e.platforms.begin(), e.platforms.end(), [](const auto& p) { return p.cost_per_node; });
  if (!e.cost_unit.empty() && !any_cost)
    head.fail("cost_unit", "names the unit of the platforms' cost_per_node, but no platform gives one: give "
                           "cost_per_node for every platform, or remove cost_unit");
  if (any_cost) {
    for (std::size_t i = 0; i < e.platforms.size(); ++i)
      if (!e.platforms[i].cost_per_node)
        platform_readers[i].fail_here("cost_per_node missing: give it for every platform, or "
                                      "for none");
    if (e.cost_unit.empty())
      head.fail("cost_unit", "missing key: platforms have costs; name their unit (\"kUSD\")");
  }
  check_inputs_load(e);
  return e;
}

} // namespace

sweep::ExperimentSpec load_experiment(const std::string& path) {
  return load_experiment_text(read_input_file(path), path);
}

sweep::ExperimentSpec load_experiment_text(std::string_view text, const std::string& path) {
  return read_experiment(parse_toml_text(text, path), path, std::string(text));
}

} // namespace ceiling::config
