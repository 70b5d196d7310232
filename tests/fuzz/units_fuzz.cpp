// Fuzz target: the quantity parser ("12.5 GB/s") of every unit kind.
#include "tests/fuzz/fuzz_support.hpp"
#include "units/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ceiling::units;
  const auto text = ceiling::fuzz::text_of(data, size);
  (void)parse<DataSize>(text);
  (void)parse<Duration>(text);
  (void)parse<Bandwidth>(text);
  (void)parse<Flops>(text);
  (void)parse<FlopRate>(text);
  return 0;
}
