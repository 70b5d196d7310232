// SIGINT and SIGTERM for the commands that wait for child processes (`sweep`, `run --seeds`,
// `validate`, `ceiling-mpi-sweep`).
#pragma once

#include <csignal>

namespace ceiling::tools {

/// The signal that asked the command to stop (SIGINT or SIGTERM), once catch_stop_signals() ran;
/// 0 before.
extern volatile std::sig_atomic_t stop_signal;

/// Makes SIGINT and SIGTERM set stop_signal and write a byte to a pipe, whose read end it
/// returns for WorkerPool::set_wake_fd: a signal that comes between the check of the flag and
/// the wait for children is not lost.
int catch_stop_signals();

} // namespace ceiling::tools
