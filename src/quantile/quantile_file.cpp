// Quantile files (include/ringbloom/quantile/quantile_file.hpp; the layout
// is drawn in docs/format.md).
#include "ringbloom/quantile/quantile_file.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"

namespace ringbloom {

namespace {

constexpr std::size_t header_bytes = 64;
constexpr std::size_t extremes_bytes = 64;
constexpr std::size_t payload_offset = header_bytes + extremes_bytes;
constexpr io::envelope envelope{{0x89, 'R', 'B', 'Q', '\r', '\n', 0x1a, '\n'},
                                quantile_format_version,
                                payload_offset + io::checksum_bytes,
                                "quantile file",
                                "sketch"};

// Header field offsets (docs/format.md).
constexpr std::size_t off_kind = 10;
constexpr std::size_t off_zero = 11;
constexpr std::size_t off_k = 12;       // KLL k; 0 for a t-digest
constexpr std::size_t off_a = 16;       // t-digest compression (f64) | KLL seed
constexpr std::size_t off_b = 24;       // t-digest total compressions | KLL generator state
constexpr std::size_t off_count = 40;   // t-digest nodes | KLL n
constexpr std::size_t off_count2 = 48;  // t-digest merged nodes | KLL levels
constexpr std::size_t off_reserved = 56;
constexpr std::size_t off_min = 64;
constexpr std::size_t off_max = 72;
constexpr std::size_t off_sum = 80;  // t-digest only; 0 for KLL
constexpr std::size_t off_block_zero = 88;

[[noreturn]] void corrupt(std::string_view what) { io::corrupt(envelope, what); }

std::uint64_t kll_payload(const kll_sketch& s) {
  return (4 * s.levels() + 7) / 8 * 8 + 8 * s.retained();
}

std::uint64_t payload_bytes(const any_quantile& q) {
  if (const auto* t = std::get_if<tdigest>(&q)) return 16 * t->nodes().size();
  return kll_payload(std::get<kll_sketch>(q));
}

}  // namespace

std::string_view quantile_kind_name(quantile_kind kind) noexcept {
  return kind == quantile_kind::tdigest ? "t-digest" : "KLL sketch";
}

quantile_kind kind_of(const any_quantile& sketch) noexcept {
  return static_cast<quantile_kind>(sketch.index() + 1);
}

std::string serialize_quantile(const any_quantile& sketch) {
  const std::uint64_t used = payload_bytes(sketch);
  const std::uint64_t size = io::align_up(payload_offset + used) + io::checksum_bytes;
  std::string out(static_cast<std::size_t>(size), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  std::memcpy(p, envelope.magic.data(), envelope.magic.size());
  io::store_le<std::uint16_t>(p + io::version_offset, quantile_format_version);
  p[off_kind] = static_cast<unsigned char>(kind_of(sketch));
  io::store_le<std::uint64_t>(p + io::file_size_offset, size);
  unsigned char* w = p + payload_offset;
  if (const auto* t = std::get_if<tdigest>(&sketch)) {
    const auto s = t->statistics();
    io::store_f64(p + off_a, t->compression());
    io::store_le<std::uint64_t>(p + off_b, s.total_compressions);
    io::store_le<std::uint64_t>(p + off_count, t->nodes().size());
    io::store_le<std::uint64_t>(p + off_count2, s.merged_nodes);
    io::store_f64(p + off_min, t->min());
    io::store_f64(p + off_max, t->max());
    io::store_f64(p + off_sum, t->sum());
    for (const auto& c : t->nodes()) {
      io::store_f64(w, c.mean);
      io::store_le<std::uint64_t>(w + 8, c.weight);
      w += 16;
    }
  } else {
    const auto& k = std::get<kll_sketch>(sketch);
    io::store_le<std::uint32_t>(p + off_k, k.k());
    io::store_le<std::uint64_t>(p + off_a, k.seed());
    io::store_le<std::uint64_t>(p + off_b, k.rng_state());
    io::store_le<std::uint64_t>(p + off_count, k.count());
    io::store_le<std::uint64_t>(p + off_count2, k.levels());
    io::store_f64(p + off_min, k.min());
    io::store_f64(p + off_max, k.max());
    for (std::size_t h = 0; h < k.levels(); ++h) {
      io::store_le<std::uint32_t>(w + 4 * h, static_cast<std::uint32_t>(k.level(h).size()));
    }
    w += (4 * k.levels() + 7) / 8 * 8;
    for (std::size_t h = 0; h < k.levels(); ++h) {
      for (const double v : k.level(h)) {
        io::store_f64(w, v);
        w += 8;
      }
    }
  }
  io::seal(out);
  return out;
}

any_quantile deserialize_quantile(std::string_view bytes) {
  io::check_envelope(bytes, envelope);
  const auto* d = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  if (d[off_zero] != 0 || io::load_le<std::uint64_t>(d + off_reserved) != 0 ||
      !io::all_zero(d + off_block_zero, payload_offset - off_block_zero)) {
    corrupt("the quantile file has non-zero reserved header bytes");
  }
  const std::uint64_t room = size - payload_offset - io::checksum_bytes;
  const unsigned char* r = d + payload_offset;
  const auto check_tail = [&](std::uint64_t used) {
    if (io::align_up(payload_offset + used) + io::checksum_bytes != size) {
      corrupt(fmt::format("the quantile file has {} bytes but its content accounts for {}", size,
                          io::align_up(payload_offset + used) + io::checksum_bytes));
    }
    if (!io::all_zero(r + used, room - used)) {
      corrupt("the quantile file has non-zero padding after its payload");
    }
  };
  const double min = io::load_f64(d + off_min);
  const double max = io::load_f64(d + off_max);
  // An empty sketch records NaN (the one bit pattern the writer stores) as
  // its min and max.
  const auto check_empty_extremes = [&] {
    const auto nan_bits = std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN());
    if (io::load_le<std::uint64_t>(d + off_min) != nan_bits ||
        io::load_le<std::uint64_t>(d + off_max) != nan_bits) {
      corrupt("the quantile file records an empty sketch with a min or max");
    }
  };
  if (d[off_kind] == static_cast<unsigned char>(quantile_kind::tdigest)) {
    if (io::load_le<std::uint32_t>(d + off_k) != 0) {
      corrupt("the quantile file has non-zero reserved header bytes");
    }
    const std::uint64_t nodes = io::load_le<std::uint64_t>(d + off_count);
    const std::uint64_t merged = io::load_le<std::uint64_t>(d + off_count2);
    if (nodes > room / 16) {
      corrupt(fmt::format("the quantile file is too short for {} t-digest nodes", nodes));
    }
    check_tail(16 * nodes);
    if (nodes == 0) {
      check_empty_extremes();
      if (io::load_le<std::uint64_t>(d + off_sum) != 0) {
        corrupt("the quantile file records an empty t-digest with a sum");
      }
    }
    std::vector<tdigest::centroid> cs(static_cast<std::size_t>(nodes));
    for (std::size_t i = 0; i < cs.size(); ++i) {
      cs[i] = {io::load_f64(r + 16 * i), io::load_le<std::uint64_t>(r + 16 * i + 8)};
    }
    return tdigest::from_state(io::load_f64(d + off_a), min, max, io::load_f64(d + off_sum),
                               io::load_le<std::uint64_t>(d + off_b),
                               static_cast<std::size_t>(merged), cs);
  }
  if (d[off_kind] == static_cast<unsigned char>(quantile_kind::kll)) {
    if (io::load_le<std::uint64_t>(d + off_sum) != 0) {
      corrupt("the quantile file has non-zero reserved header bytes");
    }
    const std::uint64_t levels = io::load_le<std::uint64_t>(d + off_count2);
    if (levels == 0 || levels > kll_sketch::max_levels) {
      corrupt(fmt::format("the quantile file records {} KLL levels (1 to {} expected)", levels,
                          kll_sketch::max_levels));
    }
    const std::uint64_t sizes_bytes = (4 * levels + 7) / 8 * 8;
    if (sizes_bytes > room) corrupt("the quantile file is too short for its KLL level sizes");
    std::uint64_t values = 0;
    for (std::uint64_t h = 0; h < levels; ++h) values += io::load_le<std::uint32_t>(r + 4 * h);
    if (values > (room - sizes_bytes) / 8) {
      corrupt(fmt::format("the quantile file is too short for {} KLL values", values));
    }
    check_tail(sizes_bytes + 8 * values);
    if (io::load_le<std::uint64_t>(d + off_count) == 0) check_empty_extremes();
    if (!io::all_zero(r + 4 * levels, sizes_bytes - 4 * levels)) {
      corrupt("the quantile file has non-zero padding after its KLL level sizes");
    }
    std::vector<std::vector<double>> ls(static_cast<std::size_t>(levels));
    const unsigned char* v = r + sizes_bytes;
    for (std::size_t h = 0; h < ls.size(); ++h) {
      ls[h].resize(io::load_le<std::uint32_t>(r + 4 * h));
      for (double& x : ls[h]) {
        x = io::load_f64(v);
        v += 8;
      }
    }
    return kll_sketch::from_state(
        io::load_le<std::uint32_t>(d + off_k), io::load_le<std::uint64_t>(d + off_a),
        io::load_le<std::uint64_t>(d + off_b), io::load_le<std::uint64_t>(d + off_count), min, max,
        std::move(ls));
  }
  corrupt(fmt::format("the quantile file records an unknown sketch kind {}", d[off_kind]));
}

void save_quantile(const std::filesystem::path& path, const any_quantile& sketch) {
  io::write_file_atomic(path, serialize_quantile(sketch));
}

any_quantile load_quantile(const std::filesystem::path& path) {
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return deserialize_quantile(bytes); });
}

template <class T>
T load_quantile_as(const std::filesystem::path& path) {
  any_quantile q = load_quantile(path);
  if (auto* t = std::get_if<T>(&q)) return std::move(*t);
  const quantile_kind want =
      std::is_same_v<T, tdigest> ? quantile_kind::tdigest : quantile_kind::kll;
  throw data_error(fmt::format("{}: the file holds a {}, not a {}; use a {} file", path.string(),
                               quantile_kind_name(kind_of(q)), quantile_kind_name(want),
                               quantile_kind_name(want)));
}

template tdigest load_quantile_as<tdigest>(const std::filesystem::path&);
template kll_sketch load_quantile_as<kll_sketch>(const std::filesystem::path&);

void update_quantile_file(const std::filesystem::path& path,
                          const std::function<void(any_quantile&)>& fn) {
  io::update_file_locked(path, [&](const std::string& current) {
    any_quantile q = io::with_path(path, [&] { return deserialize_quantile(current); });
    fn(q);
    return serialize_quantile(q);
  });
}

}  // namespace ringbloom
