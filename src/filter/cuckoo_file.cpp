// Cuckoo filter files (include/ringbloom/filter/cuckoo.hpp, docs/format.md).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/cuckoo.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/mapped_file.hpp"

namespace ringbloom {

namespace {

constexpr std::size_t header_bytes = 64;
constexpr io::envelope envelope{{0x89, 'R', 'B', 'C', '\r', '\n', 0x1a, '\n'},
                                cuckoo_format_version,
                                header_bytes + io::checksum_bytes,
                                "cuckoo filter file",
                                "cuckoo filter"};

constexpr std::size_t off_bucket_size = 10;
constexpr std::size_t off_fingerprint_bits = 11;
constexpr std::size_t off_sub_filters = 12;
constexpr std::size_t off_seed = 16;
constexpr std::size_t off_items = 24;
constexpr std::size_t off_capacity = 40;
constexpr std::size_t off_deletes = 48;
constexpr std::size_t off_max_kicks = 56;
constexpr std::size_t off_expansion = 58;
constexpr std::size_t off_reserved = 60;

std::uint64_t slot_bytes(std::uint64_t buckets, std::uint32_t b, std::uint32_t bits) {
  return (buckets * b * bits + 7) / 8;
}

[[noreturn]] void corrupt(std::string_view what) { io::corrupt(envelope, what); }

}  // namespace

std::string serialize_cuckoo(const cuckoo_filter& f) {
  const auto& o = f.settings();
  std::uint64_t size = header_bytes;
  for (const auto& s : f.sub_filters()) {
    size += io::align_up(slot_bytes(s.buckets, o.bucket_size, o.fingerprint_bits));
  }
  size += io::checksum_bytes;
  std::string out(static_cast<std::size_t>(size), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), envelope.magic.size());
  io::store_le<std::uint16_t>(p + io::version_offset, cuckoo_format_version);
  p[off_bucket_size] = static_cast<unsigned char>(o.bucket_size);
  p[off_fingerprint_bits] = static_cast<unsigned char>(o.fingerprint_bits);
  io::store_le<std::uint32_t>(p + off_sub_filters,
                              static_cast<std::uint32_t>(f.sub_filters().size()));
  io::store_le<std::uint64_t>(p + off_seed, o.seed);
  io::store_le<std::uint64_t>(p + off_items, f.items());
  io::store_le<std::uint64_t>(p + io::file_size_offset, size);
  io::store_le<std::uint64_t>(p + off_capacity, f.capacity());
  io::store_le<std::uint64_t>(p + off_deletes, f.deletes());
  io::store_le<std::uint16_t>(p + off_max_kicks, static_cast<std::uint16_t>(o.max_kicks));
  io::store_le<std::uint16_t>(p + off_expansion, static_cast<std::uint16_t>(o.expansion));
  std::uint64_t at = header_bytes;
  for (const auto& s : f.sub_filters()) {
    const std::uint64_t n = slot_bytes(s.buckets, o.bucket_size, o.fingerprint_bits);
    std::memcpy(p + at, s.bytes.data(), static_cast<std::size_t>(n));
    at += io::align_up(n);
  }
  io::seal(out);
  return out;
}

