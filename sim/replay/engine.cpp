// The replay: logic in maestro, delays in a DueQueue, transfers through replay/transfers.
#include "replay/engine.hpp"

#include "machine/machine.hpp"
#include "platform/topology.hpp"
#include "replay/collective_progress.hpp"
#include "replay/device_spread.hpp"
#include "replay/due_queue.hpp"
#include "replay/flow_sharing.hpp"
#include "replay/iteration_plan.hpp"
#include "replay/flow_plan.hpp"
#include "replay/pipeline_fill.hpp"
#include "replay/routes.hpp"
#include "replay/shared_link.hpp"
#include "replay/simgrid_precision.hpp"
#include "replay/transfers.hpp"
#include "support/stop_signals.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <csignal>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <signal.h>
#include <unistd.h>

namespace sg4 = simgrid::s4u;

namespace ceiling::replay {
namespace {

/// The signal that asked the replay to stop (ReplayOptions::stop_at_interrupt), or 0.
volatile std::sig_atomic_t interrupt_signal = 0;

/// How long after a signal the iteration under way may still take to finish; past it the
/// iteration is dropped and the run ends at once, so that a signal stops any run within a
/// second however long its iterations are.
constexpr std::chrono::milliseconds interrupt_grace{500};

void handle_interrupts(void (*handler)(int)) {
  // SA_RESTART: output being written when a signal comes is not cut short. SA_ONSTACK: on
  // SimGrid's alternate signal stack, not on a courier actor's small one.
  support::handle_stop_signals(handler, SA_RESTART | SA_ONSTACK);
}

void on_interrupt(int signal) {
  if (interrupt_signal == 0)
    interrupt_signal = signal;
  handle_interrupts(SIG_DFL); // a second signal, of either kind, acts at once
  static constexpr char message[] =
      "ceiling: interrupted: stopping after the current iteration, or dropping it if it takes "
      "over 0.5 s more (again to stop at once)\n";
  [[maybe_unused]] auto written = write(STDERR_FILENO, message, sizeof message - 1);
}

/// Starts the engine for `s`; with stop_at_interrupt, then installs handlers for SIGINT and
/// SIGTERM that fire once and give both signals back their default action, else gives them
/// their default action at once (a sweep's point: stopped, it ends by the signal, which its
/// sweep then names). After the engine: SimGrid sets its own SIGINT handler when it starts,
/// which would end the process with status 1 and say nothing.
void start_engine_for(const Scenario& s) {
  platform::start_engine(s.options.network);
  handle_interrupts(s.options.stop_at_interrupt ? on_interrupt : SIG_DFL);
}

enum class Kind : std::uint8_t {
  InputCopy, Forward, Backward, StageOut, Flow, FlowSent, FlowDelay, StageIn, Optimizer, Launch, PullIn, Tick
};

/// What finished: carried by every transfer (as its payload) and timer, for dispatch().
struct Tag {
  Kind kind;
  int rank;        // the rank, or the flow's source
  int index = 0;   // segment, reduction (a pull's, for PullIn) or iteration
  int phase = 0;
  int flow = 0;
  double start_s = 0;
  bool launched = false; // a copy whose call overhead is paid: its transfer is under way
};

/// What the due queue wakes: a tag to dispatch, a PCIe link at its next event (stale once a
/// later one was set for it), or the shared flows at theirs (the queue's moving item).
struct Wakeup {
  const Tag* tag = nullptr;
  std::uint32_t link = 0;
  std::uint32_t generation = 0;
  bool flows = false;
};

/// Exclusive time accounting of one rank: compute > copy > communication > waiting.
struct RankClock {
  int computing = 0;
  int copying = 0;
  int communicating = 0;
  double last_s = 0;
  Breakdown spent;

  void mark(double now) {
    const double dt = now - last_s;
    last_s = now;
    if (computing > 0)
      spent.compute_s += dt;
    else if (copying > 0)
      spent.copy_s += dt;
    else if (communicating > 0)
      spent.communication_s += dt;
    else
      spent.synchronisation_s += dt;
  }
};

struct RankState {
  sg4::Host* compute = nullptr;
  sg4::Host* comm = nullptr;   // where gradients are exchanged from: host memory or the GPU
  sg4::Host* cpu = nullptr;
  double device = 1;           // its device's pace for the whole run (device_time_factors)
  double factor = 1;           // that times the jitter of this iteration
  std::array<char, 2> input_done{}; // by Replay::slot_of(iteration): its input batch is on the device
  bool forward_waiting = false; // forward is due but the input is not there yet
  int forward_due = 0;          // the forward segment due once its pull is in (0: none waits)
  std::vector<char> pulled;     // per pull of the plan: its variables are on the device
  int next_segment = 0;
  int produced = 0;             // reductions whose gradient backward has produced
  int staged = 0;               // ... and sit on the communication host, a prefix in bucket order
  std::vector<char> on_comm_host; // per reduction: its device->host copy has ended
  int next_collective = 0;      // next collective to arrive at
  int in_collective = -1;
  int reduced = 0;              // reductions complete (after the copy back)
  bool backward_done = false;
  RankClock clock;
};

class Replay {
public:
  Replay(const Scenario& s, const Progress& progress)
      : wall_start_(std::chrono::steady_clock::now()), scenario_(s), observer_(progress),
        plan_(make_iteration_plan(s)),
        machine_((start_engine_for(s),
                  platform::Machine::build(s.platform, platform::allocate(s.platform, s.nodes, s.options.allocation,
                                                                          s.options.seed)))),
        rng_(s.options.seed),
        transfers_(plan_.ranks >= s.options.courier_transfers_from_ranks ? TransferDriver::Couriers
                                                                           : TransferDriver::Maestro,
                   [this](void* token) { dispatch(*static_cast<Tag*>(token)); }) {
    result_.machine_wall_s = wall_seconds_since(wall_start_);
    const auto pstate = s.platform.node.is_gpu_node() ? machine_.gpu_pstate_of(plan_.compute_precision)
                                                      : machine_.cpu_pstate_of(plan_.compute_precision);
    const bool host_staging = resolved_staging(s) == Staging::Host;
    for (long long node = 0; node < s.nodes; ++node) {
      const auto& hosts = machine_.node(node);
      for (int g = 0; g < plan_.ranks_per_node; ++g) {
        RankState r;
        r.cpu = hosts.cpu;
        r.compute = hosts.gpus.empty() ? hosts.cpu : hosts.gpus[static_cast<std::size_t>(g)];
        r.comm = host_staging ? hosts.cpu : r.compute;
        r.compute->set_pstate(static_cast<unsigned long>(*pstate));
        r.input_done.fill(plan_.input_copy_bytes == 0);
        ranks_.push_back(std::move(r));
      }
    }
    const double spread = s.platform.node.gpu ? s.platform.node.gpu->device_spread : 0.0;
    const std::vector<double> paces = device_time_factors(static_cast<std::int64_t>(ranks_.size()), spread, s.options.seed);
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      ranks_[r].device = paces[r];
    std::vector<sg4::Host*> comm_hosts;
    std::vector<long long> slots; // of each rank's node
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      comm_hosts.push_back(ranks_[r].comm);
      slots.push_back(machine_.slot(static_cast<long long>(r) / plan_.ranks_per_node));
    }
    routes_ = Routes(std::move(comm_hosts), std::move(slots), s.platform, s.options.seed, s.options.background);
    for (const auto& reduction : plan_.reductions)
      progress_.emplace_back(reduction.plan, plan_.ranks);
    server_busy_until_s_.assign(static_cast<std::size_t>(plan_.ranks), 0.0);
    has_concurrent_ = std::any_of(plan_.reductions.begin(), plan_.reductions.end(),
                                  [](const Reduction& r) { return r.concurrent; });
    for (const auto& reduction : plan_.reductions) {
      auto& to = pushes_to_.emplace_back();
      for (const auto& phase : reduction.plan)
        for (const auto& flow : phase.flows)
          if (flow.receiver_s > 0) {
            to.resize(static_cast<std::size_t>(plan_.ranks), 0);
            ++to[static_cast<std::size_t>(flow.dst)];
          }
    }
    pull_flows_to_.assign(static_cast<std::size_t>(plan_.pulls) * static_cast<std::size_t>(plan_.ranks), 0);
    for (int k = plan_.backward_reductions(); k < static_cast<int>(plan_.reductions.size()); ++k)
      for (const auto& flow : plan_.reductions[static_cast<std::size_t>(k)].plan.back().flows)
        ++pull_flows_to_[pull_slot(k, flow.dst)];
    latency_factor_ = simgrid::config::get_value<double>("network/latency-factor");
    bandwidth_factor_ = simgrid::config::get_value<double>("network/bandwidth-factor");
    pipelines_.resize(plan_.reductions.size());
    if (s.options.software.negotiation)
      negotiation_s_ = negotiation_seconds();
    sg4::Engine::on_time_advance_cb([this](double) {
      // SimGrid 3.32 moves its clock there only (EngineImpl::solve), before it ends activities
      // and rings timers: a copy read inline spares now() a call into the library.
      simgrid_clock_s_ = sg4::Engine::get_clock();
      ++result_.clock_advances;
    });
    // Under CM02 without cross-traffic or window cap, what only shares a link with its own kind,
    // or with nothing, has a closed form. With host staging no network flow crosses a PCIe link:
    // only copies share it, equally after their latency (SharedLink).
    if (replay_times_copies(s)) {
      const auto& pcie = *s.platform.node.pcie;
      for (int r = 0; r < plan_.ranks; ++r) {
        pcie_links_.emplace_back(pcie.device_to_host.bytes_per_second() * bandwidth_factor_,
                                 pcie.latency.seconds() * latency_factor_);
        pcie_links_.emplace_back(pcie.host_to_device.bytes_per_second() * bandwidth_factor_,
                                 pcie.latency.seconds() * latency_factor_);
      }
      pcie_wakeups_.assign(pcie_links_.size(), 0);
    }
    // Collectives never overlap (each starts when every rank has left the one before; concurrent
    // exchanges aside: plan_flows) and, with the copies above or on CPU nodes, no copy enters
    // SimGrid: a flow of an aggregated plan that shares no link with another flow of its plan is
    // alone on its route for its whole life: its time is the closed form of a lone flow. Under
    // GPU-direct the input copies are FlowSharing flows too, and a flow crossing a PCIe link is
    // never taken as alone.
    if (replay_times_flows(s)) {
      // The other flows share links only with flows of their own collective: the replay shares
      // them out as SimGrid would (FlowSharing).
      sharing_.emplace(bandwidth_factor_, latency_factor_);
      sharing_->clock_fans_from(s.options.fan_clock_flows);
      sharing_paths_.emplace(routes_, *sharing_);
      copies_shared_ = replay_shares_copies(s);
      planner_.emplace(routes_, *sharing_paths_, has_concurrent_, copies_shared_);
      if (!plan_flows()) {
        // A route of more than FlowSharing::max_hops links (a large torus): SimGrid then
        // carries every flow and copy, as it can only under static routing without background
        // load (both are the replay's own).
        if (routes_.routes_itself() || s.options.background.any())
          throw Unrunnable(
              "a route has more than " + std::to_string(FlowSharing::max_hops) +
              " links, which the replay's flow sharing cannot carry, and SimGrid, which can, has no " +
              (routes_.routes_itself()
                   ? "routing \"" + std::string(platform::to_string(s.platform.interconnect.routing)) + "\""
                   : std::string("background load")) +
              " (the replay's own): use routing \"static-minimal\" without background load",
              routes_.routes_itself() ? "interconnect.routing" : "");
        copies_shared_ = false;
        planned_.clear();
        planner_.reset();
        sharing_paths_.reset();
        sharing_.reset();
      }
    }
    // Responses fused by cycle are planned as they form, and may need SimGrid: no running ahead.
    simgrid_free_ = replay_only() && !plan_.fused_by_cycle;
  }

