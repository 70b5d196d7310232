// Probes drive the engine directly: comms for transfers, one actor per rank for the ring.
#include "machine/probe.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <string>

namespace sg4 = simgrid::s4u;

namespace ceiling::platform {

units::Duration time_transfers(const std::vector<Transfer>& transfers, units::DataSize size) {
  sg4::Engine* engine = sg4::Engine::get_instance();
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms; // held until the run ends: the engine calls back into them
  for (const Transfer& t : transfers)
    comms.push_back(sg4::Comm::sendto_async(t.src, t.dst, static_cast<uint64_t>(size.bytes())));
  engine->run();
  return units::Duration::from_seconds(sg4::Engine::get_clock() - start);
}

units::Duration time_ring_allreduce(const std::vector<sg4::Host*>& ring, units::DataSize total) {
  const auto n = static_cast<long>(ring.size());
  if (n < 2)
    return {};
  static int run = 0; // mailbox names must not collide with an earlier run's
  const std::string prefix = "ring" + std::to_string(run++) + "-";
  const auto chunk = static_cast<uint64_t>(total.bytes() / static_cast<double>(n));
  const double start = sg4::Engine::get_clock();
  static int token = 0; // mailboxes carry a pointer; the size is what is simulated
  for (long i = 0; i < n; ++i) {
    sg4::Actor::create(prefix + std::to_string(i), ring[i], [=] {
      sg4::Mailbox* mine = sg4::Mailbox::by_name(prefix + std::to_string(i));
      sg4::Mailbox* right = sg4::Mailbox::by_name(prefix + std::to_string((i + 1) % n));
      for (long step = 0; step < 2 * (n - 1); ++step) {
        sg4::CommPtr sent = right->put_async(&token, chunk);
        mine->get<int>();
        sent->wait();
      }
    });
  }
  sg4::Engine::get_instance()->run();
  return units::Duration::from_seconds(sg4::Engine::get_clock() - start);
}

} // namespace ceiling::platform
