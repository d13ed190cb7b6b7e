// `ring import redis-cluster`: the masters of a Redis Cluster and their
// slots, from CLUSTER NODES or CLUSTER SLOTS output as redis-cli prints it
// (see config_import.hpp for the forms read and how they are told apart).
#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "placement/json_words.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/placement/schemes/config_import.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

using detail::build_at;
using detail::refuse_at;
using detail::split_fields;
using detail::split_lines;
using detail::to_unsigned;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_node_id(std::string_view s) {
  return s.size() == 40 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// One entry of CLUSTER SLOTS: slots [first, last] served by the master at
/// `host`:`port` (the reply's first node; the replicas after it are not
/// read), found at `line` of the file.
struct slots_entry {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::string host;
  std::uint64_t port = 0;
  std::size_t line = 0;
};

/// The masters of the entries, in order of first appearance, each with its
/// ranges; every range checked (bounds, and no slot listed twice).
std::unique_ptr<placement> masters_of(const std::vector<slots_entry>& entries,
                                      std::string_view source) {
  if (entries.empty()) {
    throw data_error(fmt::format(
        "{}: the CLUSTER SLOTS reply lists no slot; no master serves a key (the cluster is "
        "down). Save 'redis-cli cluster slots' of a cluster that serves its slots",
        source));
  }
  std::vector<redis_master> masters;
  std::vector<std::size_t> line_of_slot(redis_slot_count, 0);
  for (const slots_entry& e : entries) {
    if (e.first > e.last || e.last >= redis_slot_count) {
      refuse_at(source, e.line,
                fmt::format("{}-{} is not a slot range within 0-16383", e.first, e.last));
    }
    if (e.host.empty() || e.host == "?") {
      refuse_at(source, e.line,
                fmt::format("the master of slots {}-{} has no known endpoint ('{}'); save the "
                            "reply once the cluster knows its nodes' addresses",
                            e.first, e.last, e.host));
    }
    if (e.port == 0 || e.port > 65535) {
      refuse_at(source, e.line,
                fmt::format("the master of slots {}-{} has the port {}, not one in 1-65535",
                            e.first, e.last, e.port));
    }
    for (std::uint64_t slot = e.first; slot <= e.last; ++slot) {
      if (line_of_slot[slot] != 0) {
        refuse_at(source, e.line,
                  fmt::format("slot {} is listed again (first at line {}); give one CLUSTER "
                              "SLOTS reply, not two",
                              slot, line_of_slot[slot]));
      }
      line_of_slot[slot] = e.line;
    }
    const std::string address = e.host.find(':') != std::string::npos
                                    ? fmt::format("[{}]:{}", e.host, e.port)
                                    : fmt::format("{}:{}", e.host, e.port);
    auto it = std::find_if(masters.begin(), masters.end(),
                           [&](const redis_master& m) { return m.address == address; });
    if (it == masters.end()) it = masters.insert(masters.end(), redis_master{address, {}});
    it->slots.push_back({static_cast<std::uint32_t>(e.first), static_cast<std::uint32_t>(e.last)});
  }
  return build_at(source, entries.front().line,
                  [&] { return std::make_unique<redis_cluster_placement>(std::move(masters)); });
}

// ------------------------------------------------ redis-cli's tty rendering
//
//   1) 1) (integer) 0                         <- entry 1: first slot
//      2) (integer) 5460                      <- last slot
//      3) 1) "127.0.0.1"                      <- the master: host,
//         2) (integer) 30001                  <- port,
//         3) "09dbe9720cda62f7865eabc5fd8857c5d2678366"   <- id,
//         4) (empty array)                    <- metadata (Redis 7)
//      4) 1) "127.0.0.1"                      <- a replica (not read)
//   ...
// Each line holds one value after one or more "N) " markers; a marker's
// column gives its depth (redis-cli indents nested replies under their
// parent's marker), so every value gets a path such as [1, 3, 2].

struct tty_value {
  std::vector<std::uint64_t> path;
  std::string_view text;  // `(integer) 5`, `"a"`, `(empty array)`, ...
  std::size_t line = 0;
};

std::vector<tty_value> parse_tty(const std::vector<std::string_view>& lines,
                                 std::string_view source) {
  std::vector<tty_value> values;
  std::vector<std::pair<std::size_t, std::uint64_t>> stack;  // (column, index)
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string_view line = lines[n];
    if (trim(line).empty()) continue;
    std::size_t col = line.find_first_not_of(' ');
    bool first_marker = true;
    while (col < line.size() && line[col] >= '0' && line[col] <= '9') {
      const std::size_t paren = line.find(") ", col);
      const auto index = paren == std::string_view::npos
                             ? std::nullopt
                             : to_unsigned(line.substr(col, paren - col));
      if (!index) break;
      if (first_marker) {
        while (!stack.empty() && stack.back().first >= col) stack.pop_back();
        first_marker = false;
      }
      stack.emplace_back(col, *index);
      col = paren + 2;
    }
    if (first_marker) {
      refuse_at(source, n + 1,
                fmt::format("expected 'N) value' as redis-cli prints a CLUSTER SLOTS reply, "
                            "found '{}'; save 'redis-cli --no-raw cluster slots' unchanged",
                            trim(line)));
    }
    tty_value v;
    for (const auto& [c, index] : stack) v.path.push_back(index);
    v.text = trim(line.substr(col));
    v.line = n + 1;
    values.push_back(std::move(v));
  }
  return values;
}

