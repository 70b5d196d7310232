// Flows sharing links as SimGrid's CM02 model shares them, computed by the replay itself.
#pragma once

#include "replay/flow_events.hpp"
#include "replay/free_ids.hpp"
#include "replay/monotone_queue.hpp"
#include "replay/run_heap.hpp"
#include "replay/sharing_work.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace ceiling::replay {

/// The bandwidth sharing of a set of flows over shared links, event by event, as SimGrid
/// 3.32's CM02 network model computes it without cross-traffic or TCP window cap (the
/// replay's closed-form condition), so that the replay can time collective flows that share
/// links without a SimGrid comm each:
/// - a flow first waits its path's latency times the latency factor, sharing nothing (but one
///   started by start_sending());
/// - then it shares: the max-min fair allocation of SimGrid's lmm solver
///   (src/kernel/lmm/maxmin.cpp, v3.32), in which a flow's weight is one over its sharing
///   penalty, the path's latency (1 when the factored latency is 0), or the penalty its path was
///   given (add_path, add_pipeline: 1 when the latency factor is 0): the most loaded link,
///   by remaining bandwidth over summed weights, fixes its flows at that level over their
///   penalty, their bandwidth leaves the other links, and so on. A flow sends at that value
///   times the bandwidth factor;
/// - whenever a flow starts sharing or finishes, the flows whose shares that changes are
///   shared out again, each having sent its former rate since its last update (SimGrid's lazy
///   update, src/kernel/resource/Model.cpp). Flows are coupled through links that can limit
///   them: two or more flows cross the link and their paths' narrowest bandwidths add up to at
///   least its own (a link its flows cannot fill never binds in a max-min allocation). The
///   result is the max-min allocation SimGrid's full update computes (its selective update
///   misses links in one case: README, "How a machine is simulated"). Which flows are solved
///   again, the others keeping their shares:
///   - a flow that starts sharing on links that couple nothing takes its cap, no solve (no other
///     flow's share changes);
///   - those that started, and those on the full links a finished flow left; but not the flows
///     held below a floor, which max-min's filling reaches as it did: the least level among
///     the flows that finished (their links filled at their levels or above) and the least
///     level at which a link of a flow that started can fill;
///   - on a link of a flow that started, whose filling level the floor above computed, the flows
///     at or above it; then on each link (slack ones aside: below) of the flows reached so far,
///     those at or above the level at which it fills with these flows rising and each other flow
///     up to its level, and so on from the flows this adds (while they number at most 256). In
///     the max-min allocation such a link holds no flow below that level lower; the checks
///     after the solve (next) find whatever these leave out. Which flows are solved again can
///     change the last bits of their shares, not the allocation;
///   - then, once these are solved with every other flow's share held, the flows outside whose
///     bottleneck the new shares took away: the link that fixed such a flow is no longer full,
///     the solved flows on it gave up some of it, or one of them is now above the flow's
///     level. And the flows outside that a link now holds above the level at which it fixed
///     the solved flows. These join, all are solved again, and so on until none is left. Each
///     flow then has a bottleneck (a full link where no flow has a higher level, or its cap),
///     which makes the allocation the max-min one (the bottleneck lemma). A pipelined tree's
///     flows end one by one, each changing a few shares among thousands;
///   - once a change reaches more than 256 flows (a parameter server's fan through one NIC),
///     every flow at or above the floor on the full links around them, and on theirs, joins
///     at once;
///   - a link that couples but was not full when last solved, and that no pipeline crosses,
///     is left out of the solve (a slack link: each worker's NIC beside a parameter server's
///     fan), the flows taking it for a cap only where no other link couples them; if the new
///     shares fill it, to within four times SimGrid's precision, it joins and all is solved
///     again. A link the solve never fills binds no flow, so leaving it out changes nothing;
/// - events within SimGrid's surf precision (1e-9 s) of the present happen now, and the
///   solver's precision thresholds (maxmin precision 1e-5) are SimGrid's.
/// Every link is a SHARED link of SimGrid (a split-duplex link counts as its two directions);
/// FATPIPE links are not modelled. Tests hold it to SimGrid (tests/replay/replay_test.cpp)
/// and to closed forms (tests/replay/flow_sharing_test.cpp).
///
/// Fans on level clocks (flow_fans.cpp), where asked (clock_fans_from). Once a solve of that
/// many flows or more leaves every sharing flow held by a link (none by its cap, no pipeline), in
/// few classes of flows crossing the same clock links (the links that hold flows, and those the
/// flows fill to half or more: a parameter server's fans, each server's NIC and thousands of
/// workers' flows), the flows of a class keep one level: each sends at that level over its
/// penalty, and its bytes follow its class's clock (the integral of the level). A change then
/// solves the classes over the clock links, not the flows, and a flow's end is read off its
/// class's clock. This holds while no other link binds and no flow's cap does. A link that a
/// clock of no more bandwidth dominates (every flow on it crosses that clock too) never binds a
/// flow the clock does not. The others are certified: each class's level has a ceiling, its
/// level times the room the links its flows cross leave (at most 8 times; certified only where
/// that room is 1.05 times or more), at most its flows' least cap, and each such link carries at
/// most what its flows would send at their classes' ceilings, short of full by four times
/// SimGrid's precision. Past a ceiling the class is certified again, the others held; where that
/// fails, all are; where that fails, the links the flows fill to half or more become clocks in
/// place (their flows moved to new classes at what they have left to send; at most 16 at once)
/// and all is solved and certified again. A flow that starts on no clock link makes one of its
/// narrowest links a clock, in place. The classes whose flows have all ended go once they
/// outnumber the others by more than 64. Where a cap binds, more than 512 clocks or 2,048
/// classes would be needed, or a pipeline's flow starts, the flows leave their clocks (each at
/// its class's value) and the solver above takes them on (or they go on clocks again at once
/// where their levels still hold). A stay on clocks that costs more passes over every flow than it
/// saves goes back to the solver too, and the next tries wait longer. The same allocation, its
/// sums taken in another order (ends that fall within an ulp may come out in another order).
///
/// It keeps no clock: the owner calls start() and advance() with the simulated time and wakes
/// it at next_event_s().
class FlowSharing {
public:
  FlowSharing(double bandwidth_factor, double latency_factor);

