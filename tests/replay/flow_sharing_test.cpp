// FlowSharing against the closed forms of CM02's weighted max-min sharing after a latency.
#include "replay/flow_sharing.hpp"

#include "support/drain.hpp"
#include "support/relative.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

using ceiling::replay::FlowSharing;
using ceiling::testing::relative;

namespace {

/// When each of `tokens` finished, in their order.
std::vector<double> ends_in_order(const std::map<void*, double>& done, std::vector<int>& tokens) {
  std::vector<double> ends;
  for (int& token : tokens)
    ends.push_back(done.at(&token));
  return ends;
}

/// Runs `ends(clock_from, work)` (the flows' ends, the sharing's work) by the solver alone and
/// with fans on level clocks from solves of 16 flows; checks that every flow ends on clocks where
/// the solver alone ends it (within 1e-12); the two runs' work.
template <class Ends> std::pair<ceiling::replay::SharingWork, ceiling::replay::SharingWork> against_solver(Ends ends) {
  ceiling::replay::SharingWork solver, clocked;
  const std::vector<double> by_solver = ends(0, solver);
  const std::vector<double> on_clocks = ends(16, clocked);
  REQUIRE(by_solver.size() == on_clocks.size());
  for (std::size_t i = 0; i < by_solver.size(); ++i) {
    CAPTURE(i);
    CHECK(on_clocks[i] == relative(by_solver[i], 1e-12));
  }
  return {solver, clocked};
}

/// When each flow of `net` finishes, run to its end.
std::map<void*, double> drain(FlowSharing& net) {
  const auto done = ceiling::testing::drain(net);
  return {done.begin(), done.end()};
}

/// When each flow of `net` finishes, run to its end, `starting(t)` asked before each event due at
/// `t`: it may start flows, and gives the instant to advance to (`t`, or the earlier one at which
/// it starts them).
template <class Starting> std::map<void*, double> drain_starting(FlowSharing& net, Starting starting) {
  std::map<void*, double> done;
  std::vector<void*> finished;
  double last = -1;
  for (int events = 0; net.in_flight() > 0; ++events) {
    REQUIRE(events < 10000);
    const double due_s = net.next_event_s();
    REQUIRE(due_s < 1e3); // (a flow left without a rate has no end)
    const double t = starting(due_s);
    finished.clear();
    net.advance(t, finished);
    REQUIRE((t > last || !finished.empty())); // (each event moves the clock or ends a flow)
    last = t;
    for (void* token : finished)
      done.emplace(token, t);
  }
  return done;
}

/// What a test knows of the flows it starts on `net` (factors 1): each link's bandwidth, each
/// flow's links and weight (one over its latency), so that the rates `net` gives at an event can
/// be held to the weighted max-min allocation of the flows sharing then, computed here by
/// progressive filling: every flow not fixed yet sends its weight times a rising level, the link
/// that fills first fixes its flows at that level, and so on.
class MaxMinAudit {
public:
  explicit MaxMinAudit(FlowSharing& net) : net_(net) {}

  std::uint32_t add_link(double bytes_per_s) {
    bandwidths_.push_back(bytes_per_s);
    return net_.add_link(bytes_per_s);
  }

  void start(double now_s, const std::vector<std::uint32_t>& links, double latency_s, double bytes,
             void* token) {
    routes_[token] = {links, 1 / latency_s};
    net_.start(now_s, net_.add_path(links, latency_s), bytes, token);
  }

  /// Runs `net` to its end as drain_starting() does, the rates since the last event checked before
  /// each event; `starting(t)` may start flows (through start()) and gives the instant.
  template <class Starting> std::map<void*, double> drain(Starting starting) {
    return drain_starting(net_, [&](double t) {
      check();
      return starting(t);
    });
  }
  std::map<void*, double> drain() {
    return drain([](double t) { return t; });
  }

  /// The rates `net` gives now against the allocation; worst() keeps the largest relative
  /// difference over the calls (infinite where a rate is not a number or the filling stalls),
  /// compared() counts the flows compared.
  void check() {
    const auto rates = net_.sharing_rates();
    std::vector<double> remaining = bandwidths_, usage(bandwidths_.size(), 0.0);
    std::vector<int> unfixed(bandwidths_.size(), 0);
    std::vector<double> value(rates.size(), -1.0);
    for (const auto& [token, rate] : rates)
      for (std::uint32_t l : routes_.at(token).links) {
        usage[l] += routes_.at(token).weight;
        ++unfixed[l];
      }
    for (std::size_t fixed = 0; fixed < rates.size();) {
      double level = std::numeric_limits<double>::infinity();
      for (std::size_t l = 0; l < usage.size(); ++l)
        if (unfixed[l] > 0)
          level = std::min(level, remaining[l] / usage[l]);
      std::vector<std::size_t> fixing; // the flows on a link that fills at this level
      for (std::size_t i = 0; i < rates.size(); ++i)
        if (value[i] < 0)
          for (std::uint32_t l : routes_.at(rates[i].first).links)
            if (remaining[l] / usage[l] <= level * (1 + 1e-12)) {
              fixing.push_back(i);
              break;
            }
      if (fixing.empty()) { // (no link fills: cannot happen with every level positive)
        worst_ = std::numeric_limits<double>::infinity();
        return;
      }
      for (std::size_t i : fixing) {
        const Route& route = routes_.at(rates[i].first);
        value[i] = level * route.weight;
        for (std::uint32_t l : route.links) {
          remaining[l] -= value[i];
          usage[l] -= route.weight;
          --unfixed[l];
        }
      }
      fixed += fixing.size();
    }
    for (std::size_t i = 0; i < rates.size(); ++i) {
      const double off = std::abs(rates[i].second - value[i]) / value[i];
      if (!(off <= worst_))
        worst_ = std::isnan(off) ? std::numeric_limits<double>::infinity() : off;
    }
    compared_ += static_cast<long long>(rates.size());
  }

  double worst() const { return worst_; }
  long long compared() const { return compared_; }

private:
  struct Route {
    std::vector<std::uint32_t> links;
    double weight;
  };
  FlowSharing& net_;
  std::vector<double> bandwidths_;
  std::map<void*, Route> routes_;
  double worst_ = 0;
  long long compared_ = 0;
};

int a = 0, b = 0, c = 0; // tokens

/// A flow of `bytes` over `links` (link ids, numbered from 0 in the order added).
struct FlowOver {
  std::vector<std::uint32_t> links;
  double bytes;
};

/// When each of `flows` finishes, all started at 0 with a latency of 1 us on links of
/// `bandwidths` (bytes per second, link i the i-th); what sharing them out cost in `work`.
std::vector<double> ends_of(const std::vector<double>& bandwidths, const std::vector<FlowOver>& flows,
                            ceiling::replay::SharingWork* work = nullptr) {
  FlowSharing net(1.0, 1.0);
  for (double bytes_per_s : bandwidths)
    net.add_link(bytes_per_s);
  std::vector<int> tokens(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i)
    net.start(0, net.add_path(flows[i].links, 1e-6), flows[i].bytes, &tokens[i]);
  const auto ends = ends_in_order(drain(net), tokens);
  if (work)
    *work = net.work();
  return ends;
}

/// 300 flows (latency 1 us) through one 300 GB/s link, flow k carrying k GB: each remaining flow
/// gets 300 GB/s over their number, so between the (k-1)th end and the kth each of the 301 - k
/// left sends 1 GB in (301 - k) / 300 s.
void check_fan_of_300(const std::map<void*, double>& done, std::vector<int>& tokens) {
  double ends = 1e-6;
  for (int k = 1; k <= 300; ++k) {
    CAPTURE(k);
    ends += (301.0 - k) / 300;
    CHECK(done.at(&tokens[k - 1]) == relative(ends, 1e-12));
  }
}

} // namespace

