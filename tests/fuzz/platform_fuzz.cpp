// Fuzz target: a platform file's text.
#include "config/platform_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ceiling::fuzz::refusals_allowed(
      [&] { ceiling::config::load_platform_text(ceiling::fuzz::text_of(data, size), "platforms/fuzz.toml"); });
}