  /// The least solve after which fans may go on level clocks (above); 0: never.
  void clock_fans_from(std::size_t fan_flows) { fan_entry_flows_ = fan_flows; }

  /// A link of `bytes_per_s` (positive); ids count from 0 in the order added.
  std::uint32_t add_link(double bytes_per_s);

  /// The most links a route's path may have (Routes: a longer route, on a large torus, goes
  /// through SimGrid).
  static constexpr std::size_t max_hops = 64;

  /// A path over 1 to max_hops `links` (ids from add_link, each at most once) whose latencies
  /// sum to `latency_s`; ids count from 0 in the order added. Its flows' sharing penalty is
  /// `sharing_penalty_s` (positive) where given, else its latency (a chunk of a pipeline weighs
  /// as its pipeline does: replay/engine.cpp, stream_penalties).
  std::uint32_t add_path(std::span<const std::uint32_t> links, double latency_s,
                         std::optional<double> sharing_penalty_s = std::nullopt);

  /// The path of a pipeline over `edges` (paths from add_path), which FlowSharing shares out as
  /// one flow: every edge streams at one pace, so a link that k of the edges cross carries the
  /// flow's rate k times (in SimGrid's lmm, a variable of consumption weight k on that link's
  /// constraint). Its flow waits the longest edge latency, which is its sharing penalty too, unless
  /// `sharing_penalty_s` is given.
  std::uint32_t add_pipeline(std::span<const std::uint32_t> edges,
                             std::optional<double> sharing_penalty_s = std::nullopt);

  /// Starts a flow of `bytes` over `path` at `now_s` (not before the last call's time);
  /// `token` names it in advance()'s output.
  void start(double now_s, std::uint32_t path, double bytes, void* token) { begin(now_s, path, bytes, token, true); }

  /// Starts a flow as start() does, but whose path latency runs beside its bytes rather than
  /// before them (the caller adds it to the arrival: a send that follows another of its
  /// sender's while the latter's latency runs): it shares at once, with the sharing penalty
  /// start() would give it.
  void start_sending(double now_s, std::uint32_t path, double bytes, void* token) {
    begin(now_s, path, bytes, token, false);
  }

  /// When something next happens: a flow's latency ends or a flow finishes; +infinity when
  /// nothing is in flight.
  double next_event_s() const;

  /// Moves to `now_s` (at most next_event_s() + 1e-9): what is due within 1e-9 s of it
  /// happens, the flows it touches are shared out again, and the flows that finished are
  /// appended to `finished`, by their ends, those of one instant in the order they started.
  void advance(double now_s, std::vector<void*>& finished);

  int in_flight() const { return in_flight_; }

  /// Each flow that shares now (its latency paid, not finished): its token and the rate it sends
  /// at, in bytes per second, until the next event (on clocks, its class's level over its
  /// penalty). For tests that hold the sharing to max-min's definition at every event.
  std::vector<std::pair<void*, double>> sharing_rates() const;

  /// What the sharing has cost so far, for benchmarks (`ceiling run --timing`).
  const SharingWork& work() const { return work_; }

private:
  enum class State : std::uint8_t { Free, Latency, Sharing };

