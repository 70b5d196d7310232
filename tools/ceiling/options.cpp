// The one place that runs Boost.Program_options for a subcommand.
#include "tools/ceiling/options.hpp"

#include "tools/ceiling/commands.hpp"
#include "config/table_reader.hpp"
#include "units/parse.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace po = boost::program_options;

namespace ceiling::tools {

std::optional<std::uint64_t> seed_of(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value > max_seed)
    return std::nullopt;
  return value;
}

void validate(boost::any& out, const std::vector<std::string>& tokens, Seed*, int) {
  namespace po = boost::program_options;
  po::validators::check_first_occurrence(out);
  const std::string& text = po::validators::get_single_string(tokens);
  const auto value = seed_of(text);
  if (!value)
    throw po::error("--seed: expected a whole number from 0 to " + std::to_string(max_seed) + ", got \"" + text + "\"");
  out = Seed{*value};
}

units::DataSize CommandLine::positive_size(const char* option) const {
  const auto text = vm[option].as<std::string>();
  const auto size = units::parse<units::DataSize>(text);
  if (!size)
    throw UsageError(std::string("--") + option + ": " + size.error);
  if (!(*size.value > units::DataSize{}))
    throw UsageError(std::string("--") + option + ": must be positive, got \"" + text + "\"");
  if (const auto beyond = units::beyond_plausible(*size.value, text)) // (the magnitudes a file may give)
    throw UsageError(std::string("--") + option + ": " + *beyond);
  return *size.value;
}

namespace {

/// Parses `args` against `options` and --help, positional arguments going to `files`
/// (at most `max_files`, -1 for any number); nullopt after printing the help.
std::optional<CommandLine> parse(const std::vector<std::string>& args, const std::string& usage,
                                 po::options_description options, int max_files) {
  CommandLine parsed;
  options.add_options()("help,h", "print this help and exit");
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>(&parsed.files));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("files", -1); // (counted below, so that a stray argument is named)
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).style(command_line_style).run(),
              parsed.vm);
  } catch (const po::unknown_option& e) {
    throw UsageError(error_text(e, &options) + "; --help lists them");
  }
  po::notify(parsed.vm);
  if (max_files >= 0 && parsed.files.size() > static_cast<std::size_t>(max_files))
    throw UsageError("unexpected argument \"" + parsed.files[static_cast<std::size_t>(max_files)] + "\": " +
                     (max_files == 0 ? std::string("this command takes no file, only options")
                                     : "this command takes one file, \"" + parsed.files.front() + "\" already") +
                     " (an option's value goes right after it)");
  // An empty value names nothing: a file, a stack, a list (as `-p ""` would be read).
  for (const auto& [name, value] : parsed.vm) {
    const auto* option = all.find_nothrow(name, false);
    if (!option || option->semantic()->max_tokens() == 0 || value.defaulted())
      continue; // (a flag: no value of its own)
    const auto* text = boost::any_cast<std::string>(&value.value());
    const auto* texts = boost::any_cast<std::vector<std::string>>(&value.value());
    const bool empty = (text && text->empty()) ||
                       (texts && std::any_of(texts->begin(), texts->end(), [](const auto& t) { return t.empty(); }));
    if (empty)
      throw UsageError(name == "files" ? std::string("an empty argument: expected a file's path")
                                       : "--" + name + ": empty: expected a value");
  }
  if (parsed.has("help")) {
    std::cout << usage << "\n" << options;
    return std::nullopt;
  }
  if (!parsed.files.empty())
    parsed.file = parsed.files.front();
  return parsed;
}

} // namespace

void refuse_unread_overrides(std::span<const std::string> overrides, std::string_view command,
                             std::initializer_list<config::OverrideTarget> reads) {
  const bool runs_stack = std::find(reads.begin(), reads.end(), config::OverrideTarget::Software) != reads.end();
  for (const std::string& o : overrides) {
    const auto target = config::override_target(o);
    const bool reads_target = std::find(reads.begin(), reads.end(), target) != reads.end();
    if (reads_target && !runs_stack && target == config::OverrideTarget::Platform &&
        config::overrides_set(std::span(&o, 1), "platform.software"))
      throw UsageError("--set: \"" + o + "\" changes the platform's software stack, which `ceiling " +
                       std::string(command) + "` does not run: leave it out");
    if (reads_target)
      continue;
    const char* file = target == config::OverrideTarget::Platform   ? "a platform file"
                       : target == config::OverrideTarget::Workload ? "a workload file"
                                                                    : "a software file";
    throw UsageError("--set: \"" + o + "\" changes " + file + ", which `ceiling " + std::string(command) +
                     "` does not read: expected keys of the files it reads");
  }
}

