// Expanding an experiment into points, and the `ceiling run` command of each.
#include "sweep/expand.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string_view>

namespace ceiling::sweep {
namespace {

/// One argument as a POSIX shell reads it back: bare when made of safe characters only,
/// otherwise single-quoted with each ' written '\''.
std::string shell_quoted(const std::string& argument) {
  // ASCII only, whatever the locale: a UTF-8 byte is quoted like any other special one.
  const auto safe = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./=:,+-@%").find(c) != std::string_view::npos;
  };
  bool bare = !argument.empty();
  for (const char c : argument)
    bare = bare && safe(c);
  if (bare)
    return argument;
  std::string out = "'";
  for (const char c : argument)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace

Expansion expand(const ExperimentSpec& e) {
  Expansion x;
  for (analysis::Scaling scaling : e.scalings)
    for (const InputEntry& platform : e.platforms)
      for (const InputEntry& workload : e.workloads)
        for (const VariantSpec& variant : e.variants) {
          const int curve = static_cast<int>(x.curves.size());
          x.curves.push_back({.id = platform.name + " / " + workload.name + " / " + variant.name +
                                    " / " + std::string(analysis::to_string(scaling)),
                              .platform = platform.name,
                              .workload = workload.name,
                              .variant = variant.name,
                              .scaling = scaling,
                              .cost_per_node = platform.cost_per_node});
          for (long long nodes : e.nodes)
            for (std::uint64_t seed : e.seeds) {
              std::vector<std::string> args{"--platform", platform.file, "--workload",
                                            workload.file, "--nodes", std::to_string(nodes),
                                            "--seed", std::to_string(seed), "--iterations",
                                            std::to_string(e.iterations)};
              if (scaling == analysis::Scaling::Strong) {
                args.push_back("--global-batch");
                args.push_back(std::to_string(*(workload.global_batch ? workload.global_batch
                                                                      : e.global_batch)));
              } else if (auto batch = workload.batch ? workload.batch : e.batch) {
                args.push_back("--batch");
                args.push_back(std::to_string(*batch));
              }
              for (const auto* set : {&platform.set, &workload.set})
                for (const std::string& s : *set) {
                  args.push_back("--set");
                  args.push_back(s);
                }
              args.insert(args.end(), variant.run_args.begin(), variant.run_args.end());
              x.points.push_back({.index = static_cast<int>(x.points.size()),
                                  .curve = curve,
                                  .nodes = nodes,
                                  .seed = seed,
                                  .run_args = std::move(args)});
            }
        }
  return x;
}

std::vector<int> run_order(std::span<const PointSpec> points) {
  std::vector<int> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return points[static_cast<std::size_t>(a)].nodes < points[static_cast<std::size_t>(b)].nodes;
  });
  return order;
}

std::string command_of(const PointSpec& p) {
  std::string command = "ceiling run";
  for (const auto& argument : p.run_args)
    command += " " + shell_quoted(argument);
  return command;
}

std::string digest(std::span<const std::string> texts) {
  std::uint64_t h = 14695981039346656037ULL; // FNV-1a offset basis
  const auto add = [&h](unsigned char byte) {
    h ^= byte;
    h *= 1099511628211ULL; // FNV prime
  };
  for (const std::string& text : texts) {
    for (unsigned char c : text)
      add(c);
    for (int shift = 0; shift < 64; shift += 8) // the length separates "ab","c" from "a","bc"
      add(static_cast<unsigned char>(text.size() >> shift));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

} // namespace ceiling::sweep
