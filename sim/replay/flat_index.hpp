// Ids by 64-bit key in one flat array, for the route caches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ceiling::replay {

/// A map from 64-bit keys (any but ~0) to 32-bit ids: open addressing with linear probing over
/// one array of (key, id) slots, a power of two of them, at most half full. Routes looks up a
/// route or a link per flow of a plan, hundreds of thousands at 16,384 nodes; a node-based map
/// allocated a node per entry and chased a pointer per lookup.
class FlatIndex {
public:
  /// The id of `key`, and false; where the key has none yet, it gets `fresh`: `fresh` and true.
  std::pair<std::uint32_t, bool> find_or_add(std::uint64_t key, std::uint32_t fresh);
  /// The id of `key`, or nullopt where it has none.
  std::optional<std::uint32_t> find(std::uint64_t key) const;
  std::size_t size() const { return size_; }

  /// Mixes the key's bits (splitmix64's finaliser): keys a constant apart (src x ranks + dst of
  /// a ring, step by step) would otherwise fill neighbouring slots.
  static std::uint64_t mixed(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

private:
  struct Slot {
    std::uint64_t key = empty;
    std::uint32_t id = 0;
  };
  static constexpr std::uint64_t empty = ~std::uint64_t{0};
  /// Twice the slots, every key moved to its place among them.
  void grow();
  /// The slot that holds `key`, or the free one where it would go (the table must have slots).
  std::size_t place_of(std::uint64_t key) const;

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

} // namespace ceiling::replay