TEST_CASE("a flow alone pays its latency, then sends at its narrowest link's bandwidth") {
  FlowSharing net(1.0, 1.0);
  const auto fast = net.add_link(10e9);
  const auto slow = net.add_link(5e9);
  const std::vector<std::uint32_t> links{fast, slow};
  const auto path = net.add_path(links, 2e-6);
  net.start(1.0, path, 1e9, &a);
  const auto done = drain(net);
  CHECK(done.at(&a) == relative(1.0 + 2e-6 + 1e9 / 5e9, 1e-15));
}

TEST_CASE("a flow that starts sharing at once after a look at a later latency end comes first") {
  // A waits 1 s of latency; the owner looks at the next event (A's latency end, 1 s), then starts
  // B at 0 sharing at once (start_sending). Expectation: B's start is the next event, at 0; B has
  // the 1 GB/s link to itself for 1 s, so both events fall at 1 s: B ends, A starts sharing and
  // ends 1 s later.
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> link{net.add_link(1e9)};
  net.start(0, net.add_path(link, 1.0), 1e9, &a);
  REQUIRE(net.next_event_s() == 1.0);
  net.start_sending(0, net.add_path(link, 0.5), 1e9, &b);
  CHECK(net.next_event_s() == 0);
  const auto done = drain(net);
  CHECK(done.at(&b) == relative(1.0, 1e-15));
  CHECK(done.at(&a) == relative(2.0, 1e-15));
}

TEST_CASE("flows that end at one instant come out in the order they started, whatever ids they were given") {
  // No latency (factor 0), 1 B/s links, whole bytes: exact times. K1 (1 B) ends at 1, freeing
  // the id G then takes; K0 (2 B) ends at 2, freeing the lower id H then takes. G (3 B, started
  // at 1) and H (2 B, started at 2) both end at 4: G first, as it started first.
  FlowSharing net(1.0, 0.0);
  std::vector<std::uint32_t> paths;
  for (int i = 0; i < 4; ++i) {
    const std::vector<std::uint32_t> link{net.add_link(1.0)};
    paths.push_back(net.add_path(link, 0.0));
  }
  int k0 = 0, k1 = 0, g = 0, h = 0;
  net.start(0, paths[0], 2, &k0);
  net.start(0, paths[1], 1, &k1);
  std::vector<std::pair<void*, double>> ended;
  while (net.in_flight() > 0) {
    const double now_s = net.next_event_s();
    std::vector<void*> finished;
    net.advance(now_s, finished);
    for (void* token : finished) {
      ended.emplace_back(token, now_s);
      if (token == &k1)
        net.start(now_s, paths[2], 3, &g);
      if (token == &k0)
        net.start(now_s, paths[3], 2, &h);
    }
  }
  const std::vector<std::pair<void*, double>> expected{{&k1, 1.0}, {&k0, 2.0}, {&g, 4.0}, {&h, 4.0}};
  CHECK(ended == expected);
}

TEST_CASE("the latency and bandwidth factors scale the latency and every rate") {
  FlowSharing net(0.8, 2.5);
  const std::vector<std::uint32_t> links{net.add_link(10e9)};
  net.start(0, net.add_path(links, 2e-6), 1e9, &a);
  CHECK(drain(net).at(&a) == relative(2.5 * 2e-6 + 1e9 / (0.8 * 10e9), 1e-15));
}

TEST_CASE("flows of equal latency on one link share it equally, the last speeds up as others end") {
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> links{net.add_link(10e9)};
  const auto path = net.add_path(links, 1e-6);
  net.start(0, path, 1e9, &a);
  net.start(0, path, 1e9, &b);
  net.start(0, path, 3e9, &c);
  const auto done = drain(net);
  // Expectation: three at 10/3 GB/s until a and b end after 3 x 1 GB at 10 GB/s (0.3 s), then
  // c alone with its last 2 GB at 10 GB/s.
  CHECK(done.at(&a) == relative(1e-6 + 0.3, 1e-12));
  CHECK(done.at(&b) == relative(1e-6 + 0.3, 1e-12));
  CHECK(done.at(&c) == relative(1e-6 + 0.3 + 0.2, 1e-12));
}

TEST_CASE("flows on paths of more hops than a flow keeps in its own record share and leave their "
          "links as shorter ones do") {
  // Four flows of 1, 2, 3 and 4 GB, each over 16 links: 14 of its own (100 GB/s) and two
  // 10 GB/s links all four cross, at hops 12 and 14 (past the 12 hops a flow's record holds).
  // Expectation: 2.5 GB/s each until the 1 GB flow ends (0.4 s), then 10/3 GB/s until the 2 GB
  // flow's last GB is sent (0.3 s more), then 5 GB/s for the 3 GB flow's last GB (0.2 s), then
  // the 4 GB flow alone with its last GB at 10 GB/s (0.1 s); each after the 1 us latency.
  // The flows started first leave first, each moving the last one on each shared link into
  // its place, as one by one they always do.
  std::vector<double> bandwidths{10e9, 10e9};
  std::vector<FlowOver> flows;
  for (int k = 1; k <= 4; ++k) {
    FlowOver f{{}, k * 1e9};
    for (int hop = 0; hop < 16; ++hop) {
      if (hop == 12 || hop == 14) {
        f.links.push_back(hop == 12 ? 0 : 1);
        continue;
      }
      f.links.push_back(static_cast<std::uint32_t>(bandwidths.size()));
      bandwidths.push_back(100e9);
    }
    flows.push_back(f);
  }
  const auto ends = ends_of(bandwidths, flows);
  const std::vector<double> expected{0.4, 0.7, 0.9, 1.0};
  for (std::size_t k = 0; k < ends.size(); ++k) {
    CAPTURE(k);
    CHECK(ends[k] == relative(1e-6 + expected[k], 1e-12));
  }
}

TEST_CASE("a flow that starts sharing a link at the instant a fan of flows all end on it has it to itself") {
  // 100 flows of 10 MB, each over a 20 GB/s link of its own and one 10 GB/s link they share,
  // end together at 0.1 s + 1 us, the instant c's latency ends (started at 0.1 s, 2 GB, on the
  // shared link); d (0.5 GB) starts at 0.2 s. Expectation: c alone at 10 GB/s until d shares
  // from 0.2 s + 1 us, c having 1 GB left; 5 GB/s each until d ends 0.1 s later; then c alone
  // with its last 0.5 GB at 10 GB/s.
  FlowSharing net(1.0, 1.0);
  const std::uint32_t shared = net.add_link(10e9);
  const auto path = net.add_path(std::vector<std::uint32_t>{shared}, 1e-6);
  constexpr int fan = 100; // more than FlowSharing takes off their links one by one
  std::vector<int> tokens(fan);
  for (int& token : tokens)
    net.start(0, net.add_path(std::vector<std::uint32_t>{net.add_link(20e9), shared}, 1e-6), 10e6, &token);
  std::vector<void*> finished;
  net.advance(net.next_event_s(), finished); // the fan's latencies end
  net.advance(0.1, finished);
  int d = 0;
  net.start(0.1, path, 2e9, &c);
  net.advance(0.1 + 1e-6, finished); // the fan ends, c starts sharing
  CHECK(finished.size() == fan);
  net.advance(0.2, finished);
  net.start(0.2, path, 0.5e9, &d);
  const auto done = drain(net);
  CHECK(done.at(&d) == relative(0.3 + 1e-6, 1e-12));
  CHECK(done.at(&c) == relative(0.35 + 1e-6, 1e-12));
}