  /// A cycle's negotiation (Horovod's response-cache coordination: an all-reduce of a few
  /// words over all ranks through MPI, recursive doubling): its steps, each the latency of the
  /// route from rank 0 to its partner of that step, plus the platform's MPI overheads (the
  /// messages are a few bytes). Rank 0's exchanges stand for all, so that it costs O(log N).
  double negotiation_seconds() {
    const auto steps = collectives::allreduce_steps(collectives::Algorithm::RecursiveDoubling,
                                                    {plan_.ranks, plan_.ranks_per_node}, 8);
    const auto& nic = scenario_.platform.node.nic;
    const double overheads_s = nic.send_overhead.seconds() + nic.receive_overhead.seconds();
    double total_s = 0;
    for (const auto& phase : steps) {
      const auto it = std::find_if(phase.flows.begin(), phase.flows.end(),
                                   [](const collectives::Flow& f) { return f.src == 0 || f.dst == 0; });
      const auto& flow = it != phase.flows.end() ? *it : phase.flows.front();
      total_s += routes_.between(flow.src, flow.dst).latency_s * latency_factor_ + overheads_s;
    }
    return total_s;
  }

  /// How the replay times each flow of each reduction's plan (FlowPlanner); false where SimGrid
  /// would have to carry a flow beside what the replay carries.
  bool plan_flows() {
    const std::vector<collectives::Phase>* previous = nullptr;
    for (const auto& reduction : plan_.reductions) {
      // Routes and their timing depend only on who sends to whom in each phase: buckets that
      // run the same algorithm over the same ranks (most of them) reuse the bucket before.
      if (previous && FlowPlanner::same_endpoints(*previous, reduction.plan)) {
        planned_.push_back(planned_.back());
        continue;
      }
      previous = &reduction.plan;
      if (!plan_flows_of(reduction))
        return false;
    }
    return true;
  }

  /// Appends to planned_ how each flow of `reduction` is timed; false as plan_flows().
  bool plan_flows_of(const Reduction& reduction) {
    auto timings = planner_->timings(reduction.plan);
    if (!timings)
      return false;
    planned_.push_back(std::move(*timings));
    return true;
  }

  RunResult run() {
    result_.build_wall_s = wall_seconds_since(wall_start_);
    wall_start_ = std::chrono::steady_clock::now();
    result_.ranks = plan_.ranks;
    if (!plan_.fused_by_cycle) // else the responses, once formed (below)
      for (int k = 0; k < static_cast<int>(plan_.reductions.size()); ++k)
        report_reduction(plan_.reductions[static_cast<std::size_t>(k)], is_pull(k));
    result_.server_bytes = plan_.server_bytes;
    result_.dense_tables = plan_.dense_tables;
    result_.server_rank_stride = plan_.server_rank_stride;
    const long long domain = platform::domain_size(scenario_.platform.interconnect.topology);
    for (long long n = 0; n < machine_.size(); ++n) {
      result_.slots.push_back(machine_.slot(n));
      if (n == 0 || machine_.slot(n) / domain != machine_.slot(n - 1) / domain)
        ++result_.domains_spanned; // slots ascend: a new domain starts where the quotient changes
    }
    result_.calibration = plan_.calibration;
    result_.transfers_by_couriers = transfers_.driver() == TransferDriver::Couriers;
    result_.samples_per_iteration = static_cast<double>(scenario_.workload.batch_per_worker) * plan_.ranks;
    result_.flop_per_iteration = plan_.flop_per_rank * plan_.ranks;
    if (observer_.started)
      observer_.started(result_);
    if (interrupt_signal != 0) { // while the machine was built: no iteration starts
      result_.stopped_by = interrupt_signal;
      handle_interrupts(SIG_DFL);
      return result_;
    }
    start_iteration();
    bool actors_left = false; // SimGrid only logs it, kills them and returns
    sg4::Engine::on_deadlock_cb([&actors_left] { actors_left = true; });
    sg4::Engine::get_instance()->run();
    if (scenario_.options.stop_at_interrupt) {
      handle_interrupts(SIG_DFL); // from here on (printing the results) a signal acts at once
      // A signal counts even when it let every iteration finish: the run says so and ends with
      // 128 + the signal, as a shell expects of a command it interrupted.
      result_.stopped_by = interrupt_signal; // (the signal abandon() or the build noted, if any)
    }
    if (result_.stopped_by == 0 && static_cast<int>(result_.iterations.size()) != scenario_.options.iterations)
      throw std::logic_error("the replay stopped after " + std::to_string(result_.iterations.size()) +
                             " of " + std::to_string(scenario_.options.iterations) +
                             " iterations: a dependency never completed");
    if (actors_left)
      throw std::logic_error("the replay left actors running when it ended");
    if (sharing_)
      result_.sharing = sharing_->work();
    // A dropped iteration leaves nothing in the timeline: what it did, from its start on (some of
    // it cut short), goes with it, as its figures do.
    if (result_.dropped_iteration)
      std::erase_if(result_.timeline, [&](const TimelineEvent& e) { return e.start_s >= iteration_start_s_; });
    if (plan_.fused_by_cycle) { // the collectives are the last complete iteration's responses
      for (int k : last_order_)
        report_reduction(reduction(k));
    }
    return result_;
  }

private:
  void report_reduction(const Reduction& k, bool read = false) {
    result_.reductions.push_back({k.name, k.bytes,
                                  std::string(k.gather ? collectives::to_string(*k.gather) : collectives::to_string(k.algorithm)),
                                  std::string(k.rule),
                                  k.protocol ? std::string(collectives::to_string(*k.protocol)) : std::string(),
                                  k.sparse, k.gather.has_value(), k.result_bytes, read});
  }

