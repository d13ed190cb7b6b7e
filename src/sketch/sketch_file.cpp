// Sketch files (include/ringbloom/sketch/sketch_file.hpp, docs/format.md).
#include "ringbloom/sketch/sketch_file.hpp"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"
#include "ringbloom/io/format.hpp"
#include "ringbloom/io/mapped_file.hpp"

namespace ringbloom {

namespace {

constexpr std::size_t header_bytes = 64;
constexpr io::envelope envelope{{0x89, 'R', 'B', 'S', '\r', '\n', 0x1a, '\n'},
                                sketch_format_version,
                                header_bytes + io::checksum_bytes,
                                "sketch file",
                                "sketch"};

// Header field offsets (docs/format.md).
constexpr std::size_t off_kind = 10;
constexpr std::size_t off_variant = 11;
constexpr std::size_t off_a = 12;  // hll p, cms width, topk k
constexpr std::size_t off_seed = 16;
constexpr std::size_t off_count = 24;  // cms total N, topk rng state, hll 0
constexpr std::size_t off_b = 40;      // cms depth, topk width
constexpr std::size_t off_c = 44;      // topk depth
constexpr std::size_t off_decay = 48;  // topk decay
constexpr std::size_t off_reserved = 56;

std::size_t topk_heap_bytes(const top_k& t) {
  std::size_t n = 0;
  for (const auto& e : t.heap()) n += 8 + e.item.size();
  return n;
}

std::size_t payload_bytes(const any_sketch& s) {
  struct {
    std::size_t operator()(const hyperloglog& h) const { return h.register_count(); }
    std::size_t operator()(const count_min_sketch& c) const { return c.counters().size() * 4; }
    std::size_t operator()(const top_k& t) const {
      return t.buckets().size() * 8 + topk_heap_bytes(t);
    }
  } size_of;
  return std::visit(size_of, s);
}

void write_header(unsigned char* p, const any_sketch& s, std::uint64_t size) {
  std::memcpy(p, envelope.magic.data(), envelope.magic.size());
  io::store_le<std::uint16_t>(p + io::version_offset, sketch_format_version);
  p[off_kind] = static_cast<unsigned char>(kind_of(s));
  io::store_le<std::uint64_t>(p + io::file_size_offset, size);
  if (const auto* h = std::get_if<hyperloglog>(&s)) {
    p[off_variant] = static_cast<unsigned char>(h->mode());
    io::store_le<std::uint32_t>(p + off_a, h->precision());
    io::store_le<std::uint64_t>(p + off_seed, h->seed());
  } else if (const auto* c = std::get_if<count_min_sketch>(&s)) {
    p[off_variant] = c->conservative() ? 1 : 0;
    io::store_le<std::uint32_t>(p + off_a, c->width());
    io::store_le<std::uint64_t>(p + off_seed, c->seed());
    io::store_le<std::uint64_t>(p + off_count, c->total());
    io::store_le<std::uint32_t>(p + off_b, c->depth());
  } else {
    const auto& t = std::get<top_k>(s);
    io::store_le<std::uint32_t>(p + off_a, t.k());
    io::store_le<std::uint64_t>(p + off_seed, t.seed());
    io::store_le<std::uint64_t>(p + off_count, t.rng_state());
    io::store_le<std::uint32_t>(p + off_b, t.width());
    io::store_le<std::uint32_t>(p + off_c, t.depth());
    io::store_f64(p + off_decay, t.decay());
  }
}

void write_payload(unsigned char* p, const any_sketch& s) {
  if (const auto* h = std::get_if<hyperloglog>(&s)) {
    std::memcpy(p, h->registers().data(), h->register_count());
  } else if (const auto* c = std::get_if<count_min_sketch>(&s)) {
    for (const std::uint32_t v : c->counters()) {
      io::store_le(p, v);
      p += 4;
    }
  } else {
    const auto& t = std::get<top_k>(s);
    for (const auto& b : t.buckets()) {
      io::store_le(p, b.fingerprint);
      io::store_le(p + 4, b.count);
      p += 8;
    }
    for (const auto& e : t.heap()) {
      io::store_le(p, e.count);
      io::store_le(p + 4, static_cast<std::uint32_t>(e.item.size()));
      std::memcpy(p + 8, e.item.data(), e.item.size());
      p += 8 + e.item.size();
    }
  }
}

[[noreturn]] void corrupt(std::string_view what) { io::corrupt(envelope, what); }

// Builds with the library's own checks; their invalid_argument becomes data_error.
template <class Fn>
auto build(Fn&& fn) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    corrupt(fmt::format("the sketch file records parameters the library refuses ({})", e.what()));
  }
}

