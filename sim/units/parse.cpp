// Unit tables and the one parser behind every quantity.
#include "units/parse.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

namespace ceiling::units {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// Longest symbols first so that "Ki" wins over "K".
constexpr std::array<Prefix, 13> binary_and_decimal_prefixes{{
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"Ei", 1152921504606846976.0},
    {"k", 1e3},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"E", 1e18},
}};
// Compute rates have no binary prefixes: "1 TiFLOP/s" means nothing.
constexpr std::span<const Prefix> decimal_prefixes{binary_and_decimal_prefixes.begin() + 6, 7};

struct BaseUnit {
  std::string_view symbol;
  double factor; // to the SI base unit of the dimension
};

// Every dimension is a set of base units that may carry a prefix; durations take none
// (their sub-second units are spelled out).
constexpr std::array<BaseUnit, 4> data_units{{{"B", 1}, {"byte", 1}, {"bytes", 1}, {"bit", 0.125}}};
constexpr std::array<BaseUnit, 3> rate_units{{{"B/s", 1}, {"bit/s", 0.125}, {"bps", 0.125}}};
constexpr std::array<BaseUnit, 3> flop_units{{{"FLOP", 1}, {"flop", 1}, {"Flop", 1}}};
constexpr std::array<BaseUnit, 5> flop_rate_units{
    {{"FLOP/s", 1}, {"flop/s", 1}, {"Flop/s", 1}, {"FLOPS", 1}, {"flops", 1}}};
constexpr std::array<BaseUnit, 8> time_units{{{"s", 1},
                                              {"ms", 1e-3},
                                              {"us", 1e-6},
                                              {"\u00b5s", 1e-6},  // the micro sign
                                              {"\u03bcs", 1e-6},  // the Greek mu, which keyboards give too
                                              {"ns", 1e-9},
                                              {"ps", 1e-12},
                                              {"min", 60}}};

struct Dimension {
  std::span<const BaseUnit> units;
  std::span<const Prefix> prefixes;
  std::string_view expected;
  std::string_view key_suffix; ///< a unit as a key name carries it ("GB_per_s" for GB/s)
  Magnitudes plausible;        ///< plausible_magnitudes()
};

