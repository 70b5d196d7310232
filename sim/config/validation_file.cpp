// Reading validation case files.
#include "config/validation_file.hpp"

#include "config/software_file.hpp"
#include "config/table_reader.hpp"

#include <algorithm>

namespace ceiling::config {
namespace {

analysis::ValidationCase read_case(const toml::table& root, const std::string& path) {
  TableReader file(root, "", path);
  TableReader t = file.table("case");
  analysis::ValidationCase c;
  c.path = path;
  c.id = t.string("id");
  c.title = t.string("title");
  c.source = t.string("source");
  c.platform = beside(path, t.string("platform"));
  c.workload = beside(path, t.string("workload"));
  // A bundled stack by its name, else a file beside the case.
  const auto names = bundled_software_names();
  const auto resolve = [&](const std::string& software) {
    return std::find(names.begin(), names.end(), software) != names.end() ? software : beside(path, software);
  };
  c.software = resolve(t.string("software"));
  c.gpus_per_node = static_cast<int>(t.integer("gpus_per_node", 1, 64));
  c.batch_per_worker = t.integer("batch", 1, 10'000'000);
  c.options = t.string_list("options");
  c.servers_per_node = static_cast<int>(t.optional_integer("servers_per_node", 1, 64).value_or(0));
  t.reject_unknown_keys();
  auto points = file.table_array("measured");
  if (points.empty())
    file.fail("measured", "missing: give at least one [[measured]] point (workers, throughput or efficiency)");
  for (auto& p : points) {
    analysis::MeasuredPoint m{.workers = p.integer("workers", 1, 10'000'000),
                              .throughput_samples_per_s = p.optional_number("throughput", 0, 1e12, true),
                              .reported_efficiency = p.optional_number("efficiency", 0, 2, true),
                              .batch_per_worker = p.optional_integer("batch", 1, 10'000'000),
                              .options = p.string_list("options")};
    if (auto software = p.optional_string("software"))
      m.software = resolve(*software);
    if (!m.throughput_samples_per_s && !m.reported_efficiency)
      p.fail("throughput", "missing key: give the measured throughput (samples/s) or the efficiency the source reports");
    if (!c.measured.empty() && m.workers <= c.measured.back().workers)
      p.fail("workers", "points must come in ascending workers, got " + std::to_string(m.workers) + " after " +
                            std::to_string(c.measured.back().workers));
    if (m.workers > c.gpus_per_node && m.workers % c.gpus_per_node != 0)
      p.fail("workers", std::to_string(m.workers) + " workers do not fill whole nodes of " +
                            std::to_string(c.gpus_per_node) + " (gpus_per_node)");
    p.reject_unknown_keys();
    c.measured.push_back(m);
  }
  file.reject_unknown_keys();
  return c;
}

} // namespace

analysis::ValidationCase load_validation_case(const std::string& path) {
  return read_case(parse_toml_file(path), path);
}

analysis::ValidationCase load_validation_case_text(std::string_view text, const std::string& path) {
  return read_case(parse_toml_text(text, path), path);
}

} // namespace ceiling::config
