// Chrome trace events of phase "X" (complete events with a duration).
#include "io/chrome_trace.hpp"

#include "io/json_writer.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace ceiling::io {

void write_chrome_trace(const std::vector<replay::TimelineEvent>& timeline, std::ostream& out) {
  JsonWriter json(out);
  // (its first key: chrome_trace_start)
  json.begin_object().key("displayTimeUnit").value("ms").key("traceEvents").begin_array();
  const auto name_process = [&](int pid, const char* name) {
    json.begin_object().key("ph").value("M").key("pid").value(pid).key("name").value("process_name")
        .key("args").begin_object().key("name").value(name).end_object().end_object();
  };
  // A process per kind of activity, and in it a track per rank: a rank's flows and copies run
  // beside its compute, and slices of one track must nest (Perfetto, chrome://tracing). Copies
  // of one rank and direction may overlap one another (buckets staged together, a parameter
  // server's pulls): such a copy goes on the rank's next track ("rank 3 (2)").
  name_process(0, "compute");
  name_process(1, "copies host->device");
  name_process(2, "copies device->host");
  name_process(3, "communication");
  name_process(4, "collectives");
  const auto pid_of = [](const replay::TimelineEvent& e) {
    return e.category == "copy"            ? (e.to_host ? 2 : 1)
           : e.category == "communication" ? 3
           : e.category == "collective"    ? 4
                                           : 0;
  };
  // Each event's track: the first of its (process, rank) whose last slice has ended, in order of
  // start (ties: the longer first).
  std::vector<std::size_t> order(timeline.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(timeline[a].start_s, -timeline[a].end_s) < std::tuple(timeline[b].start_s, -timeline[b].end_s);
  });
  int ranks = 1;
  for (const auto& e : timeline)
    ranks = std::max(ranks, e.rank + 1);
  std::map<std::pair<int, int>, std::vector<double>> lane_ends; // (pid, rank): each track's last end
  std::vector<int> tid_of(timeline.size());
  for (std::size_t i : order) {
    const auto& e = timeline[i];
    const int pid = pid_of(e);
    auto& ends = lane_ends[{pid, e.rank}];
    std::size_t lane = 0;
    while (lane < ends.size() && ends[lane] > e.start_s)
      ++lane;
    const int tid = static_cast<int>(lane) * ranks + e.rank; // the ranks' first tracks first
    if (lane == ends.size()) {
      ends.push_back(e.end_s);
      json.begin_object().key("ph").value("M").key("pid").value(pid).key("tid").value(tid)
          .key("name").value("thread_name").key("args").begin_object().key("name")
          .value("rank " + std::to_string(e.rank) + (lane == 0 ? "" : " (" + std::to_string(lane + 1) + ")"))
          .end_object().end_object();
    } else {
      ends[lane] = e.end_s;
    }
    tid_of[i] = tid;
  }
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const auto& e = timeline[i];
    json.begin_object()
        .key("name").value(e.name)
        .key("cat").value(e.category)
        .key("ph").value("X")
        .key("pid").value(pid_of(e))
        .key("tid").value(tid_of[i])
        .key("ts").value(e.start_s * 1e6)
        .key("dur").value((e.end_s - e.start_s) * 1e6)
        .end_object();
  }
  json.end_array().end_object();
}

} // namespace ceiling::io
