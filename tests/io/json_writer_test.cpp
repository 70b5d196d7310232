// The JSON writer: what it makes of strings, so that every document it writes parses.
#include "io/json_writer.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace ceiling;

namespace {

/// The document of one string value.
std::string document_of(std::string_view text) {
  std::ostringstream out;
  {
    io::JsonWriter json(out);
    json.value(text);
  }
  return out.str();
}

} // namespace

TEST_CASE("a JSON string escapes quotes, backslashes and control characters and keeps UTF-8 as it is") {
  CHECK(document_of("a\"b\\c\nd\te\x01") == "\"a\\\"b\\\\c\\nd\\te\\u0001\"\n");
  CHECK(document_of("Z\xC3\xBCrich \xE2\x80\x94 \xF0\x9F\x9A\x80") == "\"Z\xC3\xBCrich \xE2\x80\x94 \xF0\x9F\x9A\x80\"\n");
}

TEST_CASE("a byte that starts no UTF-8 character comes out as U+FFFD, one escape per byte") {
  // A Latin-1 name (0xFF), a character cut short (0xC3 at the end) and a surrogate (0xED 0xA0 0x80).
  CHECK(document_of("c\xFF.toml") == "\"c\\ufffd.toml\"\n");
  CHECK(document_of("ab\xC3") == "\"ab\\ufffd\"\n");
  CHECK(document_of("\xED\xA0\x80x") == "\"\\ufffd\\ufffd\\ufffdx\"\n");
}
