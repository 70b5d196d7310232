// FlatIndex: ids by 64-bit key.
#include "replay/flat_index.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using ceiling::replay::FlatIndex;

TEST_CASE("a key keeps the id it was first given, through the table's growths") {
  // 100,000 keys a ring's pair keys apart (multiples of ranks + 1, here 16,385), and a key near
  // the top of the range; each given its order of arrival. Asked again with another id, every
  // key answers its first one and adds nothing.
  FlatIndex index;
  constexpr std::uint32_t keys = 100000;
  for (std::uint32_t i = 0; i < keys; ++i) {
    const auto [id, fresh] = index.find_or_add(std::uint64_t{i} * 16385, i);
    CHECK(id == i);
    CHECK(fresh);
  }
  const auto [top, fresh_top] = index.find_or_add(~std::uint64_t{0} - 1, keys);
  CHECK(top == keys);
  CHECK(fresh_top);
  CHECK(index.size() == keys + 1);
  std::uint32_t wrong = 0;
  for (std::uint32_t i = 0; i < keys; ++i) {
    const auto [id, fresh] = index.find_or_add(std::uint64_t{i} * 16385, 7);
    wrong += id != i || fresh ? 1 : 0;
  }
  CHECK(wrong == 0);
  CHECK(index.find_or_add(~std::uint64_t{0} - 1, 7).first == keys);
  CHECK(index.size() == keys + 1);
}

TEST_CASE("finding a key gives its id and adds nothing, a key never added is not found") {
  FlatIndex index;
  CHECK_FALSE(index.find(42).has_value()); // an empty table
  for (std::uint32_t i = 0; i < 1000; ++i)
    index.find_or_add(std::uint64_t{i} * 3, i);
  CHECK(index.find(999 * 3) == 999u);
  CHECK(index.find(0) == 0u);
  CHECK_FALSE(index.find(1).has_value()); // between two keys
  CHECK_FALSE(index.find(3000).has_value()); // past the last
  CHECK(index.size() == 1000);
}
