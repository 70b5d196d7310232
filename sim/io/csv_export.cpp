// The CSV export: the store's tables (result_columns.hpp) as rows of text, one file each.
#include "io/csv_export.hpp"

#include "io/atomic_output.hpp"

#include "io/result_columns.hpp"
#include "io/store_error.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

namespace ceiling::io {
namespace {

using Row = std::vector<std::string>;

/// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos)
    return text;
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// A float64 with the digits that read it back exactly; "nan" whatever NaN's sign.
std::string csv(double v) {
  if (std::isnan(v))
    return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string csv(long long v) {
  return std::to_string(v);
}

std::vector<Row> points_table(const ResultFile& r) {
  Row header;
  for (const auto& c : point_int_columns) {
    header.push_back(c.name);
    if (std::string_view(c.name) == "curve") // the curve's label follows its index
      header.push_back("curve_id");
  }
  for (const auto& c : point_string_columns)
    if (c.in_csv)
      header.push_back(c.name);
  for (const auto& c : point_columns)
    header.push_back(c.name);
  std::vector<Row> rows{header};
  for (const auto& p : r.points) {
    Row row;
    for (const auto& c : point_int_columns) {
      row.push_back(csv(c.get(p)));
      if (std::string_view(c.name) == "curve")
        row.push_back(csv(r.curves[static_cast<std::size_t>(p.spec.curve)].id));
    }
    for (const auto& c : point_string_columns)
      if (c.in_csv)
        row.push_back(csv(c.get(p)));
    // (a point that did not run has no measurements: empty, which a reader takes for missing,
    // where the store holds zeros)
    for (const auto& c : point_columns)
      row.push_back(p.result.ok ? csv(p.result.*c.member) : std::string());
    rows.push_back(std::move(row));
  }
  return rows;
}

/// The columns that start every row of curves.csv and fits.csv: which curve it is.
constexpr const char* curve_header[] = {"curve",    "curve_id", "platform",
                                        "workload", "variant",  "scaling"};

Row curve_head(const ResultFile& r, std::size_t c) {
  const auto& spec = r.curves[c];
  return {csv(static_cast<long long>(c)),
          csv(spec.id),
          csv(spec.platform),
          csv(spec.workload),
          csv(spec.variant),
          std::string(analysis::to_string(spec.scaling))};
}

std::vector<Row> curves_table(const ResultFile& r) {
  Row header(std::begin(curve_header), std::end(curve_header));
  for (const auto& c : metric_columns) {
    header.push_back(c.name);
    if (c.member == seeds_column.after)
      header.push_back(seeds_column.name);
  }
  std::vector<Row> rows{header};
  for (std::size_t c = 0; c < r.curves.size(); ++c)
    for (const auto& m : r.analyses[c].points) {
      Row row = curve_head(r, c);
      for (const auto& column : metric_columns) {
        row.push_back(csv(m.*column.member));
        if (column.member == seeds_column.after)
          row.push_back(csv(static_cast<long long>(m.*seeds_column.member)));
      }
      rows.push_back(std::move(row));
    }
  return rows;
}

std::vector<Row> fits_table(const ResultFile& r) {
  Row header(std::begin(curve_header), std::end(curve_header));
  header.push_back("n_unit");
  header.push_back(reference_attribute.name);
  for (const auto& attribute : fit_attributes)
    header.push_back(attribute.name);
  header.push_back("amdahl_shaped");
  header.push_back("shape");
  for (const auto& attribute : measured_attributes)
    header.push_back(attribute.name);
  header.push_back("dominant_term");
  header.push_back("cost_per_node");
  header.push_back("cost_unit");
  std::vector<Row> rows{header};
  for (std::size_t c = 0; c < r.curves.size(); ++c) {
    const auto& a = r.analyses[c];
    Row row = curve_head(r, c);
    row.push_back("nodes");
    row.push_back(csv(a.*reference_attribute.member));
    for (const auto& attribute : fit_attributes)
      row.push_back(csv(a.fit.*attribute.member));
    row.push_back(a.fit.amdahl_shaped ? "1" : "0");
    row.push_back(csv(std::string(analysis::to_string(a.fit.shape))));
    for (const auto& attribute : measured_attributes)
      row.push_back(csv(a.*attribute.member));
    row.push_back(csv(a.dominant_term));
    row.push_back(csv(r.curves[c].cost_per_node.value_or(std::nan(""))));
    row.push_back(csv(r.cost_unit));
    rows.push_back(std::move(row));
  }
  return rows;
}

/// Writes `rows` to `path`, atomically (io/atomic_output.hpp); SIGINT or SIGTERM meanwhile
/// removes the unfinished file and ends the process (the tables written before it stay).
void write_file(const std::filesystem::path& path, const std::vector<Row>& rows) {
  AtomicOutput file(path.string());
  const RemovedOnSignal guard(file);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i)
      file.stream() << (i ? "," : "") << row[i];
    file.stream() << "\n";
  }
  file.commit();
}

} // namespace

std::vector<std::filesystem::path> write_csv_tables(const ResultFile& results,
                                                    const std::filesystem::path& dir) {
  const std::pair<const char*, std::vector<Row>> tables[] = {
      {"points.csv", points_table(results)},
      {"curves.csv", curves_table(results)},
      {"fits.csv", fits_table(results)},
  };
  std::vector<std::filesystem::path> written;
  for (const auto& [name, rows] : tables) {
    written.push_back(dir / name);
    write_file(written.back(), rows);
  }
  return written;
}

} // namespace ceiling::io
