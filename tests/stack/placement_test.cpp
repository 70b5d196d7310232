// Variable placement on parameter servers, as TensorFlow's device setters do it.
#include "stack/placement.hpp"

#include <doctest/doctest.h>

using namespace ceiling::stack;

TEST_CASE("the greedy placement puts each variable on the least-loaded server, ties to the first") {
  // Expectation (GreedyLoadBalancingStrategy): loads [0,0] -> 4 on 0: [4,0]; 1 on 1: [4,1];
  // 1 on 1: [4,2]; 1 on 1: [4,3]; 3 on 1 (3 < 4): [4,6].
  CHECK(place_variables({4, 1, 1, 1, 3}, 2, Placement::Greedy) == std::vector<int>{0, 1, 1, 1, 1});
  // The largest variable alone makes its server the hottest, whatever comes after.
  CHECK(place_variables({100, 1, 1, 1}, 4, Placement::Greedy) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("the round-robin placement deals variables out in creation order") {
  CHECK(place_variables({4, 1, 1, 1, 3}, 2, Placement::RoundRobin) == std::vector<int>{0, 1, 0, 1, 0});
  CHECK(place_variables({1, 1, 1}, 1, Placement::RoundRobin) == std::vector<int>{0, 0, 0});
}

TEST_CASE("placement names read back") {
  for (Placement p : {Placement::Even, Placement::Greedy, Placement::RoundRobin})
    CHECK(placement_from_string(to_string(p)) == p);
  CHECK_FALSE(placement_from_string("random").has_value());
}
