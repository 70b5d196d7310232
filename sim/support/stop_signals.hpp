// SIGINT and SIGTERM, the two signals that ask a command to stop: where their handler is set.
#pragma once

#include <csignal>
#include <cstring>

#include <pthread.h>
#include <unistd.h>

namespace ceiling::support {

/// Gives SIGINT and SIGTERM `handler` (SIG_DFL: their default action), either blocking the other
/// while it runs, with sigaction's `flags`; `former`, where given, receives their actions before
/// (SIGINT's, then SIGTERM's), for restore_stop_signals().
inline void handle_stop_signals(void (*handler)(int), int flags = 0, struct sigaction (*former)[2] = nullptr) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  action.sa_flags = flags;
  sigaction(SIGINT, &action, former ? &(*former)[0] : nullptr);
  sigaction(SIGTERM, &action, former ? &(*former)[1] : nullptr);
}

/// Gives SIGINT and SIGTERM back the actions handle_stop_signals() saved.
inline void restore_stop_signals(const struct sigaction (&former)[2]) {
  sigaction(SIGINT, &former[0], nullptr);
  sigaction(SIGTERM, &former[1], nullptr);
}

namespace detail {
inline const char* stop_message = ""; ///< exit_on_stop_signals()'s
/// Writes the message, the signal's number and a newline to stderr, and ends the process with
/// 128 + the signal (write and _exit only: async-signal-safe).
extern "C" inline void exit_with_stop_message(int signal) {
  char number[4] = {static_cast<char>('0' + signal / 10 % 10), static_cast<char>('0' + signal % 10), ')', '\n'};
  const bool two_digits = signal >= 10;
  [[maybe_unused]] auto written = write(STDERR_FILENO, stop_message, std::strlen(stop_message));
  written = write(STDERR_FILENO, number + (two_digits ? 0 : 1), two_digits ? 4 : 3);
  _exit(128 + signal);
}
} // namespace detail

/// Makes SIGINT and SIGTERM end the process at once, with "`message`N)" on stderr (N the signal)
/// and the status 128 + N: for a command that prints only once its one simulation is done, so
/// that one interrupted says so rather than dying without a word; handle_stop_signals(SIG_DFL)
/// once the simulation is done, before the printing (which the message would belie). The handler
/// runs on the alternate signal stack where one is set: SimGrid's actors run on small stacks of
/// their own. `message` must outlive the process (a string literal).
inline void exit_on_stop_signals(const char* message) {
  detail::stop_message = message;
  handle_stop_signals(detail::exit_with_stop_message, SA_ONSTACK);
}

/// Holds SIGINT and SIGTERM back while it lives (blocked: one that comes meanwhile waits), and
/// lets them through when it ends, so that a piece of work the signals' action would cut short
/// (output flushed, then a handler armed) happens whole.
class StopSignalsHeld {
public:
  StopSignalsHeld() {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, &former_);
  }
  ~StopSignalsHeld() { pthread_sigmask(SIG_SETMASK, &former_, nullptr); }
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

private:
  sigset_t former_;
};

} // namespace ceiling::support
