// Whether text is UTF-8: the result store keeps its strings as UTF-8 (HDF5's UTF-8 string type);
// what a label shown in outputs may hold.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace ceiling::support {

/// The length of the well-formed UTF-8 character (RFC 3629: no overlong forms, no surrogates,
/// nothing above U+10FFFF) that starts at `text[i]`, or 0 where none does.
inline std::size_t utf8_character_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF; // the second byte's range
  if (c < 0x80) {
    return 1;
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
    return 0;
  }
  if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high)
    return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
      return 0;
  return length;
}

/// How many characters well-formed UTF-8 `text` holds (a byte that starts none counts as one).
inline std::size_t utf8_characters(std::string_view text) {
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++characters)
    i += std::max<std::size_t>(1, utf8_character_length(text, i));
  return characters;
}

/// `text` followed by spaces up to `width` characters (not bytes: "Zürich" is 6 wide), for the
/// columns of a fixed-width table; as it is where it is that wide or wider.
inline std::string padded(std::string_view text, std::size_t width) {
  const std::size_t characters = utf8_characters(text);
  return std::string(text) + std::string(width > characters ? width - characters : 0, ' ');
}

/// Whether `text` is well-formed UTF-8.
inline bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_character_length(text, i);
    if (length == 0)
      return false;
    i += length;
  }
  return true;
}

/// `text` with each byte that starts no well-formed UTF-8 character replaced by U+FFFD, the
/// replacement character: text from outside (a process's stderr, cut anywhere) made fit to store.
inline std::string repaired_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_character_length(text, i);
    out += length == 0 ? std::string_view("\xEF\xBF\xBD") : text.substr(i, length);
    i += length == 0 ? 1 : length;
  }
  return out;
}

/// What keeps well-formed UTF-8 `text` from being a label that outputs print, draw and export (a
/// name, a title): a control character (U+0000 to U+001F, U+007F to U+009F: a NUL cuts a C
/// string, a tab or a newline breaks a CSV row or a legend), or more than `most_characters`
/// characters (a legend or a plot would not fit); none where it is one.
inline std::optional<std::string> label_problem(std::string_view text, std::size_t most_characters) {
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c1) {
      const unsigned code = c1 ? static_cast<unsigned char>(text[i + 1]) : c;
      char hex[8];
      std::snprintf(hex, sizeof hex, "%04X", code);
      return "holds a control character (U+" + std::string(hex) + ") at character " + std::to_string(characters + 1) +
             ": expected printable text";
    }
    characters += (c & 0xC0) != 0x80 ? 1 : 0; // (a character's first byte)
  }
  if (characters > most_characters)
    return "is " + std::to_string(characters) + " characters long: expected at most " + std::to_string(most_characters) +
           " (it labels outputs: legends, plots, tables)";
  return std::nullopt;
}

} // namespace ceiling::support
