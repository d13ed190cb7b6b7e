// Reading nginx.conf, haproxy.cfg, nutcracker server lines and CLUSTER NODES
// (see config_import.hpp). The nginx and HAProxy grammars are small: nginx's
// is tokens, quoted strings, ';' and braces (src/core/ngx_conf_file.c);
// HAProxy's is one keyword line at a time with section headers.
#include "ringbloom/placement/schemes/config_import.hpp"

#include <glob.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/placement/schemes/haproxy.hpp"
#include "ringbloom/placement/schemes/nginx.hpp"
#include "scheme_util.hpp"

namespace ringbloom::schemes {
namespace {

using detail::build_at;
using detail::refuse_at;
using detail::to_unsigned;

// ------------------------------------------------------------------ nginx

struct token {
  std::string text;
  std::size_t line = 1;
  bool quoted = false;
  const std::string* file = nullptr;  // the file it was read from (messages)
};

std::vector<token> nginx_tokens(std::string_view text, std::string_view source,
                                const std::string* file) {
  std::vector<token> tokens;
  std::size_t line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ';' || c == '{' || c == '}') {
      tokens.push_back({std::string(1, c), line, false, file});
      ++i;
    } else if (c == '"' || c == '\'') {
      const std::size_t start_line = line;
      std::string value;
      ++i;
      while (i < text.size() && text[i] != c) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        if (text[i] == '\n') ++line;
        value.push_back(text[i++]);
      }
      if (i == text.size())
        refuse_at(source, start_line, "a quoted string is never closed; close it");
      ++i;
      tokens.push_back({std::move(value), start_line, true, file});
    } else {
      std::string value;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' &&
             text[i] != '\n' && text[i] != ';' && text[i] != '{' && text[i] != '}') {
        value.push_back(text[i++]);
      }
      tokens.push_back({std::move(value), line, false, file});
    }
  }
  return tokens;
}

bool is_punct(const token& t, char c) { return !t.quoted && t.text.size() == 1 && t.text[0] == c; }

}  // namespace

namespace {

std::vector<std::string> hashing_upstreams_of(const std::vector<token>& tokens) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (tokens[i].quoted || tokens[i].text != "upstream" || !is_punct(tokens[i + 2], '{')) continue;
    // The block's own directives (depth 1): is one of them 'hash KEY consistent'?
    int depth = 0;
    bool consistent = false;
    std::size_t start = i + 3;  // the first word of a directive
    for (std::size_t j = i + 2; j < tokens.size(); ++j) {
      if (is_punct(tokens[j], '{')) ++depth;
      if (is_punct(tokens[j], '}') && --depth == 0) break;
      if (is_punct(tokens[j], ';') || is_punct(tokens[j], '{') || is_punct(tokens[j], '}')) {
        if (depth == 1 && j >= start + 3 && !tokens[start].quoted && tokens[start].text == "hash" &&
            tokens[j - 1].text == "consistent")
          consistent = true;
        start = j + 1;
      }
    }
    if (consistent) names.push_back(tokens[i + 1].text);
  }
  return names;
}

bool starts_directive(const std::vector<token>& t, std::size_t i) {
  return i == 0 || is_punct(t[i - 1], ';') || is_punct(t[i - 1], '{') || is_punct(t[i - 1], '}');
}

// nginx.conf with its `include` directives followed as nginx follows them
// (ngx_conf_include): a relative pattern is taken from the directory of the
// main file, a pattern with wildcards may match nothing, matches are read in
// sorted order (glob's), and every included file is read in place.
struct nginx_reader {
  std::deque<std::string> files;  // the names tokens point to
  std::uint64_t bytes = 0;
  bool skipped_include = false;  // an include seen but not followed (no directory)

  std::vector<token> read(std::string_view text, std::string name, const std::string& directory,
                          int depth) {
    files.push_back(std::move(name));
    const std::string& file = files.back();
    const std::vector<token> tokens = nginx_tokens(text, file, &file);
    std::vector<token> out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const bool include = starts_directive(tokens, i) && !tokens[i].quoted &&
                           tokens[i].text == "include" && i + 2 < tokens.size() &&
                           is_punct(tokens[i + 2], ';');
      if (!include) {
        out.push_back(tokens[i]);
        continue;
      }
      if (directory.empty()) {
        skipped_include = true;
        out.push_back(tokens[i]);
        continue;
      }
      const std::string& what = tokens[i + 1].text;
      if (depth >= 16) {
        refuse_at(file, tokens[i].line,
                  fmt::format("'include {}' nests more than 16 files deep; check for a file "
                              "that includes itself",
                              printable(what)));
      }
      const std::string pattern = !what.empty() && what[0] == '/' ? what : directory + "/" + what;
      glob_t found{};
      const int rc = ::glob(pattern.c_str(), 0, nullptr, &found);
      std::vector<std::string> paths;
      for (std::size_t k = 0; rc == 0 && k < found.gl_pathc; ++k)
        paths.emplace_back(found.gl_pathv[k]);
      ::globfree(&found);
      const bool wildcard = what.find_first_of("*?[") != std::string::npos;
      if (paths.empty() && !wildcard) {
        refuse_at(file, tokens[i].line,
                  fmt::format("'include {}' names no file ('{}' does not exist), and nginx "
                              "refuses that; give the file it includes, or the path of the "
                              "main nginx.conf so that relative includes resolve",
                              printable(what), printable(pattern)));
      }
      for (const std::string& path : paths) {
        const std::string included = io::read_file(path, max_config_bytes);
        bytes += included.size();
        if (bytes > max_config_bytes) {
          refuse_at(file, tokens[i].line,
                    "the included files hold more than 16 MiB; give the file with the upstream");
        }
        std::vector<token> sub = read(included, path, directory, depth + 1);
        out.insert(out.end(), std::make_move_iterator(sub.begin()),
                   std::make_move_iterator(sub.end()));
      }
      i += 2;
    }
    return out;
  }
};

}  // namespace