TEST_CASE("a flow's weight on a shared link is one over its latency, as CM02 gives it") {
  // Flows from two access links (latencies 1 us and 3 us) into one 10 GB/s link; the access
  // links are faster, so the shared link is the bottleneck.
  FlowSharing net(1.0, 1.0);
  const auto near = net.add_link(100e9);
  const auto far = net.add_link(100e9);
  const auto shared = net.add_link(10e9);
  const std::vector<std::uint32_t> near_links{near, shared}, far_links{far, shared};
  const double la = 1e-6, lb = 3e-6;
  net.start(0, net.add_path(near_links, la), 2e9, &a);
  net.start(0, net.add_path(far_links, lb), 2e9, &b);
  const auto done = drain(net);
  // Expectation: a alone at 10 GB/s from la to lb; then weights 1/la : 1/lb = 3 : 1, so a at
  // 7.5 GB/s and b at 2.5 GB/s until a ends; then b alone at 10 GB/s.
  const double a_left_at_lb = 2e9 - 10e9 * (lb - la);
  const double a_ends = lb + a_left_at_lb / 7.5e9;
  const double b_left = 2e9 - 2.5e9 * (a_ends - lb);
  CHECK(done.at(&a) == relative(a_ends, 1e-12));
  CHECK(done.at(&b) == relative(a_ends + b_left / 10e9, 1e-12));
}

TEST_CASE("max-min fairness: a flow held back by one link leaves the rest of another to the others") {
  // The parking lot: flow a crosses links 1 (10 GB/s) and 2 (30 GB/s), b only link 1, c only
  // link 2. Expectation: link 1 saturates first at 5 GB/s each for a and b; c takes the
  // 25 GB/s link 2 has left. All latencies equal (1 us).
  FlowSharing net(1.0, 1.0);
  const auto one = net.add_link(10e9);
  const auto two = net.add_link(30e9);
  const std::vector<std::uint32_t> both{one, two}, first{one}, second{two};
  net.start(0, net.add_path(both, 1e-6), 5e9, &a);
  net.start(0, net.add_path(first, 1e-6), 10e9, &b);
  net.start(0, net.add_path(second, 1e-6), 25e9, &c);
  const auto done = drain(net);
  // a and c end at 1 s (5 GB at 5 GB/s, 25 GB at 25 GB/s); b has 5 GB left, alone at 10 GB/s.
  CHECK(done.at(&a) == relative(1e-6 + 1.0, 1e-12));
  CHECK(done.at(&c) == relative(1e-6 + 1.0, 1e-12));
  CHECK(done.at(&b) == relative(1e-6 + 1.5, 1e-12));
}

TEST_CASE("a pipeline moves at one pace: a link that two of its edges cross carries its rate twice") {
  // A pipeline of three edges, latencies 1, 2 and 3 us: edges x and y both cross link 0
  // (10 GB/s), edge z crosses link 1 (10 GB/s) alone; flow b crosses link 0 beside it.
  // Expectation: the pipeline waits its slowest edge's 3 us, then on link 0 weighs 2 x 1/3us
  // against b's 1/1us: the level 10 GB/s / (2/3 + 1) per us of penalty, the pipeline at
  // level / 3 us = 2 GB/s (taking 4 of link 0's 10), b at level / 1 us = 6 GB/s. Once b's 3 GB
  // are done, the pipeline alone takes half of link 0 (5 GB/s; link 1 would give it 10).
  FlowSharing net(1.0, 1.0);
  const auto shared = net.add_link(10e9);
  const auto own = net.add_link(10e9);
  const std::vector<std::uint32_t> on_shared{shared}, on_own{own};
  const std::vector<std::uint32_t> edges{net.add_path(on_shared, 1e-6), net.add_path(on_shared, 2e-6),
                                         net.add_path(on_own, 3e-6)};
  net.start(0, net.add_pipeline(edges), 4e9, &a);
  net.start(0, net.add_path(on_shared, 1e-6), 3e9, &b);
  const auto done = drain(net);
  const double b_ends = 3e-6 + (3e9 - 10e9 * 2e-6) / 6e9; // b alone at 10 GB/s from 1 us to 3 us
  const double pipeline_left = 4e9 - 2e9 * (b_ends - 3e-6);
  CHECK(done.at(&b) == relative(b_ends, 1e-12));
  CHECK(done.at(&a) == relative(b_ends + pipeline_left / 5e9, 1e-12));
}

TEST_CASE("a pipeline alone runs at its busiest link's bandwidth over the edges crossing it") {
  // Edges over links of 10 GB/s (crossed by 3 edges) and 4 GB/s (crossed by 1): 10/3 is less
  // than 4, so the pipeline streams at 3.33 GB/s after its slowest edge's latency.
  FlowSharing net(1.0, 1.0);
  const auto wide = net.add_link(10e9);
  const auto narrow = net.add_link(4e9);
  const std::vector<std::uint32_t> wide_only{wide}, both{wide, narrow};
  const std::vector<std::uint32_t> edges{net.add_path(wide_only, 1e-6), net.add_path(wide_only, 1e-6),
                                         net.add_path(both, 2e-6)};
  net.start(0, net.add_pipeline(edges), 1e9, &a);
  CHECK(drain(net).at(&a) == relative(2e-6 + 1e9 / (10e9 / 3), 1e-12));
}

TEST_CASE("a path given a sharing penalty weighs as that penalty, its latency still paid") {
  // Flows a (1 us) and b (2 us, given the penalty 1 us) of 5 GB each on one 10 GB/s link: a alone
  // from 1 to 2 us (10 kB), then each 5 GB/s, as equal penalties share (by their latencies, a
  // would take 2/3); a's last byte at 1 s, then b alone for its last 10 kB. Expectation: a at
  // 1 s, b at 1 s + 1 us; the pipeline of b's one edge given the same penalty ends alike.
  for (const bool pipeline : {false, true}) {
    CAPTURE(pipeline);
    FlowSharing net(1.0, 1.0);
    const std::vector<std::uint32_t> link{net.add_link(10e9)};
    const std::vector<std::uint32_t> edge{net.add_path(link, 2e-6)};
    net.start(0, net.add_path(link, 1e-6), 5e9, &a);
    net.start(0, pipeline ? net.add_pipeline(edge, 1e-6) : net.add_path(link, 2e-6, 1e-6), 5e9, &b);
    const auto done = drain(net);
    CHECK(done.at(&a) == relative(1.0, 1e-12));
    CHECK(done.at(&b) == relative(1.0 + 1e-6, 1e-12));
  }
}

TEST_CASE("flows on separate links do not slow each other") {
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> first{net.add_link(10e9)}, second{net.add_link(20e9)};
  net.start(0, net.add_path(first, 1e-6), 1e9, &a);
  net.start(0, net.add_path(second, 1e-6), 1e9, &b);
  const auto done = drain(net);
  CHECK(done.at(&a) == relative(1e-6 + 0.1, 1e-15));
  CHECK(done.at(&b) == relative(1e-6 + 0.05, 1e-15));
}

TEST_CASE("a flow that ends within SimGrid's precision of an event ends at that event") {
  // b would end 0.5 ns after a: SimGrid (surf/precision 1e-9 s) ends both when a does.
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> first{net.add_link(10e9)}, second{net.add_link(10e9)};
  net.start(0, net.add_path(first, 1e-6), 1e9, &a);
  net.start(0, net.add_path(second, 1e-6), 1e9 + 5, &b);
  const auto done = drain(net);
  CHECK(done.at(&a) == done.at(&b));
}

