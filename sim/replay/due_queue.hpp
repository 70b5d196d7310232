// What is due at which simulated instant, behind one alarm: the replay's own delays.
#pragma once

#include "replay/monotone_queue.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

namespace ceiling::replay {

/// Items due at simulated instants, handed out in (instant, order of adding) order. The owner
/// keeps one alarm (a SimGrid kernel timer) at earliest() instead of a timer per item:
/// thousands of ranks that compute alike end at one instant and one alarm serves them all, in
/// rank order. It keeps no clock: the owner passes the simulated time.
///
/// The items added wait in a radix heap (MonotoneQueue: by instant, then in the order added).
/// One item, the moving one, is held apart (set_moving): its owner's next event moves at
/// almost every event (the shared flows'), and each move replaces it, where an added item would
/// stay behind, stale, for the queue to carry (it was half the items of a tree's iteration, and
/// their moves a tenth of the replay's instructions). It comes out among the others as if added
/// when last set. (The PCIe links' wakeups move too, but far less often: held apart in an
/// indexed heap, one per link, they cost more than the stale items they spare.)
///
/// Usage: after adding or setting, or after making items stale, drop the stale front and move
/// the alarm to earliest(); when the alarm rings, drain() and do the same. Items that drain's
/// `handle` adds or sets (a zero delay is due now) come out in the same drain when due by then.
template <class T> class DueQueue {
public:
  void add(double at_s, T item) { fixed_.push(at_s, {next_order_++, std::move(item)}); }

  /// Sets the moving item to `item` at `at_s`, in place of the one set before (if it has not
  /// come out yet).
  void set_moving(double at_s, T item) {
    moving_ = {at_s, {next_order_++, std::move(item)}};
    moving_set_ = true;
  }

  /// Forgets the moving item, if set.
  void clear_moving() { moving_set_ = false; }

  /// The instant of the moving item, or nothing when none is set (or it came out).
  std::optional<double> moving_at() const {
    return moving_set_ ? std::optional<double>(moving_.at_s) : std::nullopt;
  }

  /// Hands every item due at or before `now_s` to `handle`, in order.
  void drain(double now_s, const std::function<void(const T&)>& handle) {
    for (;;) {
      // While no moving item is set (none ever is where every flow is in closed form), the
      // added items alone.
      while (!moving_set_ && !fixed_.empty() && fixed_.top().at_s <= now_s) {
        const T item = fixed_.top().value.item;
        fixed_.pop();
        handle(item);
      }
      if (!moving_set_)
        return;
      const bool fixed_due = !fixed_.empty() && fixed_.top().at_s <= now_s;
      if (moving_.at_s <= now_s && (!fixed_due || moving_first())) {
        moving_set_ = false;
        const T item = moving_.value.item;
        handle(item);
      } else if (fixed_due) {
        const T item = fixed_.top().value.item;
        fixed_.pop();
        handle(item);
      } else {
        return;
      }
    }
  }

  /// Drops the added items at the front that `is_stale` says nobody waits for any more, so that
  /// earliest() is an instant someone waits for.
  template <class Stale> void drop_stale_front(Stale is_stale) {
    while (!fixed_.empty() && is_stale(fixed_.top().value.item))
      fixed_.pop();
  }

  /// Forgets every item (a run that stops before its end).
  void clear() {
    fixed_.clear();
    moving_set_ = false;
  }

  /// The instant of the first item, or nothing when none is left.
  std::optional<double> earliest() {
    if (fixed_.empty())
      return moving_at();
    if (!moving_set_ || fixed_.top().at_s < moving_.at_s)
      return fixed_.top().at_s;
    return moving_.at_s;
  }

private:
  struct Added {
    std::uint64_t order;
    T item;
  };

  /// Whether the moving item comes before the first added one (both set, both due).
  bool moving_first() {
    const auto& first = fixed_.top();
    if (moving_.at_s != first.at_s)
      return moving_.at_s < first.at_s;
    return moving_.value.order < first.value.order;
  }

  MonotoneQueue<Added> fixed_; ///< the items added, by instant, then by order
  typename MonotoneQueue<Added>::Item moving_{}; ///< the moving item, while moving_set_
  bool moving_set_ = false;
  std::uint64_t next_order_ = 0; ///< shared by both kinds
};

} // namespace ceiling::replay
