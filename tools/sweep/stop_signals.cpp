// SIGINT and SIGTERM set a flag and wake the wait for children through a pipe.
#include "tools/sweep/stop_signals.hpp"

#include "support/stop_signals.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace ceiling::tools {

volatile std::sig_atomic_t stop_signal = 0;

namespace {

int wake_pipe[2] = {-1, -1}; // the handler writes a byte: the wait for children ends at once

extern "C" void on_stop(int signal) {
  stop_signal = signal;
  const char byte = 1;
  [[maybe_unused]] const auto written = write(wake_pipe[1], &byte, 1);
}

} // namespace

int catch_stop_signals() {
  if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  support::handle_stop_signals(on_stop);
  return wake_pipe[0];
}

} // namespace ceiling::tools
