// Transfers through SimGrid: comms started by maestro, or a pool of courier actors.
#include "replay/transfers.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <string>

namespace sg4 = simgrid::s4u;

namespace ceiling::replay {

/// A sender and a receiver with a mailbox of their own, carrying one transfer at a time.
/// Between transfers both are suspended; a transfer moves them onto its hosts and resumes
/// them, and each posts its side of the exchange, so the comm starts in the same scheduling
/// round, at the same simulated instant, as a maestro comm would.
struct Transfers::Courier {
  sg4::ActorPtr sender;
  sg4::ActorPtr receiver;
  sg4::Mailbox* mailbox = nullptr;
  std::uint64_t bytes = 0;
  void* token = nullptr;
};

Transfers::Transfers(TransferDriver driver, std::function<void(void*)> arrived)
    : driver_(driver), arrived_(std::move(arrived)) {
  if (driver_ != TransferDriver::Maestro)
    return;
  sg4::Engine::on_time_advance_cb([this](double) { finished_.clear(); });
  sg4::Activity::on_completion_cb([this](const sg4::Activity& a) { comm_ended(a); });
}

Transfers::~Transfers() = default;

void Transfers::start(sg4::Host* src, sg4::Host* dst, std::uint64_t bytes, void* token) {
  if (driver_ == TransferDriver::Maestro)
    start_by_maestro(src, dst, bytes, token);
  else
    start_by_courier(src, dst, bytes, token);
}

void Transfers::start_by_maestro(sg4::Host* src, sg4::Host* dst, std::uint64_t bytes, void* token) {
  auto c = sg4::Comm::sendto_init(src, dst);
  c->set_payload_size(bytes);
  c->set_data(token);
  in_flight_.emplace(c.get(), c);
  c->start();
}

void Transfers::comm_ended(const sg4::Activity& a) {
  auto it = in_flight_.find(&a);
  if (it == in_flight_.end())
    return; // not one of ours
  // The engine still uses the comm after this callback: keep it until the clock moves.
  finished_.push_back(std::move(it->second));
  in_flight_.erase(it);
  arrived_(a.get_data<void>());
}

void Transfers::start_by_courier(sg4::Host* src, sg4::Host* dst, std::uint64_t bytes, void* token) {
  if (!idle_.empty()) {
    Courier* c = idle_.back();
    idle_.pop_back();
    c->bytes = bytes;
    c->token = token;
    c->sender->set_host(src);
    c->receiver->set_host(dst);
    c->sender->resume();
    c->receiver->resume();
    return;
  }
  // A new courier: its actors start with this transfer, then suspend themselves.
  Courier* c = couriers_.emplace_back(std::make_unique<Courier>()).get();
  c->bytes = bytes;
  c->token = token;
  c->mailbox = sg4::Mailbox::by_name("courier " + std::to_string(couriers_.size()));
  c->sender = sg4::Actor::create("courier-send", src, [c] {
    for (;;) {
      c->mailbox->put(c, c->bytes);
      sg4::this_actor::suspend();
    }
  });
  c->receiver = sg4::Actor::create("courier-receive", dst, [this, c] {
    for (;;) {
      c->mailbox->get<Courier>();
      // Hand the arrival to maestro, where the replay's logic runs. The timer fires once every
      // actor of this round has run, so both actors are suspended again when it does and the
      // courier can take the next transfer. (Setting a kernel timer from an actor is safe with
      // SimGrid's default sequential contexts, which the engine keeps.)
      simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), [this, c] {
        if (stopping_)
          c->sender->kill(), c->receiver->kill();
        else
          idle_.push_back(c);
        arrived_(c->token);
      });
      sg4::this_actor::suspend();
    }
  });
}

void Transfers::abort() {
  stopping_ = true;
  simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock(), [this] {
    std::vector<sg4::ActivityPtr> comms;
    for (auto& [activity, comm] : in_flight_)
      comms.push_back(comm);
    in_flight_.clear();
    for (auto& comm : comms)
      comm->cancel();
    finished_.insert(finished_.end(), comms.begin(), comms.end()); // alive until the clock moves
    for (auto& c : couriers_) {
      c->sender->kill();
      c->receiver->kill();
    }
    idle_.clear();
  });
}

void Transfers::stop() {
  stopping_ = true;
  for (Courier* c : idle_) {
    c->sender->kill();
    c->receiver->kill();
  }
  idle_.clear();
}

} // namespace ceiling::replay
