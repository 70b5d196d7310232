// DueQueue: the order items come out in, and where it says the alarm goes.
#include "replay/due_queue.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

using ceiling::replay::DueQueue;

namespace {

/// Rings the alarm wherever the queue says until nothing is left, as the replay's kernel timer
/// does; `on_item(queue, item, now)` may add more. Returns (item, instant) in hand-out order.
template <class OnItem>
std::vector<std::pair<std::string, double>> run(DueQueue<std::string>& queue,
                                                std::optional<double> alarm, OnItem on_item) {
  std::vector<std::pair<std::string, double>> out;
  for (int rings = 0; alarm; ++rings) {
    REQUIRE(rings < 100);
    const double now = *alarm;
    alarm = queue.drain(now, [&](const std::string& item) {
      out.emplace_back(item, now);
      on_item(queue, item, now);
    });
  }
  return out;
}

void nothing(DueQueue<std::string>&, const std::string&, double) {}

} // namespace

TEST_CASE("items come out by instant, and items of one instant in the order they were added") {
  DueQueue<std::string> q;
  std::optional<double> alarm;
  for (auto [at, name] : std::vector<std::pair<double, std::string>>{
           {2.0, "c"}, {1.0, "a"}, {2.0, "d"}, {1.0, "b"}, {3.0, "e"}})
    if (auto moved = q.add(at, name))
      alarm = moved;
  const auto out = run(q, alarm, nothing);
  const std::vector<std::pair<std::string, double>> expected{
      {"a", 1.0}, {"b", 1.0}, {"c", 2.0}, {"d", 2.0}, {"e", 3.0}};
  CHECK(out == expected);
  CHECK(q.empty());
}

TEST_CASE("add moves the alarm only for an item due before all others") {
  DueQueue<std::string> q;
  CHECK(q.add(5.0, "first") == std::optional<double>(5.0)); // nothing was due
  CHECK(q.add(7.0, "later") == std::nullopt);
  CHECK(q.add(5.0, "same instant") == std::nullopt); // the alarm is there already
  CHECK(q.add(4.0, "earlier") == std::optional<double>(4.0));
}

TEST_CASE("an item added with a zero delay while draining comes out in the same drain") {
  DueQueue<std::string> q;
  const auto out = run(q, q.add(1.0, "compute"),
                       [](DueQueue<std::string>& queue, const std::string& item, double now) {
                         if (item == "compute") {
                           CHECK(queue.add(now, "zero-length optimizer") ==
                                 std::nullopt); // no alarm while draining
                           queue.add(now + 1.0, "next");
                         }
                       });
  const std::vector<std::pair<std::string, double>> expected{
      {"compute", 1.0}, {"zero-length optimizer", 1.0}, {"next", 2.0}};
  CHECK(out == expected);
}

TEST_CASE("after a drain the alarm goes to the earliest item, also one added before the drain") {
  // "flow b" waits from before the drain and is due before what the drain adds: the alarm
  // must ring for it, not at the first instant added while draining.
  DueQueue<std::string> q;
  std::optional<double> alarm = q.add(1.0, "flow a");
  q.add(1.5, "flow b");
  const auto out =
      run(q, alarm, [](DueQueue<std::string>& queue, const std::string& item, double now) {
        if (item == "flow a")
          queue.add(now + 5.0, "copy after a");
      });
  const std::vector<std::pair<std::string, double>> expected{
      {"flow a", 1.0}, {"flow b", 1.5}, {"copy after a", 6.0}};
  CHECK(out == expected);
}

TEST_CASE("a drain before anything is due hands out nothing and keeps the alarm") {
  DueQueue<std::string> q;
  q.add(2.0, "x");
  int handed = 0;
  CHECK(q.drain(1.0, [&](const std::string&) { ++handed; }) == std::optional<double>(2.0));
  CHECK(handed == 0);
  CHECK(q.drain(2.0, [&](const std::string&) { ++handed; }) == std::nullopt);
  CHECK(handed == 1);
}