std::vector<std::string> nginx_hashing_upstreams(std::string_view text, std::string_view source,
                                                 const std::string& include_directory) {
  nginx_reader reader;
  return hashing_upstreams_of(reader.read(text, std::string(source), include_directory, 0));
}

std::unique_ptr<placement> import_nginx(std::string_view text, std::string_view source,
                                        std::string_view upstream,
                                        const std::string& include_directory) {
  nginx_reader reader;
  const std::vector<token> tokens = reader.read(text, std::string(source), include_directory, 0);
  // Find "upstream NAME {" at any depth.
  std::size_t at = tokens.size();
  int depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (is_punct(tokens[i], '{')) ++depth;
    if (is_punct(tokens[i], '}')) {
      if (--depth < 0) refuse_at(*tokens[i].file, tokens[i].line, "'}' closes no block; remove it");
    }
    if (!tokens[i].quoted && tokens[i].text == "upstream" && i + 2 < tokens.size() &&
        tokens[i + 1].text == upstream && is_punct(tokens[i + 2], '{')) {
      at = i + 3;
      break;
    }
  }
  if (at == tokens.size()) {
    const std::vector<std::string> names = hashing_upstreams_of(tokens);
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "'" : ", '") + printable(n) + "'";
    throw data_error(fmt::format(
        "{}: no 'upstream {} {{ ... }}' block; give the name of an upstream of the file "
        "with --upstream ({})",
        source, printable(upstream),
        (names.empty() ? std::string("the file has no upstream with 'hash KEY consistent'")
                       : "those with 'hash KEY consistent': " + list) +
            (reader.skipped_include ? ", and its include lines were not followed (it was not "
                                      "read from a path)"
                                    : "")));
  }
  const std::size_t block_line = tokens[at - 3].line;
  const std::string& block_file = *tokens[at - 3].file;
  std::vector<nginx_server> servers;
  std::vector<std::size_t> server_lines;
  bool consistent = false;
  std::size_t i = at;
  while (true) {
    if (i >= tokens.size())
      refuse_at(block_file, block_line,
                fmt::format("upstream '{}' is never closed; add '}}'", upstream));
    if (is_punct(tokens[i], '}')) break;
    // One directive: words up to ';'.
    std::vector<const token*> words;
    while (i < tokens.size() && !is_punct(tokens[i], ';')) {
      if (is_punct(tokens[i], '{') || is_punct(tokens[i], '}')) {
        refuse_at(*tokens[i].file, tokens[i].line,
                  fmt::format("expected ';' to end the directive '{}'",
                              words.empty() ? std::string("?") : words[0]->text));
      }
      words.push_back(&tokens[i++]);
    }
    if (i >= tokens.size()) {
      refuse_at(words.empty() ? block_file : *words.back()->file,
                words.empty() ? block_line : words.back()->line,
                "expected ';' at the end of the directive");
    }
    ++i;  // ';'
    if (words.empty()) continue;
    const std::string& name = words[0]->text;
    const std::size_t line = words[0]->line;
    const std::string& file = *words[0]->file;
    if (name == "hash") {
      if (words.size() > 3) {
        refuse_at(file, line,
                  fmt::format("expected ';' after 'hash {} {}' (the directive runs on into '{}')",
                              words[1]->text, words[2]->text, words[3]->text));
      }
      if (words.size() == 3 && words[2]->text == "consistent") {
        consistent = true;
      } else {
        refuse_at(file, line,
                  "'hash' without 'consistent' is nginx's modulo hash, not a consistent one; write "
                  "'hash KEY "
                  "consistent;' to import it");
      }
    } else if (name == "server") {
      if (words.size() < 2)
        refuse_at(file, line, "'server' has no address; write 'server ADDRESS [weight=N];'");
      nginx_server s{words[1]->text, 1};
      for (std::size_t w = 2; w < words.size(); ++w) {
        const std::string& p = words[w]->text;
        if (p.rfind("weight=", 0) == 0) {
          const auto v = to_unsigned(std::string_view(p).substr(7));
          if (!v || *v == 0 || *v > nginx_placement::max_weight) {
            refuse_at(
                *words[w]->file, words[w]->line,
                fmt::format("'{}' is not a weight nginx accepts; write weight=N with N in [1, {}]",
                            p, nginx_placement::max_weight));
          }
          s.weight = static_cast<std::uint32_t>(*v);
        } else if (p == "down" || p == "backup") {
          refuse_at(
              *words[w]->file, words[w]->line,
              fmt::format(
                  "server '{}' is marked '{}', which changes where nginx sends its keys at run "
                  "time and which ringbloom does not model; remove the flag (or the server) to "
                  "import the upstream as it places keys when all servers are up",
                  s.server, p));
        } else if (p.rfind("max_fails=", 0) == 0 || p.rfind("fail_timeout=", 0) == 0 ||
                   p.rfind("max_conns=", 0) == 0 || p == "resolve" || p.rfind("service=", 0) == 0 ||
                   p.rfind("slow_start=", 0) == 0 || p.rfind("route=", 0) == 0) {
          // Health and connection limits: no effect on placement.
        } else {
          refuse_at(*words[w]->file, words[w]->line,
                    fmt::format("unknown server parameter '{}'", p));
        }
      }
      servers.push_back(std::move(s));
      server_lines.push_back(line);
    } else if (name == "include") {
      refuse_at(file, line,
                "'include' inside the upstream is followed only when the configuration is read "
                "from its path; give the path, or paste the included servers in");
    } else if (name == "ip_hash" || name == "least_conn" || name == "random" ||
               name == "least_time" || name == "sticky") {
      refuse_at(
          file, line,
          fmt::format("'{}' is not 'hash KEY consistent'; only consistent hashing is imported",
                      name));
    }
    // keepalive, zone, keepalive_timeout ...: no effect on placement.
  }
  if (!consistent) {
    refuse_at(
        block_file, block_line,
        fmt::format(
            "upstream '{}' has no 'hash KEY consistent;'; it balances round robin, which places no "
            "key; add the directive or pick another upstream",
            upstream));
  }
  if (servers.empty())
    refuse_at(block_file, block_line, fmt::format("upstream '{}' has no server", upstream));
  for (std::size_t s = 0; s < servers.size(); ++s) {
    for (std::size_t t = 0; t < s; ++t) {
      if (servers[s].server == servers[t].server) {
        refuse_at(
            block_file, server_lines[s],
            fmt::format(
                "server '{}' is listed twice (first on line {}); merge the two lines into one with "
                "the summed weight",
                servers[s].server, server_lines[t]));
      }
    }
  }
  return build_at(block_file, block_line,
                  [&] { return std::make_unique<nginx_placement>(std::move(servers)); });
}

