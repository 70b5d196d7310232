// Encoding point results as lines of text.
#include "sweep/point_codec.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace ceiling::sweep {
namespace {

constexpr std::string_view header = "ceiling-point 1";


std::string escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::optional<std::string> unescaped(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size() || (text[i] != '\\' && text[i] != 'n'))
      return std::nullopt;
    out += text[i] == 'n' ? '\n' : '\\';
  }
  return out;
}

/// `x` with 17 significant digits: the double it reads back as, bit for bit.
std::string full_text(double x) {
  char number[32];
  std::snprintf(number, sizeof number, "%.17g", x);
  return number;
}

} // namespace

std::string encode(const PointResult& r) {
  std::string out = std::string(header) + "\n";
  out += "ok " + std::to_string(r.ok ? 1 : 0) + "\n";
  out += "does_not_fit " + std::to_string(r.does_not_fit ? 1 : 0) + "\n";
  out += "error " + escaped(r.error) + "\n";
  out += "provenance " + escaped(r.provenance) + "\n";
  out += "ranks " + std::to_string(r.ranks) + "\n";
  out += "batch_per_rank " + std::to_string(r.batch_per_rank) + "\n";
  for (const PointResultField& f : point_result_fields)
    out += std::string(f.name) + " " + full_text(r.*f.member) + "\n";
  return out;
}

std::optional<PointResult> decode(std::string_view text, std::string& problem) {
  if (!text.starts_with(header) || text.size() == header.size() || text[header.size()] != '\n') {
    problem = "the output does not start with \"" + std::string(header) + "\"";
    return std::nullopt;
  }
  std::map<std::string, std::string, std::less<>> values;
  for (std::size_t at = header.size() + 1; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) {
      problem = "a line without a value: \"" + std::string(line) + "\"";
      return std::nullopt;
    }
    values[std::string(line.substr(0, space))] = std::string(line.substr(space + 1));
    at = end + 1;
  }
  PointResult r;
  const auto take = [&](const char* name) -> const std::string* {
    const auto it = values.find(name);
    if (it == values.end())
      problem = std::string("the field ") + name + " is missing";
    return it == values.end() ? nullptr : &it->second;
  };
  const auto integer = [&](const char* name, long long& into) {
    const std::string* v = take(name);
    if (!v)
      return false;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), into);
    if (ec != std::errc{} || end != v->data() + v->size()) {
      problem = std::string("the field ") + name + " is not an integer: \"" + *v + "\"";
      return false;
    }
    return true;
  };
  long long ok = 0;
  long long does_not_fit = 0;
  if (!integer("ok", ok) || !integer("does_not_fit", does_not_fit) || !integer("ranks", r.ranks) ||
      !integer("batch_per_rank", r.batch_per_rank))
    return std::nullopt;
  r.ok = ok == 1;
  r.does_not_fit = does_not_fit == 1;
  const auto words = [&](const char* name, std::string& into) {
    const std::string* v = take(name);
    if (!v)
      return false;
    auto value = unescaped(*v);
    if (!value) {
      problem = std::string("the field ") + name + " has a bad escape";
      return false;
    }
    into = std::move(*value);
    return true;
  };
  if (!words("error", r.error) || !words("provenance", r.provenance))
    return std::nullopt;
  for (const PointResultField& f : point_result_fields) {
    const std::string* v = take(f.name);
    if (!v)
      return std::nullopt;
    char* end = nullptr;
    r.*f.member = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size()) {
      problem = std::string("the field ") + f.name + " is not a number: \"" + *v + "\"";
      return std::nullopt;
    }
  }
  if (values.size() != 6 + std::size(point_result_fields)) { // ok, does_not_fit, error, provenance, ranks, batch
    problem = "the output has fields this version does not know";
    return std::nullopt;
  }
  if (ok < 0 || ok > 1 || does_not_fit < 0 || does_not_fit > 1) {
    problem = "the fields ok and does_not_fit are 0 or 1";
    return std::nullopt;
  }
  if (auto wrong = result_problem(r)) {
    problem = *wrong;
    return std::nullopt;
  }
  return r;
}

std::optional<std::string> result_problem(const PointResult& r) {
  if (r.ok && r.does_not_fit)
    return "a point is finished (ok) or does not fit, not both";
  if (!r.ok)
    return std::nullopt; // (its error says what happened; its numbers are zeros)
  for (const PointResultField& f : point_result_fields)
    if (const double v = r.*f.member; !std::isfinite(v) || v < 0)
      return std::string(f.name) + " of a finished point is " + full_text(v) + ": expected a finite number, 0 or more";
  if (!(r.iteration_time_s > 0))
    return "iteration_time_s of a finished point is 0: expected the time of an iteration";
  if (r.ranks < 1 || r.batch_per_rank < 1)
    return "a finished point has " + std::to_string(r.ranks) + " ranks of " + std::to_string(r.batch_per_rank) +
           " samples: expected 1 or more of each";
  if (!(r.samples_per_iteration > 0))
    return "samples_per_iteration of a finished point is 0: expected the samples of an iteration";
  return std::nullopt;
}

} // namespace ceiling::sweep
