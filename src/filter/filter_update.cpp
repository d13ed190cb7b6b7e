// Updates of filter files in place: the locked read-modify-write, the
// streamed add and its fold (add_to_filter_bytes), which sets bits in the
// file's words for the kinds whose row has add_in_place.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "bloom_internal.hpp"
#include "filter_format.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

std::optional<filter_kind> peek_filter_kind(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::array<char, detail::filter_off_kind + 1> head{};
  const ssize_t got = ::read(fd, head.data(), head.size());
  ::close(fd);
  if (got != static_cast<ssize_t>(head.size())) return std::nullopt;
  return peek_filter_kind_bytes(std::string_view(head.data(), head.size()));
}

void refuse_static_add(const std::filesystem::path& path, filter_kind kind) {
  if (!is_static_kind(kind)) return;
  const std::string file = path.string();
  throw std::invalid_argument(fmt::format(
      "'{}' is a {} filter, which is static: it cannot take items after it is built; rebuild "
      "it from the whole key set with 'ringbloom bloom create {} --kind {} --from KEYS.txt "
      "--force', or use a blocked filter for a set that grows",
      file, filter_kind_name(kind), file, filter_kind_name(kind)));
}

void update_filter_file(const std::filesystem::path& path,
                        const std::function<void(any_filter&)>& fn) {
  io::update_file_locked(path, [&](const std::string& current) {
    any_filter f = io::with_path(path, [&] { return detail::parse_filter_file(current, nullptr); });
    fn(f);
    return serialize_filter(f);
  });
}

void add_to_filter_bytes(std::string& file, std::span<const std::string_view> items) {
  // Parsed as a view (any non-null keepalive): every check, no copy.
  const auto no_owner = std::make_shared<const int>(0);
  const any_filter view = detail::parse_filter_file(file, no_owner);
  // The words are 8-byte aligned: `file` comes from the allocator (16-byte
  // aligned) and the payload offset is a multiple of 64.
  auto* p = reinterpret_cast<unsigned char*>(file.data());
  auto* words = reinterpret_cast<std::uint64_t*>(
      p + io::align_up(detail::filter_header_bytes + detail::filter_layer_entry_bytes));
  const bool in_place = std::visit(
      [&](const auto& f) {
        using row = filter_kind_row<std::decay_t<decltype(f)>>;
        if constexpr (row::adds_in_place) {
          if constexpr (std::endian::native == std::endian::little) {
            row::add_in_place(words, f, items);
            return true;
          }
        }
        return false;
      },
      view.variant());
  if (!in_place) {
    any_filter f = detail::parse_filter_file(file, nullptr);
    f.add_many(items);
    file = serialize_filter(f);
    return;
  }
  const std::uint64_t items_now = detail::saturating_add(view.items_added(), items.size());
  io::store_le<std::uint64_t>(p + detail::filter_off_items, items_now);
  io::store_le<std::uint64_t>(p + detail::filter_header_bytes + detail::filter_le_items, items_now);
  const std::size_t body = file.size() - io::checksum_bytes;
  io::store_le<std::uint64_t>(p + body, xxh3_64(std::string_view(file.data(), body), 0));
}

io::checkpointed_stream add_filter_stream(const std::filesystem::path& path,
                                          io::checkpoint_policy policy,
                                          std::uint64_t* items_in_file) {
  return io::checkpointed_stream(
      path,
      [path, items_in_file](std::string& file, std::span<const std::string_view> items) {
        if (const auto kind = peek_filter_kind_bytes(file)) refuse_static_add(path, *kind);
        io::with_path(path, [&] { add_to_filter_bytes(file, items); });
        if (items_in_file != nullptr) {
          *items_in_file = io::load_le<std::uint64_t>(
              reinterpret_cast<const unsigned char*>(file.data()) + detail::filter_off_items);
        }
      },
      policy);
}

}  // namespace ringbloom
