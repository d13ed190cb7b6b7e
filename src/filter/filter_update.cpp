// Updates of filter files in place: the locked read-modify-write, the
// streamed add and its fold (add_to_filter_bytes), which sets bits in the
// file's words for the kinds whose row has add_in_place.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "bloom_internal.hpp"
#include "filter_format.hpp"
#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/file_patch.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/memory.hpp"

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

namespace {

// Whether the kind of a filter adds in place (its row's add_in_place) on this
// host.
bool adds_in_place(filter_kind kind) {
  bool yes = false;
  filter_kind_table::visit(kind, [&](auto tag) {
    yes = filter_kind_row<typename decltype(tag)::type>::adds_in_place &&
          std::endian::native == std::endian::little;
  });
  return yes;
}

// Sets the items' bits in the words of the single-layer filter `view` (whose
// kind adds in place) at `words`, and its item counts in the header at `p`.
void add_in_place(unsigned char* p, std::uint64_t* words, const any_filter& view,
                  std::span<const std::string_view> items) {
  std::visit(
      [&](const auto& f) {
        using row = filter_kind_row<std::decay_t<decltype(f)>>;
        if constexpr (row::adds_in_place) row::add_in_place(words, f, items);
      },
      view.variant());
  const std::uint64_t items_now = detail::saturating_add(view.items_added(), items.size());
  io::store_le<std::uint64_t>(p + detail::filter_off_items, items_now);
  io::store_le<std::uint64_t>(p + detail::filter_header_bytes + detail::filter_le_items, items_now);
}

// The pages of the private mapping [addr, addr + bytes) this process has
// written to (copied from the file's pages), as page indexes from addr:
// /proc/self/pagemap says which pages are present and no longer the file's
// (bit 63 present, bit 61 file page; Linux's Documentation/admin-guide/mm/
// pagemap.rst). Nothing when it cannot be read.
std::optional<std::vector<std::uint64_t>> written_pages(const void* addr, std::uint64_t bytes) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const std::uint64_t first = reinterpret_cast<std::uintptr_t>(addr) / page;
  const std::uint64_t count = (bytes + page - 1) / page;
  std::vector<std::uint64_t> entries(
      static_cast<std::size_t>(std::min<std::uint64_t>(count, 1u << 16)));
  std::vector<std::uint64_t> out;
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t n = std::min<std::uint64_t>(count - done, entries.size());
    const auto want = static_cast<ssize_t>(8 * n);
    if (::pread(fd, entries.data(), static_cast<std::size_t>(want),
                static_cast<off_t>(8 * (first + done))) != want) {
      ::close(fd);
      return std::nullopt;
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t e = entries[static_cast<std::size_t>(i)];
      if ((e >> 63) != 0 && ((e >> 61) & 1) == 0) out.push_back(done + i);
    }
    done += n;
  }
  ::close(fd);
  return out;
}

// A private, writable mapping of `size` bytes, unmapped on exit: of a file
// (copy-on-write: only the pages touched are read) or, for a whole file's
// image in a rewrite, of anonymous memory. An anonymous image of 2 MiB or
// more asks for transparent huge pages (MADV_HUGEPAGE): a 118 MiB image then
// takes 59 faults instead of 30,000, and setting random bits in it misses
// the TLB far less; a smaller one keeps small pages, since a 2 MiB page
// would be zeroed whole for it.
class private_mapping {
 public:
  /// The file open as `fd`.
  private_mapping(int fd, std::uint64_t size, const std::filesystem::path& path)
      : size_(size), mapped_(size) {
    map(MAP_PRIVATE, fd, fmt::format("cannot map '{}'", path.string()));
  }
  /// Anonymous memory for an image of that file.
  private_mapping(std::uint64_t size, const std::filesystem::path& path) : size_(size) {
    constexpr std::uint64_t huge = std::uint64_t{2} << 20;
    const bool use_huge = size >= huge;
    mapped_ = use_huge ? (size + huge - 1) / huge * huge : size;
    map(MAP_PRIVATE | MAP_ANONYMOUS, -1,
        fmt::format("cannot allocate {} bytes to update '{}'", size, path.string()));
    // Advice: when the kernel refuses it, only speed is lost.
    if (use_huge) ::madvise(addr_, static_cast<std::size_t>(mapped_), MADV_HUGEPAGE);
  }
  private_mapping(const private_mapping&) = delete;
  private_mapping& operator=(const private_mapping&) = delete;
  ~private_mapping() { ::munmap(addr_, static_cast<std::size_t>(mapped_)); }
  [[nodiscard]] unsigned char* data() const noexcept { return static_cast<unsigned char*>(addr_); }
  [[nodiscard]] std::string_view bytes() const noexcept {
    return {static_cast<const char*>(addr_), static_cast<std::size_t>(size_)};
  }