struct reader {
  const unsigned char* data;
  std::uint64_t payload;  // payload bytes available (before padding and checksum)

  void need(std::uint64_t bytes, std::string_view what) const {
    if (bytes > payload) {
      corrupt(fmt::format("the sketch file is too short for its {} ({} bytes needed, {} there)",
                          what, bytes, payload));
    }
  }
};

std::uint64_t padded_end(std::uint64_t used) { return io::align_up(header_bytes + used); }

void check_tail(const reader& r, std::uint64_t used, std::uint64_t size) {
  if (padded_end(used) + io::checksum_bytes != size) {
    corrupt(fmt::format("the sketch file has {} bytes but its content accounts for {}", size,
                        padded_end(used) + io::checksum_bytes));
  }
  if (!io::all_zero(r.data + header_bytes + used, padded_end(used) - header_bytes - used)) {
    corrupt("the sketch file has non-zero padding after its payload");
  }
}

void check_unused(const unsigned char* data, std::initializer_list<std::size_t> zero_u32,
                  bool decay_zero, bool count_zero) {
  for (const std::size_t off : zero_u32) {
    if (io::load_le<std::uint32_t>(data + off) != 0) {
      corrupt(fmt::format("the sketch file has a non-zero unused header field at offset {}", off));
    }
  }
  if (decay_zero && io::load_le<std::uint64_t>(data + off_decay) != 0) {
    corrupt("the sketch file has a non-zero unused header field at offset 48");
  }
  if (count_zero && io::load_le<std::uint64_t>(data + off_count) != 0) {
    corrupt("the sketch file has a non-zero unused header field at offset 24");
  }
}

// The HyperLogLog header and length checks; the registers start at offset 64.
struct hll_fields {
  unsigned precision;
  hll_mode mode;
  std::uint64_t seed;
  std::span<const std::uint8_t> registers;
};

hll_fields check_hll(const reader& r, std::uint64_t size) {
  const auto* d = r.data;
  const auto p = io::load_le<std::uint32_t>(d + off_a);
  if (d[off_variant] > 1) corrupt(fmt::format("unknown HyperLogLog mode {}", d[off_variant]));
  if (p < hyperloglog::min_precision || p > hyperloglog::max_precision) {
    corrupt(fmt::format("the sketch file records HyperLogLog precision {}, outside 4..18", p));
  }
  check_unused(d, {off_b, off_c}, true, true);
  const std::uint64_t m = std::uint64_t{1} << p;
  r.need(m, "registers");
  check_tail(r, m, size);
  return {p, static_cast<hll_mode>(d[off_variant]), io::load_le<std::uint64_t>(d + off_seed),
          std::span<const std::uint8_t>(d + header_bytes, static_cast<std::size_t>(m))};
}

any_sketch parse_hll(const reader& r, std::uint64_t size) {
  const hll_fields f = check_hll(r, size);
  std::vector<std::uint8_t> regs(f.registers.begin(), f.registers.end());
  return build(
      [&] { return hyperloglog::from_registers(f.precision, f.mode, f.seed, std::move(regs)); });
}

hll_view view_hll(const reader& r, std::uint64_t size, const std::shared_ptr<const void>& keep) {
  const hll_fields f = check_hll(r, size);
  return build([&] { return hll_view(f.precision, f.mode, f.seed, f.registers, keep); });
}

// The Count-Min header and length checks; the counters start at offset 64.
struct cms_fields {
  std::uint32_t width;
  std::uint32_t depth;
  bool conservative;
  std::uint64_t seed;
  std::uint64_t total;
  const unsigned char* counters;
};

cms_fields check_cms(const reader& r, std::uint64_t size) {
  const auto* d = r.data;
  const auto width = io::load_le<std::uint32_t>(d + off_a);
  const auto depth = io::load_le<std::uint32_t>(d + off_b);
  if (d[off_variant] > 1) corrupt(fmt::format("unknown Count-Min variant {}", d[off_variant]));
  check_unused(d, {off_c}, true, false);
  const std::uint64_t n = std::uint64_t{width} * depth;
  r.need(n * 4, "counters");
  check_tail(r, n * 4, size);
  return {width,
          depth,
          d[off_variant] == 1,
          io::load_le<std::uint64_t>(d + off_seed),
          io::load_le<std::uint64_t>(d + off_count),
          d + header_bytes};
}