/// `(integer) N` as N.
std::optional<std::uint64_t> tty_integer(std::string_view text) {
  constexpr std::string_view prefix = "(integer) ";
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  return to_unsigned(text.substr(prefix.size()));
}

/// `"text"` as text (a host name or address never holds a quote or an
/// escape, so the quotes are only removed).
std::optional<std::string> tty_string(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::nullopt;
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.find_first_of("\"\\") != std::string_view::npos) return std::nullopt;
  return std::string(inner);
}

std::vector<slots_entry> entries_from_tty(const std::vector<std::string_view>& lines,
                                          std::string_view source) {
  std::vector<slots_entry> entries;
  const auto blank = [](std::string_view l) { return trim(l).empty(); };
  const auto first = std::find_if_not(lines.begin(), lines.end(), blank);
  if (first != lines.end() && trim(*first) == "(empty array)" &&
      std::find_if_not(first + 1, lines.end(), blank) == lines.end()) {
    return entries;  // the reply of a cluster that serves no slot
  }
  const std::vector<tty_value> values = parse_tty(lines, source);
  std::vector<std::array<bool, 4>> seen;
  for (const tty_value& v : values) {
    if (v.path.size() < 2) {
      refuse_at(source, v.line,
                fmt::format("'{}' is not an entry of a CLUSTER SLOTS reply (slot, slot, master "
                            "...); save 'redis-cli --no-raw cluster slots' unchanged",
                            v.text));
    }
    const std::uint64_t entry = v.path[0];
    if (entry != entries.size() && entry != entries.size() + 1) {
      refuse_at(source, v.line,
                fmt::format("entry {} follows entry {}; the reply is cut or "
                            "reordered, save it again",
                            entry, entries.size()));
    }
    if (entry == entries.size() + 1) {
      entries.push_back({});
      entries.back().line = v.line;
      seen.push_back({});
    }
    slots_entry& e = entries.back();
    const auto field = v.path[1];
    const bool master = field == 3 && v.path.size() == 3;
    const auto fail = [&](std::string_view what) {
      refuse_at(source, v.line, fmt::format("expected {}, found '{}'", what, v.text));
    };
    if (field == 1 || field == 2) {
      const auto slot = tty_integer(v.text);
      if (!slot || v.path.size() != 2) fail("a slot number as '(integer) N'");
      (field == 1 ? e.first : e.last) = *slot;
      seen.back()[field - 1] = true;
    } else if (master && v.path[2] == 1) {
      const auto host = tty_string(v.text);
      if (!host) fail("the master's address as a quoted string");
      e.host = *host;
      seen.back()[2] = true;
    } else if (master && v.path[2] == 2) {
      const auto port = tty_integer(v.text);
      if (!port) fail("the master's port as '(integer) N'");
      e.port = *port;
      seen.back()[3] = true;
    }
    // Other fields (the node id, metadata, replicas) do not place keys.
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (std::find(seen[i].begin(), seen[i].end(), false) != seen[i].end()) {
      refuse_at(source, entries[i].line,
                fmt::format("entry {} lacks its first slot, last slot, or master address and "
                            "port; the reply is cut, save it again",
                            i + 1));
    }
  }
  return entries;
}