  /// Flows crossing the same clock links (links that held flows when the fans went on clocks),
  /// each sending at the class's level over its penalty.
  struct FanClass {
    std::vector<std::uint32_t> clocks; ///< its clock links, as indices into fan_clocks_, ascending
    /// Its flows by the reading of the class's clock at which each ends (at_s), ties in start
    /// order.
    RunHeap<FlowEvents::Event> members;
    double weight = 0;      ///< its flows' summed weights
    double level = 0;       ///< from the last solve of the classes
    double level_most = 0;  ///< the ceiling its level is certified to (0: not yet; see the class comment)
    double least_cap_level = std::numeric_limits<double>::infinity(); ///< its flows' least cap over weight
    double clock = 0;       ///< the integral of level x bandwidth factor over time, at fans_clocked_s_
    std::uint32_t bound_by = 0; ///< the clock link that fixed it in the last solve
    bool fixed = false;     ///< solve_fans() scratch
    bool uncertified = false; ///< new, past its ceiling, or its flows filled a link at the ceilings
  };
  /// A link that may bind the flows on clocks: one that held flows or that they filled to half or
  /// more when they went on clocks or since, or a joining flow's narrowest.
  struct FanClock {
    std::uint32_t link;
    double bytes_per_s; ///< its link's (kept here: the classes' solve reads it every round)
    std::vector<std::uint32_t> classes; ///< the classes crossing it
    double remaining = 0;   ///< solve_fans() scratch
    double usage = 0;
    bool light = false;
    bool moved = false; ///< solve_fans() scratch: in fan_moved_clocks_
  };

  /// A flow on a link: which flow, and which of its hops the link is.
  struct Member {
    std::uint32_t flow;
    std::uint32_t hop;
  };

  /// A link, on two cache lines of its own: on the first what flows joining and leaving it read
  /// and write (beside coupling_ and leaving_, kept apart for the solve's and advance()'s own
  /// passes; a flow's end is the first touch of each of its links, far apart in memory:
  /// leave_links waited on that miss for three quarters of its time, halving-doubling on the
  /// 16,384-node bench fat-tree) and what classify_hops() reads to take it into a component; the
  /// solver's arithmetic on the second.
  struct alignas(64) Link {
    double bytes_per_s;
    std::vector<Member> flows; ///< sharing now (but while `unlisted`: below)
    /// The most its flows could take: the sum of their paths' narrowest bandwidths (a
    /// pipeline's times its crossings of the link). A link
    /// whose flows cannot fill it never limits any of them, so it couples none.
    double demand_bytes_per_s = 0;
    /// Its flows' summed weight (each flow's weight times its crossings), kept as flows join
    /// and leave, so that joined_floor() passes over a link that cannot fill below the floor
    /// without reading its flows.
    double weight = 0;
    std::uint32_t pipelines = 0; ///< pipelines' flows sharing it
    std::uint32_t seen = 0;     ///< the component walk that reached it last
    /// Emptied at once by advance() (leave_links), while flows that finish now and left it so
    /// have still to pass it.
    bool emptied = false;
    bool modified = false;      ///< in modified_links_
    /// Full in the current sharing (within twice SimGrid's precision), or coupling since the
    /// last solve that saw it: a flow leaving it makes it modified, and the walk crosses it.
    /// Set by the last solve that had it in its component, so it may stay true on a link
    /// whose flows have since been given less elsewhere (which only costs a solve).
    bool saturated = false;
    /// Left out of this solve (the walk `seen` names): coupling, but not full when last solved,
    /// and no pipeline crosses it. Its flows' shares are checked against it after the solve.
    bool slack = false;
    /// A clock while the fans are on clocks: its flows are its classes', not listed in `flows`
    /// (nor in its demand, weight or pipelines), which unlist_clock() empties and
    /// list_clocks() fills again when the fans leave the clocks.
    bool unlisted = false;
    // The solver's arithmetic, on the second line.
    alignas(64) double remaining = 0;
    double usage = 0;
    std::uint32_t round = 0;    ///< the saturation round that changed it last
    std::uint32_t slot = 0;     ///< its index in light_ in this solve
    bool light = false;         ///< not saturated yet in this solve
    bool bound = false;         ///< it fixed flows in this solve, at `level`
    double level = 0;
    double frozen_bytes_per_s = 0; ///< taken by flows outside the component
  };

  struct Path {
    std::uint32_t first; ///< into hops_ and crossings_
    std::uint32_t count;
    double latency_s;
    double narrowest_bytes_per_s; ///< the least bandwidth of its links over their crossings, and its cap: no flow on it gets more
    double penalty_s = 0;         ///< its flows' sharing penalty where the factored latency is positive
    std::uint32_t narrowest_hops = 0; ///< how many of its hops have the narrowest bandwidth
    bool pipeline = false;        ///< a pipeline's (add_pipeline): crossings other than 1, any number of hops
    bool penalty_given = false;   ///< penalty_s given (add_path, add_pipeline): it holds whatever the path's latency
  };

