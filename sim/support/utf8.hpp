// Whether text is UTF-8: the result store keeps its strings as UTF-8 (HDF5's UTF-8 string type).
#pragma once

#include <cstddef>
#include <string_view>

namespace ceiling::support {

/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
/// U+10FFFF).
inline bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // the second byte's range
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      low = c == 0xE0 ? 0xA0 : 0x80;  // (no overlong form)
      high = c == 0xED ? 0x9F : 0xBF; // (no surrogate)
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      low = c == 0xF0 ? 0x90 : 0x80;  // (no overlong form)
      high = c == 0xF4 ? 0x8F : 0xBF; // (nothing above U+10FFFF)
    } else {
      return false;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high)
      return false;
    for (std::size_t k = 2; k < length; ++k)
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
        return false;
    i += length;
  }
  return true;
}

} // namespace ceiling::support
