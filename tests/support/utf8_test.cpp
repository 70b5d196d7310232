// UTF-8 text in fixed-width tables: widths counted in characters, not bytes.
#include "support/utf8.hpp"

#include <doctest/doctest.h>

using namespace ceiling;

TEST_CASE("a table column pads a name to its width in characters, so that non-ASCII names line up") {
  // "Zürich" is 7 bytes and 6 characters; "€" 3 bytes and 1; a stray byte counts as one.
  CHECK(support::utf8_characters("Zurich") == 6);
  CHECK(support::utf8_characters("Z\xc3\xbcrich") == 6);
  CHECK(support::utf8_characters("\xe2\x82\xac") == 1);
  CHECK(support::utf8_characters("a\xff") == 2);
  CHECK(support::padded("Z\xc3\xbcrich", 8) == "Z\xc3\xbcrich  ");
  CHECK(support::padded("Zurich", 8) == "Zurich  ");
  // A name as wide as the column or wider stays as it is.
  CHECK(support::padded("Z\xc3\xbcrich", 6) == "Z\xc3\xbcrich");
  CHECK(support::padded("Z\xc3\xbcrich", 3) == "Z\xc3\xbcrich");
}
