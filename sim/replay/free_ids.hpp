// The free ids of a pool, the least taken first, for FlowSharing's flows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ceiling::replay {

/// A set of free ids, the least taken first: a bit per id and a bit per 64 ids, so that taking
/// the least costs a scan of a word per 4,096 ids at worst and adding one costs two bit sets (a
/// min-heap cost a parameter server's fans of 65,536 flows 16 levels per flow).
class FreeIds {
public:
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  /// Frees `id`, which must not be free.
  void add(std::uint32_t id);
  /// The least free id, no longer free; there must be one.
  std::uint32_t take_least();

private:
  std::vector<std::uint64_t> ids_;   ///< bit i of word w: id 64 w + i is free
  std::vector<std::uint64_t> words_; ///< bit i of word v: ids_[64 v + i] holds a free id
  std::size_t first_word_ = 0;       ///< no word of words_ below it has a bit set
  std::size_t count_ = 0;
};

} // namespace ceiling::replay
