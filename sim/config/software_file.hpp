// Software files (TOML) -> SoftwareStack. The format is documented in platforms/software/README.md.
#pragma once

#include "config/load_error.hpp"
#include "stack/software_stack.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::config {

/// The stacks bundled with the tool (platforms/software/*.toml, built into the program), by
/// name, in name order.
std::vector<std::string> bundled_software_names();
/// The same, comma-separated, for messages.
std::string bundled_software_list();

/// Where a stack named `given` in `file` is: a bundled stack's name as it is, else a software file
/// relative to `file`; and, where that is no file, why (the bundled names listed).
struct SoftwareReference {
  std::string name_or_path;
  std::optional<std::string> problem;
};
SoftwareReference software_reference(const std::string& file, const std::string& given);

class TableReader;
/// The stack that `key` of a file's table `t` names (`given`), as software_reference() finds it
/// (a problem refused at the key).
std::string software_named(TableReader& t, std::string_view key, const std::string& given);

/// Reads a software stack: `name_or_path` is a bundled stack's name (horovod-mpi) or the path
/// of a software file. Throws LoadError naming file, line, column and key; an unknown name
/// that is no file lists the bundled names. `overrides` whose first key is `software` change
/// keys of the file before it is read, as for load_platform().
stack::SoftwareStack load_software(const std::string& name_or_path,
                                   std::span<const std::string> overrides = {});

/// The same from TOML text that claims to come from `path`.
stack::SoftwareStack load_software_text(std::string_view text, const std::string& path,
                                        std::span<const std::string> overrides = {});

/// The error for key `dotted_key` ("software.library") of the stack load_software() reads from
/// `name_or_path` with `overrides`, located at the key, or at its table where the key is absent
/// (for a check made outside the file reader: what the run's platform cannot run).
LoadError software_key_error(const std::string& name_or_path, std::span<const std::string> overrides,
                             std::string_view dotted_key, std::string_view message);

/// The text the stack was read from: the bundled file's, or the file's (for result stores).
std::string software_text(const std::string& name_or_path);

} // namespace ceiling::config