namespace {

// What a reader checks before it trusts a sub-filter: the envelope, the
// header fields, the growth rule's sizes, zero padding, the total size. The
// sub-filters' slots then lie at `offsets` (each `slot_bytes` long, followed
// by padding, the next sub-filter or the checksum).
struct cuckoo_fields {
  std::uint64_t capacity = 0;
  cuckoo_filter::options options;
  std::uint64_t items = 0;
  std::uint64_t deletes = 0;
  std::vector<std::uint64_t> buckets;
  std::vector<std::uint64_t> offsets;
};

cuckoo_fields check_cuckoo(std::string_view bytes) {
  io::check_envelope(bytes, envelope);
  const auto* d = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  if (io::load_le<std::uint32_t>(d + off_reserved) != 0) {
    corrupt("the cuckoo filter file has non-zero reserved header bytes");
  }
  cuckoo_fields f;
  cuckoo_filter::options& o = f.options;
  o.bucket_size = d[off_bucket_size];
  o.fingerprint_bits = d[off_fingerprint_bits];
  o.seed = io::load_le<std::uint64_t>(d + off_seed);
  o.max_kicks = io::load_le<std::uint16_t>(d + off_max_kicks);
  o.expansion = io::load_le<std::uint16_t>(d + off_expansion);
  const auto count = io::load_le<std::uint32_t>(d + off_sub_filters);
  f.capacity = io::load_le<std::uint64_t>(d + off_capacity);
  f.items = io::load_le<std::uint64_t>(d + off_items);
  f.deletes = io::load_le<std::uint64_t>(d + off_deletes);
  // Check the options on a one-item filter (cheap), and the capacity before
  // any allocation of its size: the sub-filters must be in the file first.
  try {
    (void)cuckoo_filter(1, o);
  } catch (const std::invalid_argument& e) {
    corrupt(
        fmt::format("the cuckoo filter file records options the library refuses ({})", e.what()));
  }
  if (f.capacity < 1 || f.capacity / o.bucket_size > cuckoo_filter::max_buckets) {
    corrupt(fmt::format("the cuckoo filter file records capacity {}, outside 1 .. 2^40 buckets",
                        f.capacity));
  }
  if (count < 1 || count > cuckoo_filter::max_sub_filters) {
    corrupt(fmt::format("the cuckoo filter file records {} sub-filters, not 1 to {}", count,
                        cuckoo_filter::max_sub_filters));
  }
  std::uint64_t at = header_bytes;
  std::uint64_t buckets = std::bit_ceil(std::max<std::uint64_t>(f.capacity / o.bucket_size, 1));
  for (std::uint32_t i = 0; i < count; ++i) {
    if (i > 0) {
      if (o.expansion == 0 || buckets > cuckoo_filter::max_buckets / o.expansion) {
        corrupt("the cuckoo filter file's sub-filters do not follow its growth rule");
      }
      buckets *= o.expansion;
    }
    const std::uint64_t n = slot_bytes(buckets, o.bucket_size, o.fingerprint_bits);
    if (at + io::align_up(n) + io::checksum_bytes > size) {
      corrupt(fmt::format("the cuckoo filter file is too short for sub-filter {}", i));
    }
    if (!io::all_zero(d + at + n, io::align_up(n) - n)) {
      corrupt(fmt::format("the cuckoo filter file has non-zero padding after sub-filter {}", i));
    }
    f.buckets.push_back(buckets);
    f.offsets.push_back(at);
    at += io::align_up(n);
  }
  if (at + io::checksum_bytes != size) {
    corrupt(fmt::format("the cuckoo filter file has {} bytes but its sub-filters account for {}",
                        size, at + io::checksum_bytes));
  }
  return f;
}

// The library's own refusals of a state (growth rule, fingerprint count) as
// the file's data_error.
template <class Fn>
auto built(Fn&& fn) {
  try {
    return fn();
  } catch (const data_error& e) {
    corrupt(e.what());
  } catch (const std::invalid_argument& e) {
    corrupt(e.what());
  }
}

}  // namespace

cuckoo_filter deserialize_cuckoo(std::string_view bytes) {
  const cuckoo_fields f = check_cuckoo(bytes);
  const auto* d = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto& o = f.options;
  std::vector<cuckoo_filter::sub_filter> subs;
  for (std::size_t i = 0; i < f.buckets.size(); ++i) {
    const std::uint64_t n = slot_bytes(f.buckets[i], o.bucket_size, o.fingerprint_bits);
    cuckoo_filter::sub_filter s;
    s.buckets = f.buckets[i];
    s.bytes.assign(d + f.offsets[i], d + f.offsets[i] + n);
    s.bytes.resize(static_cast<std::size_t>(n) + cuckoo_filter::slack_bytes(o), 0);
    subs.push_back(std::move(s));
  }
  return built([&] {
    return cuckoo_filter::from_state(f.capacity, o, f.items, f.deletes, std::move(subs));
  });
}

void save_cuckoo(const std::filesystem::path& path, const cuckoo_filter& filter) {
  io::write_file_atomic(path, serialize_cuckoo(filter));
}

cuckoo_filter load_cuckoo(const std::filesystem::path& path) {
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return deserialize_cuckoo(bytes); });
}

cuckoo_view view_cuckoo(std::string_view bytes, std::shared_ptr<const void> keepalive) {
  const cuckoo_fields f = check_cuckoo(bytes);
  const auto* d = reinterpret_cast<const unsigned char*>(bytes.data());
  std::vector<cuckoo_view::sub_view> subs;
  for (std::size_t i = 0; i < f.buckets.size(); ++i) {
    subs.push_back({f.buckets[i], d + f.offsets[i]});
  }
  return built([&] {
    return cuckoo_view::from_state(f.capacity, f.options, f.items, f.deletes, std::move(subs),
                                   std::move(keepalive));
  });
}

cuckoo_view open_cuckoo_mapped(const std::filesystem::path& path) {
  const auto file = io::mapped_file::open(path);
  // A pipe's bytes are held by `file` too, so the view may point into them.
  cuckoo_view v = io::with_path(path, [&] { return view_cuckoo(file->bytes(), file); });
  file->advise_random();  // lookups probe two scattered buckets per sub-filter
  return v;
}

void update_cuckoo_file(const std::filesystem::path& path,
                        const std::function<void(cuckoo_filter&)>& fn) {
  io::update_file_locked(path, [&](const std::string& current) {
    cuckoo_filter f = io::with_path(path, [&] { return deserialize_cuckoo(current); });
    fn(f);
    return serialize_cuckoo(f);
  });
}

}  // namespace ringbloom
