// A small streaming JSON writer: objects, arrays, strings and numbers, deterministic output.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ceiling::io {

/// Writes one JSON document to a stream, two-space indented, a line per member or element, and
/// ends it with a newline when destroyed (the document complete). Numbers are printed with 17
/// significant digits, so equal doubles always print the same text and parse back exactly.
/// Strings are UTF-8: a byte that starts no well-formed character (a file name from outside)
/// comes out as U+FFFD, so that the document stays JSON.
/// Example:
///   JsonWriter json(std::cout);
///   json.begin_object().key("nodes").value(64).end_object();   // {\n  "nodes": 64\n}\n
class JsonWriter {
public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  ~JsonWriter();

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(long long number);
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();

private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  void before_value();
  void newline();

  std::ostream& out_;
  std::vector<bool> first_in_level_; // one entry per open object or array
  bool after_key_ = false;
};

} // namespace ceiling::io