// ----------------------------------------------------------------- haproxy

namespace {

std::vector<std::string> haproxy_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size() || line[i] == '#') break;
    std::string w;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
      if (line[i] == '"' || line[i] == '\'') {
        const char q = line[i++];
        while (i < line.size() && line[i] != q) w.push_back(line[i++]);
        if (i < line.size()) ++i;
      } else if (line[i] == '\\' && i + 1 < line.size()) {
        w.push_back(line[i + 1]);
        i += 2;
      } else {
        w.push_back(line[i++]);
      }
    }
    words.push_back(std::move(w));
  }
  return words;
}

struct haproxy_line {
  std::vector<std::string> words;
  std::size_t line = 0;
};

// One section of haproxy.cfg: its keyword, name, `from` and lines.
struct haproxy_section {
  std::string keyword;
  std::string name;
  std::string from;
  std::size_t line = 0;
  std::vector<haproxy_line> lines;
  std::size_t defaults = 0;  // proxies: index + 1 of the defaults section it inherits (0: none)
};

bool is_section_keyword(std::string_view kw) {
  static const char* const keywords[] = {
      "global",    "defaults", "frontend",    "backend", "listen", "userlist", "peers",
      "resolvers", "program",  "http-errors", "ring",    "cache",  "mailers"};
  return std::find(std::begin(keywords), std::end(keywords), kw) != std::end(keywords);
}

// The file's sections, each proxy knowing the defaults it inherits: the one
// its `from` names, else the last defaults section before it (named or not),
// as HAProxy 2.6's cfgparse-listen.c does.
std::vector<haproxy_section> haproxy_sections(std::string_view text, std::string_view source) {
  std::vector<haproxy_section> sections;
  std::size_t last_defaults = 0;
  const std::vector<std::string_view> lines = detail::split_lines(text);
  for (std::size_t n = 1; n <= lines.size(); ++n) {
    std::vector<std::string> w = haproxy_words(lines[n - 1]);
    if (w.empty()) continue;
    if (!is_section_keyword(w[0])) {
      if (!sections.empty()) sections.back().lines.push_back({std::move(w), n});
      continue;
    }
    haproxy_section s{w[0], "", "", n, {}, 0};
    std::size_t at = 1;
    if (at < w.size() && w[at] != "from") s.name = w[at++];
    if (at < w.size() && w[at] == "from") {
      if (at + 1 >= w.size()) refuse_at(source, n, "'from' names no defaults section");
      s.from = w[at + 1];
    }
    const bool inherits = s.keyword == "defaults" || s.keyword == "backend" ||
                          s.keyword == "listen" || s.keyword == "frontend";
    if (inherits) {
      if (!s.from.empty()) {
        std::size_t found = 0;
        for (std::size_t i = 0; i < sections.size(); ++i) {
          if (sections[i].keyword == "defaults" && sections[i].name == s.from) found = i + 1;
        }
        if (found == 0) {
          refuse_at(source, n,
                    fmt::format("'from {}' names no defaults section before it; HAProxy refuses "
                                "that, so name a 'defaults' section written above this line",
                                s.from));
        }
        s.defaults = found;
      } else if (s.keyword != "defaults") {
        s.defaults = last_defaults;
      }
    }
    sections.push_back(std::move(s));
    if (sections.back().keyword == "defaults") last_defaults = sections.size();
  }
  return sections;
}

