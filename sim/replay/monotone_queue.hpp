// Items by instant, for a clock that mostly moves forward: a radix heap.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace ceiling::replay {

/// Items handed out by instant, and those of one instant in the order they were pushed (a
/// stable sort's order; the replay's DueQueue, whose instants are seldom before its present).
///
/// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path
/// problem", J. ACM 37(2), 1990) on the instant's bits, which order as the non-negative instants
/// do: an item goes to the bucket of the highest bit in which its instant differs from the last
/// minimum's, so a push appends to a vector and an item moves down at most 64 times in all,
/// where a binary heap sifts log2(n) levels of scattered 40-byte items at every push and pop
/// (a third of the ring's replay on 4,096 Piz Daint nodes). Why the order is exact:
/// - the buckets hold no instant before the last minimum, and a lower bucket only earlier
///   instants than a higher one; the last minimum moves only in settle(), to the least instant
///   of the lowest bucket that holds items, whose items then go down to buckets that are all
///   empty (lower than theirs);
/// - so one instant's items are always in one bucket, in the order they came: a bucket is only
///   ever refilled empty, from the items of a higher one in their order, and pushes append;
/// - an item pushed before the last minimum (top() moved it to a later first item, or an item
///   ahead of the caller's clock was taken out: a stale wakeup) waits in a small binary heap of
///   its own, ordered by instant and then by when it came. Its items all come first: they are
///   earlier than the last minimum, which moves only while that heap is empty.
template <class T> class MonotoneQueue {
public:
  /// An item and its instant.
  struct Item {
    double at_s;
    T value;
  };

  bool empty() const { return size_ == 0; }
  /// How many items it holds.
  std::size_t size() const { return size_; }

  /// Adds `value` at `at_s` (non-negative, not NaN; +infinity comes last).
  void push(double at_s, T value) {
    assert(at_s >= 0 && "push: an instant is non-negative (and not NaN)");
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
    assert(size_ > 0 && "top: the queue is empty");
    if (!early_.empty())
      return early_.top().item;
    settle();
    return buckets_[0][first_];
  }

  /// Takes out the first item; the queue must not be empty.
  void pop() {
    assert(size_ > 0 && "pop: the queue is empty");
    if (!early_.empty()) {
      early_.pop();
    } else {
      settle();
      ++first_;
    }
    --size_;
  }

  /// Takes out every item (the buckets keep their capacity).
  void clear() {
    for (auto& b : buckets_)
      b.clear();
    early_ = {};
    first_ = 0;
    size_ = 0;
    last_ = 0;
  }

private:
  /// The instant's bits (+0.0's for -0.0): they order as the non-negative instants do.
  static std::uint64_t key(double at_s) { return std::bit_cast<std::uint64_t>(at_s + 0.0); }

  std::size_t bucket_of(std::uint64_t k) const {
    return k == last_ ? 0 : static_cast<std::size_t>(64 - std::countl_zero(k ^ last_));
  }

  /// Makes bucket 0 hold the first item: when it is used up, the lowest bucket that holds items
  /// gives its least instant as the new minimum, and its items go down to the buckets that
  /// instant puts them in. Only while the side heap is empty (its items come first).
  void settle() {
    assert(early_.empty() && size_ > 0 && "settle: only for the buckets' first item");
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

  std::array<std::vector<Item>, 65> buckets_; ///< by the highest bit that differs from last_
  std::priority_queue<Early, std::vector<Early>, std::greater<>> early_;
  std::uint64_t pushed_ = 0;
  std::size_t first_ = 0;  ///< bucket 0's first item not taken out yet
  std::size_t size_ = 0;
  std::uint64_t last_ = 0; ///< the key of the last minimum
};

} // namespace ceiling::replay
