// FreeIds: free ids, the least taken first.
#include "replay/free_ids.hpp"

#include <doctest/doctest.h>

#include <vector>

using ceiling::replay::FreeIds;

TEST_CASE("free ids come back least first, across words and the words' summary") {
  // Ids in three summary words (4,096 ids each), freed out of order; taken, they come back
  // sorted; an id freed below the ones left is the next taken.
  FreeIds free;
  const std::vector<std::uint32_t> ids{9000, 64, 4095, 4096, 0, 63, 12287, 65, 8191};
  for (std::uint32_t id : ids)
    free.add(id);
  CHECK(free.size() == ids.size());
  CHECK(free.take_least() == 0);
  CHECK(free.take_least() == 63);
  CHECK(free.take_least() == 64);
  CHECK(free.take_least() == 65);
  CHECK(free.take_least() == 4095);
  free.add(1);
  CHECK(free.take_least() == 1);
  CHECK(free.take_least() == 4096);
  CHECK(free.take_least() == 8191);
  CHECK(free.take_least() == 9000);
  CHECK(free.take_least() == 12287);
  CHECK(free.empty());
}
