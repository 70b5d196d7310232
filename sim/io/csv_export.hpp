// The tables of a result file as CSV (RFC 4180), for spreadsheets and pandas.read_csv.
#pragma once

#include "io/result_store.hpp"

#include <filesystem>
#include <vector>

namespace ceiling::io {

/// Writes the tables of `results` into the existing folder `dir`: points.csv (one row per
/// point), curves.csv (one row per curve and node count) and fits.csv (one row per curve: the
/// Amdahl fit, the ceiling), with the columns of result_columns.hpp and the curve's labels.
/// Numbers are printed with 17 significant digits (they read back bit for bit), NaN as "nan";
/// a field holding a comma, a quote or a line break is quoted. Each file is written to
/// "NAME.tmp" first, then renamed. Returns the paths written, in that order; throws StoreError
/// when a file cannot be written.
std::vector<std::filesystem::path> write_csv_tables(const ResultFile& results,
                                                    const std::filesystem::path& dir);

} // namespace ceiling::io