// The settings of a backend that decide placement, from its defaults and its
// own lines; `line` fields say where each came from (0: HAProxy's default).
struct haproxy_settings {
  haproxy_options hash;
  bool consistent = false;
  bool map_based = false;
  std::size_t hash_line = 0;
  std::vector<std::string> balance = {"roundrobin"};
  std::size_t balance_line = 0;
  std::uint32_t default_weight = 1;
  std::string default_state;  // "disabled" or "backup" from default-server
  std::size_t default_state_line = 0;
  std::size_t balance_factor_line = 0;  // a non-zero hash-balance-factor
  std::string affinity;                 // hash-preserve-affinity other than always
  std::size_t affinity_line = 0;
  std::string hash_key;  // hash-key other than id
  std::size_t hash_key_line = 0;
};

void parse_hash_type(const std::vector<std::string>& w, std::string_view source, std::size_t line,
                     haproxy_settings& s) {
  if (w.size() < 2 || (w[1] != "consistent" && w[1] != "map-based")) {
    refuse_at(source, line, "expected 'hash-type consistent [FUNCTION [avalanche]]'");
  }
  s.consistent = w[1] == "consistent";
  s.map_based = w[1] == "map-based";
  s.hash_line = line;
  haproxy_options o;  // `consistent` alone: sdbm + avalanche
  if (w.size() >= 3) {
    const auto f = find_haproxy_hash(w[2]);
    if (!f) {
      refuse_at(
          source, line,
          fmt::format("hash function '{}' is not one HAProxy 2.6 has (sdbm, djb2, wt6, crc32)",
                      w[2]));
    }
    o.function = *f;
    o.avalanche = false;
    if (w.size() >= 4) {
      if (w[3] != "avalanche")
        refuse_at(source, line, fmt::format("expected 'avalanche', not '{}'", w[3]));
      o.avalanche = true;
    }
  }
  s.hash.function = o.function;
  s.hash.avalanche = o.avalanche;
}

std::uint32_t haproxy_weight(std::string_view number, std::string_view what,
                             std::string_view source, std::size_t line) {
  const auto v = to_unsigned(number);
  if (!v || *v > haproxy_placement::max_weight) {
    refuse_at(source, line,
              fmt::format("{}weight '{}' is not in HAProxy's range 0..256", what, number));
  }
  return static_cast<std::uint32_t>(*v);
}

// The settings lines (not servers) of a defaults section or a backend.
void apply_settings(const haproxy_section& section, std::string_view source, haproxy_settings& s) {
  for (const haproxy_line& l : section.lines) {
    const std::vector<std::string>& w = l.words;
    const std::string& kw = w[0];
    if (kw == "hash-type") {
      parse_hash_type(w, source, l.line, s);
    } else if (kw == "balance") {
      s.balance.assign(w.begin() + 1, w.end());
      if (s.balance.empty()) refuse_at(source, l.line, "'balance' names no algorithm");
      s.balance_line = l.line;
    } else if (kw == "default-server") {
      for (std::size_t i = 1; i < w.size(); ++i) {
        if (w[i] == "weight" && i + 1 < w.size()) {
          s.default_weight = haproxy_weight(w[i + 1], "default-server ", source, l.line);
          ++i;
        } else if (w[i] == "disabled" || w[i] == "backup") {
          s.default_state = w[i];
          s.default_state_line = l.line;
        } else if (w[i] == "enabled") {
          s.default_state.clear();
        }
      }
    } else if (kw == "hash-balance-factor") {
      s.balance_factor_line = w.size() >= 2 && w[1] != "0" ? l.line : 0;
    } else if (kw == "hash-preserve-affinity") {
      s.affinity = w.size() >= 2 && w[1] != "always" ? w[1] : "";
      s.affinity_line = l.line;
    } else if (kw == "hash-key") {
      s.hash_key = w.size() >= 2 && w[1] != "id" ? w[1] : "";
      s.hash_key_line = l.line;
    }
  }
}

haproxy_settings settings_of(const std::vector<haproxy_section>& sections,
                             const haproxy_section& proxy, std::string_view source,
                             bool with_own_lines = true) {
  // The defaults chain: a defaults section's own `from`, and so on.
  std::vector<const haproxy_section*> chain;
  for (std::size_t d = proxy.defaults; d != 0 && chain.size() < sections.size();
       d = sections[d - 1].defaults) {
    chain.push_back(&sections[d - 1]);
  }
  haproxy_settings s;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) apply_settings(**it, source, s);
  if (with_own_lines) apply_settings(proxy, source, s);
  return s;
}

bool is_proxy(const haproxy_section& s) { return s.keyword == "backend" || s.keyword == "listen"; }

