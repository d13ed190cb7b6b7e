// Windowed filter files (include/ringbloom/filter/windowed_file.hpp).
#include "ringbloom/filter/windowed_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>
#include <utility>

#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

namespace {

constexpr std::array<char, 8> magic{'\x89', 'R', 'B', 'W', '\r', '\n', '\x1a', '\n'};

/// A pending entry of windowed_add_stream: the time's 8 bytes, then the item.
constexpr std::size_t time_bytes = 8;

windowed_bloom_filter parse(const std::filesystem::path& path, std::string_view bytes) {
  return io::with_path(path, [&] { return windowed_bloom_filter::deserialize(bytes); });
}

}  // namespace

bool is_windowed_bytes(std::string_view bytes) noexcept {
  return bytes.size() >= magic.size() && std::memcmp(bytes.data(), magic.data(), magic.size()) == 0;
}

bool peek_windowed_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::array<char, magic.size()> head{};
  const ssize_t got = ::read(fd, head.data(), head.size());
  ::close(fd);
  return got == static_cast<ssize_t>(head.size()) &&
         is_windowed_bytes(std::string_view(head.data(), head.size()));
}

void save_windowed(const std::filesystem::path& path, const windowed_bloom_filter& filter) {
  io::write_file_atomic(path, filter.serialize());
}

windowed_bloom_filter load_windowed(const std::filesystem::path& path) {
  return parse(path, io::read_file(path));
}

void update_windowed_file(const std::filesystem::path& path,
                          const std::function<void(windowed_bloom_filter&)>& fn) {
  io::edit_file_locked(path, [&](std::string& content) {
    windowed_bloom_filter f = parse(path, content);
    fn(f);
    content = f.serialize();
  });
}

windowed_add_stream::windowed_add_stream(const std::filesystem::path& path,
                                         io::checkpoint_policy policy)
    : stream_(
          path,
          [this, path](std::string& file, std::span<const std::string_view> entries) {
            windowed_bloom_filter f = parse(path, file);
            for (const std::string_view entry : entries) {
              const double now = io::load_f64(reinterpret_cast<const unsigned char*>(entry.data()));
              const std::uint64_t x = f.hash_item(entry.substr(time_bytes));
              f.add_hash(x, now);  // count windows ignore the time
            }
            file = f.serialize();
            items_added_ = f.items_added();
            items_in_window_ = f.items_in_window(f.latest_time());
          },
          policy) {}

void windowed_add_stream::add(std::string_view item, double now) {
  record_.resize(time_bytes);
  io::store_f64(reinterpret_cast<unsigned char*>(record_.data()), now);
  record_.append(item);
  stream_.add(record_);
}

std::uint64_t windowed_add_stream::checkpoint() {
  if (stream_.pending_items() == 0) {
    const windowed_bloom_filter f = load_windowed(stream_.path());
    items_added_ = f.items_added();
    items_in_window_ = f.items_in_window(f.latest_time());
    return 0;
  }
  return stream_.checkpoint();
}

std::string_view window_kind_name(window_kind kind) noexcept {
  return kind == window_kind::time ? "time" : "count";
}

std::string describe_window(const windowed_bloom_filter& f) {
  if (f.kind() == window_kind::time) {
    return fmt::format("{:g} s (items are forgotten {:g} to {:g} s after they were added)",
                       f.window(), f.window(), f.window() * (1 + windowed_math::slack));
  }
  return fmt::format("the last {} insertions (items are forgotten after {} to {} more)",
                     f.capacity(), f.capacity(), windowed_math::generations * f.generation_items());
}

std::uint64_t windowed_memory_bytes(std::uint64_t window_items, double p) {
  return windowed_math::size_for(window_items, p).superblocks * windowed_math::superblock_bits / 8;
}

filter_description windowed_settings(const windowed_bloom_filter& f) {
  filter_description d;
  d.fields = {{"window_kind", std::string(window_kind_name(f.kind()))},
              {"window", f.window()},
              {"capacity", f.capacity()},
              {"fpr", f.target_fpr()},
              {"hashes", std::uint64_t{f.hashes()}},
              {"hash", std::string("xxh3")},
              {"seed", f.seed()},
              {"memory_bytes", f.memory_bytes()}};
  return d;
}

filter_description describe_windowed(const windowed_bloom_filter& f, double at) {
  filter_description d = windowed_settings(f);
  const std::uint64_t in_window = f.items_in_window(at);
  const double rate = f.expected_fpr(at);
  const std::uint32_t overfull = f.overfull_generations(at);
  d.fields.insert(d.fields.end(), {{"generations", std::uint64_t{windowed_math::generations}},
                                   {"generation_items", f.generation_items()},
                                   {"bits", f.bits()},
                                   {"items_added", f.items_added()},
                                   {"items_in_window", in_window},
                                   {"latest_time", f.latest_time()},
                                   {"at", at},
                                   {"expected_fpr", rate},
                                   {"overfull_generations", std::uint64_t{overfull}}});
  const auto row = [&](std::string label, std::string text) {
    d.rows.push_back({std::move(label), std::move(text), false});
  };
  row("kind", f.kind() == window_kind::time ? "windowed, by time" : "windowed, by count");
  row("window", describe_window(f));
  row("capacity", fmt::format("{} items per window; {} generations of {}", f.capacity(),
                              windowed_math::generations, f.generation_items()));
  row("bits", fmt::format("{} ({:.2f} per window item), k = {}, xxh3 seed {}", f.bits(),
                          static_cast<double>(f.bits()) / static_cast<double>(f.capacity()),
                          f.hashes(), f.seed()));
  row("items", fmt::format("{} in the window at {:.3f} ({} added, the latest at {:.3f})", in_window,
                           at, f.items_added(), f.latest_time()));
  row("expected fpr",
      fmt::format("{:.4g} (target {:g}){}", rate, f.target_fpr(),
                  overfull == 0 ? ""
                                : fmt::format("; {} overfull generation{}: above target until "
                                              "they expire",
                                              overfull, overfull == 1 ? "" : "s")));
  return d;
}

}  // namespace ringbloom