// -------------------------------------------------- redis-cli's raw output
//
// What `redis-cli cluster slots > FILE` writes (raw is redis-cli's default
// when its output is not a terminal): every value on its own line, nesting
// lost, an empty array (Redis 7's empty metadata) as an empty line:
//
//   0                                  <- first slot
//   5460                               <- last slot
//   127.0.0.1                          <- master host
//   30001                              <- master port
//   09dbe9720cda62f7865eabc5fd8857c5d2678366   <- master id
//                                      <- metadata: empty, or NAME / VALUE lines
//   127.0.0.1  30004  <id>  <metadata> <- replicas, same shape
//   5461 ...                           <- the next entry
//
// Read back by shape: an entry starts with two integers; a node is a line,
// an integer (port) and a 40-digit hex id; after a node, an empty line or
// NAME/VALUE pairs until the next node or entry. Redis 6 (no metadata) reads
// the same way.

std::vector<slots_entry> entries_from_raw(const std::vector<std::string_view>& lines,
                                          std::string_view source) {
  const auto at = [&](std::size_t i) { return i < lines.size() ? lines[i] : std::string_view{}; };
  const auto node_at = [&](std::size_t i) {
    return i + 2 < lines.size() && to_unsigned(at(i + 1)) && is_node_id(at(i + 2));
  };
  const auto entry_at = [&](std::size_t i) {
    return i + 1 < lines.size() && to_unsigned(at(i)) && to_unsigned(at(i + 1));
  };
  std::vector<slots_entry> entries;
  std::size_t i = 0;
  while (i < lines.size() && lines[i].empty()) ++i;
  while (i < lines.size()) {
    if (!entry_at(i) || !node_at(i + 2)) {
      refuse_at(source, i + 1,
                fmt::format("expected an entry of a CLUSTER SLOTS reply (first slot, last slot, "
                            "master host, port and id, one a line), found '{}'; save 'redis-cli "
                            "cluster slots > FILE' unchanged",
                            at(i)));
    }
    slots_entry e{*to_unsigned(at(i)), *to_unsigned(at(i + 1)), std::string(at(i + 2)),
                  *to_unsigned(at(i + 3)), i + 1};
    entries.push_back(std::move(e));
    i += 5;  // past the master's id
    // The master's metadata, then the replicas (with theirs), up to the next entry.
    while (i < lines.size()) {
      if (lines[i].empty()) {
        ++i;  // an empty metadata map (or trailing blank line)
      } else if (entry_at(i)) {
        break;
      } else if (node_at(i)) {
        i += 3;
      } else if (i + 1 < lines.size()) {
        i += 2;  // a metadata NAME / VALUE pair
      } else {
        refuse_at(source, i + 1,
                  fmt::format("'{}' is a metadata name without a value; the reply is cut, save "
                              "it again",
                              lines[i]));
      }
    }
  }
  return entries;
}

// ------------------------------------------------------ redis-cli --json
//
//   [[0,5460,["127.0.0.1",30001,"09db...",{}],["127.0.0.1",30004,"821d...",{}]], ...]

