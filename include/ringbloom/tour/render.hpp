// ringbloom/tour/render.hpp: the three faces of `ringbloom demo` (text, JSON,
// HTML). Each prints the structs of tour.hpp and computes nothing of its own.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ringbloom/tour/tour.hpp"

namespace ringbloom::tour {

/// The tour as aligned text tables with short notes; ANSI colour when
/// `color` is true.
[[nodiscard]] std::string render_tour_text(const tour::tour_result& tour, bool color);

/// Every figure of the tour as JSON (shape in docs/tour.md).
[[nodiscard]] nlohmann::json tour_to_json(const tour::tour_result& tour);

/// A self-contained HTML page: inline CSS and SVG charts, no script, no
/// network.
[[nodiscard]] std::string render_tour_html(const tour::tour_result& tour);

/// Section 7 (sketches) in each face, called by the three renderers (sketch_render.cpp).
[[nodiscard]] std::string render_sketch_text(const tour::sketch_section& sketches);
[[nodiscard]] nlohmann::json sketch_section_json(const tour::sketch_section& sketches);
[[nodiscard]] std::string render_sketch_html(const tour::sketch_section& sketches);

/// Section 11 (filters that forget) in each face (window_render.cpp).
[[nodiscard]] std::string render_window_text(const tour::window_section& window);
[[nodiscard]] nlohmann::json window_section_json(const tour::window_section& window);
[[nodiscard]] std::string render_window_html(const tour::window_section& window);
/// Section 12 (quantiles) as text and JSON (quantile_render.cpp); its HTML,
/// with the chart, is in tour_html.cpp.
[[nodiscard]] std::string render_quantile_text(const tour::quantile_section& quantiles);
[[nodiscard]] nlohmann::json quantile_section_json(const tour::quantile_section& quantiles);

}  // namespace ringbloom::tour