  /// Collective `k`: a reduction of the plan, or (from plan_.reductions.size() on) a response
  /// fused by cycle.
  const Reduction& reduction(int k) const {
    const auto units = plan_.reductions.size();
    const auto i = static_cast<std::size_t>(k);
    return i < units ? plan_.reductions[i] : responses_[i - units];
  }

  /// The simulated time: SimGrid's clock, or the replay's own while it runs ahead of it.
  [[gnu::always_inline]] double now() const {
    assert(simgrid_clock_s_ == sg4::Engine::get_clock() && "now: SimGrid's clock moved unannounced");
    return std::max(ahead_s_, simgrid_clock_s_);
  }

  static double wall_seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // --- transfers and timers ---------------------------------------------------------------

  /// Storage for `t` until it is dispatched; slots are reused, so memory follows what is in
  /// flight, not the run's length.
  Tag* tag(Tag t) {
    t.start_s = now();
    if (!free_tags_.empty()) {
      Tag* slot = free_tags_.back();
      free_tags_.pop_back();
      *slot = t;
      return slot;
    }
    tags_.push_back(t);
    return &tags_.back();
  }

  /// Fires `t` after `seconds`. SimGrid 3.32 keeps every activity started outside an actor in
  /// one list and pays a walk of it at each completion, so compute is not an exec: a device runs
  /// one kernel at a time and nothing else computes on it, so its compute is a delay of the
  /// roofline time, exactly what an exec on the unshared host would last. Delays wait in the
  /// replay's DueQueue behind one kernel timer (replay/due_queue.hpp).
  void after(double seconds, Tag t) { due_at(now() + seconds, {.tag = tag(t)}); }

  void due_at(double at, Wakeup w) {
    due_.add(at, w);
    settle_alarm();
  }

  /// A link's wakeup is stale once it has been given a later one (the flows' one is the due
  /// queue's moving item, replaced when it moves).
  bool is_stale(const Wakeup& w) const {
    assert(!w.flows && "is_stale: the flows' wakeup is never stale");
    if (w.tag)
      return false;
    return w.generation != pcie_wakeups_[w.link];
  }

  /// Keeps the one kernel timer of the due queue at its earliest live item (none when empty):
  /// a timer at a stale instant would stop SimGrid's clock where nothing happens.
  void settle_alarm() {
    if (draining_)
      return; // the drain settles it once done
    const auto earliest = earliest_live();
    if (alarm_ && earliest && *earliest == alarm_at_s_)
      return;
    if (alarm_)
      alarm_->remove();
    alarm_ = nullptr;
    if (!earliest)
      return;
    alarm_at_s_ = *earliest;
    alarm_ = simgrid::kernel::timer::Timer::set(alarm_at_s_, [this] {
      alarm_ = nullptr;
      if (abandoned_)
        return;
      draining_ = true;
      handle_instant();
      // With nothing in SimGrid, the replay moves its own clock on through its next instants, a
      // SimGrid step saved each: the callback then runs the rest of the run, and SimGrid's
      // clock stays at this first alarm (nothing reads it but now()).
      while (simgrid_free_ && !abandoned_) {
        const auto next = earliest_live();
        if (!next)
          break;
        ahead_s_ = *next;
        ++result_.clock_advances;
        handle_instant();
      }
      draining_ = false;
      settle_alarm();
    });
  }

  /// The instant of the due queue's first item someone still waits for (its stale front dropped).
  std::optional<double> earliest_live() {
    due_.drop_stale_front([this](const Wakeup& w) { return is_stale(w); });
    return due_.earliest();
  }

  /// What is due at the present instant: the shared flows' events, then the due queue's.
  void handle_instant() {
    // SimGrid ends a comm whose end lies within its precision of any instant the clock stops
    // at: so do the shared flows.
    if (sharing_ && sharing_->next_event_s() - now() < surf_precision_s)
      flows_woken();
    due_.drain(now(), [this](const Wakeup& w) {
      if (w.tag)
        dispatch(*w.tag);
      else if (w.flows)
        flows_woken();
      else if (!is_stale(w))
        link_woken(w.link);
    });
  }

  /// Whether nothing of the run goes through SimGrid: every flow is timed by the replay (in
  /// closed form or shared out) and every copy too (SharedLink, or FlowSharing under
  /// GPU-direct), or there is none.
  bool replay_only() const {
    if (planned_.empty())
      return false;
    for (const auto& phases : planned_)
      for (const auto& flows : phases)
        for (const PlannedFlow& f : flows)
          if (f.timing == Timing::SimGrid)
            return false;
    return copies_shared_ || !pcie_links_.empty() || !scenario_.platform.node.gpu;
  }

  /// Transfers `bytes` from `src` to `dst`, then fires `t`.
  void comm(sg4::Host* src, sg4::Host* dst, double bytes, Tag t) {
    // A transfer would start at SimGrid's clock, behind the replay's when it runs ahead.
    assert(!simgrid_free_ && "comm: a SimGrid transfer in a run that replay_only() said had none");
    ++result_.transfers;
    transfers_.start(src, dst, static_cast<std::uint64_t>(std::llround(bytes)), tag(t));
  }

  /// Copies `bytes` from `src` to `dst` over rank r's PCIe link, then fires `t`; the copy call's
  /// overhead (the stack's, or none) comes first, and counts as copying.
  void copy(int r, sg4::Host* src, sg4::Host* dst, double bytes, Tag t) {
    clock(r).mark(now());
    ++clock(r).copying;
    // An input copy counts for the iteration that consumes its batch.
    (t.kind == Kind::InputCopy ? input_bytes_[slot_of(t.index)] : bytes_.pcie) += bytes;
    t.launched = true;
    if (plan_.costs.copy_overhead_s > 0) {
      t.launched = false; // dispatch() starts the transfer when the overhead is paid
      after(plan_.costs.copy_overhead_s, t);
      return;
    }
    transfer_copy(r, src, dst, bytes, t);
  }

  /// The transfer of a copy whose call overhead is paid: its source, destination and bytes
  /// follow from its kind.
  void copy_launched(Tag t) {
    const RankState& rank = ranks_[static_cast<std::size_t>(t.rank)];
    t.launched = true;
    switch (t.kind) {
    case Kind::InputCopy: transfer_copy(t.rank, rank.cpu, rank.compute, plan_.input_copy_bytes, t); break;
    case Kind::StageOut:
      transfer_copy(t.rank, rank.compute, rank.comm, plan_.reductions[static_cast<std::size_t>(t.index)].bytes, t);
      break;
    case Kind::StageIn:
      transfer_copy(t.rank, rank.comm, rank.compute, reduction(t.index).result_bytes, t);
      break;
    case Kind::PullIn:
      transfer_copy(t.rank, rank.comm, rank.compute, plan_.reductions[static_cast<std::size_t>(t.index)].bytes, t);
      break;
    default: assert(false && "copy_launched: not a copy");
    }
  }

  void transfer_copy(int r, sg4::Host* src, sg4::Host* dst, double bytes, Tag t) {
    if (copies_shared_) { // GPU-direct: the copy shares the PCIe link with the flows
      const Route& route = routes_.inside_node(src, dst);
      if (!sharable(route))
        throw std::logic_error("transfer_copy: a PCIe route FlowSharing cannot share");
      ++result_.link_copies;
      sharing_->start(now(), sharing_paths_->of(route), std::round(bytes), tag(t));
      wake_flows_at_next_event();
      return;
    }
    if (pcie_links_.empty()) {
      comm(src, dst, bytes, t);
      return;
    }
    ++result_.link_copies;
    // Rank r's PCIe link: 2r device->host, 2r + 1 host->device.
    const std::size_t link = 2 * static_cast<std::size_t>(r) + (dst == ranks_[static_cast<std::size_t>(r)].compute);
    pcie_links_[link].start(now(), std::round(bytes), tag(t)); // whole bytes, as a comm carries
    wake_link_at_next_event(link);
  }

  /// Wakes `link` at its next event; a wakeup set before for it becomes stale.
  void wake_link_at_next_event(std::size_t link) {
    const std::uint32_t generation = ++pcie_wakeups_[link];
    const double at = pcie_links_[link].next_event_s();
    if (!std::isinf(at))
      due_.add(at, {.link = static_cast<std::uint32_t>(link), .generation = generation});
    settle_alarm(); // also when idle: the link's earlier wakeup may have been the alarm's
  }

  void link_woken(std::size_t link) {
    std::vector<void*> finished;
    pcie_links_[link].advance(now(), finished);
    wake_link_at_next_event(link);
    for (void* token : finished)
      dispatch(*static_cast<Tag*>(token));
  }

