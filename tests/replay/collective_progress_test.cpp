// The rendezvous rule: a flow starts once both its ends are done with the earlier phases.
#include "replay/collective_progress.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace ceiling;
using replay::CollectiveProgress;
using replay::FlowRef;

TEST_CASE("a ring step starts once both ends finished the previous step") {
  const auto plan = collectives::allreduce_steps(collectives::Algorithm::Ring, {3, 1}, 3e6);
  CollectiveProgress progress(plan, 3);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  CHECK(start == std::vector<FlowRef>{{0, 0}, {0, 2}, {0, 1}}); // 0->1, 2->0, 1->2
  CHECK(done.empty());
  start.clear();
  progress.finish({0, 0}, start, done); // 0->1 ends: 0 still receives from 2, 1 still sends
  CHECK(start.empty());
  progress.finish({0, 2}, start, done); // 2->0 ends: rank 0 is through step 0, rank 1 is not
  CHECK(start.empty());
  progress.finish({0, 1}, start, done); // 1->2 ends: everyone is through step 0
  CHECK(start.size() == 3);
  for (const FlowRef& f : start)
    CHECK(f.phase == 1);
}

TEST_CASE("ranks progress at their own pace between disjoint pairs") {
  // Two phases; in phase 0, pairs (0,1) and (2,3) exchange; in phase 1, (0,1) again.
  const std::vector<collectives::Phase> plan{
      {{{0, 1, 1}, {2, 3, 1}}, 1},
      {{{0, 1, 1}}, 1},
  };
  CollectiveProgress progress(plan, 4);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  CHECK(start.size() == 2);
  start.clear();
  progress.finish({0, 0}, start, done); // (0,1) done: their phase-1 flow starts at once
  CHECK(start == std::vector<FlowRef>{{1, 0}});
  progress.finish({0, 1}, start, done); // (2,3) done: nothing left for them
  CHECK(done == std::vector<int>{2, 3});
}

TEST_CASE("an aggregated ring's ranks finish together, when its last edge has delivered") {
  // Aggregated, a ring of 4 is one phase of 2(4 - 1) = 6 merged steps, a flow per edge. Each
  // step a rank forwards what it received in the one before, so no rank is through before every
  // edge is: the ranks leave when the last flow ends, in the flows' order, each end once.
  const auto plan = collectives::allreduce_phases(collectives::Algorithm::Ring, {4, 1}, 4e6);
  REQUIRE(plan.size() == 1);
  REQUIRE(plan[0].steps == 6);
  CollectiveProgress progress(plan, 4);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  REQUIRE(start.size() == 4);
  for (int f : {0, 1, 2}) {
    progress.finish({0, f}, start, done); // ranks 0 and 1 sent and received: not through yet
    CHECK(done.empty());
  }
  progress.finish({0, 3}, start, done);
  std::vector<int> sorted = done;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("merged steps of disjoint pairs still let each pair go at its own pace") {
  // Two pairs exchanging twice, merged (steps 2): each pair is its own ring of two.
  const std::vector<collectives::Phase> plan{{{{0, 1, 1}, {1, 0, 1}, {2, 3, 1}, {3, 2, 1}}, 2}};
  CollectiveProgress progress(plan, 4);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  progress.finish({0, 0}, start, done);
  CHECK(done.empty());
  progress.finish({0, 1}, start, done); // (1's last end comes first: its flow 1 -> 0)
  CHECK(done == std::vector<int>{1, 0});
}

TEST_CASE("a rank without flows is done as soon as the collective starts") {
  const std::vector<collectives::Phase> plan{{{{0, 1, 1}}, 1}};
  CollectiveProgress progress(plan, 3);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  CHECK(done == std::vector<int>{2});
  progress.finish({0, 0}, start, done);
  CHECK(done == std::vector<int>{2, 0, 1});
}

TEST_CASE("ranks joining one by one: a flow starts once both its ends have joined") {
  // A parameter server's push and pull: 1 -> 0 and 2 -> 0, then 0 -> 1 and 0 -> 2.
  const std::vector<collectives::Phase> plan{
      {{{1, 0, 1}, {2, 0, 1}}, 1},
      {{{0, 1, 1}, {0, 2, 1}}, 1},
  };
  CollectiveProgress progress(plan, 3);
  progress.reset();
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.join(1, start, done); // the server has not joined: 1 -> 0 waits
  CHECK(start.empty());
  progress.join(0, start, done); // 1 -> 0 starts; 2 -> 0 waits for rank 2
  CHECK(start == std::vector<FlowRef>{{0, 0}});
  start.clear();
  progress.finish({0, 0}, start, done); // rank 1 is through the push, the server is not
  CHECK(start.empty());
  progress.join(2, start, done);
  CHECK(start == std::vector<FlowRef>{{0, 1}});
  start.clear();
  progress.finish({0, 1}, start, done); // every push is in: both pulls start
  CHECK(start == std::vector<FlowRef>{{1, 0}, {1, 1}});
  progress.finish({1, 0}, start, done);
  progress.finish({1, 1}, start, done);
  CHECK(done == std::vector<int>{1, 0, 2});
}

namespace {

/// One dataflow phase over three ranks: A (0 -> 1); B (0 -> 1) once A has sent; C (1 -> 2) once
/// A has arrived.
std::vector<collectives::Phase> sent_and_arrival_waits() {
  collectives::Phase phase;
  phase.flows = {{0, 1, 1}, {0, 1, 1}, {1, 2, 1}};
  phase.after = {{}, {}, {0}};
  phase.after_sent = {{}, {0}, {}};
  return {phase};
}

} // namespace

TEST_CASE("in a dataflow phase a flow waits for its sender's earlier sends to have sent, the others to arrive") {
  // Expectation: A starts; its bytes out start B, not C; its arrival starts C; a late report that
  // A has sent changes nothing.
  const auto plan = sent_and_arrival_waits();
  CollectiveProgress progress(plan, 3);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  CHECK(start == std::vector<FlowRef>{{0, 0}});
  start.clear();
  progress.sent({0, 0}, start);
  CHECK(start == std::vector<FlowRef>{{0, 1}});
  start.clear();
  progress.finish({0, 0}, start, done);
  CHECK(start == std::vector<FlowRef>{{0, 2}});
  start.clear();
  progress.sent({0, 0}, start);
  CHECK(start.empty());
}

TEST_CASE("a flow that arrives without a report of its bytes sent releases both kinds of wait") {
  // The phase above, A timed by SimGrid (no sent()): its end starts B and C at once.
  const auto plan = sent_and_arrival_waits();
  CollectiveProgress progress(plan, 3);
  std::vector<FlowRef> start;
  std::vector<int> done;
  progress.start(start, done);
  start.clear();
  progress.finish({0, 0}, start, done);
  CHECK(start == std::vector<FlowRef>{{0, 1}, {0, 2}});
}
