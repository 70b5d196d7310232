// Child processes that run sweep points: one command each, stdout and stderr captured.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ceiling::sweep {

/// Runs commands in child processes (SimGrid allows one engine per process). Each child gets
/// its own process group, so a Ctrl-C at the terminal reaches the sweep alone, which decides
/// what happens to its children, and is killed if the sweep dies (even by kill -9).
class WorkerPool {
public:
  /// How one child ended: its exit status (or the signal that killed it) and its output.
  struct Finished {
    int tag = 0;          ///< the caller's tag given to start()
    int exit_status = -1; ///< -1 when a signal ended it
    int signal = 0;
    std::string out;
    std::string err;
  };

  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool(); ///< terminates children still running

  /// Starts `argv` (argv[0] a path to an executable) in a child, tagged `tag`. Throws
  /// std::runtime_error when no process can be started.
  void start(int tag, const std::vector<std::string>& argv);

  /// Waits until a child ends and returns it; nullopt when none runs, when a signal
  /// interrupted the wait, or when `wake_fd` (see set_wake_fd) became readable: the caller
  /// checks its own flag.
  std::optional<Finished> wait_one();

  /// A file descriptor whose becoming readable ends wait_one() (the read end of a pipe that a
  /// signal handler writes to: a signal that comes just before the wait is not lost).
  void set_wake_fd(int fd) { wake_fd_ = fd; }

  int running() const { return static_cast<int>(children_.size()); }

  /// The children that have ended, with what they wrote, without waiting for the others (a
  /// sweep that is stopped keeps what finished before the stop: terminate_all() drops the rest).
  std::vector<Finished> take_finished();
  /// Sends SIGTERM to every running child's process group (a wrapper's children too), then
  /// SIGKILL to those still there after `grace_s`, and reaps them; their results are dropped.
  void terminate_all(double grace_s = 5);

private:
  struct Child {
    int tag = 0;
    pid_t pid = 0;
    int out_fd = -1;
    int err_fd = -1;
    std::string out;
    std::string err;
  };
  /// Child `i`, reaped by waitpid (`reaped`, `status`), as Finished, taken out of children_.
  Finished ended(std::size_t i, pid_t reaped, int status);
  std::vector<Child> children_;
  int wake_fd_ = -1;
};

} // namespace ceiling::sweep