TEST_CASE("a flow whose latency is zero shares from the start with a weight of one") {
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> links{net.add_link(10e9)};
  net.start(0, net.add_path(links, 0), 1e9, &a);
  net.start(0, net.add_path(links, 0), 1e9, &b);
  const auto done = drain(net);
  CHECK(done.at(&a) == relative(0.2, 1e-15));
  CHECK(done.at(&b) == relative(0.2, 1e-15));
}

TEST_CASE("a link that its flows cannot fill limits none, once they can, it shares them out") {
  // Three flows, each behind its own 10 GB/s access link, into one 25 GB/s link (latencies 1 us).
  // Expectation: together they could take 30 GB/s, so the shared link binds: 25/3 GB/s each
  // until a (1 GB) ends at 0.12 s; then b and c could take 20 GB/s of its 25: each runs at its
  // access link's 10 GB/s, the 2 GB left taking 0.2 s.
  FlowSharing net(1.0, 1.0);
  const auto shared = net.add_link(25e9);
  std::vector<std::uint32_t> paths;
  for (int i = 0; i < 3; ++i) {
    const std::vector<std::uint32_t> links{net.add_link(10e9), shared};
    paths.push_back(net.add_path(links, 1e-6));
  }
  net.start(0, paths[0], 1e9, &a);
  net.start(0, paths[1], 3e9, &b);
  net.start(0, paths[2], 3e9, &c);
  const auto done = drain(net);
  CHECK(done.at(&a) == relative(1e-6 + 0.12, 1e-12));
  CHECK(done.at(&b) == relative(1e-6 + 0.32, 1e-12));
  CHECK(done.at(&c) == relative(1e-6 + 0.32, 1e-12));
}

TEST_CASE("flows coupled through a link they cannot fill take, pair by pair, each pair's own link's level") {
  // Forty pairs of flows (1 GB each, latency 1 us): pair i shares its own link of i GB/s, and
  // every flow also crosses one 1,000 GB/s link. Together they could take 1,640 GB/s of it, so
  // it couples them all into one sharing of forty distinct levels (enough rounds for the solver
  // to leave its scan of the links for its heap), yet their shares take 820 GB/s and it binds
  // none. Expectation: pair i at i/2 GB/s each, ending at 1 us + 2/i s.
  FlowSharing net(1.0, 1.0);
  const auto common = net.add_link(1000e9);
  constexpr int pairs = 40;
  std::vector<int> tokens(2 * pairs);
  for (int i = 1; i <= pairs; ++i) {
    const std::vector<std::uint32_t> links{net.add_link(i * 1e9), common};
    const auto path = net.add_path(links, 1e-6);
    net.start(0, path, 1e9, &tokens[2 * (i - 1)]);
    net.start(0, path, 1e9, &tokens[2 * (i - 1) + 1]);
  }
  const auto done = drain(net);
  for (int i = 1; i <= pairs; ++i) {
    CAPTURE(i);
    CHECK(done.at(&tokens[2 * (i - 1)]) == relative(1e-6 + 2.0 / i, 1e-12));
    CHECK(done.at(&tokens[2 * (i - 1) + 1]) == relative(1e-6 + 2.0 / i, 1e-12));
  }
}

TEST_CASE("a flow that started later takes its share once its latency is paid, and the others give it up") {
  // a starts at 0 on one 10 GB/s link; b starts at 0.1 s on the same link; latencies 1 us.
  // Expectation: a alone until b's latency ends (0.1 s + 1 us), then 5 GB/s each.
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> links{net.add_link(10e9)};
  const auto path = net.add_path(links, 1e-6);
  net.start(0, path, 2e9, &a);
  std::vector<void*> finished;
  net.advance(net.next_event_s(), finished); // a's latency ends
  REQUIRE(finished.empty());
  net.advance(0.1, finished);
  net.start(0.1, path, 2e9, &b);
  const auto done = drain(net);
  const double b_shares_at = 0.1 + 1e-6;
  const double a_left = 2e9 - 10e9 * (b_shares_at - 1e-6);
  const double a_ends = b_shares_at + a_left / 5e9;
  CHECK(done.at(&a) == relative(a_ends, 1e-12));
  CHECK(done.at(&b) == relative(a_ends + (2e9 - 5e9 * (a_ends - b_shares_at)) / 10e9, 1e-12));
}

TEST_CASE("a flow that ends re-shares the flows at or above its level, those held lower keep their shares") {
  // Links A (2 GB/s: p, q), B (12 GB/s: q, r, s) and C (9 GB/s: r, t), latencies 1 us. Max-min:
  // A saturates first, p and q at 1 GB/s; then C, r and t at 4.5; s takes B's 6.5 left.
  // Expectation: t (4.5 GB) ends at 1 s; r, alone on C, and s share B's 11 GB/s at 5.5 each,
  // while p and q, held by A below t's level, keep 1 GB/s. r (7.25 GB) ends at 1.5 s; s takes
  // B's 11 (12 GB, ending at 1.75 s); p and q (2 GB each) end at 2 s.
  enum : std::uint32_t { A, B, C };
  enum { p, q, r, s, t };
  const auto ends = ends_of({2e9, 12e9, 9e9},
                            {{{A}, 2e9}, {{A, B}, 2e9}, {{B, C}, 7.25e9}, {{B}, 12e9}, {{C}, 4.5e9}});
  CHECK(ends[t] == relative(1e-6 + 1.0, 1e-12));
  CHECK(ends[r] == relative(1e-6 + 1.5, 1e-12));
  CHECK(ends[s] == relative(1e-6 + 1.75, 1e-12));
  CHECK(ends[p] == relative(1e-6 + 2.0, 1e-12));
  CHECK(ends[q] == relative(1e-6 + 2.0, 1e-12));
}

TEST_CASE("a flow that starts sharing re-shares the flows at or above the level its links fill at, those held lower keep their shares") {
  // Links A (2 GB/s: p, q), B (20 GB/s: q, u, s) and C (16 GB/s: u, v), latencies 1 us. Max-min:
  // p and q at 1 GB/s (A), then u and v at 8 (C), s at the 11 B has left. At 0.1 s, t starts on
  // B. Expectation: after A, B now fills before C, at 19/3 GB/s for u, s and t (q held by A at
  // 1, below that level, keeps its share); v takes C's 29/3 left. t (19/6 GB) ends 0.5 s after its
  // latency, and the first sharing returns: s (11 GB/s) ends 0.1 s later, u (8) 0.2 s later,
  // then v alone on C (16) 0.3 s later; p and q (2 GB each) end at 2 s.
  FlowSharing net(1.0, 1.0);
  const auto link_a = net.add_link(2e9);
  const auto link_b = net.add_link(20e9);
  const auto link_c = net.add_link(16e9);
  int p = 0, q = 0, s = 0, t = 0, u = 0, v = 0;
  const std::vector<std::uint32_t> p_links{link_a}, q_links{link_a, link_b}, s_links{link_b},
      u_links{link_b, link_c}, v_links{link_c};
  const double beside_t = 19e9 / 3 * 0.5; // bytes each of u, s and t sends while t shares
  net.start(0, net.add_path(p_links, 1e-6), 2e9, &p);
  net.start(0, net.add_path(q_links, 1e-6), 2e9, &q);
  const auto on_b = net.add_path(s_links, 1e-6);
  net.start(0, on_b, 11e9 * 0.1 + beside_t + 11e9 * 0.1, &s);
  net.start(0, net.add_path(u_links, 1e-6), 8e9 * 0.1 + beside_t + 8e9 * 0.2, &u);
  net.start(0, net.add_path(v_links, 1e-6), 8e9 * 0.1 + 29e9 / 3 * 0.5 + 8e9 * 0.2 + 16e9 * 0.1, &v);
  std::vector<void*> finished;
  net.advance(net.next_event_s(), finished); // the latencies end
  net.advance(0.1, finished);
  REQUIRE(finished.empty());
  net.start(0.1, on_b, beside_t, &t);
  const auto done = drain(net);
  const double t_shares_at = 0.1 + 1e-6;
  CHECK(done.at(&t) == relative(t_shares_at + 0.5, 1e-12));
  CHECK(done.at(&s) == relative(t_shares_at + 0.6, 1e-12));
  CHECK(done.at(&u) == relative(t_shares_at + 0.7, 1e-12));
  CHECK(done.at(&v) == relative(t_shares_at + 0.8, 1e-12));
  CHECK(done.at(&p) == relative(1e-6 + 2.0, 1e-12));
  CHECK(done.at(&q) == relative(1e-6 + 2.0, 1e-12));
}

