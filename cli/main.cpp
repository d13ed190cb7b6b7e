// ringbloom: the command-line tool. Parses, calls the library, prints.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "common.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/version.hpp"

namespace {

// One line on stderr whatever the message holds: control characters (a
// newline in a node name, say) are written as escapes.
int report(std::string_view message, int status) {
  fmt::print(stderr, "ringbloom: error: {}\n", ringbloom::printable(message, message.size()));
  return status;
}

// An operating-system failure says what to do too; the library's io_error
// names the file and the reason ("cannot open 'x': No such file or
// directory"), the advice is added here when the command added none.
constexpr std::string_view io_advice = "check the path and its permissions";

constexpr std::string_view out_of_memory =
    "ran out of memory: the work asked for more than this machine or this process's memory "
    "limit allows; lower the sizes given (--bits, --capacity, --keys, --nodes ...) or free memory";

// CLI11's messages ("--capacity: At Most 1 required but received 2") as the
// tool's sentences, naming the option or argument, with the command whose
// help shows the usage.
std::string usage_sentence(const CLI::ParseError& e, const CLI::App& app) {
  const std::string what = e.what();
  const auto before = [&](std::string_view mark) { return what.substr(0, what.find(mark)); };
  const auto after = [&](std::string_view mark) {
    const std::size_t at = what.find(mark);
    return at == std::string::npos ? what : what.substr(at + mark.size());
  };
  std::string sentence = what;
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    if (what.find(": At Most ") != std::string::npos) {
      sentence = fmt::format("{} is given more than once; give it once", before(": "));
    } else if (what.ends_with(" missing") || what.find(": At least ") != std::string::npos) {
      sentence = fmt::format("{} needs a value after it", before(":"));
    }
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::string extra = after(": ");
    sentence = extra.starts_with("-") ? fmt::format("there is no option {}", extra)
                                      : fmt::format("'{}' is one argument too many", extra);
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
    sentence = fmt::format("{} and {} cannot be given together; give one of them",
                           before(" excludes "), after(" excludes "));
  } else if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr) {
    sentence = fmt::format("{} needs {} too", before(" requires "), after(" requires "));
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    sentence = what.starts_with("A subcommand") ? "a command is missing"
                                                : fmt::format("{} is missing", before(" is "));
  } else if (what.starts_with("The value ")) {  // "The value X is not an allowed value for N"
    sentence =
        fmt::format("{} does not take {}", after(" value for "), before(" is not").substr(10));
  } else if (what.starts_with("Could not convert: ")) {  // "Could not convert: N = V"
    sentence = fmt::format("{} does not take '{}'", before(" = ").substr(19), after(" = "));
  }
  std::string command = "ringbloom";
  for (const CLI::App* a = &app; !a->get_subcommands().empty();) {
    a = a->get_subcommands().front();
    command += " " + a->get_name();
  }
  return fmt::format("{}; run '{} --help' to see the usage", sentence, command);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ringbloom::cli;
  CLI::App app{"ringbloom: consistent hash rings and Bloom filters for sharded systems."};
  app.name("ringbloom");
  app.set_version_flag("--version", std::string(ringbloom::version_string));
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  ringbloom demo                         the tour of both lessons\n"
      "  ringbloom ring lookup --nodes a,b,c user:42\n"
      "  ringbloom bloom create seen.rbf --capacity 1000000 --fpr 0.01\n"
      "Run 'ringbloom <command> --help' for the options of a command.");

  context ctx;
  add_ring_commands(app, ctx);
  add_bloom_commands(app, ctx);
  add_cuckoo_commands(app, ctx);
  add_sketch_commands(app, ctx);
  add_quantile_commands(app, ctx);
  add_merkle_commands(app, ctx);
  add_demo_command(app, ctx);

  try {
    // CLI11 reports a mistyped command as a missing one; name it instead.
    if (argc > 1 && argv[1][0] != '-') (void)app.get_subcommand(argv[1]);
    app.parse(argc, argv);
    std::fflush(stdout);
    return ctx.exit_status;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::OptionNotFound&) {
    return report(
        fmt::format("unknown command '{}'; run 'ringbloom --help' to see the commands", argv[1]),
        exit_usage);
  } catch (const CLI::ParseError& e) {
    return report(usage_sentence(e, app), exit_usage);
  } catch (const usage_error& e) {
    return report(e.what(), exit_usage);
  } catch (const std::invalid_argument& e) {
    return report(e.what(), exit_usage);
  } catch (const ringbloom::io_error& e) {
    return report(ringbloom::with_advice(e, io_advice).what(), exit_data);
  } catch (const ringbloom::error& e) {
    return report(e.what(), exit_data);
  } catch (const std::bad_alloc&) {
    return report(out_of_memory, exit_data);
  } catch (const std::length_error&) {  // a container asked for more than it can hold
    return report(out_of_memory, exit_data);
  } catch (const std::filesystem::filesystem_error& e) {
    return report(fmt::format("cannot use '{}': {}; check the path and its permissions",
                              e.path1().string(), e.code().message()),
                  exit_data);
  } catch (const std::exception& e) {
    return report(e.what(), exit_data);
  }
}
