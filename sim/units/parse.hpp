// Reading quantities from text: "12 GB/s", "11.88 GiB/s", "100 Gbit/s", "1.3 us", "9.3 TFLOP/s".
#pragma once

#include "units/quantity.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ceiling::units {

/// The outcome of parsing one quantity: a value, or a message saying what was wrong and what
/// was expected (lower-case, no final period, the text quoted). The caller adds the location.
template <class Q> struct Parsed {
  std::optional<Q> value;
  std::string error;
  explicit operator bool() const { return value.has_value(); }
};

/// Parses "<number> <unit>" into a quantity of type Q (DataSize, Duration, Bandwidth, Flops or
/// FlopRate). SI prefixes are powers of ten (GB = 1e9 B), IEC prefixes powers of two
/// (GiB = 2^30 B); "bit" is 1/8 byte. The number may be negative (the caller decides whether a
/// sign is allowed); NaN, infinity, a missing or an unknown unit are errors.
/// Example: parse<Bandwidth>("100 Gbit/s").value->bytes_per_second() == 12.5e9
template <class Q> Parsed<Q> parse(std::string_view text);

/// Parses a bare number written in `unit` ("12" with unit "GB/s"), as used by keys whose
/// name carries the unit (`bandwidth_GB_per_s = 12`).
template <class Q> Parsed<Q> parse_in_unit(double number, std::string_view unit);

/// What a quantity of type Q is called in messages ("a data rate") with examples of valid text.
template <class Q> std::string_view expected_form();
/// A unit of Q as a key name carries it, after an underscore: "GB_per_s", "us".
template <class Q> std::string_view key_suffix_example();

/// The magnitudes, in base units (B, s, B/s, FLOP, FLOP/s), that a nonzero quantity of type Q in
/// an input file may have: beyond them no machine or workload lies ("1e-300 B/s", a latency of
/// 1e30 s: a slip of the unit), and the simulation would overflow. Data sizes and rates 1 to
/// 1e18, durations 1e-15 to 1e6 s, operation counts 1 to 1e24, compute rates 1 to 1e21.
struct Magnitudes {
  double least;
  double most;
  std::string_view unit; ///< the base unit they are in: "B", "s", "B/s", "FLOP", "FLOP/s"
};
template <class Q> Magnitudes plausible_magnitudes();
/// Where `value` (nonzero) lies beyond plausible_magnitudes<Q>(), the one message that says so
/// for a file's key and an option alike, `shown` being the value as written; else nothing.
template <class Q> std::optional<std::string> beyond_plausible(Q value, std::string_view shown);

/// A short human form with an SI prefix and 4 significant digits: "11.88 GB/s", "1.3 us".
/// A plain number in the shortest form that reads back to the same double ("6e-07", "1e+308", "0.5",
/// "50": a whole number without its exponent where that is no longer),
/// with `min_digits` significant digits at least (6: "10", "0.0001", as streams write them, but
/// "1500000" where a stream writes "1.5e+06").
std::string number_text(double v, int min_digits = 1);
std::string to_string(DataSize v);
std::string to_string(Duration v);
std::string to_string(Bandwidth v);
std::string to_string(Flops v);
std::string to_string(FlopRate v);

} // namespace ceiling::units
