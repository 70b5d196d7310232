// Reading HPC workload files: [workload] with kind, then [hpl] or [hpcg].
#include "config/hpc_file.hpp"

#include "config/overrides_internal.hpp"
#include "config/table_reader.hpp"

namespace ceiling::config {
namespace {

hpc::HplSpec read_hpl(TableReader t) {
  hpc::HplSpec s;
  s.memory_fraction = t.optional_number("memory_fraction", 0, 1, true).value_or(s.memory_fraction);
  if (t.has("matrix_memory"))
    s.matrix_memory = t.choice("matrix_memory", {"host", "device"}) == "host" ? hpc::MatrixMemory::Host
                                                                            : hpc::MatrixMemory::Device;
  s.matrix_order = t.optional_integer("matrix_order", 1, 1'000'000'000).value_or(0);
  // (at least hpc::min_block_size: the run simulates N / NB steps on every process)
  s.block_size = static_cast<int>(t.optional_integer("block_size", hpc::min_block_size, 1'000'000).value_or(0));
  s.block_size_cpu_nodes = static_cast<int>(
      t.optional_integer("block_size_cpu_nodes", hpc::min_block_size, 1'000'000).value_or(s.block_size_cpu_nodes));
  s.block_size_gpu_nodes = static_cast<int>(
      t.optional_integer("block_size_gpu_nodes", hpc::min_block_size, 1'000'000).value_or(s.block_size_gpu_nodes));
  s.grid_rows = static_cast<int>(t.optional_integer("grid_rows", 1, 1'000'000'000).value_or(0));
  s.lookahead = static_cast<int>(t.optional_integer("lookahead", 0, 1).value_or(s.lookahead));
  s.broadcast = named(t, "broadcast", hpc::broadcast_from_string, hpc::broadcast_names_list(), std::optional(s.broadcast));
  s.swap = named(t, "swap", hpc::swap_from_string, hpc::swap_names_list(), std::optional(s.swap));
  s.swap_threshold = static_cast<int>(t.optional_integer("swap_threshold", 0, 1'000'000'000).value_or(s.swap_threshold));
  s.panel_min_block = static_cast<int>(t.optional_integer("panel_min_block", 1, 1'000'000).value_or(s.panel_min_block));
  s.device_memory_fraction = t.optional_number("device_memory_fraction", 0, 1).value_or(s.device_memory_fraction);
  t.reject_unknown_keys();
  return s;
}

hpc::HpcgSpec read_hpcg(TableReader t) {
  hpc::HpcgSpec s;
  s.nx = static_cast<int>(t.optional_integer("nx", 16, 100'000).value_or(s.nx));
  s.ny = static_cast<int>(t.optional_integer("ny", 16, 100'000).value_or(s.ny));
  s.nz = static_cast<int>(t.optional_integer("nz", 16, 100'000).value_or(s.nz));
  s.levels = static_cast<int>(t.optional_integer("levels", 1, 10).value_or(s.levels));
  const int halvings = 1 << (s.levels - 1);
  for (const auto& [key, side] : {std::pair{"nx", s.nx}, {"ny", s.ny}, {"nz", s.nz}})
    if (side % halvings != 0)
      t.fail(key, "each multigrid level halves the grid: " + std::string(key) + " = " + std::to_string(side) +
                      " must be divisible by 2^(levels - 1) = " + std::to_string(halvings));
  t.reject_unknown_keys();
  return s;
}

HpcWorkload read_hpc_workload(const toml::table& root, const std::string& path) {
  TableReader file(root, "", path);
  TableReader head = file.table("workload");
  HpcWorkload w;
  const std::string kind = head.choice("kind", {"hpl", "hpcg"});
  w.name = head.name("name", "it labels the outputs");
  w.title = head.heading("title", most_title_characters);
  w.source = head.citation("source");
  head.reject_unknown_keys();
  // (an override of the kind, where the file holds the other kind's table: at the override)
  if (const char* other = kind == "hpl" ? "hpcg" : "hpl";
      head.location_of_key("kind").path == "--set" && file.has(other) && !file.has(kind)) {
    const auto upper = [](std::string_view k) { return std::string(k == "hpl" ? "HPL" : "HPCG"); };
    head.fail("kind", "the file describes " + upper(other) + " ([" + other + "]), which an override cannot make " +
                          upper(kind) + ": give an " + upper(kind) + " workload file");
  }
  if (kind == "hpl") {
    w.spec = read_hpl(file.table("hpl"));
    if (file.has("hpcg"))
      file.fail("hpcg", "an HPL workload (kind = \"hpl\") has no [hpcg] table");
  } else {
    w.spec = read_hpcg(file.table("hpcg"));
    if (file.has("hpl"))
      file.fail("hpl", "an HPCG workload (kind = \"hpcg\") has no [hpl] table");
  }
  file.reject_unknown_keys();
  return w;
}

} // namespace

HpcWorkload load_hpc_workload(const std::string& path, std::span<const std::string> overrides) {
  toml::table root = parse_toml_file(path);
  apply_overrides(root, path, overrides, OverrideTarget::Workload);
  return noting_overrides_of([&] { return read_hpc_workload(root, path); }, overrides,
                             OverrideTarget::Workload);
}

bool is_hpc_workload(const std::string& path) {
  const toml::table root = parse_toml_file(path);
  const auto* head = root.get_as<toml::table>("workload");
  return head != nullptr && head->contains("kind");
}

} // namespace ceiling::config
