// Runs one of the replay's sharing models (SharedLink, FlowSharing) to its end, for tests.
#pragma once

#include <doctest/doctest.h>

#include <utility>
#include <vector>

namespace ceiling::testing {

/// Runs `model` event by event until nothing is in flight; returns each token that finished
/// with its time, in the order they finished. Each event must move the clock or finish
/// something: a model that stalls fails instead of looping.
template <class Model> std::vector<std::pair<void*, double>> drain(Model& model) {
  std::vector<std::pair<void*, double>> done;
  std::vector<void*> finished;
  double last = -1;
  for (int events = 0; model.in_flight() > 0; ++events) {
    REQUIRE(events < 1000);
    const double t = model.next_event_s();
    finished.clear();
    model.advance(t, finished);
    REQUIRE((t > last || !finished.empty()));
    last = t;
    for (void* token : finished)
      done.emplace_back(token, t);
  }
  return done;
}

} // namespace ceiling::testing
