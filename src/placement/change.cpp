// measure_change and its tally (see change.hpp).
#include "ringbloom/placement/change.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "ringbloom/io/line_reader.hpp"
#include "ringbloom/placement/schemes/redis_cluster.hpp"
#include "ringbloom/placement/strategies.hpp"

namespace ringbloom {
namespace {

double peak_to_average(const std::map<std::string, std::uint64_t>& load, const placement& p,
                       std::uint64_t keys) {
  std::uint64_t top = 0;
  for (const auto& [node, count] : load) top = std::max(top, count);
  return keys == 0 ? 0.0
                   : static_cast<double>(top) * static_cast<double>(p.node_count()) /
                         static_cast<double>(keys);
}

bool has_node(const placement& p, const std::string& name) {
  for (std::uint32_t i = 0; i < p.node_count(); ++i) {
    if (p.node_name(i) == name) return true;
  }
  return false;
}

/// The slots whose master differs between two Redis Cluster placements (an
/// unowned slot counts as the owner "(none)").
std::optional<std::uint32_t> slots_moved(const placement& before, const placement& after) {
  const auto* rb = dynamic_cast<const schemes::redis_cluster_placement*>(&before);
  const auto* ra = dynamic_cast<const schemes::redis_cluster_placement*>(&after);
  if (rb == nullptr || ra == nullptr) return std::nullopt;
  std::uint32_t n = 0;
  for (std::uint32_t s = 0; s < schemes::redis_slot_count; ++s) {
    const std::uint32_t b = rb->slot_owner(s);
    const std::uint32_t a = ra->slot_owner(s);
    const std::string_view bn = b == rb->no_owner ? std::string_view("(none)") : rb->node_name(b);
    const std::string_view an = a == ra->no_owner ? std::string_view("(none)") : ra->node_name(a);
    n += bn != an ? 1 : 0;
  }
  return n;
}

}  // namespace

key_pattern::key_pattern(std::string format) : format_(std::move(format)) {
  if (format_.find("{}") == std::string::npos) {
    throw std::invalid_argument(fmt::format(
        "--key-format '{}' has no '{{}}' for the key number; write e.g. 'key-{{}}'", format_));
  }
}

const std::string& key_pattern::operator()(std::uint64_t i) {
  key_.clear();
  std::string_view rest = format_;
  const std::string number = std::to_string(i);
  for (auto at = rest.find("{}"); at != std::string_view::npos; at = rest.find("{}")) {
    key_.append(rest.substr(0, at));
    key_.append(number);
    rest.remove_prefix(at + 2);
  }
  key_.append(rest);
  return key_;
}

change_tally::change_tally(const placement& before, const placement& after,
                           std::span<const placement_node> before_nodes,
                           std::span<const placement_node> after_nodes)
    : before_(&before),
      after_(&after),
      load_before_(before.node_count(), 0),
      load_after_(after.node_count(), 0) {
  if (!before_nodes.empty() && !after_nodes.empty())
    ideal_ = ideal_moved_fraction(before_nodes, after_nodes);
}

void change_tally::add(std::string_view key) {
  const std::uint32_t b = before_->node_index_for_hash(before_->key_hash(key));
  const std::uint32_t a = after_->node_index_for_hash(after_->key_hash(key));
  ++keys_;
  ++load_before_[b];
  ++load_after_[a];
  if (before_->node_name(b) == after_->node_name(a)) return;
  ++flows_[std::uint64_t{b} << 32 | std::uint64_t{a}];
  if (record_)
    moved_keys_.push_back({std::string(key), before_->node_name(b), after_->node_name(a)});
}

change_measure change_tally::result() const {
  change_measure m;
  m.keys = keys_;
  m.ideal_fraction = ideal_;
  for (std::uint32_t i = 0; i < load_before_.size(); ++i) {
    if (load_before_[i] != 0) m.load_before[before_->node_name(i)] = load_before_[i];
  }
  for (std::uint32_t i = 0; i < load_after_.size(); ++i) {
    if (load_after_[i] != 0) m.load_after[after_->node_name(i)] = load_after_[i];
  }
  for (const auto& [pair, count] : flows_) {
    const std::string& from = before_->node_name(static_cast<std::uint32_t>(pair >> 32));
    const std::string& to = after_->node_name(static_cast<std::uint32_t>(pair & 0xFFFF'FFFFu));
    m.moved += count;
    m.moved_to[to] += count;
    m.moved_from[from] += count;
    m.flows[{from, to}] += count;
    if (has_node(*after_, from) && has_node(*before_, to)) m.moved_between_survivors += count;
  }
  m.peak_to_average_before = peak_to_average(m.load_before, *before_, m.keys);
  m.peak_to_average_after = peak_to_average(m.load_after, *after_, m.keys);
  m.slots_moved = slots_moved(*before_, *after_);
  m.moved_keys = moved_keys_;
  return m;
}

change_measure measure_change(const placement& before, const placement& after, key_pattern keys,
                              std::uint64_t count, std::span<const placement_node> before_nodes,
                              std::span<const placement_node> after_nodes) {
  change_tally tally(before, after, before_nodes, after_nodes);
  for (std::uint64_t i = 0; i < count; ++i) tally.add(keys(i));
  return tally.result();
}

change_measure measure_change(const placement& before, const placement& after,
                              std::span<const std::string> keys,
                              std::span<const placement_node> before_nodes,
                              std::span<const placement_node> after_nodes) {
  change_tally tally(before, after, before_nodes, after_nodes);
  for (const std::string& key : keys) tally.add(key);
  return tally.result();
}

std::optional<double> change_measure::slots_moved_fraction() const noexcept {
  if (!slots_moved) return std::nullopt;
  return static_cast<double>(*slots_moved) / schemes::redis_slot_count;
}

key_source::key_source(key_pattern pattern, std::uint64_t count)
    : pattern_(std::move(pattern)), count_(count) {}

key_source key_source::read_file(const std::string& path) {
  key_source keys;
  keys.list_ = io::read_lines(path, max_file_bytes, "--keys " + path);
  keys.file_ = path;
  return keys;
}

std::string key_source::label() const {
  return is_list() ? file_ : fmt::format("{} keys {}", count_, pattern_.format());
}

void key_source::for_each(const std::function<void(std::string_view)>& fn) const {
  if (is_list()) {
    for (const std::string& key : list_) fn(key);
    return;
  }
  key_pattern make_key = pattern_;
  for (std::uint64_t i = 0; i < count_; ++i) fn(make_key(i));
}

change_measure measure_change(const placement& before, const placement& after,
                              const key_source& keys) {
  change_tally tally(before, after);
  if (keys.is_list()) tally.record_moved_keys();
  keys.for_each([&](std::string_view key) { tally.add(key); });
  return tally.result();
}

double space_moved_fraction(const hash_ring& before, const hash_ring& after) {
  if (!before.empty() && !after.empty()) return plan_movement(before, after).moved_fraction;
  return before.node_count() != after.node_count() ? 1.0 : 0.0;
}

std::vector<range_flow> range_flows(const movement_plan& plan, std::uint64_t space_max) {
  std::vector<range_flow> flows;
  const double space = static_cast<double>(space_max) + 1.0;
  for (const auto& r : plan.ranges) {
    const double size = (static_cast<double>(r.last - r.first) + 1.0) / space;
    auto it = std::find_if(flows.begin(), flows.end(),
                           [&](const range_flow& f) { return f.from == r.from && f.to == r.to; });
    if (it == flows.end()) {
      flows.push_back({r.from, r.to, size});
    } else {
      it->fraction += size;
    }
  }
  return flows;
}

}  // namespace ringbloom