  /// How many of a path's hops a flow keeps in its own record, in the path's order (flows on
  /// longer paths, a long pipeline's or a large torus's, read them from the path; a pipeline's
  /// crossings are always read from the path, by hop): Piz Daint's longest non-minimal routes
  /// have 12.
  static constexpr std::size_t inline_hops = 12;

  /// A flow, its solver fields in its first 64 bytes and itself on cache lines of its own: the
  /// solver visits the flows of a link one after the other, reading those fields, and then the
  /// hops on the third line, without the path's record and hops, which lie far apart in memory
  /// (waiting for them took 38 % of classify_hops' samples, halving-doubling on the 16,384-node
  /// bench dragonfly).
  struct alignas(64) Flow {
    std::uint32_t seen = 0;
    std::uint32_t bound_by = 0; ///< the link that fixed it (its bottleneck), or by_cap
    bool fixed = false;        ///< the solver set its value in this solve
    bool pipeline = false;     ///< on a pipeline's path
    State state = State::Free;
    std::uint32_t path = 0;
    double level = 0;          ///< the solver's level when it fixed the flow (value x penalty); +infinity from join to first solve
    double value = 0;          ///< the solver's share, before the bandwidth factor
    double weight = 1;         ///< on each of its links: 1 / penalty (a pipeline's: times its crossings)
    double value_before = 0;   ///< its value when it joined the component being solved
    double penalty = 1;
    // The solver's scratch: its hops whose links couple flows (a bit per hop; a pipeline's are
    // found again where needed), and the least bandwidth of the others (+infinity when a
    // coupling link is narrower).
    std::uint64_t coupling_hops = 0;
    double cap_bytes_per_s = 0;
    double remaining_bytes = 0;
    double rate = 0;           ///< bytes per second since updated_s
    double updated_s = 0;
    void* token = nullptr;
    // Its path's, copied when it starts, on the third cache line (where its index in each
    // link's flows is not: positions_).
    alignas(64) double narrowest_bytes_per_s = 0; ///< Path::narrowest_bytes_per_s
    std::uint32_t narrowest_hops = 0; ///< Path::narrowest_hops
    std::uint32_t hop_count = 0;      ///< Path::count
    std::uint32_t hops[inline_hops];  ///< the path's hops, where hop_count is at most inline_hops
  };
  static_assert(offsetof(Link, remaining) == 64 && sizeof(Link) == 128, "a link keeps to two cache lines");
  static_assert(sizeof(Path) == 40, "a path keeps to 40 bytes");
  static_assert(offsetof(Flow, coupling_hops) + sizeof(std::uint64_t) <= 64, "the solver's fields span one cache line");
  static_assert(offsetof(Flow, narrowest_bytes_per_s) == 128, "the path's copy starts the third cache line");
  static_assert(sizeof(Flow) == 192, "a flow spans three cache lines");

  /// What saturates in a round: a link at its level, or a flow's cap (its narrowest link's level
  /// if it were alone there).
  struct Level {
    double remaining_over_usage;
    std::uint32_t id;      ///< link or flow
    bool is_flow;
    bool operator>(const Level& o) const {
      if (remaining_over_usage != o.remaining_over_usage)
        return remaining_over_usage > o.remaining_over_usage;
      return is_flow != o.is_flow ? is_flow : id > o.id;
    }
  };

