// `ringbloom demo`: the tour of the two seed lessons, replayed on the library
// (ringbloom/tour/tour.hpp computes; tour_text/json/html.cpp print).
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "commands.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/tour/render.hpp"
#include "ringbloom/tour/tour.hpp"

namespace ringbloom::cli {
namespace {

struct demo_options {
  bool json = false;
  std::string report_dir;
};

// Creates the report directory before the tour runs, so a bad path fails at once.
void make_report_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw io_error(fmt::format("cannot create the report directory '{}': {}", dir, ec.message()),
                   "check the path and its permissions");
  }
}

void write_report(const std::string& dir, const tour::tour_result& tour) {
  const std::filesystem::path path = std::filesystem::path(dir) / "index.html";
  io::write_file_atomic(path, tour::render_tour_html(tour));
  fmt::print("ringbloom demo: wrote {}\n", path.string());
}

void run_demo(const demo_options& options) {
  if (!options.report_dir.empty()) make_report_dir(options.report_dir);
  const tour::tour_result tour = tour::run_tour();
  if (!options.report_dir.empty()) {
    write_report(options.report_dir, tour);
    return;
  }
  if (options.json) {
    print_json(tour::tour_to_json(tour));
    return;
  }
  fmt::print("{}", tour::render_tour_text(tour, use_color()));
}

}  // namespace

void add_demo_command(CLI::App& app, context& /*ctx*/) {
  auto* demo = app.add_subcommand(
      "demo", "Replay the experiments of the two seed lessons on the library, with figures");
  auto options = std::make_shared<demo_options>();
  auto* json = demo->add_flag("--json", options->json, "Print every figure as JSON (docs/tour.md)");
  auto* report =
      demo->add_option("--report", options->report_dir,
                       "Write a self-contained HTML report with charts to DIR/index.html")
          ->type_name("DIR")
          ->excludes(json);
  set_example(*demo, "ringbloom demo --report out/ && xdg-open out/index.html");
  demo->callback([options, report] {
    if (report->count() > 0 && options->report_dir.empty()) {
      throw usage_error(
          "--report was given an empty directory name; give a directory, for "
          "example --report out/");
    }
    run_demo(*options);
  });
}

}  // namespace ringbloom::cli
