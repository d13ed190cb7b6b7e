// Rows files and the row comparison (include/ringbloom/merkle/merkle_rows.hpp).
#include "ringbloom/merkle/merkle_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "ringbloom/error.hpp"

namespace ringbloom {

namespace {

// Splits one line (without '\n' and '\r') into key and value and calls fn.
void emit_line(std::string_view line, std::string_view name, std::uint64_t number,
               const row_callback& fn) {
  const std::size_t tab = line.find('\t');
  if (tab == std::string_view::npos) {
    throw data_error(
        fmt::format("{} line {} has no TAB; write each row as key<TAB>value", name, number));
  }
  fn(line.substr(0, tab), line.substr(tab + 1), number);
}

}  // namespace

void scan_rows(io::line_reader& in, std::string_view name, const row_callback& fn) {
  std::string line;
  std::uint64_t number = 0;
  for (;;) {
    try {
      if (!in.next(line)) return;
    } catch (const std::invalid_argument& e) {
      throw data_error(e.what());  // a rows file with a huge line is bad data (exit 3)
    }
    emit_line(line, name, ++number, fn);
  }
}

void scan_rows_file(const std::filesystem::path& path, const row_callback& fn) {
  io::line_reader in = io::line_reader::open(path, path.string());
  scan_rows(in, path.string(), fn);
}

merkle_tree build_tree_from_rows(const std::filesystem::path& path, merkle_options options) {
  merkle_builder builder(std::move(options));
  scan_rows_file(path, [&](std::string_view key, std::string_view value, std::uint64_t) {
    builder.add(key, value);
  });
  return builder.finish();
}

std::string_view key_change_name(key_change change) noexcept {
  switch (change) {
    case key_change::only_in_a:
      return "only-in-a";
    case key_change::only_in_b:
      return "only-in-b";
    case key_change::changed:
      return "changed";
  }
  return "unknown";
}

// --- row_collector ---------------------------------------------------------------

row_collector::row_collector(const merkle_tree& tree, const std::vector<std::uint64_t>& leaves)
    : tree_(&tree), leaves_(leaves) {
  std::sort(leaves_.begin(), leaves_.end());
  leaves_.erase(std::unique(leaves_.begin(), leaves_.end()), leaves_.end());
  for (const std::uint64_t leaf : leaves_) {
    if (leaf >= tree.leaf_count()) {
      throw std::invalid_argument(
          fmt::format("leaf {} is not in a tree of {} leaves", leaf, tree.leaf_count()));
    }
  }
  seen_.assign(leaves_.size(), merkle_leaf{});
}

void row_collector::offer(std::string_view key, std::string_view value, std::uint64_t line) {
  const std::uint64_t position = tree_->key_position(key);
  if (!tree_->covers(position)) return;
  const auto it = std::lower_bound(leaves_.begin(), leaves_.end(), tree_->leaf_of(position));
  if (it == leaves_.end() || *it != tree_->leaf_of(position)) return;
  const auto [entry, inserted] = rows_.try_emplace(std::string(key), row{std::string(value), line});
  if (!inserted) {
    throw data_error(fmt::format("key '{}' appears twice, on lines {} and {}; keep one row per key",
                                 key, entry->second.line, line));
  }
  merkle_leaf& seen = seen_[static_cast<std::size_t>(it - leaves_.begin())];
  seen.sum = digest_add(seen.sum, row_digest(key, value));
  ++seen.rows;
}

void row_collector::check_against_tree() const {
  for (std::size_t i = 0; i < leaves_.size(); ++i) {
    const merkle_leaf expected = tree_->leaf(leaves_[i]);
    if (seen_[i] != expected) {
      throw data_error(fmt::format(
          "the rows do not match the tree in leaf {} ({} rows read, {} in the tree, digests "
          "{} and {}); rebuild the tree from these rows",
          leaves_[i], seen_[i].rows, expected.rows, digest_hex(seen_[i].sum),
          digest_hex(expected.sum)));
    }
  }
}

std::vector<key_difference> compare_rows(const row_collector& a, const row_collector& b) {
  std::vector<key_difference> out;
  for (const auto& [key, row] : a.rows_) {
    const auto other = b.rows_.find(key);
    if (other == b.rows_.end()) {
      out.push_back({key, key_change::only_in_a, row.value, std::nullopt});
    } else if (other->second.value != row.value) {
      out.push_back({key, key_change::changed, row.value, other->second.value});
    }
  }
  for (const auto& [key, row] : b.rows_) {
    if (!a.rows_.contains(key))
      out.push_back({key, key_change::only_in_b, std::nullopt, row.value});
  }
  std::sort(out.begin(), out.end(),
            [](const key_difference& x, const key_difference& y) { return x.key < y.key; });
  return out;
}

}  // namespace ringbloom