std::vector<slots_entry> entries_from_json(std::string_view text, std::string_view source) {
  using json = nlohmann::json;
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw data_error(fmt::format("{}: {}; save 'redis-cli --json cluster slots' unchanged", source,
                                 ringbloom::detail::json_error_words(text, e)));
  }
  const auto fail = [&](std::size_t i, std::string_view what) {
    throw data_error(fmt::format(
        "{}: entry {} of the CLUSTER SLOTS reply is not [first, last, [host, port, id, ...], "
        "...]: {}; save 'redis-cli --json cluster slots' unchanged",
        source, i + 1, what));
  };
  if (!doc.is_array()) fail(0, "the reply is not an array");
  std::vector<slots_entry> entries;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const json& e = doc[i];
    if (!e.is_array() || e.size() < 3) fail(i, "not an array of at least 3 items");
    if (!e[0].is_number_unsigned() || !e[1].is_number_unsigned()) fail(i, "a slot is not a number");
    const json& master = e[2];
    if (!master.is_array() || master.size() < 2 || !master[0].is_string() ||
        !master[1].is_number_unsigned()) {
      fail(i, "the master is not [host, port, ...]");
    }
    entries.push_back({e[0].get<std::uint64_t>(), e[1].get<std::uint64_t>(),
                       master[0].get<std::string>(), master[1].get<std::uint64_t>(), 1});
  }
  return entries;
}

}  // namespace

// ------------------------------------------------------------ CLUSTER NODES

std::unique_ptr<placement> import_redis_cluster_nodes(std::string_view text,
                                                      std::string_view source) {
  std::vector<redis_master> masters;
  const std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t line_no = 1; line_no <= lines.size(); ++line_no) {
    const std::vector<std::string_view> f = split_fields(lines[line_no - 1], " ");
    if (f.empty()) continue;
    if (f.size() < 8) {
      refuse_at(source, line_no,
                "expected a CLUSTER NODES line: ID IP:PORT@CPORT FLAGS MASTER PING PONG EPOCH LINK "
                "[SLOTS...]; "
                "save the output of 'redis-cli cluster nodes'");
    }
    const std::string_view flags = f[2];
    if (flags.find("master") == std::string_view::npos) continue;  // replicas own no slot
    std::string_view address = f[1];
    address = address.substr(0, std::min(address.find('@'), address.find(',')));
    const std::size_t colon = address.rfind(':');
    const auto port =
        colon == std::string_view::npos ? std::nullopt : to_unsigned(address.substr(colon + 1));
    if (!port || *port == 0 || *port > 65535 || colon == 0) {
      refuse_at(source, line_no, fmt::format("'{}' is not an IP:PORT address", f[1]));
    }
    redis_master m{std::string(address), {}};
    for (std::size_t i = 8; i < f.size(); ++i) {
      const std::string_view s = f[i];
      if (s.front() == '[') continue;  // a slot being imported or migrated: still served here
      const std::size_t dash = s.find('-');
      const auto first = to_unsigned(s.substr(0, dash));
      const auto last = dash == std::string_view::npos ? first : to_unsigned(s.substr(dash + 1));
      if (!first || !last || *first > *last || *last >= redis_slot_count) {
        refuse_at(source, line_no,
                  fmt::format("'{}' is not a slot or a slot range within 0-16383", s));
      }
      m.slots.push_back({static_cast<std::uint32_t>(*first), static_cast<std::uint32_t>(*last)});
    }
    // "fail" is the cluster's verdict; "fail?" (PFAIL) is one node's
    // suspicion, under which the master still serves its slots.
    bool failed = false;
    for (const std::string_view flag : split_fields(flags, ",")) failed = failed || flag == "fail";
    if (failed) {
      refuse_at(
          source, line_no,
          fmt::format(
              "master {} is marked fail; its slots move to a replica at failover, so import the "
              "output after the failover",
              m.address));
    }
    masters.push_back(std::move(m));
  }
  if (masters.empty()) {
    throw data_error(fmt::format(
        "{}: no master in the CLUSTER NODES output; save 'redis-cli cluster nodes'", source));
  }
  return build_at(source, 1,
                  [&] { return std::make_unique<redis_cluster_placement>(std::move(masters)); });
}

// ------------------------------------------------------------ CLUSTER SLOTS

redis_cluster_output detect_redis_cluster_output(std::string_view text) {
  for (const std::string_view raw_line : split_lines(text)) {
    const std::string_view line = trim(raw_line);
    if (line.empty()) continue;
    if (line.front() == '[') return redis_cluster_output::slots_json;
    if (line.substr(0, 3) == "1) " || line == "(empty array)")
      return redis_cluster_output::slots_tty;
    if (to_unsigned(line)) return redis_cluster_output::slots_raw;
    return redis_cluster_output::nodes;
  }
  return redis_cluster_output::nodes;
}

