// Transfers: bytes from one host to another through SimGrid's network model, with a callback
// when they have arrived. Two ways to drive them, one simulated result.
#pragma once

#include <simgrid/forward.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ceiling::replay {

/// How transfers are driven. Both cross the same route, start at the same simulated instant
/// and share bandwidth alike; they differ in wall-clock cost.
///
/// - Maestro: a comm that maestro starts (Comm::sendto). Cheapest per transfer, but SimGrid
///   3.32 keeps every such comm in one list and walks all of it each time one ends, which is
///   quadratic in the transfers in flight.
/// - Couriers: a mailbox exchange between a pair of pooled actors (a sender moved onto the
///   source host, a receiver onto the destination). Each actor's list holds only its own comm,
///   so the cost per transfer stays flat as transfers multiply; the pool grows to the largest
///   number in flight at once and is reused, so actors are not created per transfer.
enum class TransferDriver { Maestro, Couriers };

class Transfers {
public:
  /// `arrived(token)` is called in maestro when the transfer started with `token` has ended.
  Transfers(TransferDriver driver, std::function<void(void*)> arrived);
  ~Transfers();
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  TransferDriver driver() const { return driver_; }

  /// Starts moving `bytes` from `src` to `dst` now.
  void start(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes, void* token);

  /// Ends the couriers, the idle ones now and the others when their transfer has arrived
  /// (SimGrid reports actors left at the end of a run as a deadlock). Transfers in flight
  /// still arrive.
  void stop();

  /// Cancels every transfer in flight and ends every courier (a run dropping the iteration
  /// under way): nothing more arrives. Done from a timer at the current instant, outside the
  /// completion callback the caller may be in.
  void abort();

private:
  struct Courier;

  void start_by_maestro(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes, void* token);
  void start_by_courier(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes, void* token);
  void comm_ended(const simgrid::s4u::Activity& a);

  TransferDriver driver_;
  std::function<void(void*)> arrived_;
  // Maestro: the comms in flight (SimGrid needs them alive until their completion callback
  // has returned, so finished ones are dropped when the clock next moves).
  std::unordered_map<const simgrid::s4u::Activity*, simgrid::s4u::ActivityPtr> in_flight_;
  std::vector<simgrid::s4u::ActivityPtr> finished_;
  // Couriers: the pool and its idle members, reused last-in first-out.
  std::vector<std::unique_ptr<Courier>> couriers_;
  std::vector<Courier*> idle_;
  bool stopping_ = false;
};

} // namespace ceiling::replay
