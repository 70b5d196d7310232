// SharedLink against the closed forms of equal sharing after a latency.
#include "replay/shared_link.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <vector>

using ceiling::replay::SharedLink;

namespace {

/// Runs `link` event by event until it is idle; returns when each token finished.
std::vector<std::pair<void*, double>> drain(SharedLink& link) {
  std::vector<std::pair<void*, double>> done;
  std::vector<void*> finished;
  for (double t = link.next_event_s(); link.in_flight() > 0; t = link.next_event_s()) {
    finished.clear();
    link.advance(t, finished);
    for (void* token : finished)
      done.emplace_back(token, t);
  }
  return done;
}

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
