// Applying overrides to a parsed TOML table. Internal to config/.
#pragma once

#include "config/load_error.hpp"
#include "config/overrides.hpp"

#include <toml++/toml.h>

#include <functional>

namespace ceiling::config {

/// Parses one override "KEY=VALUE": VALUE is TOML ("25 GB/s" in quotes, 64, true, [2, 4],
/// {...}), or else the plain text taken as a string (interconnect.topology=fat-tree). Its
/// nodes carry `origin` as their source path, so an error in the value points at the override.
toml::table parse_override(std::string_view text, const std::string& origin);

/// Merges `overrides` of `target` into `base` (the parsed file at `path`), each replacing the
/// value at its key: a table written as a dotted key merges into the table there (only the keys
/// given change), an inline table ({...}) replaces it whole; a later override of a key wins. A
/// file without the table of its kind ([platform], [workload], [software]) is refused at the
/// file, as its reader would, not made one by an override. `before_merge` sees
/// every parsed override before any is merged (the platform reader drops the keys of a
/// topology that an override replaces), so the order of the overrides does not matter there.
void apply_overrides(
    toml::table& base, const std::string& path, std::span<const std::string> overrides,
    OverrideTarget target,
    const std::function<void(toml::table& base, const toml::table& override)>& before_merge = {});

/// `error`, located in a file that `overrides` of `target` changed, with those overrides named
/// after its message ("... (the file as --set software.library=none leaves it)"): its cause may
/// be an override of another key. An error located at an override ("--set:1:...") is returned
/// as it is.
LoadError noting_overrides(const LoadError& error, std::span<const std::string> overrides,
                           OverrideTarget target);

/// Runs `read` (a file's reader, `overrides` of `target` applied to its table), adding to an
/// error it locates in the file the overrides that changed the file (noting_overrides).
template <class Read>
auto noting_overrides_of(Read read, std::span<const std::string> overrides, OverrideTarget target) {
  try {
    return read();
  } catch (const LoadError& e) {
    throw noting_overrides(e, overrides, target);
  }
}

} // namespace ceiling::config
