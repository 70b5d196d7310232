// Open addressing with linear probing.
#include "replay/flat_index.hpp"

#include <cassert>

namespace ceiling::replay {

std::pair<std::uint32_t, bool> FlatIndex::find_or_add(std::uint64_t key, std::uint32_t fresh) {
  assert(key != empty && "~0 marks a free slot");
  if (2 * (size_ + 1) > slots_.size())
    grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = mixed(key) & mask;; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (slot.key == key)
      return {slot.id, false};
    if (slot.key == empty) {
      slot = {key, fresh};
      ++size_;
      return {fresh, true};
    }
  }
}

std::optional<std::uint32_t> FlatIndex::find(std::uint64_t key) const {
  assert(key != empty && "~0 marks a free slot");
  if (slots_.empty())
    return std::nullopt;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = mixed(key) & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.key == key)
      return slot.id;
    if (slot.key == empty)
      return std::nullopt;
  }
}

void FlatIndex::grow() {
  std::vector<Slot> old(slots_.empty() ? 16 : 2 * slots_.size());
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.key == empty)
      continue;
    std::size_t i = mixed(s.key) & mask;
    while (slots_[i].key != empty)
      i = (i + 1) & mask;
    slots_[i] = s;
  }
}

} // namespace ceiling::replay