TEST_CASE("a link that flows held below the floor leave no more than SimGrid's precision of limits none of the others") {
  // SimGrid drops a link once the flows it has fixed leave 1e-5 of it or less. g (latency 1 us,
  // weight 1e6) crosses A (0.999995 B/s) and L (1 B/s); h (latency 0, weight 1) crosses L, M
  // (1.7) and B (0.3); F (latency 1 us) crosses M and C (1.5). Once g and F share: g's cap
  // (A) is the least level, L keeps 5e-6 and is dropped, F takes its cap C's 1.5 and h the
  // 0.2 M has left. Expectation: when F (1.5 B) ends at 1 s, h, above F's level, goes past L
  // (which g, below it, still fills) to its cap, B's 0.3; h ends at 2 s, g at 3 s.
  FlowSharing net(1.0, 1.0);
  const auto link_a = net.add_link(0.999995);
  const auto link_l = net.add_link(1.0);
  const auto link_m = net.add_link(1.7);
  const auto link_b = net.add_link(0.3);
  const auto link_c = net.add_link(1.5);
  int g = 0, h = 0, f = 0;
  const std::vector<std::uint32_t> g_links{link_a, link_l}, h_links{link_l, link_m, link_b}, f_links{link_m, link_c};
  net.start(0, net.add_path(g_links, 1e-6), 0.999995 * 3, &g);
  net.start(0, net.add_path(h_links, 0), 0.3e-6 + 0.2 + 0.3, &h); // alone at 0.3 until the others share
  net.start(0, net.add_path(f_links, 1e-6), 1.5, &f);
  const auto done = drain(net);
  CHECK(done.at(&f) == relative(1e-6 + 1.0, 1e-9));
  CHECK(done.at(&h) == relative(1e-6 + 2.0, 1e-9));
  CHECK(done.at(&g) == relative(1e-6 + 3.0, 1e-9));
}

TEST_CASE("a change spreads along a chain of bottlenecks: a flow given more takes from the next, whose own neighbour then gets more") {
  // Links L1 (2 B/s: f, a), L2 (5: a, b) and L3 (10: b, c), latencies 1 us. Max-min: L1 first,
  // f and a at 1; then L2, b at 4; c takes L3's 6 left. Expectation: when f (1 B) ends at 1 s,
  // a, alone on L1, goes to its 2; b falls to L2's 3 left; c rises to L3's 7 left. a (3 B)
  // ends at 2 s; then b and c share L3 at 5 each (L2 alone would give b 5 too): b (12 B) ends
  // at 3 s, c (28 B) alone at 10 B/s at 4 s.
  enum : std::uint32_t { L1, L2, L3 };
  enum { f, a, b, c };
  const auto ends = ends_of({2.0, 5.0, 10.0}, {{{L1}, 1.0}, {{L1, L2}, 3.0}, {{L2, L3}, 12.0}, {{L3}, 28.0}});
  CHECK(ends[f] == relative(1e-6 + 1.0, 1e-12));
  CHECK(ends[a] == relative(1e-6 + 2.0, 1e-12));
  CHECK(ends[b] == relative(1e-6 + 3.0, 1e-12));
  CHECK(ends[c] == relative(1e-6 + 4.0, 1e-12));
}

TEST_CASE("a link left out of a solve as not full still limits a flow that the new shares would push past it") {
  // Links A (10 B/s: f, g), M (8: g, h) and B (2: h), latencies 1 us. Max-min: h at B's 2,
  // then A at 5 for f and g; M carries 7 of its 8, not full. When f (5 B) ends at 1 s, g alone
  // on A would take 8 (M's bandwidth), but M then carries 10: it limits g to the 6 that h
  // leaves. g (5 + 6 B) ends at 2 s (1.75 s were M forgotten), h (8 B) at 4 s.
  enum : std::uint32_t { A, M, B };
  enum { f, g, h };
  const auto ends = ends_of({10.0, 8.0, 2.0}, {{{A}, 5.0}, {{A, M}, 11.0}, {{M, B}, 8.0}});
  CHECK(ends[f] == relative(1e-6 + 1.0, 1e-12));
  CHECK(ends[g] == relative(1e-6 + 2.0, 1e-12));
  CHECK(ends[h] == relative(1e-6 + 4.0, 1e-12));
}

TEST_CASE("a link left out of a solve as not full joins it when the flows already on it and the new shares fill it") {
  // Links A (10 B/s: f, g), M (8: g, h), B (2: h) and K (14: g, k), latencies 1 us. Max-min: h
  // at B's 2; A at 5 for f and g; k takes K's 9 left. M carries 7 of its 8. When f (5 B) ends
  // at 1 s, K couples g to k, and K alone would give each 7: g's 7 is under M's 8, but with
  // h's 2, M carries 9. So M holds g to 6, and k takes K's 8 left. g (5 + 6 B) ends at 2 s
  // (1.86 s were M forgotten); k (9 + 8 + 14 B) at 3 s, alone on K from 2 s; h (8 B) at 4 s.
  enum : std::uint32_t { A, M, B, K };
  enum { f, g, h, k };
  const auto ends = ends_of({10.0, 8.0, 2.0, 14.0}, {{{A}, 5.0}, {{A, M, K}, 11.0}, {{M, B}, 8.0}, {{K}, 31.0}});
  CHECK(ends[f] == relative(1e-6 + 1.0, 1e-12));
  CHECK(ends[g] == relative(1e-6 + 2.0, 1e-12));
  CHECK(ends[k] == relative(1e-6 + 3.0, 1e-12));
  CHECK(ends[h] == relative(1e-6 + 4.0, 1e-12));
}

TEST_CASE("a flow whose narrowest link is left out of a solve is capped by the links that couple nothing, then held by it") {
  // Links C (12 B/s: g, k, m), S (6: g, h), L (7: g alone) and B (1: h alone), latencies 1 us.
  // Max-min: h at B's 1; C at 4 for g, k and m; S carries 5 of its 6, not full. When k (4 B)
  // ends at 1 s, S is left out of the solve (not full) though it is g's narrowest link, and L,
  // which couples nothing, caps g at 7: C gives g and m 6 each, which fills S past its 6 (with
  // h's 1), so S joins and holds g to 5; m takes C's 7 left. g (4 + 10 B) ends at 3 s, m (4 + 14
  // + 12 B) at 4 s, alone on C from 3 s; h (5 B) at 5 s.
  enum : std::uint32_t { C, S, L, B };
  enum { g, k, m, h };
  const auto ends = ends_of({12.0, 6.0, 7.0, 1.0}, {{{C, S, L}, 14.0}, {{C}, 4.0}, {{C}, 30.0}, {{S, B}, 5.0}});
  CHECK(ends[k] == relative(1e-6 + 1.0, 1e-12));
  CHECK(ends[g] == relative(1e-6 + 3.0, 1e-12));
  CHECK(ends[m] == relative(1e-6 + 4.0, 1e-12));
  CHECK(ends[h] == relative(1e-6 + 5.0, 1e-12));
}