std::unique_ptr<placement> import_redis_cluster_slots(std::string_view text,
                                                      std::string_view source) {
  const std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string_view line = trim(lines[n]);
    if (line.substr(0, 7) == "(error)" || line.substr(0, 4) == "ERR ") {
      refuse_at(source, n + 1,
                fmt::format("the file holds a Redis error reply ('{}'), not CLUSTER SLOTS; ask a "
                            "node of a running cluster again",
                            line));
    }
  }
  switch (detect_redis_cluster_output(text)) {
    case redis_cluster_output::slots_json:
      return masters_of(entries_from_json(text, source), source);
    case redis_cluster_output::slots_tty:
      return masters_of(entries_from_tty(lines, source), source);
    case redis_cluster_output::slots_raw:
      return masters_of(entries_from_raw(lines, source), source);
    case redis_cluster_output::nodes:
      break;
  }
  throw data_error(fmt::format(
      "{}: this is not CLUSTER SLOTS output as redis-cli prints it (raw, --no-raw or --json); "
      "save 'redis-cli cluster slots > FILE'",
      source));
}

namespace {

// A line that is redis-cli's prompt and the command, as copied from a
// terminal or from the Redis docs ("> CLUSTER SLOTS", "127.0.0.1:7000>
// cluster nodes"): the command's name, lower case, or empty if the line is
// not one.
std::string prompt_command(std::string_view line) {
  line = trim(line);
  const std::size_t gt = line.find('>');
  if (gt == std::string_view::npos || line.find(' ') < gt) return {};
  std::string rest(trim(line.substr(gt + 1)));
  for (char& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string words;
  for (const std::string_view w : split_fields(rest, " \t"))
    words += (words.empty() ? "" : " ") + std::string(w);
  return words.rfind("cluster ", 0) == 0 ? words : std::string();
}

}  // namespace

std::unique_ptr<placement> import_redis_cluster(std::string_view text, std::string_view source) {
  // Prompt lines are blanked (keeping the line numbers); CLUSTER SHARDS,
  // which ringbloom does not read, is refused with what to save instead.
  std::string copy;
  const std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string command = prompt_command(lines[n]);
    const std::string_view t = trim(lines[n]);
    const bool shards = command == "cluster shards" || t == "slots" ||
                        t.substr(0, 12) == "1) 1) \"slots" || t.substr(0, 9) == "[{\"slots\"" ||
                        t.substr(0, 10) == "[[\"slots\"";
    if (shards) {
      refuse_at(source, n + 1,
                "this is CLUSTER SHARDS output, which ringbloom does not read; save 'redis-cli "
                "cluster slots > FILE' or 'redis-cli cluster nodes > FILE' and import that");
    }
    if (!command.empty()) {
      if (command != "cluster slots" && command != "cluster nodes") {
        refuse_at(source, n + 1,
                  fmt::format("this is the output of '{}', not CLUSTER NODES or CLUSTER SLOTS; "
                              "save 'redis-cli cluster nodes > FILE' and import that",
                              printable(command)));
      }
      if (copy.empty()) copy.assign(text);
      // Blank the prompt line in the copy, keeping its line break.
      std::size_t at = 0;
      for (std::size_t k = 0; k < n; ++k) at = copy.find('\n', at) + 1;
      const std::size_t end = std::min(copy.find('\n', at), copy.size());
      copy.replace(at, end - at, std::string());
    }
  }
  if (!copy.empty()) text = copy;
  for (const std::string_view line : split_lines(text)) {
    const std::string_view t = trim(line);
    if (t.substr(0, 7) == "(error)" || t.substr(0, 4) == "ERR ") {
      return import_redis_cluster_slots(text, source);  // says which line and why
    }
  }
  if (detect_redis_cluster_output(text) == redis_cluster_output::nodes) {
    return import_redis_cluster_nodes(text, source);
  }
  return import_redis_cluster_slots(text, source);
}

}  // namespace ringbloom::schemes