// `balance` algorithms that hash a key; the others place no key by hash.
bool hashing_balance(std::string_view algo) {
  return algo == "source" || algo == "uri" || algo == "url_param" || algo.rfind("hdr(", 0) == 0 ||
         algo.rfind("rdp-cookie", 0) == 0 || algo == "hash";
}

// What the key is for a backend's `balance`, or a refusal.
void apply_balance(const haproxy_settings& s, std::string_view source, std::size_t section_line,
                   std::string_view backend, haproxy_options& o) {
  const std::string& algo = s.balance[0];
  const std::size_t line = s.balance_line != 0 ? s.balance_line : section_line;
  if (s.balance_line == 0) {
    refuse_at(source, line,
              fmt::format("backend '{}' has no 'balance' line (nor do its defaults), so HAProxy "
                          "balances round robin and places no key by hash; add the hashing "
                          "'balance' it runs with (uri, hdr(NAME), url_param NAME, source, hash "
                          "EXPR, rdp-cookie)",
                          backend));
  }
  if (!hashing_balance(algo)) {
    refuse_at(source, line,
              fmt::format(
                  "'balance {}' places no key by hash (it is {}); only hashing balances (uri, "
                  "hdr(NAME), url_param, source, hash, rdp-cookie) with 'hash-type consistent' "
                  "are imported",
                  algo, algo.rfind("random", 0) == 0 ? "a random draw on the ring" : "not a hash"));
  }
  if (algo.rfind("hdr(", 0) == 0 || algo.rfind("rdp-cookie", 0) == 0) o.key = haproxy_key::header;
  if (algo == "source") {
    o.key = haproxy_key::source_address;
  } else if (algo == "uri") {
    o.key = haproxy_key::uri;
    for (std::size_t i = 1; i < s.balance.size(); ++i) {
      const std::string& p = s.balance[i];
      if (p == "whole") {
        o.uri_whole = true;
      } else if ((p == "len" || p == "depth") && i + 1 < s.balance.size()) {
        const auto v = to_unsigned(s.balance[i + 1]);
        if (!v || *v == 0 || *v > 0x7fffffff) {
          refuse_at(
              source, line,
              fmt::format("'balance uri {} {}' needs a positive integer", p, s.balance[i + 1]));
        }
        (p == "len" ? o.uri_len : o.uri_depth) = static_cast<std::uint32_t>(*v);
        ++i;
      } else {
        refuse_at(source, line,
                  fmt::format("'balance uri ... {}' is not reproduced (ringbloom cuts the URI at "
                              "'?', 'len' and 'depth' as HAProxy does, but not '{}'), so this "
                              "backend cannot be imported as HAProxy places its keys",
                              p, p));
      }
    }
  } else if (algo.rfind("hdr(", 0) == 0 && s.balance.size() > 1) {
    refuse_at(source, line,
              fmt::format("'balance {} {}' hashes part of the header only, which ringbloom does "
                          "not reproduce; import a backend without it, or give the hashed part "
                          "as the key after removing the option",
                          algo, s.balance[1]));
  }
}

struct haproxy_candidates {
  std::vector<std::string> hashing;  // backends import_haproxy can read
  std::vector<std::string> all;      // every backend and listen section
};

haproxy_candidates haproxy_backend_names(const std::vector<haproxy_section>& sections,
                                         std::string_view source) {
  haproxy_candidates c;
  for (const haproxy_section& s : sections) {
    if (!is_proxy(s)) continue;
    c.all.push_back(s.name);
    try {
      const haproxy_settings set = settings_of(sections, s, source);
      if (set.consistent && set.balance_line != 0 && hashing_balance(set.balance[0]))
        c.hashing.push_back(s.name);
    } catch (const data_error&) {
      // a backend with a bad line is no candidate
    }
  }
  return c;
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 20; ++i) {
    out += (i == 0 ? "'" : ", '") + printable(names[i]) + "'";
  }
  if (names.size() > 20) out += fmt::format(" and {} more", names.size() - 20);
  return out;
}

}  // namespace

std::vector<std::string> haproxy_hashing_backends(std::string_view text, std::string_view source) {
  return haproxy_backend_names(haproxy_sections(text, source), source).hashing;
}

std::unique_ptr<placement> import_haproxy(std::string_view text, std::string_view source,
                                          std::string_view backend) {
  std::vector<std::string> notes;
  return import_haproxy(text, source, backend, notes);
}

