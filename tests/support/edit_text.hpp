// Helpers of the file-loading tests: variants of a valid document and the error they raise.
#pragma once

#include "config/load_error.hpp"

#include <doctest/doctest.h>

#include <string>

namespace ceiling::testing {

/// `text` with the first occurrence of `from` replaced by `to` (which must occur).
inline std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// The message of the LoadError that `load` throws, or "no error".
template <class Load> std::string error_of(Load load) {
  try {
    load();
  } catch (const config::LoadError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace ceiling::testing