TEST_CASE("the work counts each event's solve and the rounds after it, with the flows and links each solve took") {
  ceiling::replay::SharingWork w;
  SUBCASE("two flows on one link: one solve when they start sharing, one when the first ends") {
    // Flows a (2 B) and b (4 B) on one 10 B/s link, latencies 1 us: at 1 us both start sharing,
    // one solve of two flows on one link (5 B/s each); a ends at 0.4 s, and b, alone, is solved
    // again (one flow, no link coupling it); b's end at 0.6 s leaves nothing to share.
    const auto ends = ends_of({10.0}, {{{0}, 2.0}, {{0}, 4.0}}, &w);
    CHECK(ends[1] == relative(1e-6 + 0.6, 1e-12));
    CHECK(w.events == 2);
    CHECK(w.solves == 2);
    CHECK(w.flows_solved == 3);
    CHECK(w.links_solved == 1);
    CHECK(w.overtaken_rounds + w.unbound_rounds + w.slack_rounds == 0);
    CHECK(w.alone_starts == 0);
  }
  SUBCASE("flows that start sharing on links that couple nothing take their caps without a solve") {
    // a (3 B) over a 10 B/s link and a 3 B/s one, b (2 B) over the first and a 4 B/s one,
    // latencies 1 us: together they cannot fill the first (their narrowest links give 3 + 4 B/s),
    // so at 1 us each takes its narrowest link's bandwidth, one event and no solve; their ends
    // leave nothing to share.
    const auto ends = ends_of({10.0, 4.0, 3.0}, {{{0, 2}, 3.0}, {{0, 1}, 2.0}}, &w);
    CHECK(ends[0] == relative(1e-6 + 1.0, 1e-12));
    CHECK(ends[1] == relative(1e-6 + 0.5, 1e-12));
    CHECK(w.events == 1);
    CHECK(w.solves == 0);
    CHECK(w.alone_starts == 2);
  }
  SUBCASE("a flow that starts alone beside flows that share keeps its cap while they are solved") {
    // a (2 B) and b (4 B) share a 10 B/s link, c (3 B) starts with them on a 3 B/s link of its
    // own, latencies 1 us: at 1 us c takes 3 B/s without a solve and a and b are solved (5 B/s
    // each); a's end at 0.4 s solves b again (alone: 10 B/s), which ends at 0.6 s, c at 1 s.
    const auto ends = ends_of({10.0, 3.0}, {{{0}, 2.0}, {{0}, 4.0}, {{1}, 3.0}}, &w);
    CHECK(ends[0] == relative(1e-6 + 0.4, 1e-12));
    CHECK(ends[1] == relative(1e-6 + 0.6, 1e-12));
    CHECK(ends[2] == relative(1e-6 + 1.0, 1e-12));
    CHECK(w.events == 2);
    CHECK(w.solves == 2);
    CHECK(w.flows_solved == 3);
    CHECK(w.alone_starts == 1);
  }
  SUBCASE("a flow that starts beside one above the level at which their link fills is solved with it at once") {
    // g (1,000 B) alone on a 100 B/s link from 1 us (its cap, no solve); f (1,000 B) joins it at
    // 1 s + 1 us: the link fills at 50 B/s each, below g's 100, so g is solved with f in the one
    // solve of that event (not found overtaken after a solve of f alone). g, 900 B left, ends at
    // 19 s + 1 us, f (100 B left, then alone: 100 B/s) at 20 s + 1 us: 2 solves, of 2 and 1 flows.
    FlowSharing net(1.0, 1.0);
    const std::vector<std::uint32_t> link{net.add_link(100.0)};
    const auto path = net.add_path(link, 1e-6);
    int g = 0, f = 0;
    net.start(0, path, 1000, &g);
    std::vector<void*> finished;
    while (net.next_event_s() < 1)
      net.advance(net.next_event_s(), finished);
    net.advance(1, finished);
    net.start(1, path, 1000, &f);
    const auto done = drain(net);
    CHECK(done.at(&g) == relative(19 + 1e-6, 1e-12));
    CHECK(done.at(&f) == relative(20 + 1e-6, 1e-12));
    w = net.work();
    CHECK(w.solves == 2);
    CHECK(w.flows_solved == 3);
    CHECK(w.overtaken_rounds == 0);
    CHECK(w.alone_starts == 1);
  }
  SUBCASE("a slack link that the new shares fill takes a round") {
    // The flows of "a link left out of a solve as not full still limits a flow that the new
    // shares would push past it": at 1 us one solve; when f ends at 1 s, g is solved with M left
    // out, M is filled and joins: a second solve; when g ends at 2 s, h is held below the floor
    // (an empty solve); h's end at 4 s leaves nothing to share.
    ends_of({10.0, 8.0, 2.0}, {{{0}, 5.0}, {{0, 1}, 11.0}, {{1, 2}, 8.0}}, &w);
    CHECK(w.events == 3);
    CHECK(w.solves == 4);
    CHECK(w.slack_rounds == 1);
  }
  SUBCASE("slack links whose flows could not fill them together are passed unread, the sharing unchanged") {
    // Two servers' links (0, 1: 10 B/s) each carry one flow from each of eight workers, whose
    // links (2 to 9: 15 B/s, worker 8's 18) carry one flow to each server: 20 B/s of demand, so
    // they couple, but the flows' 10/8 B/s each leave them far from full: slack after the first
    // solve. The flows to a server carry k B from worker k (1 to 8); each server's link is shared
    // out as processor sharing: flow k's last byte goes at 10 / (9 - k) B/s after flow k - 1
    // ends, from 1 us; but the last two, worker 8's, would take 10 B/s each, more than its
    // 18 B/s: that slack link fills (a round: the bound above their values, 16, times 2 flows
    // is more than 18, where half that bound would pass it) and they end 1 B at 9 B/s later.
    // Before, the flows' values (10/n B/s for n flows on a server's link, at most 5) keep the
    // bound at 8 or less: workers' links are passed unread (worker 7's, 15 B/s, is read at the
    // last but one stage, 2 x 8 > 15), once a flow alone on link 10 (1,000 B/s, 10 B: its value
    // 1,000 bounds every value until it ends at 0.01 s) has ended.
    std::vector<FlowOver> flows;
    for (std::uint32_t server = 0; server < 2; ++server)
      for (std::uint32_t k = 1; k <= 8; ++k)
        flows.push_back({{server, 1 + k}, static_cast<double>(k)});
    flows.push_back({{10}, 10.0});
    const auto ends = ends_of({10, 10, 15, 15, 15, 15, 15, 15, 15, 18, 1000}, flows, &w);
    double t = 1e-6;
    for (std::uint32_t k = 1; k <= 8; ++k) {
      t += k < 8 ? (9.0 - k) / 10.0 : 1 / 9.0;
      CHECK(ends[k - 1] == relative(t, 1e-12));
      CHECK(ends[8 + k - 1] == relative(t, 1e-12));
    }
    CHECK(ends[16] == relative(1e-6 + 0.01, 1e-12));
    CHECK(w.slack_rounds == 1);
    CHECK(w.slack_passed >= 8);
  }
}