 private:
  void map(int flags, int fd, const std::string& what) {
    addr_ =
        ::mmap(nullptr, static_cast<std::size_t>(mapped_), PROT_READ | PROT_WRITE, flags, fd, 0);
    if (addr_ == MAP_FAILED) throw io_error(fmt::format("{}: {}", what, std::strerror(errno)));
  }

  void* addr_ = nullptr;
  std::uint64_t size_;
  std::uint64_t mapped_ = 0;
};

// Versions 2 and 3 have regions and are patched in place (keeping their
// version: the filter read from them keeps its position rule); version 1
// (and anything unknown, which the whole path refuses) is rewritten whole.
bool patchable_version(std::uint16_t version) { return version == 2 || version == 3; }

// The filter in `bytes`, every check made (regions included), viewing the
// words in place (any non-null keepalive: the caller owns the bytes).
any_filter view_of(std::string_view bytes) {
  return detail::parse_filter_file(bytes, std::make_shared<const int>(0));
}

// Adds `items` to the image `bytes` (at `p`, 8-byte aligned) of a whole
// file whose kind adds in place and whose version has regions, which
// parse_filter_file checked whole into `view`: the bits set, every region
// and the head re-sealed.
void add_to_image(unsigned char* p, std::string_view bytes, const any_filter& view,
                  std::span<const std::string_view> items, std::uint64_t* items_now) {
  const detail::filter_geometry g = detail::check_filter_head(bytes);
  add_in_place(p, reinterpret_cast<std::uint64_t*>(p + g.payload_start), view, items);
  for (std::uint64_t r = 0; r < g.regions; ++r) {
    io::store_le<std::uint64_t>(p + g.table_at + 8 * r, detail::filter_region_checksum(p, g, r));
  }
  detail::seal_filter_head(p, g);
  if (items_now != nullptr) *items_now = io::load_le<std::uint64_t>(p + detail::filter_off_items);
}

