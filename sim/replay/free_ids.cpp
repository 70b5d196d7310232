// The free ids of a pool, the least taken first.
#include "replay/free_ids.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

namespace ceiling::replay {

void FreeIds::add(std::uint32_t id) {
  const std::size_t word = id / 64, summary = word / 64;
  if (word >= ids_.size())
    ids_.resize(word + 1, 0);
  if (summary >= words_.size())
    words_.resize(summary + 1, 0);
  assert((ids_[word] >> (id % 64) & 1) == 0 && "an id freed twice");
  ids_[word] |= std::uint64_t{1} << (id % 64);
  words_[summary] |= std::uint64_t{1} << (word % 64);
  first_word_ = std::min(first_word_, summary);
  ++count_;
}

std::uint32_t FreeIds::take_least() {
  assert(count_ > 0 && "no free id to take");
  while (words_[first_word_] == 0)
    ++first_word_;
  const std::size_t word = first_word_ * 64 + static_cast<std::size_t>(std::countr_zero(words_[first_word_]));
  const auto id = static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(ids_[word])));
  ids_[word] &= ids_[word] - 1; // clears its lowest bit: the id's
  if (ids_[word] == 0)
    words_[first_word_] &= words_[first_word_] - 1; // and the word's, its lowest too
  --count_;
  return id;
}

} // namespace ceiling::replay
