// Fuzz target: one `--set KEY=VALUE` override applied to a bundled platform and workload.
#include "config/platform_file.hpp"
#include "config/workload_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> overrides{std::string(ceiling::fuzz::text_of(data, size))};
  ceiling::fuzz::refusals_allowed([&] { ceiling::config::load_platform("platforms/generic-fat-tree.toml", overrides); });
  return ceiling::fuzz::refusals_allowed([&] { ceiling::config::load_workload("workloads/resnet50_v1.toml", overrides); });
}