// One checkpoint of a streamed add, patching the locked file: the header and
// region table are read and checked, the items' bits set in a private
// mapping (so only the pages they touch are read), and the regions that
// changed are checked on disk, re-sealed and staged with the header, their
// table entries and the head checksum. A checkpoint of many items (a long
// stream) reads the file whole into anonymous memory (private_mapping), checks it, sets the bits
// and replaces the file; a file of version 1, or of a kind that does not add
// in place, is read whole, decoded and replaced.
void patch_add(io::locked_file& file, std::span<const std::string_view> items,
               std::uint64_t* items_now) {
  const std::uint64_t size = file.size();
  std::array<char, detail::filter_header_bytes> head{};
  bool in_place = false;
  bool whole = true;
  if (size >= head.size() + io::checksum_bytes) {
    file.read(0, head.data(), head.size());
    const auto kind = peek_filter_kind_bytes(std::string_view(head.data(), head.size()));
    if (kind) refuse_static_add(file.path(), *kind);  // before reading more
    const auto* h = reinterpret_cast<const unsigned char*>(head.data());
    in_place = kind && adds_in_place(*kind) &&
               patchable_version(io::load_le<std::uint16_t>(h + io::version_offset));
    // Items that will change a quarter of the regions or more (a long
    // stream): reading, checking and rewriting the file whole costs less
    // than checking each changed region on disk and writing it twice.
    const std::uint64_t regions = io::load_le<std::uint32_t>(h + detail::filter_off_regions);
    whole = !in_place || items.size() >= regions / 4;
  }
  if (whole && in_place) {
    // Read into anonymous huge pages rather than a mapping of the file,
    // whose copy-on-write faults come one 4 KiB page at a time.
    io::require_memory(size, fmt::format("updating '{}' whole", file.path().string()),
                       "add fewer items per checkpoint (--checkpoint-items), or use a machine "
                       "with more memory");
    const private_mapping image(size, file.path());
    file.read(0, image.data(), size);
    io::with_path(file.path(), [&] {
      add_to_image(image.data(), image.bytes(), view_of(image.bytes()), items, items_now);
    });
    file.replace(image.bytes());
    return;
  }
  if (whole) {
    // The old bytes and the new ones are held at once (as edit_file_locked
    // refuses a file that does not fit twice).
    io::require_memory(2 * size, fmt::format("updating '{}' whole", file.path().string()),
                       "add fewer items per checkpoint (--checkpoint-items), or use a machine "
                       "with more memory");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    file.read(0, bytes.data(), bytes.size());
    if (const auto kind = peek_filter_kind_bytes(bytes)) refuse_static_add(file.path(), *kind);
    io::with_path(file.path(), [&] { add_to_filter_bytes(bytes, items); });
    if (items_now != nullptr) {
      *items_now = io::load_le<std::uint64_t>(reinterpret_cast<const unsigned char*>(bytes.data()) +
                                              detail::filter_off_items);
    }
    file.replace(bytes);
    return;
  }
  const private_mapping map(file.descriptor(), size, file.path());
  unsigned char* p = map.data();
  const auto g = io::with_path(file.path(), [&] { return detail::check_filter_head(map.bytes()); });
  const auto no_owner = std::make_shared<const int>(0);
  const any_filter view = io::with_path(
      file.path(), [&] { return detail::parse_filter_file(map.bytes(), no_owner, false); });
  add_in_place(p, reinterpret_cast<std::uint64_t*>(p + g.payload_start), view, items);
  if (items_now != nullptr) *items_now = io::load_le<std::uint64_t>(p + detail::filter_off_items);

  // The regions written to: those of the pages copied, or every region when
  // the kernel does not say.
  std::vector<std::uint64_t> candidates;
  const std::uint64_t data_end = size - io::checksum_bytes;
  if (const auto pages = written_pages(p, size)) {
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    for (const std::uint64_t pg : *pages) {
      const std::uint64_t begin = std::max(pg * page, g.payload_start);
      const std::uint64_t end = std::min((pg + 1) * page, data_end);
      if (begin >= end) continue;
      for (std::uint64_t r = (begin - g.payload_start) / detail::filter_region_bytes;
           r <= (end - 1 - g.payload_start) / detail::filter_region_bytes; ++r) {
        if (candidates.empty() || candidates.back() < r) candidates.push_back(r);
      }
    }
  } else {
    for (std::uint64_t r = 0; r < g.regions; ++r) candidates.push_back(r);
  }
  // A region whose bytes changed is checked as it is on disk before its new
  // checksum replaces the old: a damaged region is refused, never re-sealed.
  std::vector<std::uint64_t> changed;
  std::string old;
  for (const std::uint64_t r : candidates) {
    unsigned char* entry = p + g.table_at + 8 * r;
    const auto stored = io::load_le<std::uint64_t>(entry);
    const std::uint64_t now = detail::filter_region_checksum(p, g, r);
    if (now == stored) continue;
    old.resize(static_cast<std::size_t>(g.region_end(r) - g.region_begin(r)));
    file.read(g.region_begin(r), old.data(), old.size());
    if (const std::uint64_t was = xxh3_64(old, 0); was != stored) {
      io::with_path(file.path(), [&] {
        detail::corrupt_filter_file(
            fmt::format("region {} of the filter file (bytes {}..{}) does not match its "
                        "checksum (stored {:016x}, computed {:016x})",
                        r, g.region_begin(r), g.region_end(r), stored, was));
        return 0;
      });
    }
    io::store_le<std::uint64_t>(entry, now);
    changed.push_back(r);
  }
  detail::seal_filter_head(p, g);

  // Most of the file changed after all: one atomic rewrite costs less than
  // writing it twice, through the journal and in place.
  if (changed.size() * detail::filter_region_bytes > size / 4) {
    file.replace(map.bytes());
    return;
  }
  // Stage runs of adjacent changed regions and of their table entries, the
  // header with the layer entry, and the head checksum.
  const auto stage = [&](std::uint64_t begin, std::uint64_t end) {
    file.write(begin, map.bytes().substr(static_cast<std::size_t>(begin),
                                         static_cast<std::size_t>(end - begin)));
  };
  for (std::size_t i = 0; i < changed.size();) {
    std::size_t j = i + 1;
    while (j < changed.size() && changed[j] == changed[j - 1] + 1) ++j;
    stage(g.region_begin(changed[i]), g.region_end(changed[j - 1]));
    stage(g.table_at + 8 * changed[i], g.table_at + 8 * (changed[j - 1] + 1));
    i = j;
  }
  stage(0, detail::filter_header_bytes + detail::filter_layer_entry_bytes);
  stage(data_end, size);
}

}  // namespace

void add_to_filter_bytes(std::string& file, std::span<const std::string_view> items) {
  // Parsed as a view (any non-null keepalive): every check, no copy.
  const auto no_owner = std::make_shared<const int>(0);
  const any_filter view = detail::parse_filter_file(file, no_owner);
  auto* p = reinterpret_cast<unsigned char*>(file.data());
  if (!patchable_version(io::load_le<std::uint16_t>(p + io::version_offset)) ||
      !adds_in_place(view.kind())) {
    // Decoded and written anew (a version-1 file becomes version 2 or 3).
    any_filter f = detail::parse_filter_file(file, nullptr);
    f.add_many(items);
    file = serialize_filter(f);
    return;
  }
  // The words are 8-byte aligned: `file` comes from the allocator (16-byte
  // aligned) and the payload offset is a multiple of 64.
  add_to_image(p, file, view, items, nullptr);
}

io::checkpointed_stream add_filter_stream(const std::filesystem::path& path,
                                          io::checkpoint_policy policy,
                                          std::uint64_t* items_in_file) {
  return io::checkpointed_stream::patching(
      path,
      [items_in_file](io::locked_file& file, std::span<const std::string_view> items) {
        patch_add(file, items, items_in_file);
      },
      policy);
}

}  // namespace ringbloom
