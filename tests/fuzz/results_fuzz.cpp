// Fuzz target: the HDF5 result file that plot, report, export and --resume read.
#include "io/result_store.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = "/tmp/ceiling-fuzz-" + std::to_string(getpid()) + ".h5";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  ceiling::fuzz::refusals_allowed([&] { (void)ceiling::io::read_results(path); });
  std::remove(path.c_str());
  return 0;
}
