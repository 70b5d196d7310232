// Chrome trace events of phase "X" (complete events with a duration).
#include "io/chrome_trace.hpp"

#include "io/json_writer.hpp"

namespace ceiling::io {

void write_chrome_trace(const std::vector<replay::TimelineEvent>& timeline, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().key("displayTimeUnit").value("ms").key("traceEvents").begin_array();
  const auto name_process = [&](int pid, const char* name) {
    json.begin_object().key("ph").value("M").key("pid").value(pid).key("name").value("process_name")
        .key("args").begin_object().key("name").value(name).end_object().end_object();
  };
  name_process(0, "ranks");
  name_process(1, "links");
  const auto event = [&](const replay::TimelineEvent& e, int pid, int tid) {
    json.begin_object()
        .key("name").value(e.name)
        .key("cat").value(e.category)
        .key("ph").value("X")
        .key("pid").value(pid)
        .key("tid").value(tid)
        .key("ts").value(e.start_s * 1e6)
        .key("dur").value((e.end_s - e.start_s) * 1e6)
        .end_object();
  };
  for (const auto& e : timeline) {
    event(e, 0, e.rank);
    if (e.category == "copy")
      event(e, 1, 0);
    else if (e.category == "communication")
      event(e, 1, 1);
  }
  json.end_array().end_object();
}

} // namespace ceiling::io
