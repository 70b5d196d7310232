// Message wording for LoadError.
#include "config/load_error.hpp"

namespace ceiling::config {
namespace {

/// "FILE:LINE:COL: error: KEY: message", the one wording of every LoadError.
std::string format_error(const SourceLocation& where, std::string_view key,
                         std::string_view message) {
  std::string text = where.path.empty() ? std::string("<input>") : where.path;
  if (where.line > 0)
    text += ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  text += ": error: ";
  if (!key.empty())
    text += std::string(key) + ": ";
  text += message;
  return text;
}

} // namespace

LoadError::LoadError(const SourceLocation& where, std::string_view key, std::string_view message)
    : std::runtime_error(format_error(where, key, message)), where_(where), key_(key),
      message_(message) {}

} // namespace ceiling::config
