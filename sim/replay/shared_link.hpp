// One direction of a node-private link, with its copies' fair sharing computed in closed form.
#pragma once

#include <limits>
#include <vector>

namespace ceiling::replay {

/// One direction of a link that only the replay's own copies cross: a GPU's PCIe link when
/// gradients are staged through host memory (no network flow crosses it then). Each copy first
/// waits the link's latency, then the copies in flight share the bandwidth equally. That is
/// what SimGrid's CM02 model computes for flows whose route is this one link (max-min sharing,
/// no cross-traffic, no TCP window cap), so the replay can serve these copies itself instead of
/// sending each through SimGrid (tested against SimGrid: replay/replay_test.cpp).
///
/// It keeps no clock: the owner calls start() and advance() with the simulated time and wakes it
/// at next_event_s().
class SharedLink {
public:
  /// `bytes_per_s` is the effective bandwidth (a bandwidth factor already applied) and
  /// `latency_s` the effective latency of one copy.
  SharedLink(double bytes_per_s, double latency_s);

  /// Starts copying `bytes` at `now_s` (not before the last call's time); `token` names the
  /// copy in advance()'s output.
  void start(double now_s, double bytes, void* token);

  /// When something next changes: a copy's latency ends or a copy finishes; +infinity when idle.
  double next_event_s() const;

  /// Moves to `now_s` (at most next_event_s()) and appends the copies that finished by then to
  /// `finished`, in the order they started.
  void advance(double now_s, std::vector<void*>& finished);

  int in_flight() const { return static_cast<int>(waiting_.size() + sharing_.size()); }

private:
  struct Copy {
    void* token;
    double remaining_bytes; // while sharing
    double sharing_from_s;  // while waiting its latency
  };

  /// Brings the remaining bytes of the sharing copies to `now_s`.
  void progress_to(double now_s);

  double bytes_per_s_;
  double latency_s_;
  double updated_s_ = 0;
  std::vector<Copy> waiting_; ///< in their latency, by start
  std::vector<Copy> sharing_; ///< sharing the bandwidth, by start
};

} // namespace ceiling::replay