void refuse_unread_keys(std::span<const std::string> overrides, std::span<const char* const> keys, std::string_view why) {
  for (const char* key : keys)
    if (config::overrides_set(overrides, key))
      throw UsageError(std::string("--set ") + key + ": " + std::string(why));
}

std::optional<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                              const std::string& file_name,
                                              const std::string& usage,
                                              po::options_description options,
                                              bool wants_file) {
  auto parsed = parse(args, usage, std::move(options), wants_file ? 1 : 0);
  if (parsed && wants_file && parsed->file.empty())
    throw UsageError("missing " + file_name + "\n" + usage);
  return parsed;
}

std::optional<CommandLine> parse_command_line_files(const std::vector<std::string>& args, const std::string& usage,
                                                    po::options_description options) {
  return parse(args, usage, std::move(options), -1);
}

std::string error_text(const std::exception& e, const po::options_description* known) {
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&e)) {
    // "--iteration: unknown option (did you mean "--iterations"?)", the closest of `known`.
    const std::string name = unknown->get_option_name();
    std::vector<std::string> names;
    if (known)
      for (const auto& option : known->options())
        names.push_back("--" + option->long_name());
    // (an abbreviation of one option suggests that one: "--iter" is "--iterations", not "--jitter")
    const auto suggested = config::suggested_name(name.substr(0, name.find('=')), names);
    return name + ": unknown option" + (suggested ? " (did you mean \"" + *suggested + "\"?)" : "");
  }
  // Only numeric options have typed values: "the argument ('abc') for option '--jobs' is invalid".
  const auto* invalid = dynamic_cast<const po::invalid_option_value*>(&e);
  if (!invalid)
    return e.what();
  const std::string what = e.what();
  const auto from = what.find("('"), to = what.find("')");
  const std::string value = from != std::string::npos && to > from ? what.substr(from + 2, to - from - 2) : "";
  return invalid->get_option_name() + ": expected a number it can hold (a count such as --nodes, --batch, "
         "--iterations or --jobs takes a whole number in digits, without a fraction or an exponent: up to 2^63 - 1 for "
         "--nodes and the batches, 2^31 - 1 for the others; a factor such as --jitter a decimal number), got \"" + value + "\"";
}

void refuse_output_over_inputs(std::string_view option, const std::string& path,
                               const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (path == "-") // (no standard output: that carries what the command prints)
    throw UsageError(std::string(option) + ": \"-\": writes a file, not standard output: give its path (./- for a file named so)");
  for (const auto& [kind, input] : inputs) {
    std::error_code ignored;
    if (!input.empty() && std::filesystem::equivalent(path, input, ignored))
      throw UsageError(std::string(option) + ": " + path + " is the " + kind +
                       " file it reads, which it would write over: name another file");
  }
}

void refuse_over_other_than_own(std::string_view option, const std::string& path,
                                std::string_view start, std::string_view what) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error) ||
      std::filesystem::file_size(path, error) == 0)
    return;
  const auto solid = [](char c) { return c != ' ' && c != '\n' && c != '\t' && c != '\r'; };
  std::string expected; // `start` but white space
  std::copy_if(start.begin(), start.end(), std::back_inserter(expected), solid);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UsageError(std::string(option) + ": " + path + " exists but cannot be read" +
                     (errno != 0 ? " (" + std::string(std::strerror(errno)) + ")" : std::string()) +
                     ", to check that it is " + std::string(what) +
                     " before writing over it: name another file");
  std::string first; // its first characters but white space
  for (char c; first.size() < expected.size() && in.get(c);)
    if (solid(c))
      first += c;
  if (!first.empty() && first != expected) { // (white space alone is as empty)
    // (on one line)
    std::string shown(start);
    std::replace(shown.begin(), shown.end(), '\n', ' ');
    throw UsageError(std::string(option) + ": " + path + " exists and is not " + std::string(what) +
                     " (whose text begins with " +
                     shown.substr(0, shown.find_last_not_of(' ') + 1) +
                     "): name another file, or remove it first");
  }
}

int dispatch(const std::string& command, const std::vector<std::string>& args,
             const std::vector<Subcommand>& subcommands) {
  std::string names;
  for (const Subcommand& s : subcommands)
    names += (names.empty() ? "" : "|") + std::string(s.name);
  const std::string usage = "usage: ceiling " + command + " " + names + " FILE [options]\n" +
                            "Run `ceiling " + command + " <subcommand> --help` for the options.";
  if (args.empty())
    throw UsageError(command + ": missing subcommand\n" + usage);
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << usage << "\n";
    return 0;
  }
  for (const Subcommand& s : subcommands)
    if (args[0] == s.name)
      return s.run({args.begin() + 1, args.end()});
  throw UsageError(command + ": unknown subcommand \"" + args[0] + "\"\n" + usage);
}

} // namespace ceiling::tools
