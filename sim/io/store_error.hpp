// The one funnel of the store's messages, internal to io/: the HDF5 store and the CSV export
// build every StoreError here, "PATH: error: MESSAGE".
#pragma once

#include "io/result_store.hpp"

#include <string>
#include <string_view>

namespace ceiling::io {

/// The StoreError about `path`: "PATH: error: MESSAGE", MESSAGE lower-case without a period.
StoreError store_error(const std::string& path, const std::string& message);

/// `text` in double quotes, as messages show names and values: "points/curve".
std::string in_quotes(std::string_view text);

/// strerror() in the style of our messages: "no such file or directory".
std::string system_error_text(int error);

} // namespace ceiling::io