template <class Q> Dimension dimension_of();
template <> Dimension dimension_of<DataSize>() {
  return {data_units, binary_and_decimal_prefixes, R"(a data size such as "16 GiB" or "100 MB")", "GB", {1, 1e18}};
}
template <> Dimension dimension_of<Bandwidth>() {
  return {rate_units, binary_and_decimal_prefixes,
          R"(a data rate such as "12 GB/s", "11.88 GiB/s" or "100 Gbit/s")", "GB_per_s", {1, 1e18}};
}
template <> Dimension dimension_of<Duration>() {
  return {time_units, {}, R"(a duration such as "1.3 us", "650 ns" or "2 s")", "us", {1e-15, 1e6}};
}
template <> Dimension dimension_of<Flops>() {
  return {flop_units, decimal_prefixes, R"(an operation count such as "7.7 GFLOP")", "GFLOP", {1, 1e24}};
}
template <> Dimension dimension_of<FlopRate>() {
  return {flop_rate_units, decimal_prefixes, R"(a compute rate such as "9.3 TFLOP/s")", "TFLOP_per_s", {1, 1e21}};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The factor of `unit` to the base unit of `dim`, if `unit` is [prefix]base.
std::optional<double> unit_factor(std::string_view unit, const Dimension& dim) {
  for (const BaseUnit& base : dim.units)
    if (unit == base.symbol)
      return base.factor;
  for (const Prefix& prefix : dim.prefixes) {
    if (!unit.starts_with(prefix.symbol))
      continue;
    const std::string_view rest = unit.substr(prefix.symbol.size());
    for (const BaseUnit& base : dim.units)
      if (rest == base.symbol)
        return prefix.factor * base.factor;
  }
  return std::nullopt;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

template <class Q> Parsed<Q> from_number(double number, std::string_view unit, std::string_view text) {
  const Dimension dim = dimension_of<Q>();
  if (!std::isfinite(number))
    return {std::nullopt, quoted(text) + " is not a finite number"};
  if (unit.empty())
    return {std::nullopt, "missing unit in " + quoted(text) + ": expected " +
                              std::string(dim.expected)};
  const auto factor = unit_factor(unit, dim);
  if (!factor) {
    // Where the "unit" begins with what would continue a number in other notations, the number is
    // what is wrong: "0x10", "1_000", "1,5".
    const char next = unit.front();
    // A space that is not one (a no-break space, U+00A0; a narrow one, U+202F; a thin one, U+2009)
    // looks like one in the message: named.
    const bool odd_space = unit.find("\u00a0") != std::string_view::npos || unit.find("\u202f") != std::string_view::npos ||
                           unit.find("\u2009") != std::string_view::npos;
    const char* number_note =
        (next == 'x' || next == 'X') && number == 0 ? " (numbers are decimal: 16, not 0x10)"
        : next == 'x' || next == 'X'                ? " (a count of parts, spaced: 2 x 12.5 GB/s)"
        : next == '_' || next == '\'' ? " (a number's digits without separators: 1000, not 1_000)"
        : next == ','                 ? " (a decimal point, not a comma: 1.5, not 1,5)"
        : odd_space ? " (it holds a no-break, narrow or thin space: write an ordinary one)"
                    : "";
    return {std::nullopt, "unknown unit " + quoted(unit) + " in " + quoted(text) + number_note + ": expected " +
                              std::string(dim.expected)};
  }
  if (!std::isfinite(number * *factor)) // "1e308 min": finite text, no finite quantity
    return {std::nullopt, quoted(text) + " is out of range"};
  return {Q::from_base(number * *factor), {}};
}

} // namespace

template <class Q> Parsed<Q> parse(std::string_view text) {
  const std::string_view body = trim(text);
  if (body.empty())
    return {std::nullopt, "empty text: expected " + std::string(dimension_of<Q>().expected)};
  // from_chars accepts no leading '+'; skip one so "+3 GB/s" reads like "3 GB/s".
  const char* first = body.data() + (body.front() == '+' ? 1 : 0);
  const char* last = body.data() + body.size();
  double number = 0;
  const auto [end, ec] = std::from_chars(first, last, number);
  if (ec == std::errc::result_out_of_range)
    return {std::nullopt, quoted(body) + " is out of range"};
  if (ec != std::errc{})
    return {std::nullopt, "expected a number first in " + quoted(body) + ": expected " +
                              std::string(dimension_of<Q>().expected)};
  std::string_view rest = trim(std::string_view(end, last - end));
  // "2 x 12.5 GB/s": a count of identical parts (two NICs, four links), the quantity times it.
  for (std::string_view times : {"x", "X", "\u00d7"}) {
    if (!rest.starts_with(times) || rest.size() == times.size())
      continue;
    const std::string_view each = rest.substr(times.size());
    if (each.front() != ' ' && each.front() != '\t')
      continue;
    if (!(number >= 1 && number == std::floor(number)))
      return {std::nullopt, "the count before \"" + std::string(times) + "\" in " + quoted(body) +
                                " must be a whole number of at least 1"};
    Parsed<Q> part = parse<Q>(each);
    if (!part && part.error.ends_with(" is out of range")) // (the whole text, not its part)
      return {std::nullopt, quoted(body) + " is out of range"};
    if (part)
      part.value = *part.value * number;
    if (part && !std::isfinite(*part.value / Q::from_base(1))) // the ratio to one base unit
      return {std::nullopt, quoted(body) + " is out of range"};
    return part;
  }
  return from_number<Q>(number, rest, body);
}

template <class Q> Parsed<Q> parse_in_unit(double number, std::string_view unit) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g ", number);
  return from_number<Q>(number, unit, std::string(text) + std::string(unit));
}

