// Command-line parsing shared by the subcommands: one positional FILE plus options.
#pragma once

#include "config/overrides.hpp"
#include "units/quantity.hpp"

#include <boost/program_options.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::tools {

/// A parsed subcommand line: the positional FILE and the options' values.
struct CommandLine {
  std::string file;
  std::vector<std::string> files; ///< with parse_command_line_files: every positional argument
  boost::program_options::variables_map vm;

  bool has(const char* option) const { return vm.count(option) > 0; }
  template <class T> std::optional<T> optional(const char* option) const {
    return has(option) ? std::optional<T>(vm[option].as<T>()) : std::nullopt;
  }
  /// The data size given to `option` ("64 MiB"), which must be positive and of a magnitude an input
  /// file may give (1 B to 1e18 B); else UsageError.
  units::DataSize positive_size(const char* option) const;
};

/// The largest seed: an experiment's seeds are TOML integers, and the result store and the
/// JSON outputs hold seeds as signed 64-bit integers.
inline constexpr std::uint64_t max_seed = 9223372036854775807ULL;

/// A seed as written: decimal digits alone, 0 to max_seed; nullopt otherwise ("-1", which an
/// unsigned parse would wrap to 2^64 - 1, "1e3", "", 2^63).
std::optional<std::uint64_t> seed_of(std::string_view text);

/// The value of a `--seed` option (po::value<Seed>()), refused unless seed_of() reads it (the
/// error names --seed: the type serves that option alone).
struct Seed {
  std::uint64_t value = 1;
};
/// boost::program_options' parser of a Seed, found by argument-dependent lookup.
void validate(boost::any& out, const std::vector<std::string>& tokens, Seed*, int);

/// How every command line is parsed: Boost's default style without its prefix matching, so an
/// option is written in full ("--iterations", not "--iter": an abbreviation that a later
/// option made ambiguous, or that an experiment's variant could not use, would change meaning).
inline constexpr int command_line_style =
    boost::program_options::command_line_style::default_style & ~boost::program_options::command_line_style::allow_guessing;

/// Parses `args` against `options` (to which --help is added) plus, when `wants_file`, one
/// positional FILE named `file_name` in messages ("platform FILE"). On --help prints `usage`
/// and the options and returns nullopt; a missing FILE throws UsageError.
std::optional<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                              const std::string& file_name,
                                              const std::string& usage,
                                              boost::program_options::options_description options,
                                              bool wants_file = true);

/// The same for a command that takes any number of positional arguments (in `files`).
std::optional<CommandLine> parse_command_line_files(const std::vector<std::string>& args, const std::string& usage,
                                                    boost::program_options::options_description options);

/// Refuses an override (`--set`) of a kind of file that `command` does not read ("a workload
/// file"), which would otherwise be dropped unread; `reads` lists the kinds it reads. Where it
/// reads no software file it runs no stack: an override of the platform's `platform.software` is
/// refused too.
void refuse_unread_overrides(std::span<const std::string> overrides, std::string_view command,
                             std::initializer_list<config::OverrideTarget> reads);
/// The same for keys of a file the command reads but not at those `keys`: "--set KEY: WHY".
void refuse_unread_keys(std::span<const std::string> overrides, std::span<const char* const> keys, std::string_view why);

/// The message of `e` as the commands print it: a numeric option's bad value in the --OPTION:
/// form (Boost's own names neither), any other error's text as it is.
std::string error_text(const std::exception& e, const boost::program_options::options_description* known = nullptr);

/// Refuses an output (`option`, at `path`) that is one of the command's input files, which it
/// would write over: each of `inputs` is a kind ("platform") and its path; and "-", which is no
/// standard output here (a file of that name is ./-).
void refuse_output_over_inputs(std::string_view option, const std::string& path,
                               const std::vector<std::pair<std::string, std::string>>& inputs);

/// Refuses to write `option`'s output over a file at `path` that it did not write (a result
/// store, a table, a source file named by mistake): an output of its own (`what`, "a trace")
/// begins with `start`, white space aside; an empty file (or one of white space alone), or none,
/// is no one's.
void refuse_over_other_than_own(std::string_view option, const std::string& path,
                                std::string_view start, std::string_view what);

/// A subcommand: its name and the function that runs it on the remaining arguments.
struct Subcommand {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
};

/// Runs the subcommand `args[0]` of `command` ("platform") among `subcommands`; --help lists
/// them; a missing or unknown one throws UsageError. Returns the exit status.
int dispatch(const std::string& command, const std::vector<std::string>& args,
             const std::vector<Subcommand>& subcommands);

} // namespace ceiling::tools