any_sketch parse_cms(const reader& r, std::uint64_t size) {
  const cms_fields f = check_cms(r, size);
  std::vector<std::uint32_t> counters(static_cast<std::size_t>(std::uint64_t{f.width} * f.depth));
  for (std::size_t i = 0; i < counters.size(); ++i) {
    counters[i] = io::load_le<std::uint32_t>(f.counters + 4 * i);
  }
  return build([&] {
    return count_min_sketch::from_counters(f.width, f.depth, f.conservative, f.seed, f.total,
                                           std::move(counters));
  });
}

count_min_view view_cms(const reader& r, std::uint64_t size,
                        const std::shared_ptr<const void>& keep) {
  const cms_fields f = check_cms(r, size);
  return build([&] {
    return count_min_view(f.width, f.depth, f.conservative, f.seed, f.total, f.counters, keep);
  });
}

any_sketch parse_topk(const reader& r, std::uint64_t size) {
  const auto* d = r.data;
  const auto k = io::load_le<std::uint32_t>(d + off_a);
  const auto width = io::load_le<std::uint32_t>(d + off_b);
  const auto depth = io::load_le<std::uint32_t>(d + off_c);
  const double decay = io::load_f64(d + off_decay);
  if (d[off_variant] != 0) corrupt(fmt::format("unknown Top-K variant {}", d[off_variant]));
  if (k < 1 || k > top_k::max_k) corrupt(fmt::format("the sketch file records Top-K k = {}", k));
  const std::uint64_t buckets = std::uint64_t{width} * depth;
  r.need(buckets * 8 + std::uint64_t{k} * 8, "Top-K buckets and heap");
  std::vector<top_k::bucket> bs(static_cast<std::size_t>(buckets));
  const unsigned char* p = d + header_bytes;
  for (auto& b : bs) {
    b.fingerprint = io::load_le<std::uint32_t>(p);
    b.count = io::load_le<std::uint32_t>(p + 4);
    p += 8;
  }
  std::uint64_t used = buckets * 8;
  std::vector<top_k::entry> heap(k);
  for (auto& e : heap) {
    r.need(used + 8, "Top-K heap");
    e.count = io::load_le<std::uint32_t>(d + header_bytes + used);
    const auto len = io::load_le<std::uint32_t>(d + header_bytes + used + 4);
    r.need(used + 8 + len, "Top-K heap items");
    e.item.assign(reinterpret_cast<const char*>(d + header_bytes + used + 8), len);
    used += 8 + len;
  }
  check_tail(r, used, size);
  return build([&] {
    return top_k::from_state(k, width, depth, decay, io::load_le<std::uint64_t>(d + off_seed),
                             io::load_le<std::uint64_t>(d + off_count), std::move(bs),
                             std::move(heap));
  });
}

}  // namespace

std::string_view sketch_kind_name(sketch_kind kind) noexcept {
  switch (kind) {
    case sketch_kind::hyperloglog:
      return "HyperLogLog";
    case sketch_kind::count_min:
      return "Count-Min sketch";
    case sketch_kind::top_k:
      return "Top-K";
  }
  return "unknown sketch";
}

sketch_kind kind_of(const any_sketch& sketch) noexcept {
  return static_cast<sketch_kind>(sketch.index() + 1);
}

