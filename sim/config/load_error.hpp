// The one error type for bad input files, and the one function that words its messages.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ceiling::config {

/// Where something stands in an input file; line and column count from 1 (0 = unknown).
struct SourceLocation {
  std::string path;
  int line = 0;
  int column = 0;
};

/// Bad input. what() reads "FILE:LINE:COL: error: KEY: message", the form compilers use;
/// KEY is the dotted path of the offending key ("node.nic.bandwidth"), left out when empty.
class LoadError : public std::runtime_error {
public:
  LoadError(const SourceLocation& where, std::string_view key, std::string_view message);
  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

private:
  SourceLocation where_;
  std::string key_;
  std::string message_;
};

} // namespace ceiling::config
