// The store's messages: one format, lower-case system errors.
#include "io/store_error.hpp"

#include <cctype>
#include <cstring>

namespace ceiling::io {

StoreError store_error(const std::string& path, const std::string& message) {
  return StoreError(path + ": error: " + message);
}

std::string in_quotes(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string system_error_text(int error) {
  std::string text = std::strerror(error);
  if (!text.empty())
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

} // namespace ceiling::io
