// The result store's schema as tables (README.md, "Result store"): each column's name, unit
// and the member it holds, written here once for the HDF5 writer and reader and the CSV export.
#pragma once

#include "analysis/curve_analysis.hpp"
#include "sweep/expand.hpp"
#include "sweep/point.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ceiling::io {

/// The root's "format" attribute, which a reader checks first, and the schema version this
/// build writes and reads ("format_version").
inline constexpr const char* format_name = "ceiling-results";
inline constexpr long long format_version = 4;

/// The group of curve `i` under /curves: "curve_000", "curve_001", ... (3 digits at least).
std::string curve_group_name(std::size_t i);

/// A point's run_args as the store keeps them: one argument per line.
std::string joined_lines(const std::vector<std::string>& lines);

/// The inverse of joined_lines(); "" is no argument at all.
std::vector<std::string> split_lines(const std::string& text);

/// Stores `value` in `field` when an int holds it; otherwise leaves `field` and returns what is
/// wrong ("4294967296 is out of range"). "" when stored.
std::string store_int(int& field, long long value);

/// A float64 column of a table whose rows are `Record`s; `unit` is its "unit" attribute.
template <class Record> struct DoubleColumn {
  const char* name;
  const char* unit;
  double Record::*member;
};

/// A float64 attribute of a curve group (one value per curve; a column of fits.csv).
template <class Record> struct DoubleAttribute {
  const char* name;
  double Record::*member;
};

/// An int64 column of /points. `set` stores a value read back into a record and returns what
/// is wrong with it, "" when nothing is.
struct PointIntColumn {
  const char* name;
  long long (*get)(const sweep::PointRecord&);
  std::string (*set)(sweep::PointRecord&, long long);
};

/// A string column of /points, `set` as for PointIntColumn. A column derived from the others
/// has no `set` (null): reading checks that it is there, of the right type and length, and drops it. `in_csv`: points.csv has it too.
struct PointStringColumn {
  const char* name;
  std::string (*get)(const sweep::PointRecord&);
  std::string (*set)(sweep::PointRecord&, const std::string&);
  bool in_csv;
};

namespace detail {
/// The column of the integer `field` of a record's `part` (spec or result): an int is checked
/// on reading for range, the seed (uint64, int64 in the file) converted modulo 2^64, so that
/// every seed reads back unchanged.
template <auto part, auto field> constexpr PointIntColumn int_column(const char* name) {
  return {name, [](const sweep::PointRecord& p) { return static_cast<long long>(p.*part.*field); },
          [](sweep::PointRecord& p, long long v) {
            auto& member = p.*part.*field;
            using Member = std::remove_reference_t<decltype(member)>;
            if constexpr (std::is_same_v<Member, int>) {
              return store_int(member, v);
            } else {
              member = static_cast<Member>(v);
              return std::string();
            }
          }};
}
} // namespace detail

/// The integer columns of /points, first in the group and in points.csv.
inline constexpr PointIntColumn point_int_columns[] = {
    detail::int_column<&sweep::PointRecord::spec, &sweep::PointSpec::index>("index"),
    detail::int_column<&sweep::PointRecord::spec, &sweep::PointSpec::curve>("curve"),
    detail::int_column<&sweep::PointRecord::spec, &sweep::PointSpec::nodes>("nodes"),
    detail::int_column<&sweep::PointRecord::spec, &sweep::PointSpec::seed>("seed"),
    detail::int_column<&sweep::PointRecord::result, &sweep::PointResult::ranks>("ranks"),
    detail::int_column<&sweep::PointRecord::result, &sweep::PointResult::batch_per_rank>(
        "batch_per_rank"),
};

/// The string columns of /points, after the integer ones. "command" is derived from the
/// arguments (sweep::command_of); "run_arguments" keeps them, one per line.
inline constexpr PointStringColumn point_string_columns[] = {
    {"status",
     [](const sweep::PointRecord& p) {
       return std::string(p.result.ok ? "ok" : p.result.does_not_fit ? "does-not-fit" : "failed");
     },
     [](sweep::PointRecord& p, const std::string& v) {
       if (v != "ok" && v != "failed" && v != "does-not-fit")
         return "expected \"ok\", \"failed\" or \"does-not-fit\", got \"" + v + "\"";
       p.result.ok = v == "ok";
       p.result.does_not_fit = v == "does-not-fit";
       return std::string();
     },
     true},
    {"error", [](const sweep::PointRecord& p) { return p.result.error; },
     [](sweep::PointRecord& p, const std::string& v) {
       p.result.error = v;
       return std::string();
     },
     true},
    {"provenance", [](const sweep::PointRecord& p) { return p.result.provenance; },
     [](sweep::PointRecord& p, const std::string& v) {
       p.result.provenance = v;
       return std::string();
     },
     true},
    {"command", [](const sweep::PointRecord& p) { return sweep::command_of(p.spec); }, nullptr,
     false},
    {"run_arguments", [](const sweep::PointRecord& p) { return joined_lines(p.spec.run_args); },
     [](sweep::PointRecord& p, const std::string& v) {
       p.spec.run_args = split_lines(v);
       return std::string();
     },
     false},
};

