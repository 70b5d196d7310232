// Items taken out least first, most of them put in in that order: a sorted run and a heap.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <memory>
#include <vector>

namespace ceiling::replay {

/// Items taken out least first (by their operator<, a total order), most of them pushed in that
/// order: a fan class's flows, each of which ends its bytes after the flows that joined before it
/// but where it joins with less to send. An item not below the last one pushed in order goes at
/// the end of a sorted run; any other into a binary heap beside it. Taking the least then costs a
/// comparison, where a heap alone sifts log2(n) levels of a vector that a parameter server's
/// thousands of flows per class make larger than the cache (the classes' heaps took 10 % of its
/// replay on 4,096 bench fat-tree nodes). Iterated, it gives the run in order, then the heap.
/// `Allocator` places its two buffers (tests place them side by side).
template <class T, class Allocator = std::allocator<T>> class RunHeap {
public:
  RunHeap() = default;
  explicit RunHeap(const Allocator& allocator) : run_(allocator), heap_(allocator) {}

  bool empty() const { return size() == 0; }
  std::size_t size() const { return run_.size() - first_ + heap_.size(); }

  void push(const T& item) {
    if (first_ == run_.size() || !(item < run_.back())) {
      run_.push_back(item);
    } else {
      heap_.push_back(item);
      std::push_heap(heap_.begin(), heap_.end(), later);
    }
  }

  /// The least item; there must be one.
  const T& front() const {
    assert(!empty() && "front: no item");
    if (heap_.empty())
      return run_[first_];
    if (first_ == run_.size() || heap_.front() < run_[first_])
      return heap_.front();
    return run_[first_];
  }

  /// Takes out the least item; there must be one.
  void pop() {
    assert(!empty() && "pop: no item");
    if (!heap_.empty() && (first_ == run_.size() || heap_.front() < run_[first_])) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      heap_.pop_back();
      return;
    }
    ++first_;
    if (first_ == run_.size()) {
      run_.clear();
      first_ = 0;
    } else if (first_ >= 64 && 2 * first_ >= run_.size()) { // (the taken half given back)
      run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(first_));
      first_ = 0;
    }
  }

  /// Takes out every item for which `taken(item)` holds.
  template <class Taken> void erase_if(Taken&& taken) {
    run_.erase(
        std::remove_if(run_.begin() + static_cast<std::ptrdiff_t>(first_), run_.end(), taken),
        run_.end());
    std::erase_if(heap_, taken);
    std::make_heap(heap_.begin(), heap_.end(), later);
  }

  /// The items: the run's in order, then the heap's. (Counted by their rank in that order, not
  /// compared by address: one past the heap's last item may be the address of the run's first,
  /// where the allocator put the two buffers side by side, which made a class look empty.)
  class Iterator {
  public:
    Iterator(const RunHeap& items, std::size_t rank) : items_(&items), rank_(rank) {}
    const T& operator*() const {
      const std::size_t in_run = items_->run_.size() - items_->first_;
      return rank_ < in_run ? items_->run_[items_->first_ + rank_] : items_->heap_[rank_ - in_run];
    }
    Iterator& operator++() {
      ++rank_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return rank_ == o.rank_; }

  private:
    const RunHeap* items_;
    std::size_t rank_;
  };
  Iterator begin() const { return {*this, 0}; }
  Iterator end() const { return {*this, size()}; }

private:
  static bool later(const T& a, const T& b) { return b < a; }

  std::vector<T, Allocator> run_; ///< from first_ on: the items pushed in order, ascending
  std::size_t first_ = 0;
  std::vector<T, Allocator> heap_; ///< the others, a min-heap
};

} // namespace ceiling::replay