  std::span<const std::uint32_t> hops_of(const Flow& f) const {
    if (f.hop_count <= inline_hops)
      return {f.hops, f.hop_count};
    const Path& p = paths_[f.path];
    return {hops_.data() + p.first, p.count};
  }
  /// `x` (a rate or weight of flow `f`) times the times its hop `hop`'s link carries it: 1 but
  /// on a pipeline's path.
  double on_link(const Flow& f, std::uint32_t hop, double x) const {
    return f.pipeline ? x * crossings_[paths_[f.path].first + hop] : x;
  }
  /// start() and start_sending(): the flow first waits its path's latency if `wait_latency`.
  void begin(double now_s, std::uint32_t path, double bytes, void* token, bool wait_latency);
  /// Adds a path over `links`, each carrying its flows' rate `crossings` times (a pipeline's
  /// path), or once where `crossings` is empty.
  std::uint32_t add_crossings(std::span<const std::uint32_t> links, std::span<const float> crossings, double latency_s,
                              std::optional<double> sharing_penalty_s);
  /// Whether link `l` can limit its flows: at least two cross it and together they could fill it.
  bool couples(const Link& l) const;
  /// Notes that the flows on `link` must be shared out again.
  void mark_modified(std::uint32_t link);
  /// Adds `flow` to the component being walked, unless its level is below floor_level_.
  void reach(std::uint32_t flow);
  /// Adds `flow` to the component being walked, with its coupling links.
  void add_to_component(std::uint32_t flow);
  /// Which of `flow`'s links couple it to the component's other flows in this solve, and its cap
  /// from the others (add_to_component, and again once a slack link it crosses is solved).
  void classify_hops(std::uint32_t flow);
  /// Brings into the component, for the next solve, the slack links that the last solve filled
  /// (or nearly: within four times SimGrid's precision), the flows of the component on them
  /// coupled through them again; whether there were any.
  bool fill_slack_links();
  /// Fetches the links of the next event's flows into the cache (advance()'s last step).
  void warm_next_event();
  /// A flow whose latency is paid starts sharing its links at `now_s`.
  void start_sharing(std::uint32_t flow, double now_s);
  /// A flow that finished leaves its links (leave_links) and is appended to `finished`; its id is free.
  void finish(std::uint32_t flow, bool counted, std::vector<void*>& finished);
  void join_links(std::uint32_t flow);
  /// Lists `flow` on `link`, its hop `h`: its place in the link's flows, and its share of the
  /// link's demand (at most its path's narrowest bandwidth), weight and pipelines.
  void list_on(Link& link, std::uint32_t flow, std::uint32_t h);
  /// Takes `flow` off its links (but the unlisted clocks); where `counted` (leaving_ holds how
  /// many flows finishing now are on each link), a link that they all leave is emptied at once.
  void leave_links(std::uint32_t flow, bool counted);
  /// The least level at which a link of a flow that started sharing since the last solve can
  /// fill: the flows below it keep their shares.
  double joined_floor();
  /// Shares out again the flows that the changes since the last solve can affect.
  void share(double now_s);
  /// Gives the flows that started sharing on links that couple nothing their caps, without a
  /// solve, and takes them out of joined_flows_.
  void start_alone(double now_s);
  /// Moves the ends of `flows`, whose shares were just set, to what their new rates give.
  void reschedule(std::span<const std::uint32_t> flows, double now_s);
  /// The least level at which a link of `full` bytes per second fills, its flows' (level, weight)
  /// in `by_level` (sorted here), each taking its weight times the level up to its own level, and
  /// `rising` their summed weight; +infinity where it never fills.
  static double fill_level(std::vector<std::pair<double, double>>& by_level, double full, double rising);
  /// Reaches the flows on `link` at or above `level` (the least at which it can fill: below it,
  /// it holds none lower).
  void reach_from(const Link& link, double level);
  /// Reaches the flows outside the component that a link of the component (slack ones aside)
  /// may hold lower, on those links and the links of the flows this adds, and so on, while the
  /// component has at most 256 flows (beyond, walk_saturated_links() spreads it): those at or
  /// above the level at which the link fills with the component's flows rising and each other
  /// flow up to its own level, which bounds from below the level at which the max-min
  /// allocation fills it. (Most flows the first solve would find overtaken or unbound, and
  /// solve again; those checks still run.)
  void reach_fillable_flows();
  /// Reaches the flows on every saturated link of the component, and on those of the flows this
  /// adds, and so on.
  void walk_saturated_links();
  /// Adds to the component the flows outside it whose bottleneck the solve took away: on the
  /// first `solved_links` of the component, the link that fixed them is no longer full, its
  /// flows in the component gave up some of it, or one of them is now at a higher level;
  /// whether there were any.
  bool reach_unbound_flows(std::size_t solved_links);
  /// Adds to the component the flows outside it that a link saturated in this solve holds at
  /// a level its flows in the component no longer reach; whether there were any.
  bool reach_overtaken_flows();
  /// SimGrid's max-min over the component in component_links_ / component_flows_.
  void solve_component();
  /// The least level among the light links of a solve: a scan of light_level_ each round (most
  /// solves take a handful of rounds, each changing most links) while the scans have visited at
  /// most 16 times the solve's links plus 256, a heap, link_levels_, after that (a pipeline's
  /// thousands of coupled links saturate one by one, over hundreds of rounds).
  class LinkLevels {
  public:
    explicit LinkLevels(FlowSharing& fs) : fs_(fs), budget_(16 * fs.light_.size() + 256) {}
    /// The least level, +infinity when no link is light.
    double least();
    /// Appends the links at the level least() returned, by id, and makes them not light.
    void take_least(std::vector<Level>& out);
    /// Notes that link `l`, light when the round began, changed level or stopped being light.
    void changed(std::uint32_t l);

  private:
    FlowSharing& fs_;
    std::size_t budget_;    ///< links scanned before the heap takes over
    std::size_t scanned_ = 0;
    bool heap_ = false;
    double least_ = 0;      ///< of the last scan
  };