  /// Wakes the shared flows at their next event (the due queue's moving item), unless their
  /// wakeup is set for that instant already.
  void wake_flows_at_next_event() {
    const double at = sharing_->next_event_s();
    if (due_.moving_at() == std::optional<double>(at))
      return;
    if (std::isinf(at))
      due_.clear_moving();
    else
      due_.set_moving(at, {.flows = true});
    settle_alarm();
  }

  void flows_woken() {
    due_.clear_moving(); // woken now (also when due within SimGrid's precision only)
    finished_flows_.clear();
    sharing_->advance(now(), finished_flows_);
    wake_flows_at_next_event();
    // Thousands of flows may end at once, their tags set long before and far apart in memory:
    // each is fetched a few flows ahead of its turn.
    constexpr std::size_t ahead = 8;
    for (std::size_t i = 0; i < finished_flows_.size(); ++i) {
      if (i + ahead < finished_flows_.size())
        __builtin_prefetch(finished_flows_[i + ahead]);
      dispatch(*static_cast<Tag*>(finished_flows_[i]));
    }
  }

  void compute(int r, double seconds, Tag t) {
    clock(r).mark(now());
    ++clock(r).computing;
    after(seconds * ranks_[static_cast<std::size_t>(r)].factor, t);
  }

  /// What happens when the transfer or timer of `done` ends; its slot is free afterwards.
  void dispatch(const Tag& done) {
    const Tag t = done;
    free_tags_.push_back(const_cast<Tag*>(&done));
    // After a signal, only an iteration still under way has a grace to run out (the last
    // iteration's prefetch may still arrive once the run has ended).
    if (abandoned_ || (interrupt_signal != 0 && !ended_ && grace_over()))
      return;
    if (!t.launched &&
        (t.kind == Kind::InputCopy || t.kind == Kind::StageOut || t.kind == Kind::StageIn || t.kind == Kind::PullIn)) {
      copy_launched(t);
      return;
    }
    record(t);
    switch (t.kind) {
    case Kind::InputCopy: input_copied(t.rank, t.index); break;
    case Kind::Forward: computed(t.rank), forward_segment_done(t.rank, t.index); break;
    case Kind::Backward: computed(t.rank), backward_segment_done(t.rank, t.index); break;
    case Kind::StageOut: copied(t.rank), staged(t.rank, t.index); break;
    case Kind::Flow: flow_transferred(t.index, t.phase, t.flow); break;
    case Kind::FlowSent: flow_sent(t.index, t.phase, t.flow); break;
    case Kind::FlowDelay: flow_done(t.index, t.phase, t.flow); break;
    case Kind::StageIn: copied(t.rank), reduction_done(t.rank, t.index); break;
    case Kind::Optimizer: computed(t.rank), rank_finished(t.rank); break;
    case Kind::Launch: start_collective(t.index); break;
    case Kind::PullIn: copied(t.rank), pulled(t.rank, t.index); break;
    case Kind::Tick: cycle_tick(); break;
    }
  }

  /// What the timeline calls an activity of kind `kind`; "" for those it leaves out.
  static const char* timeline_name(Kind kind) {
    switch (kind) {
    case Kind::InputCopy: return "input copy";
    case Kind::Forward: return "forward";
    case Kind::Backward: return "backward";
    case Kind::StageOut: return "device->host";
    case Kind::Flow: return "flow";
    case Kind::StageIn:
    case Kind::PullIn: return "host->device";
    case Kind::Optimizer: return "optimizer";
    case Kind::FlowDelay: return "latency"; // the merged steps', the software's and the pipeline's, after the bytes
    case Kind::FlowSent:
    case Kind::Launch:
    case Kind::Tick: break;
    }
    return "";
  }

  void record(const Tag& t) {
    if (!scenario_.options.record_timeline || *timeline_name(t.kind) == '\0')
      return;
    const bool is_compute = t.kind == Kind::Forward || t.kind == Kind::Backward || t.kind == Kind::Optimizer;
    if (t.kind == Kind::FlowDelay && t.start_s == now())
      return; // (nothing to draw)
    std::string name = timeline_name(t.kind);
    if (t.kind == Kind::Backward || (t.kind == Kind::Forward && plan_.pulls > 0))
      name += " " + std::to_string(t.index);
    const bool is_flow = t.kind == Kind::Flow || t.kind == Kind::FlowDelay;
    if (is_flow || t.kind == Kind::StageOut || t.kind == Kind::StageIn || t.kind == Kind::PullIn)
      name += " " + reduction(t.index).name;
    result_.timeline.push_back({t.rank, is_compute ? "compute" : (is_flow ? "communication" : "copy"),
                                name, t.start_s, now(), t.kind == Kind::StageOut});
  }

  RankClock& clock(int r) { return ranks_[static_cast<std::size_t>(r)].clock; }
  /// Where the input state of `iteration` is kept: only the iteration under way and the next
  /// one's prefetch are ever in play, so two slots serve any number of iterations.
  static std::size_t slot_of(int iteration) { return static_cast<std::size_t>(iteration) % 2; }
  void computed(int r) { clock(r).mark(now()), --clock(r).computing; }
  void copied(int r) { clock(r).mark(now()), --clock(r).copying; }

  // --- one rank's iteration -----------------------------------------------------------------

  void start_iteration() {
    iteration_start_s_ = now();
    finished_ = 0;
    bytes_ = {};
    arrived_.assign(plan_.reductions.size() + responses_.size(), 0);
    ready_at_.assign(plan_.reductions.size(), 0.0);
    if (plan_.fused_by_cycle) {
      order_.clear();
      finished_by_.assign(responses_.size(), 0);
      staged_by_.assign(plan_.reductions.size(), 0);
      ready_units_ = fused_units_ = 0;
    }
    const double jitter = scenario_.options.compute_jitter();
    for (int r = 0; r < plan_.ranks; ++r) {
      RankState& rank = ranks_[static_cast<std::size_t>(r)];
      rank.clock.mark(now());
      rank.clock.spent = {};
      // A normal distribution needs a positive deviation: draw only with jitter.
      rank.factor = rank.device * (jitter > 0 ? 1.0 + std::abs(std::normal_distribution<double>(0.0, jitter)(rng_)) : 1.0);
      rank.next_segment = rank.produced = rank.staged = rank.next_collective = rank.reduced = 0;
      rank.on_comm_host.assign(plan_.reductions.size(), 0);
      rank.in_collective = -1;
      rank.backward_done = false;
      const bool prefetched = scenario_.options.input_overlap && iteration_ > 0;
      rank.input_done[slot_of(iteration_ + 1)] = plan_.input_copy_bytes == 0; // held the last one
      if (!rank.input_done[slot_of(iteration_)] && !prefetched)
        copy(r, rank.cpu, rank.compute, plan_.input_copy_bytes, {Kind::InputCopy, r, iteration_});
      rank.forward_waiting = true;
      rank.forward_due = 0;
      rank.pulled.assign(static_cast<std::size_t>(plan_.pulls), 0);
      try_forward(r);
    }
    pushes_pending_ = pushes_to_;
    // The step's reads of the variables start with it, on every rank.
    pull_pending_ = pull_flows_to_;
    for (int k = plan_.backward_reductions(); k < static_cast<int>(plan_.reductions.size()); ++k)
      for (int r = 0; r < plan_.ranks; ++r) {
        join_exchange(r, k);
        if (pull_pending_[pull_slot(k, r)] == 0) // a server holding all of them itself
          pull_arrived(r, k);
      }
  }

  void input_copied(int r, int iteration) {
    copied(r);
    ranks_[static_cast<std::size_t>(r)].input_done[slot_of(iteration)] = 1;
    if (iteration == iteration_)
      try_forward(r);
  }

  void try_forward(int r) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    if (!rank.forward_waiting || !rank.input_done[slot_of(iteration_)])
      return;
    rank.forward_waiting = false;
    const int next = iteration_ + 1;
    if (scenario_.options.input_overlap && next <= scenario_.options.iterations &&
        !rank.input_done[slot_of(next)])
      copy(r, rank.cpu, rank.compute, plan_.input_copy_bytes, {Kind::InputCopy, r, next});
    compute(r, plan_.forward_segments_s[0], {Kind::Forward, r, 0});
  }

  void forward_segment_done(int r, int segment) {
    if (segment + 1 == static_cast<int>(plan_.forward_segments_s.size())) {
      start_backward_segment(r);
      return;
    }
    ranks_[static_cast<std::size_t>(r)].forward_due = segment + 1;
    try_forward_segment(r);
  }

