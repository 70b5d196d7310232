// Open addressing with linear probing.
#include "replay/flat_index.hpp"

#include <cassert>

namespace ceiling::replay {

std::size_t FlatIndex::place_of(std::uint64_t key) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = mixed(key) & mask;
  while (slots_[i].key != key && slots_[i].key != empty)
    i = (i + 1) & mask;
  return i;
}

std::pair<std::uint32_t, bool> FlatIndex::find_or_add(std::uint64_t key, std::uint32_t fresh) {
  assert(key != empty && "~0 marks a free slot");
  if (2 * (size_ + 1) > slots_.size())
    grow();
  Slot& slot = slots_[place_of(key)];
  if (slot.key == key)
    return {slot.id, false};
  slot = {key, fresh};
  ++size_;
  return {fresh, true};
}

std::optional<std::uint32_t> FlatIndex::find(std::uint64_t key) const {
  assert(key != empty && "~0 marks a free slot");
  if (slots_.empty())
    return std::nullopt;
  const Slot& slot = slots_[place_of(key)];
  return slot.key == key ? std::optional(slot.id) : std::nullopt;
}

void FlatIndex::grow() {
  std::vector<Slot> old(slots_.empty() ? 16 : 2 * slots_.size());
  old.swap(slots_);
  for (const Slot& s : old)
    if (s.key != empty)
      slots_[place_of(s.key)] = s;
}

} // namespace ceiling::replay