  /// What fixed a flow that a cap fixed.
  static constexpr std::uint32_t by_cap = std::numeric_limits<std::uint32_t>::max();
  /// Sets `f`'s value, keeping flows_by_exponent_.
  void set_value(Flow& f, double value);
  /// A power of two above every flow's value (0 where none has one).
  double value_bound();
  /// The exponent field of a positive double (its bits above the 52 of the mantissa).
  static std::uint32_t exponent_of(double v) { return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(v) >> 52); }

  /// Fixes `flow` at `min_usage` over its penalty, held by link `bound_by` (or by_cap), and
  /// takes it off its shared links.
  void fix(std::uint32_t flow, double min_usage, std::uint32_t bound_by);

  // Fans on level clocks (flow_fans.cpp).
  /// After a solve of the component: puts every sharing flow on its class's clock where the
  /// conditions above hold; whether it did.
  bool enter_fans(double now_s);
  /// Takes every flow off its clock, at its class's value, into the solver's state (its end in
  /// events_, its links' fullness as the classes' solve left them).
  void exit_fans(double now_s);
  /// Forgets the clocks and classes (no flow on a clock any more).
  void clear_fans();
  /// advance() on clocks, the latency ends due already in due_: false where a flow starting now is
  /// a pipeline's, needs a clock beyond the most, or more links than most_clocks_made_at_once would
  /// have to become clocks (the clocks read at `now_s`, and the links it
  /// made clocks before it found that, kept).
  bool advance_fans(double now_s, std::vector<void*>& finished);
  /// The max-min allocation of the classes over the clock links.
  void solve_fans();
  /// Sets every class's ceiling and the loads it allows on the other links; whether no link
  /// then fills and no cap binds.
  bool certify_fans();
  /// Reads every class's clock at `now_s`.
  void clock_fans_to(double now_s);
  /// Fills fan_key_ with `f`'s clock links; whether it crosses one.
  bool fan_key(const Flow& f);
  /// The class of the flows whose clock links are fan_key_, made where none is.
  std::uint32_t fan_class();
  /// `f`'s cap from its links that are not clocks, as a level (its bandwidth over f's weight).
  double fan_cap_level(const Flow& f) const;
  /// Adds `flow`, sharing from now with `remaining_bytes` to send, to class `c`: its target, its
  /// class's weight and least cap, the loads of its other links; false, the class then marked
  /// uncertified, where one of those links would fill at the ceilings, its cap is below its
  /// class's ceiling or the class has none yet.
  bool join_fan(std::uint32_t c, std::uint32_t flow, double remaining_bytes);
  /// Sizes the fans' records by link to the links.
  void size_fan_links();
  /// Sets class `c`'s ceiling anew, the other classes' held: its level times the room they leave
  /// (at most fan_headroom) on the links its flows cross that no clock dominates, at most its
  /// flows' least cap; whether that leaves room enough. The links that leave it little room go
  /// to fan_promoting_.
  bool recertify_fan(FanClass& c);
  /// Calls visit(flow, link) for each link that is no clock of each flow of `c`, in order.
  template <class Visit>
  void each_free_hop(const FanClass& c, Visit&& visit) const;
  /// Sums `c`'s weight and least cap level again from its flows.
  void resum_fan_class(FanClass& c);
  /// Adds `c`'s flows' loads at its ceiling to the links that are no clocks.
  void load_ceiling(const FanClass& c);
  /// What member `m` of `c` has left to send at the class's clock (negative once past its end).
  double fan_bytes_left(const FanClass& c, const FlowEvents::Event& m) const;
  /// Takes flow `flow`, on a clock, out of its class's weight and its other links' loads.
  void leave_fan(std::uint32_t flow);
  /// Drops the classes whose flows have all ended, the others renumbered in their order.
  void drop_empty_fan_classes();
  /// Empties clock link `l`'s list of flows (and its demand, weight and pipelines): while the fans
  /// are on clocks, flows join and leave it without touching it (a parameter server's link holds
  /// thousands, each leaving one moving another: its joins and leaves took a quarter of the
  /// replay on 4,096 bench fat-tree nodes).
  void unlist_clock(std::uint32_t l);
  /// Lists every flow on clocks on its unlisted links again, as joining them would.
  void list_clocks();
  /// Makes link `l` (no clock) a clock, the flows on it (all on clocks, their classes' clocks read
  /// at the present) moved to the classes of their clocks and it; false where no more clocks
  /// may be (or `l` is none).
  bool promote_to_clock(std::uint32_t l);
  /// Makes those of `links` (sorted and deduplicated here) that are no clocks clocks
  /// (promote_to_clock); false where there are none, more than a few, or one fails.
  bool make_clocks(std::vector<std::uint32_t>& links);
  /// Counts a flow of class `c` crossing link `l` (no clock), keeping its dominator.
  void cross_fan_link(std::uint32_t l, const FanClass& c);
  /// The earliest end among the classes' flows.
  double next_fan_end_s() const;

  double bandwidth_factor_;
  double latency_factor_;
  std::vector<Link> links_;
  std::vector<Path> paths_;
  std::vector<std::uint32_t> hops_;
  std::vector<float> crossings_; ///< per hop, beside hops_ (read for pipelines' paths only)
  /// By link: whether it couples its flows (couples()), kept as flows join and leave, so that a
  /// solve reads a bit, not the link, for each hop that couples nothing.
  std::vector<bool> coupling_;
  /// By link: while advance() takes the flows that finish now off their links, how many of
  /// them are still to leave it (kept apart from the links, which the count would bring into
  /// the cache twice).
  std::vector<std::uint32_t> leaving_;
  std::vector<Flow> flows_;
  /// By flow, inline_hops slots: its index in each of its first inline_hops links' flows (a
  /// longer path's later hops in far_positions_). Kept apart from the flows: a flow that leaves a
  /// link moves that link's last flow into its slot and writes that flow's new index here, one
  /// cache line away from everything else (from its own record's vector, two lines: the
  /// parameter server on 4,096 Piz Daint nodes spent 16 % of its samples in leave_links, most on
  /// that store).
  std::vector<std::uint32_t> positions_;
  std::vector<std::vector<std::uint32_t>> far_positions_; ///< by flow: hops from inline_hops on
  std::uint32_t& position(std::uint32_t flow, std::uint32_t hop) {
    return hop < inline_hops ? positions_[std::size_t{flow} * inline_hops + hop]
                             : far_positions_[flow][hop - inline_hops];
  }
  /// The free flow ids, the least taken first, so that the flows in flight keep to the front of
  /// flows_ (iteration after iteration of a parameter server's 65,536 flows, the ids of a stack
  /// scatter them over memory: 1.5 times the wall time). Which id a flow gets changes no event
  /// order (simultaneous events come out in start order); only caps at one level are taken by id
  /// within a solve, which may round a sum differently.
  FreeIds free_flows_;
  /// Each sharing flow's end; at one instant, in start order. A flow's latency ends wait apart, in
  /// latency_ends_: they never move, and come in start order (a radix heap's push and pop cost
  /// less than a sift through this one, which every flow paid twice).
  FlowEvents events_;
  /// The flows waiting their path's latency, by its end, those of one instant in start order
  /// (the order they were added in). Mutable: next_event_s() reads its first, which may settle it.
  mutable MonotoneQueue<std::uint32_t> latency_ends_;
  std::uint64_t started_ = 0; ///< flows started so far
  /// By flow: how many flows started before it (its events' tie), beside flows_ so that a flow
  /// keeps to three cache lines.
  std::vector<std::uint64_t> start_order_;
  std::vector<FlowEvents::Event> due_; ///< advance()'s events, in order
  std::vector<FlowEvents::Event> merged_; ///< advance()'s scratch: latency ends and ends merged
  int in_flight_ = 0;
  SharingWork work_;
  // Solver state, kept to reuse its memory.
  std::vector<std::uint32_t> modified_links_;
  std::vector<std::uint32_t> joined_flows_; ///< started sharing since the last solve
  std::vector<std::uint32_t> alone_;        ///< start_alone()'s flows
  std::vector<std::pair<double, double>> by_level_; ///< (level, weight) of a link's flows: joined_floor(), reach_fillable_flows()
  /// joined_floor()'s links that it found to fill, and the least level at which each can.
  std::vector<std::pair<std::uint32_t, double>> filling_;
  std::vector<std::uint32_t> component_links_;
  std::vector<std::uint32_t> slack_links_; ///< left out of the component being solved (Link::slack)
  std::vector<std::uint32_t> component_flows_;
  std::vector<Level> saturated_;
  std::vector<std::uint32_t> changed_; ///< light links whose level changed in this round
  std::uint32_t round_ = 0;
  std::vector<std::uint32_t> light_;  ///< the links a solve starts with light, by slot
  std::vector<double> light_level_;   ///< by slot: that link's level, +infinity once not light
  std::vector<std::uint32_t> at_least_; ///< the slots at the last scan's least level
  /// The light links by level once scanning costs more: each link once, moved when its level
  /// changes, ties broken by link id as the scan breaks them.
  FlowEvents link_levels_;
  std::vector<Level> caps_;   ///< flows' caps, sorted
  std::size_t capped_flows_ = 0; ///< the first flows of component_flows_, whose caps caps_ holds
  std::uint32_t walk_ = 0;
  /// The flows with a positive value (the solver's share) by the exponent field of that value,
  /// and the highest field that holds one or was emptied since (value_bound() lowers it): a
  /// bound on every value that fill_slack_links() holds a slack link's flows to before it reads
  /// them.
  std::vector<std::uint32_t> flows_by_exponent_ = std::vector<std::uint32_t>(2048, 0);
  std::uint32_t highest_exponent_ = 0;
  /// The level below which no flow's share can change at the next solve: the least level of the
  /// flows that finished since the last solve, and joined_floor().
  double floor_level_ = std::numeric_limits<double>::infinity();

  // Fans on level clocks.
  bool fans_ = false;                 ///< the sharing flows are on their classes' clocks
  std::size_t fan_entry_flows_ = 0;
  /// The solver's events after fans failed to go on clocks, or left them, before they try again
  /// (a try costs a few passes over every flow, as a solve of the fans' flows does): the shortest
  /// gap, twice as long after each failed try and each stay on clocks of fewer than
  /// paying_fan_events events (or of more than one pass over every flow per 8 events, after a grace of 16), up to
  /// the longest (a fat-tree's parameter server, whose fans start and end together, has few
  /// events to put on clocks), the shortest again after a stay of more.
  static constexpr long long shortest_fan_retry_gap = 8;
  static constexpr long long longest_fan_retry_gap = 256;
  static constexpr long long paying_fan_events = 16;
  long long fan_retry_gap_ = shortest_fan_retry_gap;
  long long fan_retry_event_ = 0;     ///< no entry before this event of the solver's
  long long fan_stay_start_ = 0;      ///< work_.fan_events when the flows last went on clocks from the solver
  long long fan_stay_passes_ = 0;     ///< the passes over every flow since (entries, certifications of all classes)
  /// After the flows left their clocks for the solver: when the fans may try again.
  void back_to_solver();
  /// Whether the present stay on clocks has passed over every flow more than once per 8 of its
  /// events (after a grace of 16 events): it costs more than the solver would.
  bool fan_stay_too_costly() const;
  /// The next try on clocks waits the shortest gap after a stay that `paid`, else twice the last.
  void space_fan_tries(bool paid);
  std::vector<FanClass> fan_classes_;
  std::vector<FanClock> fan_clocks_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> fan_class_of_; ///< by clock links
  std::vector<std::uint32_t> fan_new_class_id_;      ///< drop_empty_fan_classes() scratch
  std::uint32_t last_fan_class_ = ~std::uint32_t{0}; ///< the class fan_class() last gave (index into fan_classes_)
  std::vector<std::uint32_t> clock_of_link_;   ///< by link: its index in fan_clocks_, or none
  std::vector<std::uint32_t> fan_class_of_flow_; ///< by flow, while it is on a clock
  std::vector<double> fan_cap_of_flow_;          ///< by flow, while it is on a clock: fan_cap_level()
  /// By link that is no clock: what the flows on clocks crossing it send at most (each its
  /// class's ceiling over its penalty), and how many they are.
  std::vector<double> fan_load_;
  std::vector<std::uint32_t> fan_crossing_;
  /// By link that is no clock: a clock of no more bandwidth that every flow on a clock crossing
  /// it crosses too (so that it binds none the clock does not), or none.
  std::vector<std::uint32_t> fan_dominator_;
  std::vector<std::uint32_t> fan_loaded_links_; ///< the links fan_crossing_ has counted, each once
  std::vector<bool> fan_listed_;                 ///< by link: in fan_loaded_links_
  std::vector<double> fan_level_load_;           ///< recertify_fan() scratch, by link: 0 outside it
  /// By link: full over present load, as certify_fans() last found it (advance_fans reads it after).
  std::vector<double> fan_room_;
  std::vector<std::uint32_t> fan_touched_;       ///< recertify_fan() scratch: its links
  double fans_clocked_s_ = 0;          ///< when the classes' clocks were read
  double fans_next_s_ = std::numeric_limits<double>::infinity(); ///< next_fan_end_s(), kept
  bool fans_uncertified_ = false;      ///< a class's level passed its ceiling, or a link its load
  bool fans_valid_ = false;            ///< certify_fans() found the levels the allocation
  std::vector<std::uint32_t> fan_key_; ///< scratch
  std::vector<std::uint32_t> fan_saturating_; ///< solve_fans() scratch: the clocks saturating in a round
  std::vector<std::uint32_t> fan_moved_clocks_; ///< solve_fans() scratch: the clocks a round moved
  std::vector<std::uint32_t> fan_promoting_;  ///< advance_fans() scratch: the links becoming clocks
  std::vector<std::uint32_t> fan_moving_classes_; ///< promote_to_clock() scratch
  std::vector<double> fan_left_; ///< promote_to_clock() scratch, by flow: bytes left, or -1 (not moving)
};

} // namespace ceiling::replay