  /// The forward segment due starts once the pull before it has reached the device.
  void try_forward_segment(int r) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    const int j = rank.forward_due;
    if (j == 0 || !rank.pulled[static_cast<std::size_t>(j - 1)])
      return;
    rank.forward_due = 0;
    compute(r, plan_.forward_segments_s[static_cast<std::size_t>(j)], {Kind::Forward, r, j});
  }

  /// Every flow of pull `k` to rank `r` has arrived: the variables go to the device.
  void pull_arrived(int r, int k) {
    const RankState& rank = ranks_[static_cast<std::size_t>(r)];
    if (rank.comm != rank.compute)
      copy(r, rank.comm, rank.compute, plan_.reductions[static_cast<std::size_t>(k)].bytes, {Kind::PullIn, r, k});
    else
      pulled(r, k);
  }

  void pulled(int r, int k) {
    ranks_[static_cast<std::size_t>(r)].pulled[static_cast<std::size_t>(k - plan_.backward_reductions())] = 1;
    try_forward_segment(r);
  }

  /// Whether collective `k` is a next step's read (after backward's exchanges, before the
  /// responses fused by cycle).
  bool is_pull(int k) const {
    return k >= plan_.backward_reductions() && k < static_cast<int>(plan_.reductions.size());
  }

  /// Where rank `r`'s count of pull `k`'s flows to it is kept in pull_pending_.
  std::size_t pull_slot(int k, int r) const {
    return static_cast<std::size_t>(k - plan_.backward_reductions()) * static_cast<std::size_t>(plan_.ranks) +
           static_cast<std::size_t>(r);
  }

  void start_backward_segment(int r) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    compute(r, plan_.backward_segments_s[static_cast<std::size_t>(rank.next_segment)],
            {Kind::Backward, r, rank.next_segment});
  }

  void backward_segment_done(int r, int segment) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    const int reductions = plan_.backward_reductions();
    rank.next_segment = segment + 1;
    if (segment < reductions) {
      if (scenario_.options.overlaps_backward())
        produce(r);
      start_backward_segment(r);
      return;
    }
    rank.backward_done = true;
    while (rank.produced < reductions) // without overlap every bucket is released now
      produce(r);
    maybe_optimize(r);
  }

  /// The next reduction's gradient exists on the device: stage it out, or use it in place.
  void produce(int r) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    const int k = rank.produced++;
    if (rank.comm != rank.compute)
      copy(r, rank.compute, rank.comm, plan_.reductions[static_cast<std::size_t>(k)].bytes, {Kind::StageOut, r, k});
    else
      staged(r, k);
  }

  /// Reduction `k` is on the communication host. Copies can end out of order (a small bucket
  /// after a large one): collectives take them in bucket order, so only the prefix counts.
  void staged(int r, int k) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    rank.on_comm_host[static_cast<std::size_t>(k)] = 1;
    ready_at_[static_cast<std::size_t>(k)] = now(); // the last rank's is kept: ranks are staged in time order
    while (rank.staged < rank.produced && rank.on_comm_host[static_cast<std::size_t>(rank.staged)])
      ++rank.staged;
    if (has_concurrent_ && plan_.reductions[static_cast<std::size_t>(k)].concurrent)
      join_exchange(r, k);
    if (plan_.fused_by_cycle)
      unit_staged(k);
    try_arrive(r);
  }

  /// Fused by cycle: one more rank has unit `k` staged. Ready on every rank, Horovod's next cycle
  /// takes it (units become ready in order on each rank, but copies may end out of order: only
  /// the prefix counts).
  [[gnu::noinline]] void unit_staged(int k) {
    if (++staged_by_[static_cast<std::size_t>(k)] < plan_.ranks)
      return;
    while (ready_units_ < static_cast<int>(staged_by_.size()) &&
           staged_by_[static_cast<std::size_t>(ready_units_)] == plan_.ranks)
      ++ready_units_;
    if (running_responses_ == 0)
      wait_for_tick();
  }

  /// Collective `k` is done on rank `r`, its result on the device: the units it reduced count.
  void reduction_done(int r, int k) {
    const auto units = plan_.reductions.size();
    const auto i = static_cast<std::size_t>(k);
    ranks_[static_cast<std::size_t>(r)].reduced += i < units ? 1 : response_units_[i - units];
    if (i >= units && ++finished_by_[i - units] == plan_.ranks) {
      // The response is done, its copy back included (Horovod's operations are synchronous):
      // once the cycle's are, the next cycle if anything is ready.
      responses_end_s_ = now();
      if (--running_responses_ == 0)
        wait_for_tick();
    }
    maybe_optimize(r);
  }

  void maybe_optimize(int r) {
    const RankState& rank = ranks_[static_cast<std::size_t>(r)];
    if (rank.backward_done && rank.reduced == static_cast<int>(plan_.reductions.size()))
      compute(r, plan_.optimizer_s, {Kind::Optimizer, r});
  }

  void rank_finished(int r) {
    clock(r).mark(now());
    if (++finished_ < plan_.ranks)
      return;
    // Synchronisation: the iteration ends with its slowest rank.
    IterationResult it{.time_s = now() - iteration_start_s_, .bytes = bytes_};
    it.bytes.pcie += std::exchange(input_bytes_[slot_of(iteration_)], 0.0);
    for (int q = 0; q < plan_.ranks; ++q) {
      clock(q).mark(now());
      const Breakdown& b = clock(q).spent;
      it.breakdown.add_divided(b, plan_.ranks);
    }
    result_.iterations.push_back(it);
    if (plan_.fused_by_cycle)
      last_order_ = order_;
    result_.iteration_wall_s.push_back(wall_seconds_since(wall_start_));
    if (observer_.iteration)
      observer_.iteration(result_);
    wall_start_ = std::chrono::steady_clock::now();
    if (++iteration_ < scenario_.options.iterations && interrupt_signal == 0) {
      start_iteration();
      return;
    }
    ended_ = true;
    transfers_.stop(); // (a signal that came meanwhile is counted once the run returns)
  }

  /// After a signal: whether the iteration under way has had its grace (interrupt_grace), in
  /// which case it is dropped now.
  bool grace_over() {
    const auto wall_now = std::chrono::steady_clock::now();
    if (!interrupt_seen_)
      interrupt_seen_ = wall_now;
    if (wall_now - *interrupt_seen_ < interrupt_grace)
      return false;
    abandon();
    return true;
  }

  /// Drops the iteration under way: nothing more is dispatched, the replay's own delays are
  /// forgotten and the transfers in flight cancelled, so SimGrid's run returns now.
  void abandon() {
    abandoned_ = true;
    result_.stopped_by = interrupt_signal;
    result_.dropped_iteration = true;
    due_.clear();
    if (alarm_)
      alarm_->remove();
    alarm_ = nullptr;
    transfers_.abort();
  }

  // --- collectives ------------------------------------------------------------------------

  /// A rank joins the next collective once it is done with the previous one and its gradient
  /// is on the communication host; the collective starts when the last rank joins.
  void try_arrive(int r) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    if (rank.in_collective >= 0)
      return;
    int k;
    if (plan_.fused_by_cycle) { // the collectives are the responses formed so far, in order
      if (rank.next_collective >= static_cast<int>(order_.size()))
        return;
      k = order_[static_cast<std::size_t>(rank.next_collective++)];
    } else {
      // Concurrent exchanges were joined when staged: they take no turn.
      while (has_concurrent_ && rank.next_collective < rank.staged &&
             plan_.reductions[static_cast<std::size_t>(rank.next_collective)].concurrent)
        ++rank.next_collective;
      if (rank.next_collective >= rank.staged)
        return;
      k = rank.next_collective++;
    }
    rank.in_collective = k;
    joined(r, k);
    if (++arrived_[static_cast<std::size_t>(k)] < plan_.ranks)
      return; // waiting for the others to join is synchronisation
    for (int q = 0; q < plan_.ranks; ++q) {
      clock(q).mark(now());
      ++clock(q).communicating;
    }
    const double start_s = cycle_start_for(k) + std::max(plan_.costs.collective_launch_s, reduction(k).protocol_base_s);
    if (start_s > now())
      after(start_s - now(), {Kind::Launch, 0, k});
    else
      start_collective(k);
  }

  /// A rank joins concurrent exchange `k` on its own, as soon as its gradient is staged: its
  /// flows start once their other ends have joined too (CollectiveProgress's rendezvous).
  void join_exchange(int r, int k) {
    joined(r, k);
    auto& progress = progress_[static_cast<std::size_t>(k)];
    if (arrived_[static_cast<std::size_t>(k)]++ == 0)
      progress.reset();
    clock(r).mark(now());
    ++clock(r).communicating;
    std::vector<FlowRef> to_start;
    std::vector<int> done;
    progress.join(r, to_start, done);
    advance(k, to_start, done);
  }

  /// When the framework lets collective `k`, whose ranks are all ready now, begin: now without
  /// a cycle; else in the cycle under way if its bucket was ready when that cycle began, or at
  /// the next cycle after it (one cycle after the last began, or as soon as that cycle's
  /// collectives were done, then every cycle while idle), plus that cycle's negotiation.
  double cycle_start_for(int k) {
    const double cycle_s = scenario_.options.software.cycle.seconds();
    if (cycle_s <= 0)
      return now();
    if (plan_.fused_by_cycle) // formed at a tick: after that cycle's negotiation
      return std::max(now(), negotiated_s_);
    const double ready_s = ready_at_[static_cast<std::size_t>(k)];
    if (ready_s <= cycle_start_s_)
      return now();
    double next_s = std::max(cycle_start_s_ + cycle_s, responses_end_s_);
    if (next_s < ready_s)
      next_s += std::ceil((ready_s - next_s) / cycle_s) * cycle_s;
    cycle_start_s_ = std::max(next_s, now());
    return cycle_start_s_ + negotiation_s_;
  }

  /// Horovod's next cycle, for units ready on every rank and in no response yet: one cycle after
  /// the last began, or as soon as that cycle's responses are done, then every cycle while idle
  /// (cycle_start_for's ticks).
  void wait_for_tick() {
    if (tick_set_ || ready_units_ == fused_units_)
      return;
    const double cycle_s = scenario_.options.software.cycle.seconds();
    double next_s = std::max(cycle_start_s_ + cycle_s, responses_end_s_);
    if (next_s < now())
      next_s += std::ceil((now() - next_s) / cycle_s) * cycle_s;
    tick_set_ = true;
    // Until the tick, every rank idle waits for the framework's cycle, not for another rank: a
    // cost of the communication, as the wait for a cycle is where buckets are fused by size
    // (try_arrive, cycle_start_for).
    for (int q = 0; q < plan_.ranks; ++q) {
      clock(q).mark(now());
      ++clock(q).communicating;
    }
    after(std::max(0.0, next_s - now()), {Kind::Tick, 0});
  }

  /// A cycle begins: its negotiation, then the units ready on every rank, fused into responses as
  /// Horovod fuses them (fuse_responses), which every rank runs one after the other.
  void cycle_tick() {
    tick_set_ = false;
    for (int q = 0; q < plan_.ranks; ++q) { // (the wait for this tick ends)
      clock(q).mark(now());
      --clock(q).communicating;
    }
    if (ready_units_ == fused_units_)
      return;
    cycle_start_s_ = now();
    negotiated_s_ = now() + negotiation_s_;
    for (auto& units : fuse_responses(plan_, fused_units_, ready_units_,
                                      scenario_.options.software.fusion_threshold.bytes()))
      add_response(std::move(units));
    fused_units_ = ready_units_;
    for (int r = 0; r < plan_.ranks; ++r)
      try_arrive(r);
  }

  /// Queues the response of `units`, planned the first time it is formed.
  void add_response(std::vector<int> units) {
    const auto count = static_cast<int>(units.size());
    auto [at, fresh] = response_ids_.try_emplace(std::move(units), 0);
    if (fresh) {
      at->second = static_cast<int>(plan_.reductions.size() + responses_.size());
      responses_.push_back(plan_response(scenario_, plan_, at->first));
      response_units_.push_back(count);
      progress_.emplace_back(responses_.back().plan, plan_.ranks);
      pipelines_.emplace_back();
      pushes_to_.emplace_back(); // all-reduce flows carry no server work
      pushes_pending_.emplace_back();
      arrived_.push_back(0);
      finished_by_.push_back(0);
      if (!planned_.empty() && !plan_flows_of(responses_.back()))
        throw Unrunnable("a fused response has a route of more than " + std::to_string(FlowSharing::max_hops) +
                         " links, which SimGrid would carry beside the flows and copies the replay shares out; use "
                         "--flows simgrid (static routing) or fusion by size");
    }
    order_.push_back(at->second);
    ++running_responses_;
  }

  /// Every rank has joined collective `k` and paid its launch: its first flows start.
  void start_collective(int k) {
    std::vector<FlowRef> to_start;
    std::vector<int> done;
    progress_[static_cast<std::size_t>(k)].start(to_start, done);
    advance(k, to_start, done);
  }

  /// Starts the flows the rendezvous rule allows and releases the ranks that are done.
  void advance(int k, const std::vector<FlowRef>& to_start, const std::vector<int>& done) {
    const auto& progress = progress_[static_cast<std::size_t>(k)];
    for (const FlowRef& f : to_start) {
      const auto& flow = progress.flow(f);
      const PlannedFlow planned = planned_flow(k, f);
      bytes_.add_times(planner_ ? planner_->crossed(planned) : planned.route->per_byte, flow.bytes);
      const Tag t{Kind::Flow, flow.src, k, f.phase, f.flow};
      // (A dataflow phase's flow pays its latency after its bytes: flow_transferred.)
      const bool latency_after = sends_beside_latency(k, f.phase, planned.timing);
      switch (planned.timing) {
      case Timing::ClosedForm:
        ++result_.flows_in_closed_form;
        due_at(closed_form_arrival_s(*planned.route, flow.bytes, !latency_after), {.tag = tag(t)});
        break;
      case Timing::Shared:
        ++result_.flows_shared;
        if (latency_after)
          sharing_->start_sending(now(), planned.sharing_path, static_cast<double>(std::llround(flow.bytes)), tag(t));
        else
          sharing_->start(now(), planned.sharing_path, static_cast<double>(std::llround(flow.bytes)), tag(t));
        wake_flows_at_next_event();
        break;
      case Timing::Pipeline: { // the pipeline streams once its last edge may start
        ++result_.flows_shared;
        const auto& phase = reduction(k).plan[static_cast<std::size_t>(f.phase)];
        const auto range = phase.pipeline_of(f.flow);
        if (!last_to_start(pipelines_[static_cast<std::size_t>(k)].started, static_cast<std::size_t>(phase.pipelines),
                           static_cast<std::size_t>(range.first / range.count), range.count))
          break;
        sharing_->start(now(), planned.sharing_path, static_cast<double>(std::llround(flow.bytes)), tag(t));
        wake_flows_at_next_event();
        break;
      }
      case Timing::SentTogether: { // the group's one send starts once its last flow may start
        assert(latency_after); // (a dataflow phase's: send_together)
        ++result_.flows_shared;
        const auto& phase = reduction(k).plan[static_cast<std::size_t>(f.phase)];
        const int first = phase.sent_with[static_cast<std::size_t>(f.flow)];
        if (!last_to_start(pipelines_[static_cast<std::size_t>(k)].sent_with_started, phase.flows.size(),
                           static_cast<std::size_t>(first), planned_flow(k, {f.phase, first}).sent_with_count))
          break;
        sharing_->start_sending(now(), planned.sharing_path, static_cast<double>(std::llround(flow.bytes)),
                                tag({Kind::Flow, phase.flows[static_cast<std::size_t>(first)].src, k, f.phase, first}));
        wake_flows_at_next_event();
        break;
      }
      case Timing::SimGrid:
        comm(ranks_[static_cast<std::size_t>(flow.src)].comm, ranks_[static_cast<std::size_t>(flow.dst)].comm,
             flow.bytes, t);
        break;
      }
    }
    for (int r : done)
      collective_done(k, r);
  }

  /// Counts a flow of `members` that one FlowSharing flow carries together (a pipeline's edges, a
  /// group sent as one) as ready to start, in slot `slot` of `started` (`slots` of them): whether
  /// it is the last, which starts them all and makes the slot count from 0 again.
  static bool last_to_start(std::vector<int>& started, std::size_t slots, std::size_t slot, int members) {
    started.resize(slots, 0);
    if (++started[slot] < members)
      return false;
    started[slot] = 0;
    return true;
  }

  /// Whether a flow of phase `p` of reduction `k` timed by `timing` sends its bytes at once and
  /// pays its route latency after them: in a dataflow phase (an exact pipeline) a rank's sends
  /// follow one another as their bytes leave it, each one's latency running beside the next
  /// one's bytes, as NCCL's FIFOs let several chunks be in flight (NCCL 2.7.8
  /// src/collectives/device/primitives.h, waitSend: a sender waits only for a free slot of its
  /// receiver's NCCL_STEPS; src/graph/tuning.cc counts the tree's latency per hop,
  /// 2 (local ranks - 1 + log2 nodes), not per chunk). A SimGrid comm pays it first, as SimGrid
  /// does: the next send then follows its arrival (where a phase mixes both, on routes the
  /// replay cannot share, those edges pay each chunk's latency: a bound).
  bool sends_beside_latency(int k, int p, Timing timing) const {
    return timing != Timing::SimGrid && !reduction(k).plan[static_cast<std::size_t>(p)].after.empty();
  }

  /// When a flow of `bytes` started now arrives if it is alone on `route`, as SimGrid's CM02
  /// computes it, operation for operation (tested against it): the route's latency times the
  /// latency factor ends at a date of its own (unless not `wait_latency`: then it sends at once);
  /// then the max-min solver gives the flow, whose sharing penalty is the route's latency (1
  /// without), (narrowest bandwidth / (1 / penalty)) / penalty, times the bandwidth factor, for
  /// its whole bytes.
  double closed_form_arrival_s(const Route& route, double bytes, bool wait_latency = true) const {
    const double latency_ends_s = now() + (wait_latency ? route.latency_s * latency_factor_ : 0.0);
    const double penalty = route.latency_s > 0 ? route.latency_s : 1.0;
    const double rate = route.bandwidth_bytes_per_s / (1.0 / penalty) / penalty * bandwidth_factor_;
    return latency_ends_s + static_cast<double>(std::llround(bytes)) / rate;
  }

  /// How flow `f` of reduction `k` is timed (through SimGrid where nothing was planned: flows or
  /// copies in SimGrid, other network models).
  PlannedFlow planned_flow(int k, FlowRef f) {
    if (!planned_.empty())
      return planned_[static_cast<std::size_t>(k)][static_cast<std::size_t>(f.phase)][static_cast<std::size_t>(f.flow)];
    const auto& flow = progress_[static_cast<std::size_t>(k)].flow(f);
    return {.route = &routes_.between(flow.src, flow.dst)};
  }

  /// What flow `f` of phase `p` of reduction `k` costs beyond its wire latency and bytes: every
  /// step's send and receive overheads, NCCL's protocol latency beyond the route's (per step; a
  /// pipeline's per hop of its first chunk) and the receiver's reduction of what arrived (a
  /// parameter server's work on a push comes after: flow_transferred).
  /// `wire_s`: the route latency a step already pays (the flow's own; a pipeline's, its slowest edge's).
  double software_delay_s(int k, int p, int f, double wire_s) const {
    const auto& collective = reduction(k);
    const auto& phase = collective.plan[static_cast<std::size_t>(p)];
    const auto& flow = phase.flows[static_cast<std::size_t>(f)];
    double delay_s = phase.steps * plan_.costs.message_overhead_of(collective) + flow.reduce_bytes * plan_.costs.reduce_s_per_byte;
    if (!collective.protocol_step_s.empty()) {
      // (a pipeline: its first chunk's hops, D each way; as NCCL's tuning model counts them)
      const int rounds = phase.chunks > 0 ? phase.steps - phase.chunks + 1 : phase.steps;
      delay_s += rounds * std::max(0.0, collective.protocol_step_s[static_cast<std::size_t>(p)] - wire_s);
    }
    return delay_s;
  }

  /// Flow `f` has arrived, or, where it pays its latency after its bytes (sends_beside_latency),
  /// sent its bytes: its latency comes after, then its software costs, and an aggregated phase's
  /// further route latencies (SimGrid charged one). A pipelined phase ends as a whole
  /// (pipeline_flow_transferred).
  void flow_transferred(int k, int p, int f) {
    const auto& phase = reduction(k).plan[static_cast<std::size_t>(p)];
    if (phase.chunks > 0) {
      pipeline_flow_transferred(k, p, f);
      return;
    }
    const PlannedFlow planned = planned_flow(k, {p, f});
    if (planned.timing == Timing::SentTogether) { // the group's one send: each of its flows is sent
      for (int g = f; g >= 0; g = planned_flow(k, {p, g}).next_sent_with)
        transferred_one(k, p, g);
      return;
    }
    transferred_one(k, p, f);
  }

  /// Flow `f` of phase `p` of reduction `k` (not a pipelined phase's) has arrived, or sent its
  /// bytes (flow_transferred).
  void transferred_one(int k, int p, int f) {
    const auto& phase = reduction(k).plan[static_cast<std::size_t>(p)];
    // The route's latency, where the phase's further steps or a protocol need it, or where the
    // flow pays it after its bytes (its sender's next send may start now).
    const PlannedFlow planned = planned_flow(k, {p, f});
    const bool latency_after = sends_beside_latency(k, p, planned.timing);
    const bool needs_wire = phase.steps > 1 || !reduction(k).protocol_step_s.empty() || latency_after;
    const double wire_s = needs_wire ? planned.route->latency_s * latency_factor_ : 0.0;
    double delay_s = software_delay_s(k, p, f, wire_s);
    if (phase.steps > 1)
      delay_s += (phase.steps - 1) * wire_s;
    if (latency_after) { // it arrives a latency after its bytes; its sender's next send starts
                         // once the message overheads are paid too (o_s + o_r per chunk: a rank
                         // of the pipeline receives and sends each, as the aggregated form charges)
      delay_s += wire_s;
      if (const double overhead_s = plan_.costs.message_overhead_of(reduction(k)); overhead_s > 0)
        after(overhead_s, {Kind::FlowSent, phase.flows[static_cast<std::size_t>(f)].src, k, p, f});
      else
        flow_sent(k, p, f);
    }
    const auto& flow = phase.flows[static_cast<std::size_t>(f)];
    if (flow.receiver_s > 0 && --pushes_pending_[static_cast<std::size_t>(k)][static_cast<std::size_t>(flow.dst)] == 0) {
      // The last push of this exchange to its server is in: the server works once it is done
      // with the exchanges before (those running beside this one too), and this push ends the
      // server's part of the phase then. Its sender stays in the phase until then too: its own
      // pulls, and those it serves, wait for that server's work (the other pushes end as they
      // arrive).
      double& busy_s = server_busy_until_s_[static_cast<std::size_t>(flow.dst)];
      busy_s = std::max(now() + delay_s, busy_s) + flow.receiver_s;
      delay_s = busy_s - now();
    }
    if (phase.steps <= 1 && delay_s <= 0) {
      flow_done(k, p, f);
      return;
    }
    after(delay_s, {Kind::FlowDelay, phase.flows[static_cast<std::size_t>(f)].src, k, p, f});
  }

  /// A pipeline in steady state moves at one pace, every edge included (NCCL's FIFOs let no edge
  /// run far ahead; the replay runs a pipeline whose edges share links as one flow:
  /// couple_pipelines): the phase ends when its last edge has arrived (its whole share streamed,
  /// every edge at once, paying the slowest route's latency), plus what the latency and the fill
  /// and drain add: the rest of the first chunk's way, each hop its own route's latency (the later
  /// chunks' latencies run beside the bytes before them: sends_beside_latency), and the rounds of
  /// fill and drain (pipeline_rounds); then each flow's software costs.
  void pipeline_flow_transferred(int k, int p, int f) {
    const auto& phase = reduction(k).plan[static_cast<std::size_t>(p)];
    auto& pipeline = pipelines_[static_cast<std::size_t>(k)];
    // A coupled pipeline's flow ends for all its edges.
    const bool coupled = planned_flow(k, {p, f}).timing == Timing::Pipeline;
    pipeline.arrived += static_cast<std::size_t>(coupled ? phase.pipeline_of(f).count : 1);
    if (pipeline.arrived < phase.flows.size())
      return;
    const PipelineRounds& rounds = pipeline_rounds(k, p);
    const double wire_s = rounds.slowest_latency_s * latency_factor_;
    const double fill_s = rounds.fill_s_per_chunk_byte * phase.flows.front().bytes / phase.chunks / bandwidth_factor_;
    const double rounds_s = std::max(0.0, rounds.latency_s * latency_factor_ - wire_s) + fill_s;
    pipeline.arrived = 0;
    for (std::size_t g = 0; g < phase.flows.size(); ++g)
      after(rounds_s + software_delay_s(k, p, static_cast<int>(g), wire_s),
            {Kind::FlowDelay, phase.flows[g].src, k, p, static_cast<int>(g)});
  }

  /// What the first chunk's way and the fill and drain of a pipelined phase add to its steady
  /// state (pipeline_fill.hpp): the latency of that way and its slowest route's (before the
  /// latency factor), and the fill and drain per byte of a chunk (before the bandwidth factor).
  struct PipelineRounds {
    double latency_s = 0;
    double slowest_latency_s = 0;
    double fill_s_per_chunk_byte = 0;
  };
  /// Those of pipelined phase `p` of reduction `k`, computed once per reduction and phase.
  const PipelineRounds& pipeline_rounds(int k, int p) {
    const auto& phase = reduction(k).plan[static_cast<std::size_t>(p)];
    auto [it, fresh] = pipeline_rounds_.try_emplace({k, p});
    if (fresh) {
      std::vector<const Route*> routes;
      double slowest_s = 0;
      for (int g = 0; g < static_cast<int>(phase.flows.size()); ++g) {
        routes.push_back(planned_flow(k, {p, g}).route);
        slowest_s = std::max(slowest_s, routes.back()->latency_s);
      }
      it->second = {pipeline_latency_s(phase, routes), slowest_s,
                    pipeline_fill_s_per_chunk_byte(phase, routes, routes_)};
    }
    return it->second;
  }

  /// The bytes of flow `f` (of a dataflow phase) have left its sender: its sender's next sends
  /// may start (CollectiveProgress::sent).
  void flow_sent(int k, int p, int f) {
    std::vector<FlowRef> to_start;
    progress_[static_cast<std::size_t>(k)].sent({p, f}, to_start);
    advance(k, to_start, {});
  }

  void flow_done(int k, int p, int f) {
    if (is_pull(k) && p + 1 == static_cast<int>(reduction(k).plan.size())) { // its receiver counts what is in
      const int dst = progress_[static_cast<std::size_t>(k)].flow({p, f}).dst;
      if (--pull_pending_[pull_slot(k, dst)] == 0)
        pull_arrived(dst, k);
    }
    std::vector<FlowRef> to_start;
    std::vector<int> done;
    progress_[static_cast<std::size_t>(k)].finish({p, f}, to_start, done);
    advance(k, to_start, done);
  }

  /// For the timeline: when rank `r` joined collective `k`.
  void joined(int r, int k) {
    if (scenario_.options.record_timeline)
      joined_at_s_[{r, k}] = now();
  }

  void collective_done(int k, int r) {
    RankState& rank = ranks_[static_cast<std::size_t>(r)];
    if (scenario_.options.record_timeline) {
      // A rank's time in the collective, waiting for the others to join included: what the
      // breakdown counts as synchronisation and communication, beside its own flows' slices.
      const auto since = joined_at_s_.extract({r, k});
      result_.timeline.push_back({r, "collective", "collective " + reduction(k).name,
                                  since ? since.mapped() : now(), now(), false});
    }
    responses_end_s_ = now();
    clock(r).mark(now());
    --clock(r).communicating;
    if (!has_concurrent_ || !reduction(k).concurrent)
      rank.in_collective = -1;
    // What comes back goes to the device: nothing when the workers pull at the next forward
    // (a push) or the pull's own copy carries it (PullIn).
    const double back_bytes = reduction(k).result_bytes;
    if (rank.comm != rank.compute && back_bytes > 0)
      copy(r, rank.comm, rank.compute, back_bytes, {Kind::StageIn, r, k});
    else
      reduction_done(r, k);
    try_arrive(r);
  }

  std::chrono::steady_clock::time_point wall_start_;
  const Scenario& scenario_;
  const Progress& observer_; ///< who follows the run (engine.hpp)
  IterationPlan plan_;
  platform::Machine machine_;
  std::mt19937_64 rng_;
  Transfers transfers_;
  std::vector<SharedLink> pcie_links_; ///< per rank: device->host, host->device; empty: copies go through SimGrid
  std::vector<std::uint32_t> pcie_wakeups_; ///< per link: the number of its latest wakeup
  std::vector<RankState> ranks_;
  double latency_factor_ = 1; ///< SimGrid's network/latency-factor, for merged steps' latency
  std::map<std::pair<int, int>, double> joined_at_s_; ///< (rank, collective): when it joined, for the timeline
  double bandwidth_factor_ = 1; ///< SimGrid's network/bandwidth-factor, for flows in closed form
  /// Per reduction, phase and flow: how it is timed (empty when the replay times none: every
  /// flow goes through SimGrid).
  std::vector<PlannedPhases> planned_;
  /// The flows that share links, when the closed forms apply (else they go through SimGrid).
  std::optional<FlowSharing> sharing_;
  bool copies_shared_ = false; ///< GPU-direct: PCIe copies are FlowSharing flows (replay_shares_copies)
  std::optional<SharingPaths> sharing_paths_; ///< of the routes of flows in sharing_
  std::optional<FlowPlanner> planner_;       ///< how each flow is timed, over sharing_paths_
  std::vector<void*> finished_flows_;
  /// The input batches' PCIe bytes of the iteration under way and of the next (prefetched),
  /// by slot_of(iteration); RankState::input_done is kept the same way.
  std::array<double, 2> input_bytes_{};
  std::vector<CollectiveProgress> progress_; ///< one per reduction, reused every iteration
  /// Per pull and rank (pull_slot): the flows of the pull's last phase to the rank (the
  /// variables; a table's rows, after the phase of their ids' requests).
  std::vector<int> pull_flows_to_;
  std::vector<int> pull_pending_;  ///< ... of this iteration, not arrived yet
  std::vector<double> server_busy_until_s_; ///< per rank: when its parameter server's work ends
  // Horovod's fusion by cycle (plan_.fused_by_cycle): the units are plan_.reductions.
  /// Some reduction is a concurrent exchange: then no flow is alone for sure (plan_flows_of), for
  /// they share links with each other and with the collectives between them.
  bool has_concurrent_ = false;
  std::deque<Reduction> responses_;   ///< collectives plan_.reductions.size() on, each planned once
  std::vector<int> response_units_;   ///< per response: its units
  std::map<std::vector<int>, int> response_ids_; ///< a response's units -> its collective
  std::vector<int> order_;            ///< this iteration's responses, in the order every rank runs them
  std::vector<int> last_order_;       ///< ... of the last complete iteration
  std::vector<int> finished_by_;      ///< per response: ranks done with it this iteration
  std::vector<int> staged_by_;        ///< per unit: ranks that have it staged this iteration
  int ready_units_ = 0;               ///< units staged on every rank (a prefix)
  int fused_units_ = 0;               ///< units in a response already
  int running_responses_ = 0;         ///< formed and not done on every rank
  bool tick_set_ = false;
  double negotiated_s_ = 0;           ///< when the cycle under way has negotiated
  /// Per reduction and rank: the pushes to it that carry a server's work (empty: none), and of
  /// this iteration, those not in yet.
  std::vector<std::vector<int>> pushes_to_, pushes_pending_;
  std::vector<int> arrived_;                 ///< per reduction: ranks that joined this iteration
  /// Per reduction: its pipelined phase's flows arrived so far (a plan's pipelined phases run
  /// one after the other: the next starts once every flow of the one before has arrived and
  /// this was reset; concurrent exchanges have none).
  struct PipelineProgress {
    std::size_t arrived = 0;
    std::vector<int> started; ///< per pipeline of a coupled phase: its edges started (last_to_start)
    /// Per flow of the plan's one phase with groups sent together (FlowPlanner), a group's first:
    /// its flows started (last_to_start).
    std::vector<int> sent_with_started;
  };
  std::vector<PipelineProgress> pipelines_;
  std::map<std::pair<int, int>, PipelineRounds> pipeline_rounds_; ///< pipeline_rounds's, per (reduction, phase)
  std::vector<double> ready_at_;       ///< per reduction: when its last rank had it staged, this iteration
  double cycle_start_s_ = -std::numeric_limits<double>::infinity(); ///< the framework cycle under way
  double responses_end_s_ = 0;         ///< when the last collective ended on its last rank
  double negotiation_s_ = 0;           ///< what a cycle's negotiation costs (negotiation_seconds)
  Routes routes_;
  /// Compute, merged-step latencies, flows in closed form and PCIe link events.
  DueQueue<Wakeup> due_;
  simgrid::kernel::timer::Timer* alarm_ = nullptr; ///< at due_'s earliest live item, or null
  double alarm_at_s_ = 0;
  bool draining_ = false; ///< the alarm's callback is handing out what is due
  /// Nothing goes through SimGrid (replay_only()): the alarm's callback runs the instants after
  /// its own too, with the replay's clock at ahead_s_ and SimGrid's left behind.
  bool simgrid_free_ = false;
  double ahead_s_ = 0;
  double simgrid_clock_s_ = 0; ///< SimGrid's clock, as it last moved (0 before it first does)
  std::deque<Tag> tags_;
  std::vector<Tag*> free_tags_;
  RunResult result_;
  LinkBytes bytes_;
  int iteration_ = 0;
  int finished_ = 0;
  /// When this process first saw the signal of interrupt_signal, and whether it has dropped
  /// the iteration under way since (abandon()).
  std::optional<std::chrono::steady_clock::time_point> interrupt_seen_;
  bool abandoned_ = false;
  /// No iteration starts any more: the last ended, or a signal came before the next.
  bool ended_ = false;
  double iteration_start_s_ = 0;
};

} // namespace

IterationResult RunResult::measured_mean() const {
  if (iterations.empty())
    return {};
  const std::size_t first = iterations.size() > 1 ? 1 : 0;
  IterationResult mean;
  const double n = static_cast<double>(iterations.size() - first);
  for (std::size_t i = first; i < iterations.size(); ++i) {
    const auto& it = iterations[i];
    mean.time_s += it.time_s / n;
    mean.breakdown.add_divided(it.breakdown, n);
    mean.bytes.add_divided(it.bytes, n);
  }
  return mean;
}

RunResult run(const Scenario& s, const Progress& progress) {
  assert(!scenario_problem(s) && "run: the scenario has a problem; check scenario_problem first");
  Replay replay(s, progress);
  return replay.run();
}

} // namespace ceiling::replay
