// Windowed filter files (include/ringbloom/filter/windowed_file.hpp).
#include "ringbloom/filter/windowed_file.hpp"

#include <fcntl.h>
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

}  // namespace ringbloom