TEST_CASE("a flow whose link is freed by less than SimGrid's precision of it, but much of the flow's own share, takes it") {
  // Links b (1.0001 GB/s: F, A) and a (1.000285 GB/s: A, D, then E); latencies F and D 10 ms
  // (weight 100), A 1 us (weight 1e6), E 5 ms (weight 200). b fixes F and A at level 1000:
  // F at 1e5 B/s, A at 1e9; D takes a's 2.85e5 left. E starts at 0.1 s. Expectation: from
  // 0.105 s a fixes A, D and E at its level, a / (1e6 + 300), and F takes what A leaves of b,
  // about 115 kB/s: b's 15 kB/s more (1.5e-5 of b) is 15 % of F's share.
  FlowSharing net(1.0, 1.0);
  const auto link_b = net.add_link(1.0001e9);
  const auto link_a = net.add_link(1.000285e9);
  int F = 0, A = 0, D = 0, E = 0;
  const std::vector<std::uint32_t> f_links{link_b}, a_links{link_a, link_b}, d_links{link_a}, e_links{link_a};
  net.start(0, net.add_path(f_links, 0.01), 20000, &F);
  net.start(0, net.add_path(a_links, 1e-6), 1e12, &A);
  net.start(0, net.add_path(d_links, 0.01), 1e12, &D);
  std::vector<void*> finished;
  while (net.next_event_s() < 0.1)
    net.advance(net.next_event_s(), finished);
  net.advance(0.1, finished);
  REQUIRE(finished.empty());
  net.start(0.1, net.add_path(e_links, 0.005), 1e12, &E);
  const double a_takes = 1.000285e9 / (1e6 + 100 + 200) * 1e6;
  const double f_rate = 1.0001e9 - a_takes;
  const auto done = drain(net);
  // F: 1e5 B/s from 0.01 s to 0.105 s (9,500 B), then its last 10,500 B at f_rate.
  CHECK(f_rate == relative(114995.5, 1e-6));
  CHECK(done.at(&F) == relative(0.105 + 10500 / f_rate, 1e-9));
}

TEST_CASE("a fan of more than 256 flows through one link shares it as a few flows do") {
  // 300 flows (latency 1 us) through one 300 GB/s link, flow k carrying k GB (check_fan_of_300).
  FlowSharing net(1.0, 1.0);
  const std::vector<std::uint32_t> links{net.add_link(300e9)};
  const auto path = net.add_path(links, 1e-6);
  constexpr int fan = 300;
  std::vector<int> tokens(fan);
  for (int k = 1; k <= fan; ++k)
    net.start(0, path, k * 1e9, &tokens[k - 1]);
  check_fan_of_300(drain(net), tokens);
}

TEST_CASE("a fan of flows that overtakes a flow on a link it shares below the floor leaves that flow's bottleneck to it") {
  // Links b (1 GB/s: F, X), d (1.5 GB/s: X, Y, then 300 flows J) and e (1.4999 GB/s: Y);
  // latencies F 1 us (weight 1e6), X 1 s (weight 1), Y and J 1 ms. b fixes F and X at level
  // 1e9 / (1e6 + 1): X at about 1,000 B/s; Y takes its cap, e, leaving d 99 kB/s. At 2 s the
  // 300 flows J start on d (a change of more than 256 flows, below whose floor F and X are).
  // Expectation: d fixes Y and J at its level, and X keeps b's: X (5 kB) ends at
  // 1 s + 5,000 / (1e9 / (1e6 + 1)).
  FlowSharing net(1.0, 1.0);
  const auto link_b = net.add_link(1e9);
  const auto link_d = net.add_link(1.5e9);
  const auto link_e = net.add_link(1.4999e9);
  int F = 0, X = 0, Y = 0;
  const std::vector<std::uint32_t> f_links{link_b}, x_links{link_b, link_d}, y_links{link_d, link_e}, j_links{link_d};
  net.start(0, net.add_path(f_links, 1e-6), 1e12, &F);
  net.start(0, net.add_path(x_links, 1.0), 5000, &X);
  net.start(0, net.add_path(y_links, 1e-3), 1e12, &Y);
  std::vector<void*> finished;
  while (net.next_event_s() < 2)
    net.advance(net.next_event_s(), finished);
  net.advance(2, finished);
  REQUIRE(finished.empty());
  std::vector<int> fan(300);
  const auto j_path = net.add_path(j_links, 1e-3);
  for (int& j : fan)
    net.start(2, j_path, 1e12, &j);
  const auto done = drain(net);
  CHECK(done.at(&X) == relative(1.0 + 5000 / (1e9 / (1e6 + 1)), 1e-9));
}

TEST_CASE("a fan on a level clock ends its flows at the closed form of sharing them flow by flow") {
  // As above, 300 flows through one 300 GB/s link, flow k carrying k GB, each also through a
  // 2 TB/s link of its own; the fan goes on a level clock after its first solve.
  FlowSharing net(1.0, 1.0);
  net.clock_fans_from(2);
  const std::uint32_t server = net.add_link(300e9);
  constexpr int fan = 300;
  std::vector<int> tokens(fan);
  for (int k = 1; k <= fan; ++k) {
    const std::vector<std::uint32_t> links{net.add_link(2e12), server};
    net.start(0, net.add_path(links, 1e-6), k * 1e9, &tokens[k - 1]);
  }
  check_fan_of_300(drain(net), tokens);
  CHECK(net.work().fan_entries == 1);
  CHECK(net.work().fan_events >= fan - 1);
}

TEST_CASE("fans on level clocks end every flow when the solver alone would, as the shares move and flows come and go") {
  // Four servers' links of 10 GB/s, each fed by 64 workers (own links of 5 GB/s), the flows to
  // servers 0 and 1 also through a 15 GB/s link, which holds them at first (20 GB/s wanted);
  // latencies of 1 to 1.3 us (the flows start sharing at four instants, each weighing by its own
  // latency), bytes spread over a factor of 32. At 0.05 s, 16 workers start flows to a fifth
  // server, a 4 GB/s link added then (the narrowest of their paths, which no flow shares yet:
  // made a clock); at 1 s one worker starts a flow over its own link alone, which no clock holds
  // (the link is made a clock, the worker's flows moved to new classes). As the fans drain, the
  // shares move between the links; every flow must end where the solver alone ends it, and at
  // every event the rates must be the max-min allocation of the flows sharing then.
  const auto ends = [](std::size_t clock_from, ceiling::replay::SharingWork& work) {
    FlowSharing net(1.0, 1.0);
    net.clock_fans_from(clock_from);
    MaxMinAudit audit(net);
    std::vector<std::uint32_t> servers;
    for (int s = 0; s < 4; ++s)
      servers.push_back(audit.add_link(10e9));
    const std::uint32_t middle = audit.add_link(15e9);
    constexpr int workers = 64;
    std::vector<std::uint32_t> own;
    std::vector<int> tokens(4 * workers + 16 + 1);
    for (int w = 0; w < workers; ++w) {
      own.push_back(audit.add_link(5e9));
      for (int s = 0; s < 4; ++s) {
        std::vector<std::uint32_t> links{own[w], servers[s]};
        if (s < 2)
          links.push_back(middle);
        const double latency_s = 1e-6 + 1e-7 * ((w + s) % 4);
        audit.start(0, links, latency_s, 2.5e7 * (1 + (w * 13 + s * 5) % 32), &tokens[w * 4 + s]);
      }
    }
    bool fifth = false, alone = false;
    const auto done = audit.drain([&](double t) {
      if (!fifth && t >= 0.05) {
        t = 0.05;
        fifth = true;
        const std::uint32_t server = audit.add_link(4e9);
        for (int w = 0; w < 16; ++w)
          audit.start(t, {own[w], server}, 1e-6, 5e7, &tokens[4 * workers + w]);
      } else if (!alone && t >= 1.0) {
        t = 1.0;
        alone = true;
        audit.start(t, {own[20]}, 1e-6, 1e8, &tokens.back());
      }
      return t;
    });
    CHECK(audit.compared() > 5000);
    CHECK(audit.worst() <= 1e-9);
    work = net.work();
    return ends_in_order(done, tokens);
  };
  const auto [solver, clocked] = against_solver(ends);
  CHECK(solver.fan_events == 0);
  CHECK(clocked.fan_entries >= 1);
  CHECK(clocked.fan_certifications > 0);
  CHECK(clocked.fan_events >= 16); // (a stay on the clocks, not one event and out)
  CHECK(clocked.fan_clocks_made >= 2); // the fifth server's link, the worker's
  MESSAGE("on clocks: " << clocked.fan_events << " events (and " << clocked.events << " by the solver), "
                        << clocked.fan_entries << " entries, " << clocked.fan_certifications << " certifications, "
                        << clocked.fan_exits << " exits; the solver alone: " << solver.events << " events");
}

