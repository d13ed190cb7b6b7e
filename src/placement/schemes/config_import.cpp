// Reading nginx.conf, haproxy.cfg, nutcracker server lines and CLUSTER NODES
// (see config_import.hpp). The nginx and HAProxy grammars are small: nginx's
// is tokens, quoted strings, ';' and braces (src/core/ngx_conf_file.c);
// HAProxy's is one keyword line at a time with section headers.
#include "ringbloom/placement/schemes/config_import.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ringbloom/error.hpp"
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
};

std::vector<token> nginx_tokens(std::string_view text, std::string_view source) {
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
      tokens.push_back({std::string(1, c), line, false});
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
      tokens.push_back({std::move(value), start_line, true});
    } else {
      std::string value;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' &&
             text[i] != '\n' && text[i] != ';' && text[i] != '{' && text[i] != '}') {
        value.push_back(text[i++]);
      }
      tokens.push_back({std::move(value), line, false});
    }
  }
  return tokens;
}

bool is_punct(const token& t, char c) { return !t.quoted && t.text.size() == 1 && t.text[0] == c; }

}  // namespace

std::unique_ptr<placement> import_nginx(std::string_view text, std::string_view source,
                                        std::string_view upstream) {
  const std::vector<token> tokens = nginx_tokens(text, source);
  // Find "upstream NAME {" at any depth.
  std::size_t at = tokens.size();
  int depth = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (is_punct(tokens[i], '{')) ++depth;
    if (is_punct(tokens[i], '}')) {
      if (--depth < 0) refuse_at(source, tokens[i].line, "'}' closes no block; remove it");
    }
    if (!tokens[i].quoted && tokens[i].text == "upstream" && i + 2 < tokens.size() &&
        tokens[i + 1].text == upstream && is_punct(tokens[i + 2], '{')) {
      at = i + 3;
      break;
    }
  }
  if (at == tokens.size()) {
    throw data_error(fmt::format(
        "{}: no 'upstream {} {{ ... }}' block; give the name of an upstream of the file "
        "with --upstream",
        source, upstream));
  }
  const std::size_t block_line = tokens[at - 3].line;
  std::vector<nginx_server> servers;
  std::vector<std::size_t> server_lines;
  bool consistent = false;
  std::size_t i = at;
  while (true) {
    if (i >= tokens.size())
      refuse_at(source, block_line,
                fmt::format("upstream '{}' is never closed; add '}}'", upstream));
    if (is_punct(tokens[i], '}')) break;
    // One directive: words up to ';'.
    std::vector<const token*> words;
    while (i < tokens.size() && !is_punct(tokens[i], ';')) {
      if (is_punct(tokens[i], '{') || is_punct(tokens[i], '}')) {
        refuse_at(source, tokens[i].line,
                  fmt::format("expected ';' to end the directive '{}'",
                              words.empty() ? std::string("?") : words[0]->text));
      }
      words.push_back(&tokens[i++]);
    }
    if (i >= tokens.size()) {
      refuse_at(source, words.empty() ? block_line : words.back()->line,
                "expected ';' at the end of the directive");
    }
    ++i;  // ';'
    if (words.empty()) continue;
    const std::string& name = words[0]->text;
    const std::size_t line = words[0]->line;
    if (name == "hash") {
      if (words.size() > 3) {
        refuse_at(source, line,
                  fmt::format("expected ';' after 'hash {} {}' (the directive runs on into '{}')",
                              words[1]->text, words[2]->text, words[3]->text));
      }
      if (words.size() == 3 && words[2]->text == "consistent") {
        consistent = true;
      } else {
        refuse_at(source, line,
                  "'hash' without 'consistent' is nginx's modulo hash, not a consistent one; write "
                  "'hash KEY "
                  "consistent;' to import it");
      }
    } else if (name == "server") {
      if (words.size() < 2)
        refuse_at(source, line, "'server' has no address; write 'server ADDRESS [weight=N];'");
      nginx_server s{words[1]->text, 1};
      for (std::size_t w = 2; w < words.size(); ++w) {
        const std::string& p = words[w]->text;
        if (p.rfind("weight=", 0) == 0) {
          const auto v = to_unsigned(std::string_view(p).substr(7));
          if (!v || *v == 0 || *v > nginx_placement::max_weight) {
            refuse_at(
                source, words[w]->line,
                fmt::format("'{}' is not a weight nginx accepts; write weight=N with N in [1, {}]",
                            p, nginx_placement::max_weight));
          }
          s.weight = static_cast<std::uint32_t>(*v);
        } else if (p == "down" || p == "backup") {
          refuse_at(
              source, words[w]->line,
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
          refuse_at(source, words[w]->line, fmt::format("unknown server parameter '{}'", p));
        }
      }
      servers.push_back(std::move(s));
      server_lines.push_back(line);
    } else if (name == "include") {
      refuse_at(source, line,
                "'include' inside the upstream is not followed; paste the included servers in");
    } else if (name == "ip_hash" || name == "least_conn" || name == "random" ||
               name == "least_time" || name == "sticky") {
      refuse_at(
          source, line,
          fmt::format("'{}' is not 'hash KEY consistent'; only consistent hashing is imported",
                      name));
    }
    // keepalive, zone, keepalive_timeout ...: no effect on placement.
  }
  if (!consistent) {
    refuse_at(
        source, block_line,
        fmt::format(
            "upstream '{}' has no 'hash KEY consistent;'; it balances round robin, which places no "
            "key; add the directive or pick another upstream",
            upstream));
  }
  if (servers.empty())
    refuse_at(source, block_line, fmt::format("upstream '{}' has no server", upstream));
  for (std::size_t s = 0; s < servers.size(); ++s) {
    for (std::size_t t = 0; t < s; ++t) {
      if (servers[s].server == servers[t].server) {
        refuse_at(
            source, server_lines[s],
            fmt::format(
                "server '{}' is listed twice (first on line {}); merge the two lines into one with "
                "the summed weight",
                servers[s].server, server_lines[t]));
      }
    }
  }
  return build_at(source, block_line,
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

struct haproxy_section_settings {
  std::optional<haproxy_options> hash;  // from hash-type consistent
  std::size_t hash_line = 0;
  bool map_based = false;
  std::uint32_t default_weight = 1;
};

haproxy_options parse_hash_type(const std::vector<std::string>& w, std::string_view source,
                                std::size_t line, bool& map_based) {
  if (w.size() < 2 || (w[1] != "consistent" && w[1] != "map-based")) {
    refuse_at(source, line, "expected 'hash-type consistent [FUNCTION [avalanche]]'");
  }
  map_based = w[1] == "map-based";
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
  return o;
}

}  // namespace

std::unique_ptr<placement> import_haproxy(std::string_view text, std::string_view source,
                                          std::string_view backend) {
  haproxy_section_settings defaults;
  haproxy_section_settings current;
  bool in_target = false;
  bool found = false;
  std::size_t section_line = 0;
  std::vector<haproxy_server> servers;
  std::vector<std::size_t> server_lines;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  bool in_defaults = false;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::vector<std::string> w = haproxy_words(line);
    if (w.empty()) continue;
    const std::string& kw = w[0];
    if (kw == "global" || kw == "defaults" || kw == "frontend" || kw == "backend" ||
        kw == "listen" || kw == "userlist" || kw == "peers" || kw == "resolvers" ||
        kw == "program" || kw == "http-errors" || kw == "ring" || kw == "cache" ||
        kw == "mailers") {
      if (in_target) break;  // the target section ended
      in_defaults = kw == "defaults";
      if (in_defaults) defaults = {};
      if ((kw == "backend" || kw == "listen") && w.size() >= 2 && w[1] == backend) {
        in_target = found = true;
        section_line = line_no;
        current = defaults;
      }
      continue;
    }
    haproxy_section_settings* settings = in_target ? &current : (in_defaults ? &defaults : nullptr);
    if (settings == nullptr) continue;
    if (kw == "hash-type") {
      settings->hash = parse_hash_type(w, source, line_no, settings->map_based);
      settings->hash_line = line_no;
    } else if (kw == "default-server") {
      for (std::size_t i = 1; i + 1 < w.size(); ++i) {
        if (w[i] == "weight") {
          const auto v = to_unsigned(w[i + 1]);
          if (!v || *v > haproxy_placement::max_weight) {
            refuse_at(source, line_no,
                      fmt::format("weight '{}' is not in HAProxy's range 0..256", w[i + 1]));
          }
          settings->default_weight = static_cast<std::uint32_t>(*v);
        }
      }
    } else if (kw == "hash-balance-factor" && in_target) {
      if (w.size() >= 2 && w[1] != "0") {
        refuse_at(source, line_no,
                  "'hash-balance-factor' bounds each server's load and moves keys off busy servers "
                  "at run time, "
                  "which ringbloom does not model; remove it (or set 0) to import the plain "
                  "consistent placement");
      }
    } else if (kw == "server" && in_target) {
      if (w.size() < 3)
        refuse_at(source, line_no, "expected 'server NAME ADDRESS [weight N] [id N]'");
      haproxy_server s{w[1], current.default_weight, 0};
      for (std::size_t i = 3; i < w.size(); ++i) {
        if (w[i] == "weight" || w[i] == "id") {
          const std::string number = i + 1 < w.size() ? w[i + 1] : "";
          // An absent or unparsable number reads as the largest value: refused below.
          const std::uint64_t value = to_unsigned(number).value_or(~std::uint64_t{0});
          if (w[i] == "weight") {
            if (value > haproxy_placement::max_weight) {
              refuse_at(source, line_no,
                        fmt::format("server '{}': weight '{}' is not in HAProxy's range 0..256",
                                    s.name, number));
            }
            s.weight = static_cast<std::uint32_t>(value);
          } else {
            if (value == 0 || value > haproxy_placement::max_id) {
              refuse_at(source, line_no,
                        fmt::format("server '{}': id '{}' is not an integer in [1, {}]", s.name,
                                    number, haproxy_placement::max_id));
            }
            s.id = static_cast<std::uint32_t>(value);
          }
          ++i;
        } else if (w[i] == "backup" || w[i] == "disabled") {
          refuse_at(
              source, line_no,
              fmt::format(
                  "server '{}' is '{}': it takes keys only when others fail, which ringbloom does "
                  "not model; remove it to import the placement of the active servers",
                  s.name, w[i]));
        }
      }
      const std::string& address = w[2];
      if (address.find(':') == std::string::npos && address.find('/') == std::string::npos) {
        refuse_at(source, line_no,
                  fmt::format("server '{}' has the address '{}' without a port; write ADDRESS:PORT",
                              s.name, address));
      }
      for (std::size_t t = 0; t < servers.size(); ++t) {
        if (servers[t].name == s.name) {
          refuse_at(
              source, line_no,
              fmt::format("server name '{}' is used twice (first on line {}); HAProxy refuses that",
                          s.name, server_lines[t]));
        }
      }
      servers.push_back(std::move(s));
      server_lines.push_back(line_no);
    } else if (kw == "balance" && in_target) {
      static const char* const hashing[] = {"hdr(",   "uri",  "url_param",
                                            "source", "hash", "rdp-cookie"};
      bool ok = false;
      for (const char* h : hashing) ok = ok || (w.size() >= 2 && w[1].rfind(h, 0) == 0);
      if (!ok) {
        refuse_at(
            source, line_no,
            fmt::format(
                "'balance {}' places no key by hash; only hashing balances (uri, hdr(), url_param, "
                "source, hash ...) with 'hash-type consistent' are imported",
                w.size() >= 2 ? w[1] : ""));
      }
    }
  }
  if (!found) {
    throw data_error(
        fmt::format("{}: no 'backend {}' or 'listen {}' section; give the name of a backend of the "
                    "file with --backend",
                    source, backend, backend));
  }
  if (!current.hash || current.map_based) {
    refuse_at(
        source, current.hash ? current.hash_line : section_line,
        fmt::format(
            "backend '{}' does not use 'hash-type consistent' (map-based hashing is hash % weight, "
            "not a ring); add 'hash-type consistent' to import it",
            backend));
  }
  if (servers.empty())
    refuse_at(source, section_line, fmt::format("backend '{}' has no server", backend));
  return build_at(source, section_line, [&] {
    return std::make_unique<haproxy_placement>(*current.hash, std::move(servers));
  });
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
  // Datacenter: dc1
  // ==========
  // Address    Rack   Status State   Load       Owns    Token
  //                                                     9223372036854775807   <- the ring's last
  //                                                     token
  // 10.0.0.1   rack1  Up     Normal  1.5 MiB    33.3%   -9223372036854775808
  std::vector<cassandra_node> nodes;
  std::string datacenter;
  const std::vector<std::string_view> lines = detail::split_lines(text);
  for (std::size_t line_no = 1; line_no <= lines.size(); ++line_no) {
    const std::vector<std::string_view> f = detail::split_fields(lines[line_no - 1], " \t");
    if (f.empty()) continue;
    if (f[0] == "Datacenter:") {
      if (f.size() < 2) refuse_at(source, line_no, "'Datacenter:' has no name");
      datacenter = std::string(f[1]);
      continue;
    }
    if (f.size() < 3 || f[0] == "Address" || f[0].find_first_not_of('=') == std::string_view::npos)
      continue;
    if (f[0].find_first_of(".:") == std::string_view::npos) {
      refuse_at(
          source, line_no,
          fmt::format("'{}' is not a node address; give the output of 'nodetool ring'", f[0]));
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
                    token_text));
    }
    const std::string address(f[0]);
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
    throw data_error(fmt::format("{}: no node lines; give the output of 'nodetool ring'", source));
  }
  return build_at(source, 1, [&] {
    return std::make_unique<cassandra_placement>(std::move(nodes), replication);
  });
}

}  // namespace ringbloom::schemes