std::string serialize_sketch(const any_sketch& sketch) {
  const std::uint64_t used = payload_bytes(sketch);
  const std::uint64_t size = padded_end(used) + io::checksum_bytes;
  std::string out(static_cast<std::size_t>(size), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  write_header(p, sketch, size);
  write_payload(p + header_bytes, sketch);
  io::seal(out);
  return out;
}

namespace {

// The envelope (magic, version, size, checksum), the reserved bytes and the
// kind: what every reader checks before the kind's own fields.
std::pair<sketch_kind, reader> check_file(std::string_view bytes) {
  io::check_envelope(bytes, envelope);
  const auto* d = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t size = bytes.size();
  if (io::load_le<std::uint64_t>(d + off_reserved) != 0) {
    corrupt("the sketch file has non-zero reserved header bytes");
  }
  const reader r{d, size - header_bytes - io::checksum_bytes};
  switch (d[off_kind]) {
    case static_cast<unsigned char>(sketch_kind::hyperloglog):
    case static_cast<unsigned char>(sketch_kind::count_min):
    case static_cast<unsigned char>(sketch_kind::top_k):
      return {static_cast<sketch_kind>(d[off_kind]), r};
    default:
      break;
  }
  corrupt(fmt::format("the sketch file records an unknown sketch kind {}", d[off_kind]));
}

}  // namespace

mapped_sketch view_sketch(std::string_view bytes, std::shared_ptr<const void> keepalive) {
  const auto [kind, r] = check_file(bytes);
  switch (kind) {
    case sketch_kind::hyperloglog:
      return view_hll(r, bytes.size(), keepalive);
    case sketch_kind::count_min:
      return view_cms(r, bytes.size(), keepalive);
    case sketch_kind::top_k:
      break;
  }
  return std::get<top_k>(parse_topk(r, bytes.size()));  // variable-length heap: decoded
}

any_sketch deserialize_sketch(std::string_view bytes) {
  const auto [kind, r] = check_file(bytes);
  switch (kind) {
    case sketch_kind::hyperloglog:
      return parse_hll(r, bytes.size());
    case sketch_kind::count_min:
      return parse_cms(r, bytes.size());
    case sketch_kind::top_k:
      break;
  }
  return parse_topk(r, bytes.size());
}

sketch_kind kind_of(const mapped_sketch& sketch) noexcept {
  return static_cast<sketch_kind>(sketch.index() + 1);
}

mapped_sketch open_sketch_mapped(const std::filesystem::path& path) {
  const auto file = io::mapped_file::open(path);
  // A pipe's bytes are held by `file` too, so the views may point into them.
  mapped_sketch s = io::with_path(path, [&] { return view_sketch(file->bytes(), file); });
  if (kind_of(s) == sketch_kind::count_min) file->advise_random();
  return s;
}

void save_sketch(const std::filesystem::path& path, const any_sketch& sketch) {
  io::write_file_atomic(path, serialize_sketch(sketch));
}

any_sketch load_sketch(const std::filesystem::path& path) {
  const std::string bytes = io::read_file(path);
  return io::with_path(path, [&] { return deserialize_sketch(bytes); });
}

namespace {

template <class T>
constexpr sketch_kind kind_for() {
  if constexpr (std::is_same_v<T, hyperloglog>) return sketch_kind::hyperloglog;
  if constexpr (std::is_same_v<T, count_min_sketch>) return sketch_kind::count_min;
  return sketch_kind::top_k;
}

}  // namespace

template <class T>
T& sketch_as(any_sketch& sketch, const std::filesystem::path& path) {
  if (auto* t = std::get_if<T>(&sketch)) return *t;
  throw data_error(fmt::format("{} holds a {}, not a {}; give a {} file", path.string(),
                               sketch_kind_name(kind_of(sketch)), sketch_kind_name(kind_for<T>()),
                               sketch_kind_name(kind_for<T>())));
}

template <class T>
constexpr sketch_kind kind_for_view() {
  if constexpr (std::is_same_v<T, hll_view>) return sketch_kind::hyperloglog;
  if constexpr (std::is_same_v<T, count_min_view>) return sketch_kind::count_min;
  return sketch_kind::top_k;
}

template <class T>
T open_sketch_mapped_as(const std::filesystem::path& path) {
  mapped_sketch s = open_sketch_mapped(path);
  if (auto* t = std::get_if<T>(&s)) return std::move(*t);
  throw data_error(fmt::format("{} holds a {}, not a {}; give a {} file", path.string(),
                               sketch_kind_name(kind_of(s)), sketch_kind_name(kind_for_view<T>()),
                               sketch_kind_name(kind_for_view<T>())));
}

template hll_view open_sketch_mapped_as<hll_view>(const std::filesystem::path&);
template count_min_view open_sketch_mapped_as<count_min_view>(const std::filesystem::path&);
template top_k open_sketch_mapped_as<top_k>(const std::filesystem::path&);

template <class T>
T load_sketch_as(const std::filesystem::path& path) {
  any_sketch s = load_sketch(path);
  return std::move(sketch_as<T>(s, path));
}

template hyperloglog load_sketch_as<hyperloglog>(const std::filesystem::path&);
template count_min_sketch load_sketch_as<count_min_sketch>(const std::filesystem::path&);
template top_k load_sketch_as<top_k>(const std::filesystem::path&);
template hyperloglog& sketch_as<hyperloglog>(any_sketch&, const std::filesystem::path&);
template count_min_sketch& sketch_as<count_min_sketch>(any_sketch&, const std::filesystem::path&);
template top_k& sketch_as<top_k>(any_sketch&, const std::filesystem::path&);

void update_sketch_file(const std::filesystem::path& path,
                        const std::function<void(any_sketch&)>& fn) {
  io::update_file_locked(path, [&](const std::string& current) {
    any_sketch s = io::with_path(path, [&] { return deserialize_sketch(current); });
    fn(s);
    return serialize_sketch(s);
  });
}

}  // namespace ringbloom
