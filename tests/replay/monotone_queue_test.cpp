// MonotoneQueue: items by instant, then in the order pushed, as a stable sort gives them.
#include "replay/monotone_queue.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <utility>
#include <vector>

using ceiling::replay::MonotoneQueue;

namespace {

/// Takes out every item due by `now` (at or before it), as the replay's drain does.
std::vector<int> take_due(MonotoneQueue<int>& q, double now) {
  std::vector<int> out;
  while (!q.empty() && q.top().at_s <= now) {
    out.push_back(q.top().value);
    q.pop();
  }
  return out;
}

/// Sorts (instant, value) pairs by instant, those of one instant in the order they were pushed.
void sort_by_instant(std::vector<std::pair<double, int>>& items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

} // namespace

TEST_CASE("items come out by instant, and items of one instant in the order they were pushed") {
  MonotoneQueue<int> q;
  const std::vector<std::pair<double, int>> items{{2.0, 3}, {0.5, 1}, {2.0, 4}, {0.5, 2}, {1e9, 5}};
  for (auto [at, v] : items)
    q.push(at, v);
  CHECK(q.size() == 5);
  CHECK(take_due(q, 1e9) == std::vector<int>{1, 2, 3, 4, 5});
  CHECK(q.empty());
}

TEST_CASE("zero and minus zero are one instant, and an infinite one comes last") {
  // -0.0's bits would order it after every positive instant, were it not taken as +0.0.
  MonotoneQueue<int> q;
  const double inf = std::numeric_limits<double>::infinity();
  q.push(inf, 4);
  q.push(0.0, 1);
  q.push(1.0, 3);
  q.push(-0.0, 2);
  CHECK(take_due(q, inf) == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("a cleared queue holds nothing and serves again from instant 0") {
  MonotoneQueue<int> q;
  q.push(8.0, 80);
  q.push(9.0, 90);
  CHECK(q.top().value == 80); // the minimum moves to 8
  q.clear();
  CHECK(q.empty());
  CHECK(q.size() == 0);
  q.push(2.0, 20);
  q.push(1.0, 10);
  CHECK(q.size() == 2);
  CHECK(take_due(q, 10.0) == std::vector<int>{10, 20});
}

TEST_CASE("an item pushed before the instant the queue last looked at still comes out first") {
  // top() settles on 5 as its minimum; the clock is at 3, and an item at 4 comes in: it goes
  // before 5, and one at 4 pushed later goes after it.
  MonotoneQueue<int> q;
  q.push(5.0, 50);
  q.push(7.0, 70);
  CHECK(q.top().at_s == 5.0);
  q.push(4.0, 40);
  q.push(5.0, 51);
  q.push(4.0, 41);
  CHECK(q.top().at_s == 4.0);
  CHECK(take_due(q, 10.0) == std::vector<int>{40, 41, 50, 51, 70});
}

TEST_CASE("after an item taken out ahead of the clock, what comes later is still in order") {
  // The replay drops a stale wakeup at 9 while its clock is at 2: items pushed after that, at 3
  // to 9, still come out by instant.
  MonotoneQueue<int> q;
  q.push(9.0, 90);
  q.push(12.0, 120);
  q.pop(); // the stale item at 9
  q.push(3.0, 30);
  q.push(9.0, 91);
  q.push(12.0, 121);
  CHECK(take_due(q, 20.0) == std::vector<int>{30, 91, 120, 121});
}

TEST_CASE("any mix of pushes at or after the clock, looks and takes gives a stable sort's order") {
  // Against a stable sort by instant: instants from a small grid (many equal ones) and from
  // continuous draws (every bit pattern), pushes between looks at the first item and takes,
  // and now and then the first item taken out ahead of the clock (pushes then come before it).
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    CAPTURE(round);
    MonotoneQueue<int> q;
    std::vector<std::pair<double, int>> pending; // pushed, not taken out, in push order
    std::vector<int> got, expected;
    double clock = 0;
    int next = 0;
    const int steps = 1 + static_cast<int>(rng() % 200);
    for (int step = 0; step < steps; ++step) {
      switch (rng() % 5) {
      case 0:
      case 1: { // a push at or after the clock
        const double step_s = rng() % 2 ? static_cast<double>(rng() % 8) * 0.25
                                        : std::uniform_real_distribution<double>(0, 3)(rng);
        const double at = clock + step_s;
        q.push(at, next);
        pending.push_back({at, next++});
        break;
      }
      case 2: // a look at the first item
        if (!q.empty()) {
          sort_by_instant(pending);
          CHECK(q.top().at_s == pending.front().first);
          CHECK(q.top().value == pending.front().second);
        }
        break;
      case 3: // the first item taken out wherever it lies (a stale wakeup ahead of the clock)
        if (!q.empty() && rng() % 3 == 0) {
          sort_by_instant(pending);
          expected.push_back(pending.front().second);
          pending.erase(pending.begin());
          got.push_back(q.top().value);
          q.pop();
        }
        break;
      case 4: // the clock moves to the first item's instant and takes out what is due
        if (!q.empty()) {
          sort_by_instant(pending);
          clock = pending.front().first;
          std::size_t due = 0;
          while (due < pending.size() && pending[due].first <= clock)
            expected.push_back(pending[due++].second);
          pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(due));
          const auto out = take_due(q, clock);
          got.insert(got.end(), out.begin(), out.end());
        }
        break;
      }
    }
    sort_by_instant(pending);
    for (const auto& p : pending)
      expected.push_back(p.second);
    const auto rest = take_due(q, 1e300);
    got.insert(got.end(), rest.begin(), rest.end());
    REQUIRE(got == expected);
    CHECK(q.empty());
  }
}
