// What sharing out flows cost the replay: counts for benchmarks, never part of a result's output.
#pragma once

namespace ceiling::replay {

/// FlowSharing's work so far (`ceiling run --timing` prints it).
struct SharingWork {
  long long events = 0;       ///< instants whose changes were shared out again
  /// Flows that started sharing on links that couple nothing, given their caps without a solve.
  long long alone_starts = 0;
  long long solves = 0;       ///< max-min solves: an event's first, and each round after it
  long long flows_solved = 0; ///< summed over the solves
  long long links_solved = 0; ///< summed over the solves
  /// The rounds after a solve, by what brought flows in (a round may have more than one reason):
  /// flows that a link now held above the solved ones, flows whose bottleneck the solve took
  /// away, slack links that the solve filled.
  long long overtaken_rounds = 0;
  long long unbound_rounds = 0;
  long long slack_rounds = 0;
  /// Slack links checked after a solve that the bound on every flow's value showed short of
  /// full without reading their flows (FlowSharing::fill_slack_links).
  long long slack_passed = 0;
  /// Fans on level clocks (FlowSharing): how often the flows went on them, the events shared out
  /// there (not counted in `events`), the certifications of their loads after the entry's, and
  /// how often the flows left them.
  long long fan_entries = 0;
  long long fan_events = 0;
  long long fan_certifications = 0;
  long long fan_exits = 0;
  /// Links made clocks while the flows were on clocks (a joining flow's narrowest, or one the flows
  /// came to fill to half or more).
  long long fan_clocks_made = 0;
  /// Classes whose flows had all ended, dropped while the flows were on clocks.
  long long fan_classes_dropped = 0;
};

} // namespace ceiling::replay
