// SharedLink against the closed forms of equal sharing after a latency.
#include "replay/shared_link.hpp"

#include "support/drain.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using ceiling::replay::SharedLink;
using ceiling::testing::drain;

namespace {

int a = 0, b = 0, c = 0; // tokens

} // namespace

TEST_CASE("a copy alone takes the latency plus its bytes at the full bandwidth") {
  SharedLink link(10e9, 2e-6);
  link.start(1.0, 20e9, &a);
  const auto done = drain(link);
  REQUIRE(done.size() == 1);
  CHECK(done[0].first == &a);
  CHECK(done[0].second == doctest::Approx(1.0 + 2e-6 + 2.0).epsilon(1e-15));
}

TEST_CASE("copies started together share the bandwidth equally and end together") {
  SharedLink link(10e9, 0);
  link.start(0, 10e9, &a);
  link.start(0, 10e9, &b);
  link.start(0, 10e9, &c);
  const auto done = drain(link);
  REQUIRE(done.size() == 3);
  for (const auto& [token, t] : done)
    CHECK(t == doctest::Approx(3.0).epsilon(1e-15));
  CHECK(done[0].first == &a); // in the order they started
}

TEST_CASE("a copy joining halfway slows the first only once its latency is paid") {
  SharedLink link(10e9, 0.5);
  link.start(0, 30e9, &a); // a shares from 0.5 s: alone until 1.5 s sends 10 GB, 20 GB left
  std::vector<void*> finished;
  link.advance(0.5, finished);
  link.advance(1.0, finished);
  link.start(1.0, 5e9, &b); // b shares from 1.5 s
  const auto done = drain(link);
  REQUIRE(done.size() == 2);
  // From 1.5 s: a has 30 - 10 = 20 GB, b 5 GB, 5 GB/s each: b ends at 2.5 s; a has 15 GB left
  // at 10 GB/s: 1.5 s more, ends at 4.0 s.
  CHECK(done[0].first == &b);
  CHECK(done[0].second == doctest::Approx(2.5).epsilon(1e-15));
  CHECK(done[1].first == &a);
  CHECK(done[1].second == doctest::Approx(4.0).epsilon(1e-15));
}

TEST_CASE("an idle link has no next event") {
  SharedLink link(1e9, 1e-6);
  CHECK(link.next_event_s() == std::numeric_limits<double>::infinity());
  CHECK(link.in_flight() == 0);
}

TEST_CASE("a copy that ends when another's latency ends had the whole bandwidth until then") {
  SharedLink link(10e9, 1.0);
  link.start(0, 10e9, &a); // shares from 1 s, alone: ends at 2 s
  std::vector<void*> finished;
  link.advance(0.5, finished);
  link.start(1.0, 10e9, &b); // shares from 2 s, exactly when a ends
  const auto done = drain(link);
  REQUIRE(done.size() == 2);
  CHECK(done[0].first == &a);
  CHECK(done[0].second == doctest::Approx(2.0).epsilon(1e-15));
  CHECK(done[1].first == &b); // then alone: 1 s more
  CHECK(done[1].second == doctest::Approx(3.0).epsilon(1e-15));
}

TEST_CASE("copies late in a long run end on time, where the clock's steps exceed a picosecond") {
  // Past 2^13 s two doubles are more than 1e-12 s apart: the end computed for a copy may fall
  // just short of it, and the link must still finish the copy rather than wake at the same time,
  // and no earlier than the clock can tell.
  // Closed form, relative to the start: a alone from 0 (no latency), b joins at 1 ms: a has
  // 40 MB left, both at 5 GB/s until a ends at 9 ms; b has 10 MB left, alone: ends at 10 ms.
  for (double start : {0.0, 1e5, 3.3e7, 1e9}) {
    CAPTURE(start);
    SharedLink link(10e9, 0);
    link.start(start, 50e6, &a);
    std::vector<void*> finished;
    for (int events = 0; link.next_event_s() < start + 1e-3; ++events) {
      REQUIRE(events < 10);
      link.advance(link.next_event_s(), finished);
    }
    REQUIRE(finished.empty());
    link.start(start + 1e-3, 50e6, &b);
    const auto done = drain(link);
    REQUIRE(done.size() == 2);
    const double step = start * 2.3e-16; // a few clock steps at this time
    CHECK(std::abs(done[0].second - (start + 9e-3)) <= std::max(step, 1e-15));
    CHECK(std::abs(done[1].second - (start + 10e-3)) <= std::max(step, 1e-15));
  }
}

TEST_CASE("an empty copy ends once its latency is paid") {
  SharedLink link(10e9, 2e-6);
  link.start(5.0, 0, &a);
  const auto done = drain(link);
  REQUIRE(done.size() == 1);
  CHECK(done[0].second == doctest::Approx(5.0 + 2e-6).epsilon(1e-15));
}
