// FlowEvents: flows' next events, earliest first, each flow holding its place.
#include "replay/flow_events.hpp"

#include <doctest/doctest.h>

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
