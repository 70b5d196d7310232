// Equal sharing of one link direction among copies, event by event.
#include "replay/shared_link.hpp"

#include <algorithm>
#include <cassert>

namespace ceiling::replay {
namespace {

/// A copy whose remaining bytes would take less than this to send is finished: the remainder
/// is what rounding leaves of the bytes sent between two events (SimGrid snaps its remainders
/// the same way).
constexpr double done_within_s = 1e-12;

/// Finished by `now_s`: what is left takes less than done_within_s, or so little that the
/// clock cannot tell its end from now (past 2^13 s the clock's steps exceed 1e-12 s).
bool finished_by(double now_s, double remaining_bytes, double rate) {
  return remaining_bytes <= rate * done_within_s || now_s + remaining_bytes / rate <= now_s;
}

} // namespace

SharedLink::SharedLink(double bytes_per_s, double latency_s) : bytes_per_s_(bytes_per_s), latency_s_(latency_s) {
  assert(bytes_per_s > 0 && latency_s >= 0);
}

void SharedLink::start(double now_s, double bytes, void* token) {
  progress_to(now_s);
  if (latency_s_ > 0)
    waiting_.push_back({token, bytes, now_s + latency_s_});
  else
    sharing_.push_back({token, bytes, now_s});
}

double SharedLink::next_event_s() const {
  double next = std::numeric_limits<double>::infinity();
  if (!waiting_.empty())
    next = waiting_.front().sharing_from_s; // equal latencies: the first to start is the first to share
  if (!sharing_.empty()) {
    double least = sharing_.front().remaining_bytes;
    for (const Copy& c : sharing_)
      least = std::min(least, c.remaining_bytes);
    const double rate = bytes_per_s_ / static_cast<double>(sharing_.size());
    next = std::min(next, updated_s_ + least / rate);
  }
  return next;
}

void SharedLink::advance(double now_s, std::vector<void*>& finished) {
  progress_to(now_s);
  // Finished copies leave before those whose latency ends now join: a copy that ends exactly
  // when another starts sharing got the whole share until then.
  const double rate = sharing_.empty() ? 0 : bytes_per_s_ / static_cast<double>(sharing_.size());
  const auto done = [&](const Copy& c) { return finished_by(now_s, c.remaining_bytes, rate); };
  for (const Copy& c : sharing_)
    if (done(c))
      finished.push_back(c.token);
  std::erase_if(sharing_, done);
  while (!waiting_.empty() && waiting_.front().sharing_from_s <= now_s) {
    sharing_.push_back(waiting_.front());
    waiting_.erase(waiting_.begin());
  }
}

void SharedLink::progress_to(double now_s) {
  assert(now_s >= updated_s_);
  if (!sharing_.empty()) {
    const double sent = (now_s - updated_s_) * bytes_per_s_ / static_cast<double>(sharing_.size());
    for (Copy& c : sharing_)
      c.remaining_bytes = std::max(0.0, c.remaining_bytes - sent);
  }
  updated_s_ = now_s;
}

} // namespace ceiling::replay
