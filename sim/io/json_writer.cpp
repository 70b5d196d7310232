// JsonWriter: commas, indentation and escaping in one place.
#include "io/json_writer.hpp"

#include "support/utf8.hpp"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace ceiling::io {

JsonWriter::~JsonWriter() {
  if (first_in_level_.empty())
    out_ << "\n";
}

void JsonWriter::newline() {
  out_ << "\n" << std::string(2 * first_in_level_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_in_level_.empty())
    return;
  if (!first_in_level_.back())
    out_ << ",";
  first_in_level_.back() = false;
  newline();
}

JsonWriter& JsonWriter::open(char bracket) {
  before_value();
  out_ << bracket;
  first_in_level_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  assert(!first_in_level_.empty() && "closing more than was opened");
  const bool empty = first_in_level_.back();
  first_in_level_.pop_back();
  if (!empty)
    newline();
  out_ << bracket;
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open('{'); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array() { return open('['); }
JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
  value(name);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  out_ << '"';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) >= 0x80) { // a character of several bytes, or a stray one
      const std::size_t length = support::utf8_character_length(text, i);
      out_ << (length == 0 ? std::string_view("\\ufffd") : text.substr(i, length));
      i += length == 0 ? 0 : length - 1;
      continue;
    }
    switch (c) {
    case '"': out_ << "\\\""; break;
    case '\\': out_ << "\\\\"; break;
    case '\n': out_ << "\\n"; break;
    case '\t': out_ << "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out_ << escaped;
      } else {
        out_ << c;
      }
    }
  }
  out_ << '"';
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number))
    return null(); // JSON has no NaN or infinity
  before_value();
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", number);
  out_ << text;
  return *this;
}

JsonWriter& JsonWriter::value(long long number) {
  before_value();
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

} // namespace ceiling::io
