// RunHeap: the least item first, whether it came in order (the run) or not (the heap).
#include "replay/run_heap.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <new>
#include <random>
#include <vector>

using ceiling::replay::RunHeap;

namespace {

template <class Heap> std::vector<int> items_of(const Heap& q) {
  std::vector<int> out;
  for (int v : q)
    out.push_back(v);
  return out;
}

/// Hands out a fixed buffer's ints one after the other, never reusing them: two vectors that
/// allocate in turn get buffers side by side, one's end the other's start.
struct Arena {
  std::vector<int> ints = std::vector<int>(64);
  std::size_t used = 0;
};
template <class T> struct ArenaAllocator {
  using value_type = T;
  Arena* arena;
  explicit ArenaAllocator(Arena& a) : arena(&a) {}
  template <class U> ArenaAllocator(const ArenaAllocator<U>& o) : arena(o.arena) {}
  T* allocate(std::size_t n) {
    if (arena->used + n > arena->ints.size())
      throw std::bad_alloc();
    T* at = arena->ints.data() + arena->used;
    arena->used += n;
    return at;
  }
  void deallocate(T*, std::size_t) {}
  bool operator==(const ArenaAllocator& o) const { return arena == o.arena; }
};

template <class Heap> std::vector<int> drained(Heap& q) {
  std::vector<int> out;
  while (!q.empty()) {
    out.push_back(q.front());
    q.pop();
  }
  return out;
}

} // namespace

TEST_CASE(
    "a run heap gives its items least first, those pushed out of order among those in order") {
  RunHeap<int> q;
  for (int v : {3, 5, 4, 8, 1, 9, 9, 2})
    q.push(v);
  CHECK(q.size() == 8);
  // Iterated: the run pushed in order (3 5 8 9 9), then the heap of the others.
  const auto items = items_of(q);
  CHECK(std::vector<int>(items.begin(), items.begin() + 5) == std::vector<int>{3, 5, 8, 9, 9});
  CHECK(std::is_permutation(items.begin(), items.end(),
                            std::vector<int>{3, 5, 4, 8, 1, 9, 9, 2}.begin()));
  CHECK(drained(q) == std::vector<int>{1, 2, 3, 4, 5, 8, 9, 9});
  CHECK(items_of(q).empty());
}

TEST_CASE("a run heap iterates every item where its heap's buffer ends at its run's start") {
  Arena arena;
  RunHeap<int, ArenaAllocator<int>> q{ArenaAllocator<int>(arena)};
  q.push(5); // the run's buffer: 1 int at 0
  q.push(3); // the heap's: 1 int at 1, ending at 2
  q.push(6); // the run's again: 2 ints from 2, where the heap's ends
  REQUIRE(arena.used == 4);
  CHECK(items_of(q) == std::vector<int>{5, 6, 3});
  CHECK(drained(q) == std::vector<int>{3, 5, 6});
}

TEST_CASE("a run heap drains as a sort does, through pushes between pops and erasures") {
  // Expectation: whatever the interleaving, each pop takes the least item present.
  std::mt19937 random(7);
  RunHeap<int> q;
  std::vector<int> present;
  for (int step = 0; step < 5000; ++step) {
    const int action = static_cast<int>(random() % 10);
    if (action < 6 || present.empty()) {
      // Mostly rising, as a fan class's flows come, sometimes below.
      const int v = step + (random() % 4 == 0 ? -static_cast<int>(random() % 300) : 0);
      q.push(v);
      present.push_back(v);
    } else if (action < 9) {
      const auto least = std::min_element(present.begin(), present.end());
      REQUIRE(q.front() == *least);
      q.pop();
      present.erase(least);
    } else {
      const int cut = static_cast<int>(random() % 7);
      q.erase_if([&](int v) { return v % 7 == cut; });
      std::erase_if(present, [&](int v) { return v % 7 == cut; });
    }
    REQUIRE(q.size() == present.size());
    REQUIRE(items_of(q).size() == present.size());
  }
  std::sort(present.begin(), present.end());
  auto items = items_of(q);
  std::sort(items.begin(), items.end());
  CHECK(items == present);
  CHECK(drained(q) == present);
}
