// Child processes with fork and exec; poll() on their pipes.
#include "sweep/worker_pool.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ceiling::sweep {
namespace {

/// Reads what is available on `fd` into `into`; false at end of file (or a read error).
bool drain(int fd, std::string& into) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n > 0) {
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
  return n < 0 && errno == EINTR;
}

} // namespace

WorkerPool::~WorkerPool() { terminate_all(); }

void WorkerPool::start(int tag, const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    for (int fd : {out[0], out[1], err[0], err[1]})
      close(fd);
    throw std::runtime_error(std::string("cannot start a process: ") + std::strerror(error));
  }
  if (pid == 0) {
    // In the child: only async-signal-safe calls until exec.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) // the sweep died before prctl took effect
      _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      close(null);
    }
    execv(args[0], args.data());
    // Only async-signal-safe calls here (the parent may have threads): write(), no strerror.
    const int error = errno;
    char digits[16];
    int n = 0;
    for (int e = error; n == 0 || e > 0; e /= 10)
      digits[n++] = static_cast<char>('0' + e % 10);
    const auto say = [](const char* text, std::size_t size) {
      [[maybe_unused]] const auto written = write(STDERR_FILENO, text, size);
    };
    say("cannot execute ", 15);
    say(args[0], std::strlen(args[0]));
    say(" (errno ", 8);
    while (n > 0)
      say(&digits[--n], 1);
    say(")\n", 2);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  children_.push_back({.tag = tag, .pid = pid, .out_fd = out[0], .err_fd = err[0]});
}

WorkerPool::Finished WorkerPool::ended(std::size_t i, pid_t reaped, int status) {
  Child& c = children_[i];
  Finished f{.tag = c.tag, .out = std::move(c.out), .err = std::move(c.err)};
  if (reaped > 0 && WIFEXITED(status))
    f.exit_status = WEXITSTATUS(status);
  else if (reaped > 0 && WIFSIGNALED(status))
    f.signal = WTERMSIG(status);
  children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
  return f;
}

std::optional<WorkerPool::Finished> WorkerPool::wait_one() {
  while (!children_.empty()) {
    // A child whose pipes are both closed has ended (or closed them): reap it once it exits.
    bool closed_but_running = false;
    for (std::size_t i = 0; i < children_.size(); ++i) {
      Child& c = children_[i];
      if (c.out_fd >= 0 || c.err_fd >= 0)
        continue;
      int status = 0;
      const pid_t reaped = waitpid(c.pid, &status, WNOHANG);
      if (reaped == 0) {
        closed_but_running = true;
        continue;
      }
      return ended(i, reaped, status);
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, bool>> owner; // child, is stdout
    for (std::size_t i = 0; i < children_.size(); ++i) {
      if (children_[i].out_fd >= 0) {
        fds.push_back({children_[i].out_fd, POLLIN, 0});
        owner.emplace_back(i, true);
      }
      if (children_[i].err_fd >= 0) {
        fds.push_back({children_[i].err_fd, POLLIN, 0});
        owner.emplace_back(i, false);
      }
    }
    if (wake_fd_ >= 0)
      fds.push_back({wake_fd_, POLLIN, 0});
    // A child that closed its pipes but runs on is looked at again every 50 ms.
    if (poll(fds.data(), fds.size(), closed_but_running ? 50 : -1) < 0) {
      if (errno == EINTR)
        return std::nullopt;
      throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
    }
    if (wake_fd_ >= 0 && fds.back().revents != 0)
      return std::nullopt;
    for (std::size_t k = 0; k < owner.size(); ++k) {
      if (fds[k].revents == 0)
        continue;
      Child& c = children_[owner[k].first];
      int& fd = owner[k].second ? c.out_fd : c.err_fd;
      if (!drain(fd, owner[k].second ? c.out : c.err)) {
        close(fd);
        fd = -1;
      }
    }
  }
  return std::nullopt;
}

std::vector<WorkerPool::Finished> WorkerPool::take_finished() {
  std::vector<Finished> done;
  for (std::size_t i = 0; i < children_.size();) {
    Child& c = children_[i];
    int status = 0;
    const pid_t reaped = waitpid(c.pid, &status, WNOHANG);
    if (reaped == 0) { // running on
      ++i;
      continue;
    }
    // Its pipes hold what it wrote, up to their ends; what is not there now (a process it left
    // behind holding a pipe) is not waited for.
    for (int* fd : {&c.out_fd, &c.err_fd}) {
      std::string& into = fd == &c.out_fd ? c.out : c.err;
      for (pollfd ready{*fd, POLLIN, 0}; *fd >= 0 && poll(&ready, 1, 0) > 0; ready.fd = *fd)
        if (!drain(*fd, into)) {
          close(*fd);
          *fd = -1;
        }
      if (*fd >= 0) {
        close(*fd);
        *fd = -1;
      }
    }
    done.push_back(ended(i, reaped, status));
  }
  return done;
}

void WorkerPool::terminate_all(double grace_s) {
  for (Child& c : children_) {
    kill(-c.pid, SIGTERM); // the group: a wrapper's children too
    kill(c.pid, SIGTERM);  // in case the child has not made its group yet
    for (int fd : {c.out_fd, c.err_fd})
      if (fd >= 0)
        close(fd);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while (!children_.empty()) {
    for (std::size_t i = 0; i < children_.size();) {
      if (waitpid(children_[i].pid, nullptr, WNOHANG) != 0) // ended, or not ours any more
        children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
      else
        ++i;
    }
    if (children_.empty())
      break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (Child& c : children_) {
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
      }
      for (Child& c : children_)
        while (waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {
        }
      children_.clear();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

} // namespace ceiling::sweep
