// Shared by the fuzz targets: the input as text, and the errors that are answers, not bugs.
#pragma once

#include "config/load_error.hpp"
#include "io/store_error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ceiling::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `f`; the project's own refusals (a located LoadError, a StoreError) are the expected
/// answer to bad input. Anything else escapes, and libFuzzer reports it as a crash.
template <class F> int refusals_allowed(F f) {
  try {
    f();
  } catch (const config::LoadError&) {
  } catch (const io::StoreError&) {
  }
  return 0;
}

} // namespace ceiling::fuzz
