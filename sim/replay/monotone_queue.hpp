// Items by instant, for a clock that never goes back: a radix heap.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

namespace ceiling::replay {

/// Items handed out by instant, and those of one instant in the order they were pushed (a
/// simulated clock's queue: the replay's DueQueue). A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms
/// for the shortest path problem", J. ACM 37(2), 1990) on the instant's bits (a non-negative
/// double's bits order as its value): an item goes to the bucket of the highest bit in which
/// its instant differs from the last minimum's, so a push appends to a vector and each item
/// moves down at most 64 times in all, where a binary heap sifts log2(n) levels of scattered
/// 40-byte items at every push and pop (a third of the ring's replay on 4,096 Piz Daint nodes).
/// Items of one instant are always in one bucket, in the order they came: a bucket is only
/// ever refilled empty, from the items of a higher one in their order, and pushes append.
/// A radix heap takes no item before its last minimum, which top() moves to the first item's
/// instant (and a caller may take out an item ahead of its clock: a stale wakeup): an item
/// pushed before it waits in a small binary heap of its own, whose items all come first.
template <class T> class MonotoneQueue {
public:
  struct Item {
    double at_s;
    T value;
  };

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  /// Adds `value` at `at_s` (not before the instant of the last item taken out, and not negative).
  void push(double at_s, T value) {
    const std::uint64_t k = key(at_s);
    if (k < last_)
      early_.push({{at_s, std::move(value)}, pushed_});
    else
      buckets_[bucket_of(k)].push_back({at_s, std::move(value)});
    ++pushed_;
    ++size_;
  }

  /// The first item; the queue must not be empty.
  const Item& top() {
    if (!early_.empty())
      return early_.top().item;
    settle();
    return buckets_[0][first_];
  }

  /// Takes out the first item; the queue must not be empty.
  void pop() {
    --size_;
    if (!early_.empty()) {
      early_.pop();
      return;
    }
    settle();
    ++first_;
  }

  void clear() {
    for (auto& b : buckets_)
      b.clear();
    early_ = {};
    first_ = 0;
    size_ = 0;
    last_ = 0;
  }

private:
  /// The instant's bits (+0.0 for -0.0): they order as the non-negative instants do.
  static std::uint64_t key(double at_s) { return std::bit_cast<std::uint64_t>(at_s + 0.0); }

  std::size_t bucket_of(std::uint64_t k) const {
    return k == last_ ? 0 : static_cast<std::size_t>(64 - std::countl_zero(k ^ last_));
  }

  /// Makes bucket 0 hold the first item: when it is used up, the lowest bucket that holds items
  /// gives its least instant as the new minimum, and its items go down to the buckets that
  /// instant puts them in (all lower, all empty).
  void settle() {
    assert(size_ > early_.size());
    if (first_ < buckets_[0].size())
      return;
    buckets_[0].clear();
    first_ = 0;
    std::size_t i = 1;
    while (buckets_[i].empty())
      ++i;
    std::uint64_t least = key(buckets_[i].front().at_s);
    for (const Item& item : buckets_[i])
      least = std::min(least, key(item.at_s));
    last_ = least;
    for (Item& item : buckets_[i])
      buckets_[bucket_of(key(item.at_s))].push_back(std::move(item));
    buckets_[i].clear();
  }

  /// An item pushed before the last minimum, with its place in the order of pushing.
  struct Early {
    Item item;
    std::uint64_t pushed;
    bool operator>(const Early& o) const {
      return item.at_s != o.item.at_s ? item.at_s > o.item.at_s : pushed > o.pushed;
    }
  };

  std::array<std::vector<Item>, 65> buckets_;
  std::priority_queue<Early, std::vector<Early>, std::greater<>> early_;
  std::uint64_t pushed_ = 0;
  std::size_t first_ = 0;  ///< bucket 0's first item not taken out yet
  std::size_t size_ = 0;
  std::uint64_t last_ = 0; ///< the key of the last minimum
};

} // namespace ceiling::replay
