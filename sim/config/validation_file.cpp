// Reading validation case files.
#include "config/validation_file.hpp"

#include "config/input_file.hpp"

#include "config/software_file.hpp"
#include "config/table_reader.hpp"
#include "workload/workload_spec.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>

namespace ceiling::config {
namespace {

/// The long name of the `ceiling run` option that `token` names in full ("--nodes=4" and "-n4":
/// "nodes"), or "" (a value, or an abbreviation: `ceiling validate` resolves those with the
/// options themselves).
std::string_view option_named(std::string_view token) {
  if (token.starts_with("--"))
    return token.substr(2, token.find('=') == std::string_view::npos ? std::string_view::npos : token.find('=') - 2);
  constexpr std::pair<char, std::string_view> shorts[] = {{'p', "platform"}, {'w', "workload"}, {'n', "nodes"}, {'h', "help"}};
  for (const auto& [letter, name] : shorts)
    if (token.size() >= 2 && token[0] == '-' && token[1] == letter)
      return name;
  return {};
}

/// `key`'s list of `ceiling run` options, none that `ceiling validate` sets itself
/// (analysis::validate_sets_option, at the element that names it), all as `check` parses them.
std::vector<std::string> run_options_of(TableReader& t, std::string_view key, bool servers_given,
                                        const RunOptionsCheck& check) {
  std::vector<std::string> options = t.string_list(key);
  for (std::size_t i = 0; i < options.size(); ++i)
    if (const std::string_view name = option_named(options[i]);
        !name.empty() && analysis::validate_sets_option(name, servers_given))
      t.fail_element(key, i,
                     "\"" + options[i] + "\" is set by `ceiling validate` itself (from platform, workload, software, "
                     "batch, gpus_per_node, servers_per_node and the points' workers) or would change what the run prints");
  if (check)
    if (const auto problem = check(options, servers_given))
      t.fail(key, *problem);
  return options;
}

/// `key`'s path, relative to the case file's folder; an existing file.
std::string existing_file(TableReader& t, std::string_view key, const std::string& given) {
  const std::string path = beside(t.file(), given);
  if (const auto problem = input_file_problem(path))
    t.fail(key, *problem + ": " + path +
                    (std::filesystem::path(given).is_absolute()
                         ? ""
                         : " (relative to the case file's folder)"));
  return path;
}


analysis::ValidationCase read_case(const toml::table& root, const std::string& path, const RunOptionsCheck& check) {
  TableReader file(root, "", path);
  TableReader t = file.table("case");
  analysis::ValidationCase c;
  c.path = path;
  c.id = t.label("id", TableReader::most_name_characters);
  if (c.id.empty())
    t.fail("id", "empty: give the series' case id");
  c.title = t.heading("title", most_title_characters);
  c.source = t.citation("source");
  c.platform = existing_file(t, "platform", t.path("platform", "a platform file's path, relative to the case file"));
  c.workload = existing_file(t, "workload", t.path("workload", "a workload file's path, relative to the case file"));
  c.software = software_named(t, "software", t.string("software"));
  c.gpus_per_node = static_cast<int>(t.integer("gpus_per_node", 1, 64));
  const SourceLocation gpus_at = t.location_of_key("gpus_per_node");
  c.gpus_per_node_line = gpus_at.line;
  c.gpus_per_node_column = gpus_at.column;
  c.batch_per_worker = t.integer("batch", 1, workload::max_batch_per_worker);
  using Scaling = analysis::ValidationCase::Scaling;
  c.scaling = t.choice("scaling", {"weak", "per-point-batch"}) == "weak" ? Scaling::Weak : Scaling::PerPointBatch;
  c.servers_per_node = static_cast<int>(t.optional_integer("servers_per_node", 1, 64).value_or(0));
  c.options = run_options_of(t, "options", c.servers_per_node > 0, check);
  t.reject_unknown_keys();
  auto points = file.table_array("measured");
  if (points.empty())
    file.fail("measured", "missing: give at least one [[measured]] point (workers, throughput or efficiency)");
  for (auto& p : points) {
    analysis::MeasuredPoint m{.workers = p.integer("workers", 1, 10'000'000),
                              .throughput_samples_per_s = p.optional_number("throughput", 1e-3, 1e12), // (a sample in 1,000 s: a ratio to it stays printable)
                              .reported_efficiency = p.optional_number("efficiency", 0, 2, true),
                              .batch_per_worker = p.optional_integer("batch", 1, workload::max_batch_per_worker),
                              .options = run_options_of(p, "options", c.servers_per_node > 0, check)};
    // A point's options add to the case's: `ceiling run` takes an option once, but for those it
    // takes repeatedly (tools/ceiling/run_options.cpp: --set, --background-load).
    for (std::size_t i = 0; i < m.options.size(); ++i)
      if (const std::string_view name = option_named(m.options[i]);
          !name.empty() && name != "set" && name != "background-load")
        for (const std::string& given : c.options)
          if (option_named(given) == name)
            p.fail_element("options", i, "\"" + m.options[i] + "\": the case's options give --" + std::string(name) +
                                             " already, and a point's options add to them (an option is given once)");
    const SourceLocation at = p.location();
    m.line = at.line;
    m.column = at.column;
    if (auto software = p.optional_string("software"))
      m.software = software_named(p, "software", *software);
    if (!m.throughput_samples_per_s && !m.reported_efficiency)
      p.fail("throughput", "missing key: give the measured throughput (samples/s) or the efficiency the source reports");
    // One kind for the whole series: throughputs, or efficiencies relative to its first point.
    if (!c.measured.empty() && c.measured.front().throughput_samples_per_s.has_value() != m.throughput_samples_per_s.has_value())
      p.fail(m.throughput_samples_per_s ? "throughput" : "efficiency",
             c.measured.front().throughput_samples_per_s
                 ? "the first point gives a throughput: give a throughput at every point"
                 : "the first point gives an efficiency: give an efficiency at every point");
    if (c.measured.empty() && m.reported_efficiency && *m.reported_efficiency != 1.0)
      p.fail("efficiency", "the first point is the reference of the efficiencies: give it efficiency = 1 (divide the "
                           "source's efficiencies by its efficiency at this point)");
    if (!c.measured.empty() && m.workers <= c.measured.back().workers)
      p.fail("workers", "points must come in ascending workers, got " + std::to_string(m.workers) + " after " +
                            std::to_string(c.measured.back().workers));
    if (m.batch_per_worker && c.scaling == Scaling::Weak)
      p.fail("batch", "scaling = \"weak\" runs the case's batch at every point: remove the key, or say "
                      "scaling = \"per-point-batch\" where the source's batch per worker changes with N");
    if (m.workers > c.gpus_per_node && m.workers % c.gpus_per_node != 0)
      p.fail("workers", std::to_string(m.workers) + " workers do not fill whole nodes of " +
                            std::to_string(c.gpus_per_node) + " (gpus_per_node)");
    p.reject_unknown_keys();
    c.measured.push_back(m);
  }
  if (c.scaling == Scaling::PerPointBatch &&
      std::none_of(c.measured.begin(), c.measured.end(), [&](const analysis::MeasuredPoint& m) {
        return m.batch_per_worker && *m.batch_per_worker != c.batch_per_worker;
      }))
    t.fail("scaling", "\"per-point-batch\", but no point gives a batch other than the case's: the series "
                      "scales weakly, say scaling = \"weak\"");
  file.reject_unknown_keys();
  return c;
}

} // namespace

analysis::ValidationCase load_validation_case(const std::string& path, const RunOptionsCheck& check) {
  return read_case(parse_toml_file(path), path, check);
}

} // namespace ceiling::config
