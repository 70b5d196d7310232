// DueQueue: the order items come out in, and the earliest instant the alarm belongs at.
#include "replay/due_queue.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

using ceiling::replay::DueQueue;

namespace {

using Out = std::vector<std::pair<std::string, double>>;

/// Rings the alarm at earliest() until nothing is left, as the replay's kernel timer does;
/// `on_item(queue, item, now)` may add more. Returns (item, instant) in hand-out order.
template <class OnItem> Out run(DueQueue<std::string>& queue, OnItem on_item) {
  Out out;
  for (int rings = 0; auto now = queue.earliest(); ++rings) {
    REQUIRE(rings < 100);
    queue.drain(*now, [&](const std::string& item) {
      out.emplace_back(item, *now);
      on_item(queue, item, *now);
    });
  }
  return out;
}

void nothing(DueQueue<std::string>&, const std::string&, double) {}

/// One drain at `now`, as one ring of the alarm; `on_item(queue, item)` may add or set more.
/// Returns the items handed out, in order.
template <class OnItem>
std::vector<std::string> one_drain(DueQueue<std::string>& queue, double now, OnItem on_item) {
  std::vector<std::string> out;
  queue.drain(now, [&](const std::string& item) {
    out.push_back(item);
    on_item(queue, item);
  });
  return out;
}

} // namespace

TEST_CASE("items come out by instant, and items of one instant in the order they were added") {
  DueQueue<std::string> q;
  for (auto [at, name] : std::vector<std::pair<double, std::string>>{
           {2.0, "c"}, {1.0, "a"}, {2.0, "d"}, {1.0, "b"}, {3.0, "e"}})
    q.add(at, name);
  const Out expected{{"a", 1.0}, {"b", 1.0}, {"c", 2.0}, {"d", 2.0}, {"e", 3.0}};
  CHECK(run(q, nothing) == expected);
  CHECK_FALSE(q.earliest().has_value());
}

TEST_CASE("the earliest instant is the first item's, whenever it was added") {
  DueQueue<std::string> q;
  CHECK_FALSE(q.earliest().has_value());
  q.add(5.0, "first");
  q.add(7.0, "later");
  CHECK(q.earliest() == std::optional<double>(5.0));
  q.add(4.0, "earlier");
  CHECK(q.earliest() == std::optional<double>(4.0));
}

TEST_CASE("an item added with a zero delay while draining comes out in the same drain") {
  DueQueue<std::string> q;
  q.add(1.0, "compute");
  const auto out = one_drain(q, 1.0, [](DueQueue<std::string>& queue, const std::string& item) {
    if (item == "compute") {
      queue.add(1.0, "zero-length optimizer");
      queue.add(2.0, "next");
    }
  });
  CHECK(out == std::vector<std::string>{"compute", "zero-length optimizer"});
  CHECK(q.earliest() == std::optional<double>(2.0)); // "next" waits for the next ring
}

TEST_CASE("after a drain the earliest item may be one added before the drain") {
  // "flow b" waits from before the drain and is due before what the drain adds: the alarm
  // belongs at its instant, not at the first instant added while draining.
  DueQueue<std::string> q;
  q.add(1.0, "flow a");
  q.add(1.5, "flow b");
  const auto out = run(q, [](DueQueue<std::string>& queue, const std::string& item, double now) {
    if (item == "flow a")
      queue.add(now + 5.0, "copy after a");
  });
  const Out expected{{"flow a", 1.0}, {"flow b", 1.5}, {"copy after a", 6.0}};
  CHECK(out == expected);
}

TEST_CASE("a drain before anything is due hands out nothing") {
  DueQueue<std::string> q;
  q.add(2.0, "x");
  int handed = 0;
  q.drain(1.0, [&](const std::string&) { ++handed; });
  CHECK(handed == 0);
  CHECK(q.earliest() == std::optional<double>(2.0));
}

TEST_CASE("a moving item set again replaces the one set before, and comes out as if added then") {
  DueQueue<std::string> q;
  q.set_moving(1.0, "flows at 1");
  q.add(2.0, "compute a");
  q.set_moving(2.0, "flows at 2"); // after "compute a": at its instant, it comes out second
  q.add(2.0, "compute b");
  CHECK(q.moving_at() == std::optional<double>(2.0));
  const Out expected{{"compute a", 2.0}, {"flows at 2", 2.0}, {"compute b", 2.0}};
  CHECK(run(q, nothing) == expected);
  CHECK_FALSE(q.moving_at().has_value()); // it came out
}

TEST_CASE("a cleared moving item never comes out, and the earliest instant passes it by") {
  DueQueue<std::string> q;
  q.set_moving(1.0, "flows");
  q.add(3.0, "compute");
  q.clear_moving();
  q.clear_moving(); // cleared again: nothing left to clear
  CHECK(q.earliest() == std::optional<double>(3.0));
  const Out expected{{"compute", 3.0}};
  CHECK(run(q, nothing) == expected);
}

TEST_CASE("a moving item set while draining comes out in the same drain when due by then") {
  DueQueue<std::string> q;
  q.add(1.0, "flow starts");
  const auto out = one_drain(q, 1.0, [](DueQueue<std::string>& queue, const std::string& item) {
    if (item == "flow starts")
      queue.set_moving(1.0, "flows now");
  });
  CHECK(out == std::vector<std::string>{"flow starts", "flows now"});
  CHECK_FALSE(q.earliest().has_value());
}

TEST_CASE("stale items at the front are dropped, so the earliest instant is one someone waits for") {
  DueQueue<std::string> q;
  q.add(1.0, "stale wakeup");
  q.add(2.0, "live wakeup");
  q.add(3.0, "stale later");
  const auto stale = [](const std::string& item) { return item.starts_with("stale"); };
  q.drop_stale_front(stale);
  CHECK(q.earliest() == std::optional<double>(2.0));
  q.drain(2.0, [](const std::string&) {});
  q.drop_stale_front(stale);
  CHECK_FALSE(q.earliest().has_value()); // only stale items were left
}
