// src/tour/render_parts.hpp: the small formatting pieces the sections'
// renderers share (sketch_render.cpp, window_render.cpp, quantile_render.cpp):
// a percentage, a right-aligned text table row, an HTML table row.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ringbloom::tour::render_parts {

/// 0.1234 -> "12.34%" (with `decimals` after the point).
inline std::string pct(double x, int decimals = 2) {
  return fmt::format("{:.{}f}%", 100 * x, decimals);
}

/// One row of a text table: each cell right-aligned to its width, indented by three spaces.
inline std::string row(const std::vector<std::string>& cells, const std::vector<int>& widths) {
  std::string out = "   ";
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += fmt::format("{:>{}}  ", cells[i], widths[i]);
  }
  return out + "\n";
}

/// One row of an HTML table (th cells when `header`); cells are written as given.
inline std::string html_row(const std::vector<std::string>& cells, bool header = false) {
  std::string out = "<tr>";
  const std::string_view tag = header ? "th" : "td";
  for (const auto& c : cells) out += fmt::format("<{0}>{1}</{0}>", tag, c);
  return out + "</tr>\n";
}

}  // namespace ringbloom::tour::render_parts
