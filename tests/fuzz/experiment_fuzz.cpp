// Fuzz target: an experiment file's text (relative paths resolve from experiments/).
#include "config/experiment_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ceiling::fuzz::refusals_allowed(
      [&] { ceiling::config::load_experiment_text(ceiling::fuzz::text_of(data, size), "experiments/fuzz.toml"); });
}
