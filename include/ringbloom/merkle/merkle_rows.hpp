// ringbloom/merkle/merkle_rows.hpp: rows files (key<TAB>value, one per line),
// streamed into a tree in bounded memory, and the row comparison that turns
// the differing ranges of a diff into differing keys.
//
// Rows files. Each line is one row: the key, a TAB, the value (the rest of
// the line, which may hold more TABs). A trailing '\r' is dropped (CRLF
// files), a last line without '\n' counts, and empty lines are refused like
// any line without a TAB. Files are read with io::line_reader, the one reader
// of lines, so a line longer than 16 MiB (io::max_line_bytes) is refused as
// soon as that much of it is read: memory is the tree's plus the longest
// line, whatever the file's size and order (sorted or not).
//
// Duplicate keys. A tree digests every line (a multiset, see
// merkle_tree.hpp), so a key given twice is digested twice and the tree
// differs from a replica's that has it once. Detecting duplicates while
// building would need memory proportional to the rows, so the build does not
// look; the row comparison (row_collector), which holds the rows of the
// differing ranges anyway, refuses a key seen twice there with a data_error.
//
// Example:
//
//   ringbloom::merkle_tree a = ringbloom::build_tree_from_rows("a.tsv", {.depth = 16});
//   ringbloom::merkle_tree b = ringbloom::build_tree_from_rows("b.tsv", {.depth = 16});
//   ringbloom::merkle_diff d = ringbloom::diff(a, b);
//   ringbloom::row_collector ra(a, d.leaves), rb(b, d.leaves);
//   ringbloom::scan_rows_file("a.tsv", [&](auto k, auto v, auto line) { ra.offer(k, v, line); });
//   ringbloom::scan_rows_file("b.tsv", [&](auto k, auto v, auto line) { rb.offer(k, v, line); });
//   std::vector<ringbloom::key_difference> keys = ringbloom::compare_rows(ra, rb);
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ringbloom/io/line_reader.hpp"
#include "ringbloom/merkle/merkle_tree.hpp"

namespace ringbloom {

/// Called for each row with its 1-based line number.
using row_callback =
    std::function<void(std::string_view key, std::string_view value, std::uint64_t line)>;

/// Streams the rows `in` reads (standard input, say) to `fn`. `name` names
/// the input in errors. Throws data_error ("<name> line N has no TAB; write
/// each row as key<TAB>value", and for a line longer than 16 MiB) and
/// io_error.
void scan_rows(io::line_reader& in, std::string_view name, const row_callback& fn);

/// Streams the rows of the file at `path`. Throws io_error if it cannot be
/// opened or read, data_error as scan_rows.
void scan_rows_file(const std::filesystem::path& path, const row_callback& fn);

/// A tree of the rows of the file at `path`, streamed (see above).
[[nodiscard]] merkle_tree build_tree_from_rows(const std::filesystem::path& path,
                                               merkle_options options);

/// How a key differs between replicas a and b.
enum class key_change : std::uint8_t {
  only_in_a = 1,  ///< b lacks it
  only_in_b = 2,  ///< a lacks it
  changed = 3,    ///< both have it, with different values
};

/// "only-in-a", "only-in-b", "changed".
[[nodiscard]] std::string_view key_change_name(key_change change) noexcept;

/// One key that differs, with its values on each side.
struct key_difference {
  std::string key;
  key_change change = key_change::changed;
  std::optional<std::string> value_a;
  std::optional<std::string> value_b;
  friend bool operator==(const key_difference&, const key_difference&) = default;
};

/// Keeps the rows of a replica that fall in some leaves of its tree (the
/// differing leaves of a diff), and checks that they are the rows the tree
/// was built from. Memory: the kept rows.
class row_collector {
 public:
  /// Keeps rows in `leaves` (leaf indexes of `tree`) and inside its ranges.
  row_collector(const merkle_tree& tree, const std::vector<std::uint64_t>& leaves);

  /// Offers a row; kept if its key falls in one of the leaves. Throws
  /// data_error if the key was already kept ("key 'k' appears twice, on lines
  /// 3 and 9; keep one row per key").
  void offer(std::string_view key, std::string_view value, std::uint64_t line = 0);

  /// Throws data_error naming the first leaf whose kept rows do not add up to
  /// the tree's leaf digest (the rows changed since the tree was built).
  void check_against_tree() const;

  [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }

 private:
  friend std::vector<key_difference> compare_rows(const row_collector& a, const row_collector& b);
  struct row {
    std::string value;
    std::uint64_t line;
  };
  const merkle_tree* tree_;
  std::vector<std::uint64_t> leaves_;  // sorted
  std::vector<merkle_leaf> seen_;      // parallel to leaves_
  std::unordered_map<std::string, row> rows_;
};

/// The keys that differ between the rows kept by a and by b, sorted by key.
[[nodiscard]] std::vector<key_difference> compare_rows(const row_collector& a,
                                                       const row_collector& b);

}  // namespace ringbloom