/// The float64 columns of /points, after the string ones: a point's result (the table the
/// point's text form uses too).
inline constexpr const auto& point_columns = sweep::point_result_fields;

/// The float64 columns of a curve, one row per node count; seeds_column follows `n`.
inline constexpr DoubleColumn<analysis::PointMetrics> metric_columns[] = {
    {"n", "nodes", &analysis::PointMetrics::n},
    {"iteration_time_s", "s", &analysis::PointMetrics::iteration_time_s},
    {"iteration_time_min_s", "s", &analysis::PointMetrics::iteration_time_min_s},
    {"iteration_time_median_s", "s", &analysis::PointMetrics::iteration_time_median_s},
    {"iteration_time_max_s", "s", &analysis::PointMetrics::iteration_time_max_s},
    {"throughput_samples_per_s", "samples/s", &analysis::PointMetrics::throughput_samples_per_s},
    {"speedup", "1", &analysis::PointMetrics::speedup},
    {"efficiency", "1", &analysis::PointMetrics::efficiency},
    {"alpha_eff", "1", &analysis::PointMetrics::alpha_eff},
    {"payload_flop_per_s", "FLOP/s", &analysis::PointMetrics::payload_flop_per_s},
    {"payload_efficiency", "1", &analysis::PointMetrics::payload_efficiency},
    {"compute_s", "s", &analysis::PointMetrics::compute_s},
    {"copy_s", "s", &analysis::PointMetrics::copy_s},
    {"communication_s", "s", &analysis::PointMetrics::communication_s},
    {"synchronisation_s", "s", &analysis::PointMetrics::synchronisation_s},
    {"nonpar_communication", "1", &analysis::PointMetrics::nonpar_communication},
    {"nonpar_copy", "1", &analysis::PointMetrics::nonpar_copy},
    {"nonpar_synchronisation", "1", &analysis::PointMetrics::nonpar_synchronisation},
    // (named for imbalance when it was written first: it holds all of the compute part)
    {"nonpar_compute_imbalance", "1", &analysis::PointMetrics::nonpar_compute},
};

/// The one integer column of a curve (int64, no unit), right after the metric column `after`.
struct SeedsColumn {
  const char* name;
  int analysis::PointMetrics::*member;
  double analysis::PointMetrics::*after;
};
inline constexpr SeedsColumn seeds_column{"seeds", &analysis::PointMetrics::seeds,
                                          &analysis::PointMetrics::n};

/// The curve's reference node count: the first of its float64 attributes in the store and of
/// its numbers in fits.csv.
inline constexpr DoubleAttribute<analysis::CurveAnalysis> reference_attribute{
    "n_reference", &analysis::CurveAnalysis::n_reference};

/// What the measured curve shows: after reference_attribute in the store, after the fit (and
/// "amdahl_shaped", "shape") in fits.csv.
inline constexpr DoubleAttribute<analysis::CurveAnalysis> measured_attributes[] = {
    {"n_half_efficiency_measured", &analysis::CurveAnalysis::n_half_efficiency_measured},
    {"n_doubling_below_10pct_measured", &analysis::CurveAnalysis::n_doubling_below_10pct_measured},
    {"alpha_eff_at_largest_n", &analysis::CurveAnalysis::alpha_eff_at_largest_n},
};

/// The Amdahl fit of a curve: after measured_attributes in the store, after reference_attribute
/// in fits.csv; "amdahl_shaped" (int64, 0 or 1) and "shape" (a string:
/// analysis::to_string(CurveShape)) follow it in both.
inline constexpr DoubleAttribute<analysis::AmdahlFit> fit_attributes[] = {
    {"amdahl_alpha", &analysis::AmdahlFit::alpha},
    {"ceiling_speedup", &analysis::AmdahlFit::ceiling_speedup},
    {"n_half_efficiency_fit", &analysis::AmdahlFit::n_half_efficiency},
    {"n_doubling_below_10pct_fit", &analysis::AmdahlFit::n_doubling_below_10pct},
    {"fit_residual", &analysis::AmdahlFit::residual},
    {"alpha_eff_drift", &analysis::AmdahlFit::alpha_eff_drift},
};

} // namespace ceiling::io
