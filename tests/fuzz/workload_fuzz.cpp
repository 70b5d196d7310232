// Fuzz target: a workload file's text (relative platform paths resolve from workloads/).
#include "config/workload_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ceiling::fuzz::refusals_allowed(
      [&] { ceiling::config::load_workload_text(ceiling::fuzz::text_of(data, size), "workloads/fuzz.toml"); });
}
