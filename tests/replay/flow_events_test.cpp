// FlowEvents: flows' next events, earliest first, each flow holding its place.
#include "replay/flow_events.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <set>
#include <tuple>
#include <vector>

using ceiling::replay::FlowEvents;

namespace {

std::vector<std::uint32_t> flows_due(FlowEvents& events, double now_s) {
  std::vector<FlowEvents::Event> due;
  events.take_due(now_s, 1e-9, due);
  std::vector<std::uint32_t> flows;
  for (const auto& e : due)
    flows.push_back(e.flow);
  return flows;
}

} // namespace

TEST_CASE("events come out by time, those at one instant by flow, each flow once however often it moved") {
  FlowEvents events;
  events.set(3, 2.0);
  events.set(1, 1.0);
  events.set(2, 1.0);
  events.set(1, 3.0); // moved later: flow 1 is due once, at 3
  events.set(0, 0.5);
  CHECK(events.size() == 4);
  CHECK(flows_due(events, 1.0) == std::vector<std::uint32_t>{0, 2});
  CHECK(flows_due(events, 3.0) == std::vector<std::uint32_t>{3, 1});
  CHECK(events.empty());
}

TEST_CASE("events at one instant come out by their tie before their flow") {
  FlowEvents events;
  events.set(0, 1.0, 7);
  events.set(1, 1.0, 5);
  events.set(2, 1.0, 5);
  events.set_unordered(3, 1.0, 6);
  events.restore();
  CHECK(flows_due(events, 1.0) == std::vector<std::uint32_t>{1, 2, 3, 0});
  // A flow set again takes its new tie.
  events.set(0, 2.0, 7);
  events.set(1, 2.0, 8);
  events.set(1, 2.0, 6);
  CHECK(flows_due(events, 2.0) == std::vector<std::uint32_t>{1, 0});
}

TEST_CASE("events within the given time after the present are due now") {
  FlowEvents events;
  events.set(0, 1.0 + 0.5e-9);
  events.set(1, 1.0 + 2e-9);
  CHECK(flows_due(events, 1.0) == std::vector<std::uint32_t>{0});
  CHECK(events.front().flow == 1);
}

TEST_CASE("many events due at once leave in the same order as one by one") {
  // 1,000 flows at 100 instants, set in a scrambled order, some moved unordered and restored.
  FlowEvents events;
  for (std::uint32_t k = 0; k < 1000; ++k) {
    const std::uint32_t flow = (k * 389) % 1000;
    events.set(flow, static_cast<double>(flow % 100));
  }
  for (std::uint32_t flow = 0; flow < 1000; flow += 7)
    events.set_unordered(flow, 50.0 + static_cast<double>(flow % 3));
  events.restore();
  std::vector<FlowEvents::Event> all;
  events.take_due(1000.0, 1e-9, all);
  REQUIRE(all.size() == 1000);
  for (std::size_t i = 1; i < all.size(); ++i)
    CHECK(all[i - 1] < all[i]);
  CHECK(events.empty());
}

TEST_CASE("a fan of events at one instant leaves by tie, whether its ties are a dense run, repeat or spread") {
  // 1,000 flows due at one instant (a parameter server's fan ending together), scrambled; their
  // ties a dense run (placed in one pass), with a repeat, or spread far apart (sorted).
  for (const int ties : {0, 1, 2}) {
    CAPTURE(ties);
    FlowEvents events;
    for (std::uint32_t k = 0; k < 1000; ++k) {
      const std::uint32_t flow = (k * 389) % 1000;
      const std::uint64_t tie = ties == 0 ? 5000 + (flow * 7) % 1000
                                : ties == 1 ? 5998 - (flow * 7) % 999 // flows 0 and 999 share the last
                                            : 1000000 * std::uint64_t{flow % 10} + flow;
      events.set(flow, 3.0, tie);
    }
    std::vector<FlowEvents::Event> all;
    events.take_due(3.0, 1e-9, all);
    REQUIRE(all.size() == 1000);
    for (std::size_t i = 1; i < all.size(); ++i)
      CHECK(all[i - 1] < all[i]);
    CHECK(events.empty());
  }
}

TEST_CASE("any mix of moves, unordered moves rebuilt at once, erasures and pops leaves events in the order of a sorted set") {
  // Against std::set, the events' total order (time, tie, flow): heaps of every size from 0
  // up, each inner node's children all present or some missing, rebuilt by restore() too.
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    FlowEvents events;
    std::set<std::tuple<double, std::uint64_t, std::uint32_t>> expected;
    std::vector<std::optional<std::pair<double, std::uint64_t>>> at(64); // by flow: its event
    const auto drop = [&](std::uint32_t f) {
      if (at[f])
        expected.erase({at[f]->first, at[f]->second, f});
      at[f].reset();
    };
    const int steps = 1 + static_cast<int>(rng() % 120);
    for (int step = 0; step < steps; ++step) {
      const auto f = static_cast<std::uint32_t>(rng() % at.size());
      const double time = static_cast<double>(rng() % 16); // many equal times: ties decide
      const std::uint64_t tie = rng() % 4;
      switch (rng() % 5) {
      case 0:
      case 1:
        drop(f);
        events.set(f, time, tie);
        at[f] = {time, tie};
        expected.insert({time, tie, f});
        break;
      case 2: { // several moved unordered, then restored
        for (int k = 0; k < 1 + static_cast<int>(rng() % 8); ++k) {
          const auto g = static_cast<std::uint32_t>(rng() % at.size());
          const double t = static_cast<double>(rng() % 16);
          drop(g);
          events.set_unordered(g, t, tie);
          at[g] = {t, tie};
          expected.insert({t, tie, g});
        }
        events.restore();
        break;
      }
      case 3:
        if (events.contains(f)) {
          events.erase(f);
          drop(f);
        }
        break;
      default:
        if (!events.empty()) {
          const auto& [t, ti, g] = *expected.begin();
          REQUIRE(events.front().at_s == t);
          REQUIRE(events.front().tie == ti);
          REQUIRE(events.front().flow == g);
          const std::uint32_t popped = g;
          events.pop();
          drop(popped);
        }
      }
      REQUIRE(events.size() == expected.size());
    }
    for (const auto& [t, ti, g] : expected) { // what is left, in order
      REQUIRE(events.front().flow == g);
      REQUIRE(events.front().at_s == t);
      events.pop();
    }
    CHECK(events.empty());
  }
}