TEST_CASE("flows moved to a new clock's class at an event that then leaves the clocks are shared out again, not stopped") {
  // A 10 GB/s server link S holds 64 flows on clocks (each worker's own link 20 GB/s). At 0.01 s,
  // 12 workers each start a flow over their own link alone, their latencies ending together:
  // each own link, which a flow on the clocks crosses, is to become a clock, its flow moved to a
  // new class; past the most links made clocks at one event the flows leave the clocks, the
  // classes made so far without a level. Expectation: every flow ends where the solver alone
  // ends it (before, the moved flows kept no rate and never ended), the rates at every event the
  // max-min allocation.
  const auto ends = [](std::size_t clock_from, ceiling::replay::SharingWork& work) {
    FlowSharing net(1.0, 1.0);
    net.clock_fans_from(clock_from);
    MaxMinAudit audit(net);
    const std::uint32_t server = audit.add_link(10e9);
    constexpr int workers = 64, joining = 12;
    std::vector<std::uint32_t> own;
    std::vector<int> tokens(workers + joining);
    for (int w = 0; w < workers; ++w) {
      own.push_back(audit.add_link(20e9));
      audit.start(0, {own[w], server}, 1e-6 * (1 + w % 3), 1e8 * (1 + w % 4), &tokens[w]);
    }
    bool joined = false;
    const auto done = audit.drain([&](double t) {
      if (!joined && t >= 0.01) {
        t = 0.01;
        joined = true;
        for (int w = 0; w < joining; ++w)
          audit.start(t, {own[w]}, 1e-6, 5e7, &tokens[workers + w]);
      }
      return t;
    });
    CHECK(audit.compared() > 500);
    CHECK(audit.worst() <= 1e-9);
    work = net.work();
    return ends_in_order(done, tokens);
  };
  const auto [solver, clocked] = against_solver(ends);
  CHECK(clocked.fan_entries >= 1);
  CHECK(clocked.fan_clocks_made >= 1); // own links made clocks before the flows left them
  CHECK(clocked.fan_exits >= 1);
  MESSAGE("on clocks: " << clocked.fan_events << " events, " << clocked.fan_entries << " entries, "
                        << clocked.fan_clocks_made << " links made clocks, " << clocked.fan_exits << " exits");
}

TEST_CASE("a link narrower than the clock its flows cross binds them once the clock's other flows end, as the solver has it") {
  // A 10 GB/s link S carries 64 flows; flows 0 and 1 also cross N, 1 GB/s (narrower than S: no
  // clock dominates it), and flows 2 to 9 cross E, 10 GB/s (as wide as S, which every flow on E
  // crosses: dominated). At first S holds every flow at about 0.16 GB/s (N at a third of full).
  // Flows 2 to 63 carry 0.1 to 0.4 GB, 0 and 1 carry 2 GB: once the others end, N holds 0 and 1
  // at 0.5 GB/s each. On clocks, N must come to bind (a certification that fails, N a clock) and
  // every flow end where the solver alone ends it, the rates at every event the max-min allocation.
  const auto ends = [](std::size_t clock_from, ceiling::replay::SharingWork& work) {
    FlowSharing net(1.0, 1.0);
    net.clock_fans_from(clock_from);
    MaxMinAudit audit(net);
    const std::uint32_t s = audit.add_link(10e9), n = audit.add_link(1e9), e = audit.add_link(10e9);
    std::vector<int> tokens(64);
    for (int k = 0; k < 64; ++k) {
      std::vector<std::uint32_t> links{audit.add_link(20e9), s};
      if (k < 2)
        links.push_back(n);
      else if (k < 10)
        links.push_back(e);
      const double bytes = k < 2 ? 2e9 : 1e8 * (1 + k % 4);
      audit.start(0, links, 1e-6 * (1 + k % 3), bytes, &tokens[k]);
    }
    const auto done = audit.drain();
    CHECK(audit.compared() > 400);
    CHECK(audit.worst() <= 1e-9);
    work = net.work();
    return ends_in_order(done, tokens);
  };
  const auto [solver, clocked] = against_solver(ends);
  CHECK(clocked.fan_entries >= 1);
  CHECK(clocked.fan_clocks_made >= 1); // N
  MESSAGE("on clocks: " << clocked.fan_events << " events, " << clocked.fan_entries << " entries, "
                        << clocked.fan_certifications << " certifications, " << clocked.fan_clocks_made
                        << " links made clocks, " << clocked.fan_exits << " exits");
}

TEST_CASE("classes of a fan whose flows have all ended are dropped, and every flow ends when the "
          "solver alone would") {
  // A 10 GB/s server link S and 150 workers, each sending 16 flows over its own 80 MB/s link and
  // S (latency 1 us). S holds every flow at first (4.17 MB/s each: a worker's own link 83 % full,
  // made a clock), so each worker's flows make a class of their own. Worker w's k-th flow carries
  // w + 1 + k / 20 MB: each class loses its flows one by one, the classes empty one after the
  // other, and once the empty ones outnumber the others by 64 they go (the flows of the others
  // renumbered: a flow that ends later must leave its own class's weight); as S frees up, the
  // workers' own links come to hold their flows (5 MB/s each). Every flow must end where the
  // solver alone ends it, the rates at every event the max-min allocation.
  const auto ends = [](std::size_t clock_from, ceiling::replay::SharingWork& work) {
    FlowSharing net(1.0, 1.0);
    net.clock_fans_from(clock_from);
    MaxMinAudit audit(net);
    const std::uint32_t s = audit.add_link(10e9);
    constexpr int workers = 150, per_worker = 16;
    std::vector<int> tokens(workers * per_worker);
    for (int w = 0; w < workers; ++w) {
      const std::uint32_t own = audit.add_link(80e6);
      for (int k = 0; k < per_worker; ++k)
        audit.start(0, {own, s}, 1e-6, 1e6 * (w + 1) + 5e4 * k, &tokens[w * per_worker + k]);
    }
    const auto done = audit.drain();
    CHECK(audit.compared() > 100000);
    CHECK(audit.worst() <= 1e-9);
    work = net.work();
    return ends_in_order(done, tokens);
  };
  const auto [solver, clocked] = against_solver(ends);
  CHECK(clocked.fan_entries >= 1);
  CHECK(clocked.fan_classes_dropped >= 100);
  MESSAGE("on clocks: " << clocked.fan_events << " events, " << clocked.fan_entries << " entries, "
                        << clocked.fan_classes_dropped << " classes dropped, " << clocked.fan_exits
                        << " exits");
}
