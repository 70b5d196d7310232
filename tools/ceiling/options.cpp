// The one place that runs Boost.Program_options for a subcommand.
#include "tools/ceiling/options.hpp"

#include "tools/ceiling/commands.hpp"

#include <iostream>

namespace po = boost::program_options;

namespace ceiling::tools {

const char* version() { return CEILING_VERSION; }

std::optional<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                              const std::string& file_name,
                                              const std::string& usage,
                                              po::options_description options,
                                              bool wants_file) {
  CommandLine parsed;
  options.add_options()("help,h", "print this help and exit");
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::string>(&parsed.file));
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  if (wants_file)
    positional.add("file", 1);
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), parsed.vm);
  po::notify(parsed.vm);
  if (parsed.has("help")) {
    std::cout << usage << "\n" << options;
    return std::nullopt;
  }
  if (wants_file && parsed.file.empty())
    throw UsageError("missing " + file_name + "\n" + usage);
  return parsed;
}

} // namespace ceiling::tools