std::unique_ptr<placement> import_haproxy(std::string_view text, std::string_view source,
                                          std::string_view backend,
                                          std::vector<std::string>& notes) {
  const std::vector<haproxy_section> sections = haproxy_sections(text, source);
  const haproxy_section* target = nullptr;
  for (const haproxy_section& s : sections) {
    if (is_proxy(s) && s.name == backend) target = &s;
  }
  if (target == nullptr) {
    const haproxy_candidates c = haproxy_backend_names(sections, source);
    throw data_error(fmt::format(
        "{}: no 'backend {}' or 'listen {}' section; give the name of a backend of the file with "
        "--backend ({})",
        source, printable(backend), printable(backend),
        c.hashing.empty() ? (c.all.empty() ? std::string("the file has no backend")
                                           : "none of its backends, " + name_list(c.all) +
                                                 ", hashes with 'hash-type consistent'")
                          : "those that hash consistently: " + name_list(c.hashing)));
  }
  const std::size_t section_line = target->line;
  const haproxy_settings set = settings_of(sections, *target, source);
  const auto inherited = [&](std::size_t line) {
    return line < section_line ? fmt::format(" (set on line {}, in the defaults it inherits)", line)
                               : std::string();
  };
  if (!set.consistent) {
    refuse_at(
        source, set.hash_line != 0 ? set.hash_line : section_line,
        fmt::format(
            "backend '{}' does not use 'hash-type consistent' (map-based hashing is hash % weight, "
            "not a ring){}; add 'hash-type consistent' to import it",
            backend, inherited(set.hash_line)));
  }
  haproxy_options options = set.hash;
  apply_balance(set, source, section_line, backend, options);
  if (set.balance_factor_line != 0) {
    refuse_at(source, set.balance_factor_line,
              fmt::format("'hash-balance-factor'{} bounds each server's load and moves keys off "
                          "busy servers at run time, which ringbloom does not model; remove it "
                          "(or set 0) to import the plain consistent placement",
                          inherited(set.balance_factor_line)));
  }
  if (!set.affinity.empty()) {
    refuse_at(source, set.affinity_line,
              fmt::format("'hash-preserve-affinity {}'{} sends keys away from full servers at run "
                          "time, which ringbloom does not model; remove it (the default, "
                          "'always', keeps every key on its server) to import the placement",
                          set.affinity, inherited(set.affinity_line)));
  }
  if (!set.hash_key.empty()) {
    refuse_at(source, set.hash_key_line,
              fmt::format("'hash-key {}'{} places a server's points by its address, which "
                          "ringbloom does not reproduce (it reproduces 'hash-key id', the "
                          "default); remove it to import the placement by server id",
                          set.hash_key, inherited(set.hash_key_line)));
  }
  std::vector<haproxy_server> servers;
  std::vector<std::size_t> server_lines;
  const auto add_server = [&](haproxy_server s, std::size_t line) {
    for (std::size_t t = 0; t < servers.size(); ++t) {
      if (servers[t].name == s.name) {
        refuse_at(
            source, line,
            fmt::format("server name '{}' is used twice (first on line {}); HAProxy refuses that",
                        s.name, server_lines[t]));
      }
    }
    servers.push_back(std::move(s));
    server_lines.push_back(line);
  };
  // default-server lines apply to the servers after them: start from the
  // defaults' and follow the backend's own in order.
  haproxy_settings server_defaults = settings_of(sections, *target, source, false);
  // A server's parameters: weight, id, and whether it is active.
  const auto read_params = [&](const std::vector<std::string>& w, std::size_t first,
                               haproxy_server& s, std::size_t line, bool template_line) {
    std::string state = server_defaults.default_state;
    for (std::size_t i = first; i < w.size(); ++i) {
      if (w[i] == "weight" || w[i] == "id") {
        const std::string number = i + 1 < w.size() ? w[i + 1] : "";
        if (w[i] == "weight") {
          s.weight = haproxy_weight(number, fmt::format("server '{}': ", s.name), source, line);
        } else {
          if (template_line) {
            refuse_at(source, line,
                      "'id' on a server-template line would give every server of the template "
                      "one id, which HAProxy refuses; remove it");
          }
          const std::uint64_t value = to_unsigned(number).value_or(~std::uint64_t{0});
          if (value == 0 || value > haproxy_placement::max_id) {
            refuse_at(source, line,
                      fmt::format("server '{}': id '{}' is not an integer in [1, {}]", s.name,
                                  number, haproxy_placement::max_id));
          }
          s.id = static_cast<std::uint32_t>(value);
        }
        ++i;
      } else if (w[i] == "backup" || w[i] == "disabled") {
        state = w[i];
      } else if (w[i] == "enabled") {
        state.clear();
      }
    }
    if (!state.empty()) {
      refuse_at(
          source, line,
          fmt::format(
              "server '{}' is '{}'{}: it takes keys only when others fail, which ringbloom does "
              "not model; remove it to import the placement of the active servers",
              s.name, state,
              state == server_defaults.default_state && server_defaults.default_state_line != 0
                  ? fmt::format(" (from 'default-server {}' on line {})", state,
                                server_defaults.default_state_line)
                  : std::string()));
    }
  };
  for (const haproxy_line& l : target->lines) {
    const std::vector<std::string>& w = l.words;
    if (w[0] == "default-server") {
      haproxy_section one{"", "", "", l.line, {l}, 0};
      apply_settings(one, source, server_defaults);
    } else if (w[0] == "server") {
      if (w.size() < 3)
        refuse_at(source, l.line, "expected 'server NAME ADDRESS [weight N] [id N]'");
      haproxy_server s{w[1], server_defaults.default_weight, 0};
      read_params(w, 3, s, l.line, false);
      const std::string& address = w[2];
      if (address.find(':') == std::string::npos && address.find('/') == std::string::npos) {
        refuse_at(source, l.line,
                  fmt::format("server '{}' has the address '{}' without a port; write ADDRESS:PORT",
                              s.name, address));
      }
      add_server(std::move(s), l.line);
    } else if (w[0] == "server-template") {
      // server-template PREFIX NUM|LOW-HIGH FQDN[:PORT] [params]: servers
      // PREFIX<LOW> .. PREFIX<HIGH> (NUM alone: 1..NUM), in that order.
      if (w.size() < 4)
        refuse_at(source, l.line, "expected 'server-template PREFIX NUM|LOW-HIGH FQDN[:PORT]'");
      const std::string& range = w[2];
      const std::size_t dash = range.find('-');
      const auto low = dash == std::string::npos
                           ? std::optional<std::uint64_t>(1)
                           : to_unsigned(std::string_view(range).substr(0, dash));
      const auto high =
          to_unsigned(dash == std::string::npos ? std::string_view(range)
                                                : std::string_view(range).substr(dash + 1));
      if (!low || !high || *low == 0 || *high < *low || *high - *low >= 65536) {
        refuse_at(source, l.line,
                  fmt::format("'{}' is not a server count or a range LOW-HIGH (at most 65536 "
                              "servers); write e.g. 'server-template web 1-5 app.example:80'",
                              range));
      }
      for (std::uint64_t n = *low; n <= *high; ++n) {
        haproxy_server s{fmt::format("{}{}", w[1], n), server_defaults.default_weight, 0};
        read_params(w, 4, s, l.line, true);
        add_server(std::move(s), l.line);
      }
      notes.push_back(fmt::format(
          "{}:{}: 'server-template {} {}' is placed as when all its servers have an address; "
          "slots that DNS leaves empty are in maintenance and take no keys",
          source, l.line, w[1], range));
    }
  }
  if (servers.empty())
    refuse_at(source, section_line, fmt::format("backend '{}' has no server", backend));
  return build_at(source, section_line,
                  [&] { return std::make_unique<haproxy_placement>(options, std::move(servers)); });
}

