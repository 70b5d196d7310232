// Engine creation with explicit network-model settings.
#include "machine/engine.hpp"

#include "support/sanitizers.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <csignal>
#include <memory>
#include <stdexcept>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace ceiling::platform {

sg4::Engine& start_engine(const NetworkSettings& settings) {
  static std::unique_ptr<sg4::Engine> engine;
  if (engine)
    throw std::logic_error("start_engine: SimGrid allows one engine per process");
  // SimGrid reads its options from argv; these are ours, not the user's command line.
  std::vector<std::string> words{
      "ceiling", "--log=root.thres:warning", "--cfg=network/model:" + settings.model,
      std::string("--cfg=network/crosstraffic:") + (settings.cross_traffic ? "1" : "0"),
      "--cfg=network/TCP-gamma:" + std::to_string(settings.tcp_gamma_bytes),
      // Solve the whole max-min system at every event. SimGrid 3.32's default (lazy, selective
      // update) can leave a flow out of the re-sharing: when two flows start sharing at one
      // instant and the second's first link is already marked modified, its other links are
      // not marked (System::update_modified_cnst_set_from_variable recurses from a variable's
      // first constraint only when that one is new; src/kernel/lmm/System.cpp, still so
      // upstream), so a flow on those links keeps a rate they can no longer carry (seen: a NIC
      // at 150 % of its bandwidth, iterations 0.8-5 % short). The full update computes the
      // max-min sharing of CM02 as documented, which the replay's FlowSharing computes too.
      "--cfg=network/optim:Full",
      // The replay's courier actors post one transfer at a time: 16 KiB stacks, not 8 MiB
      // (under AddressSanitizer, whose frames are larger, 1 MiB).
      support::address_sanitizer ? "--cfg=contexts/stack-size:1024" : "--cfg=contexts/stack-size:16",
      // ... and no guard page each: tens of thousands of actors would exceed the kernel's
      // per-process mapping limit (vm.max_map_count).
      "--cfg=contexts/guard-size:0"};
  std::vector<char*> argv;
  for (std::string& w : words)
    argv.push_back(w.data());
  int argc = static_cast<int>(argv.size());
  // SimGrid sets its own SIGINT handler, which ends the process with status 1, saying nothing
  // below its verbose level: SIGINT gets back the action it had (by default, the end of the
  // process, 128 + 2 to the shell, as SIGTERM; ignored in a script's background job), and
  // `ceiling run` then sets its own (replay/engine.cpp).
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  engine = std::make_unique<sg4::Engine>(&argc, argv.data());
  sigaction(SIGINT, &before, nullptr);
  // Factors as doubles, not through text: a decimal string would round them (std::to_string
  // keeps six decimals: 6e-7 became 1e-6, 4e-7 became 0).
  if (settings.latency_factor)
    sg4::Engine::set_config("network/latency-factor", *settings.latency_factor);
  if (settings.bandwidth_factor)
    sg4::Engine::set_config("network/bandwidth-factor", *settings.bandwidth_factor);
  return *engine;
}

} // namespace ceiling::platform