template <class Q> std::string_view expected_form() { return dimension_of<Q>().expected; }
template <class Q> std::string_view key_suffix_example() { return dimension_of<Q>().key_suffix; }
template <class Q> Magnitudes plausible_magnitudes() {
  const Dimension dim = dimension_of<Q>();
  return {dim.plausible.least, dim.plausible.most, dim.units.front().symbol};
}

template <class Q> std::optional<std::string> beyond_plausible(Q value, std::string_view shown) {
  const auto [least, most, unit] = plausible_magnitudes<Q>();
  const double magnitude = std::abs(value / Q::from_base(1));
  if (value == Q{} || (magnitude >= least && magnitude <= most))
    return std::nullopt;
  return "\"" + std::string(shown) + "\" is beyond what a machine or workload has: expected a magnitude from " +
         number_text(least) + " to " + number_text(most) + " " + std::string(unit) + " (a slip of the unit?)";
}

#define CEILING_UNITS_INSTANTIATE(Q)                                                               \
  template Parsed<Q> parse<Q>(std::string_view);                                                   \
  template Parsed<Q> parse_in_unit<Q>(double, std::string_view);                                   \
  template std::string_view expected_form<Q>();                                                     \
  template std::string_view key_suffix_example<Q>();                                               \
  template Magnitudes plausible_magnitudes<Q>();                                                   \
  template std::optional<std::string> beyond_plausible<Q>(Q, std::string_view);
CEILING_UNITS_INSTANTIATE(DataSize)
CEILING_UNITS_INSTANTIATE(Duration)
CEILING_UNITS_INSTANTIATE(Bandwidth)
CEILING_UNITS_INSTANTIATE(Flops)
CEILING_UNITS_INSTANTIATE(FlopRate)
#undef CEILING_UNITS_INSTANTIATE

namespace {

/// `value` scaled by the largest entry of `scales` (largest first) that keeps the mantissa >= 1
/// (zero takes the entry of factor 1), printed with 4 significant digits and that entry's symbol
/// followed by `unit`.
std::string scaled(double value, std::span<const Prefix> scales, std::string_view unit) {
  const Prefix* chosen = &scales.back();
  for (const Prefix& p : scales)
    if (value == 0 ? p.factor == 1 : std::fabs(value) >= p.factor) {
      chosen = &p;
      break;
    }
  char text[64];
  std::snprintf(text, sizeof text, "%.4g ", value / chosen->factor);
  return text + std::string(chosen->symbol) + std::string(unit);
}

constexpr std::array<Prefix, 7> si_prefixes{
    {{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}}};
constexpr std::array<Prefix, 4> time_scales{{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}};

} // namespace

std::string number_text(double v, int min_digits) {
  char text[32];
  for (int digits = min_digits; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v || !std::isfinite(v))
      break;
  }
  // A whole number that reads as short without its exponent is written so: "50", not "5e+01".
  if (char whole[32]; std::strchr(text, 'e') && std::isfinite(v) && std::fabs(v) < 1e17 && v == std::trunc(v) &&
                      std::snprintf(whole, sizeof whole, "%.0f", v) <= static_cast<int>(std::strlen(text)))
    return whole;
  return text;
}

std::string to_string(DataSize v) { return scaled(v.bytes(), si_prefixes, "B"); }
std::string to_string(Bandwidth v) { return scaled(v.bytes_per_second(), si_prefixes, "B/s"); }
std::string to_string(Flops v) { return scaled(v.flop(), si_prefixes, "FLOP"); }
std::string to_string(FlopRate v) { return scaled(v.flop_per_second(), si_prefixes, "FLOP/s"); }
std::string to_string(Duration v) { return scaled(v.seconds(), time_scales, ""); }

} // namespace ceiling::units