// --------------------------------------------------------------- twemproxy

twemproxy_server twemproxy_server_from_line(std::string_view line, std::string_view where) {
  // nc_conf.c conf_add_server: "host:port:weight [name]" parsed from the end.
  std::string_view address = line;
  std::string_view name;
  if (const std::size_t space = line.find(' '); space != std::string_view::npos) {
    address = line.substr(0, space);
    name = line.substr(space + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  }
  const std::size_t weight_colon = address.rfind(':');
  if (weight_colon == std::string_view::npos) {
    throw data_error(fmt::format(
        "{}: server '{}' is not 'host:port:weight [name]'; add the port and weight", where, line));
  }
  const auto weight = to_unsigned(address.substr(weight_colon + 1));
  if (!weight || *weight == 0 || *weight > twemproxy_placement::max_weight) {
    throw data_error(
        fmt::format("{}: server '{}' has no valid weight; end the address with ':N', N in [1, {}]",
                    where, line, twemproxy_placement::max_weight));
  }
  const std::string_view host_port = address.substr(0, weight_colon);
  std::string hashed;
  if (!name.empty()) {
    hashed = std::string(name);
  } else if (!host_port.empty() && host_port.front() == '/') {
    hashed = std::string(host_port);  // a unix socket: its path
  } else {
    const std::size_t port_colon = host_port.rfind(':');
    const auto port = port_colon == std::string_view::npos
                          ? std::nullopt
                          : to_unsigned(host_port.substr(port_colon + 1));
    if (!port || *port == 0 || *port > 65535 || port_colon == 0) {
      throw data_error(fmt::format("{}: server '{}' has no valid host:port; write host:port:weight",
                                   where, line));
    }
    hashed =
        twemproxy_default_name(host_port.substr(0, port_colon), static_cast<std::uint32_t>(*port));
  }
  return {hashed, static_cast<std::uint32_t>(*weight)};
}

// --------------------------------------------------------------- cassandra

std::unique_ptr<placement> import_nodetool_ring(std::string_view text, std::string_view source,
                                                const cassandra_replication& replication) {
  std::vector<std::string> notes;
  return import_nodetool_ring(text, source, replication, notes);
}

std::unique_ptr<placement> import_nodetool_ring(std::string_view text, std::string_view source,
                                                const cassandra_replication& replication,
                                                std::vector<std::string>& notes) {
  // What nodetool ring prints (tools/nodetool/Ring.java, 3.11 to 5.0 and DSE):
  //   [Note: Ownership information does not include topology; ...]  (older versions)
  //   Datacenter: dc1
  //   ==========
  //   Address    Rack   Status State   Load       Owns    Token
  //                                                       9223372036854775807  <- the last token
  //   10.0.0.1   rack1  Up     Normal  1.5 MiB    33.3%   -9223372036854775808
  //     Warning: "nodetool ring" is used to output all the tokens of a node.   (vnodes)
  //     To view status related info of a node use "nodetool status" instead.
  //     Note: Non-system keyspaces don't have the same replication settings, ...
  // Status is Up, Down or ?; State Normal, Joining, Leaving or Moving; Load
  // is one field ("?") or two ("1.5 MiB"); the address may be a host name (-r)
  // or carry a port (-pp).
  std::vector<cassandra_node> nodes;
  std::map<std::string, std::string> states;  // address -> a state other than Up/Normal
  std::vector<std::string> joining;
  std::string datacenter;
  bool in_table = false;
  const std::vector<std::string_view> lines = detail::split_lines(text);
  for (std::size_t line_no = 1; line_no <= lines.size(); ++line_no) {
    const std::vector<std::string_view> f = detail::split_fields(lines[line_no - 1], " \t");
    if (f.empty()) continue;
    if (f[0] == "Datacenter:") {
      if (f.size() < 2) refuse_at(source, line_no, "'Datacenter:' has no name");
      datacenter = std::string(lines[line_no - 1].substr(lines[line_no - 1].find(':') + 1));
      while (!datacenter.empty() && (datacenter.front() == ' ' || datacenter.front() == '\t'))
        datacenter.erase(0, 1);
      while (!datacenter.empty() && (datacenter.back() == ' ' || datacenter.back() == '\t'))
        datacenter.pop_back();
      in_table = true;
      continue;
    }
    if (f[0].find_first_not_of('=') == std::string_view::npos) continue;
    if (f[0] == "Address" && f.back() == "Token") continue;
    // The prose nodetool prints before and after the table.
    if (f[0] == "Warning:" || f[0] == "Note:" || (f[0] == "To" && f.size() > 1 && f[1] == "view"))
      continue;
    if (f[0] == "Error:") {
      refuse_at(source, line_no,
                fmt::format("nodetool printed an error instead of the ring ('{}'); run it again "
                            "and give its output",
                            printable(lines[line_no - 1])));
    }
    const bool status_ok = f.size() >= 6 && (f[2] == "Up" || f[2] == "Down" || f[2] == "?");
    const bool state_ok = f.size() >= 6 && (f[3] == "Normal" || f[3] == "Joining" ||
                                            f[3] == "Leaving" || f[3] == "Moving");
    if (in_table && f.size() == 1 && detail::to_unsigned(f[0].substr(f[0][0] == '-')))
      continue;  // the ring's last token, printed above the nodes
    if (!in_table || !status_ok || !state_ok) {
      refuse_at(source, line_no,
                fmt::format("'{}' is not a line of 'nodetool ring' (a node's line reads ADDRESS "
                            "RACK Up|Down|? Normal|Joining|Leaving|Moving LOAD OWNS TOKEN under "
                            "'Datacenter: NAME'); give the output of 'nodetool ring' as it "
                            "printed it",
                            printable(lines[line_no - 1])));
    }
    const std::string_view token_text = f.back();
    std::int64_t token = 0;
    const auto [ptr, ec] =
        std::from_chars(token_text.data(), token_text.data() + token_text.size(), token);
    if (ec != std::errc{} || ptr != token_text.data() + token_text.size()) {
      refuse_at(source, line_no,
                fmt::format(
                    "the token '{}' is not a 64-bit integer (Murmur3Partitioner tokens are in "
                    "[-2^63, 2^63 - 1]); give the output of 'nodetool ring' for a Murmur3 cluster",
                    printable(token_text)));
    }
    const std::string address(f[0]);
    if (f[3] == "Joining") {
      // A joining node's tokens are pending: reads place keys without it.
      if (std::find(joining.begin(), joining.end(), address) == joining.end())
        joining.push_back(address);
      continue;
    }
    if (f[2] != "Up" || f[3] != "Normal")
      states[address] = fmt::format("{} {}", std::string(f[2]), std::string(f[3]));
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const cassandra_node& n) { return n.address == address; });
    if (it == nodes.end()) {
      nodes.push_back({address, datacenter, std::string(f[1]), {}});
      it = nodes.end() - 1;
    } else if (it->datacenter != datacenter || it->rack != f[1]) {
      refuse_at(source, line_no,
                fmt::format("node {} appears in two data centres or racks", address));
    }
    it->tokens.push_back(token);
  }
  if (nodes.empty()) {
    throw data_error(fmt::format(
        "{}: no node lines{}; give the output of 'nodetool ring'", source,
        joining.empty() ? std::string() : " other than Joining ones, whose tokens own no key yet"));
  }
  for (const std::string& address : joining) {
    notes.push_back(fmt::format(
        "{}: node {} is Joining, so its tokens are left out: Cassandra reads place keys without "
        "it until it is Normal; import the ring again once it has joined",
        source, address));
  }
  for (const auto& [address, state] : states) {
    notes.push_back(fmt::format(
        "{}: node {} is {}; it still owns its tokens and is placed as a replica, as Cassandra "
        "places keys until it leaves the ring",
        source, address, state));
  }
  if (replication.network_topology) {
    std::set<std::string> dcs;
    for (const cassandra_node& n : nodes) dcs.insert(n.datacenter);
    for (const auto& [dc, rf] : replication.per_datacenter) {
      if (dcs.contains(dc)) continue;
      std::string names;
      for (const std::string& d : dcs) names += (names.empty() ? "'" : ", '") + printable(d) + "'";
      throw std::invalid_argument(fmt::format(
          "the replication names the data centre '{}', which is not in {} (its data centres are "
          "{}; names are case-sensitive); give the data centres as the ring names them",
          printable(dc), source, names));
    }
  }
  return build_at(source, 1, [&] {
    return std::make_unique<cassandra_placement>(std::move(nodes), replication);
  });
}

}  // namespace ringbloom::schemes
