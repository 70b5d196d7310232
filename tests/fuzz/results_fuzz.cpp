// Fuzz target: the HDF5 result file that plot, report, export and --resume read.
#include "io/result_store.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#if __has_include(<hdf5.h>)
#include <hdf5.h>
#else
#include <hdf5/serial/hdf5.h>
#endif

#include <cstdio>
#include <cstdlib>
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
  // Whatever the file, the reader closes everything it opened (a file left open stays locked).
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
    std::abort();
  std::remove(path.c_str());
  return 0;
}
