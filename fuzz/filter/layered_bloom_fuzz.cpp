// libFuzzer target over the layered Bloom filter's three serialized forms,
// the bytes BF.LOADCHUNK and RDB loading hand it from outside.
//
// The first input byte picks the form, the rest is its bytes:
//   0  a header (BF.SCANDUMP's first chunk): from_header; accepted headers
//      must serialise back to the same bytes (a version-1 header: to the
//      same filter in the current version).
//   1  a chunk of words, loaded into a fixed filter of three layers:
//      an accepted chunk keeps the filter's shape and counts, a refused one
//      changes no word.
//   2  the RDB form: parts of [u32 length][bytes], the first the header and
//      the others one filter_file image per layer (from_blobs); an accepted
//      value must serialise back to the same parts (a layer of an older file
//      version: to the same filter in the current version).
// Contract: any bytes either load or throw ringbloom::data_error; never a
// crash, an allocation past the 64 MiB limit given, or a sanitizer report.
// Each form is tried as given and with a repaired trailing checksum
// (load_or_refuse).
//
// Seed corpus: fuzz/filter/corpus/layered_bloom_fuzz/ (a header, a chunk and
// an RDB form of a filter of three layers: blocked layers in header version
// 1, their images in file version 1 and in the current version; and classic
// layers in header version 2, as this version writes them).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ringbloom/error.hpp"
#include "ringbloom/filter/filter_file.hpp"
#include "ringbloom/filter/layered_bloom.hpp"
#include "ringbloom/io/format.hpp"
#include "support/load_or_refuse.hpp"

namespace {

constexpr std::uint64_t limit = std::uint64_t{64} << 20;
constexpr int held_items = 400;

std::string held(int i) { return "k" + std::to_string(i); }

/// The fixed filter chunks are loaded into: 100 items, expansion 2, 400
/// items added (three layers).
const ringbloom::layered_bloom_filter& reference() {
  static const ringbloom::layered_bloom_filter f = [] {
    ringbloom::layered_bloom_filter g(100, 0.01, 2, false, limit);
    for (int i = 0; i < held_items; ++i) g.add(held(i));
    return g;
  }();
  return f;
}

/// Whether `f` wrote back `header`: byte for byte when it is of the current
/// version; a version-1 header (blocked layers only) is written as the
/// current version, so both must describe the same filter.
bool writes_back(const ringbloom::layered_bloom_filter& f, std::string_view header) {
  const std::string again = f.header();
  if (again == header) return true;
  const auto version = ringbloom::io::load_le<std::uint32_t>(
      reinterpret_cast<const unsigned char*>(header.data()) + 4);
  // Both headers must describe the same filter (compared with zeroed words).
  return version == 1 && ringbloom::layered_bloom_filter::from_header(again, limit) ==
                             ringbloom::layered_bloom_filter::from_header(header, limit);
}

void exercise_header(std::string_view bytes) {
  const auto f = ringbloom::layered_bloom_filter::from_header(bytes, limit);
  if (!writes_back(f, bytes) || f.word_bytes() > limit) std::abort();
}

void exercise_chunk(std::string_view bytes) {
  ringbloom::layered_bloom_filter f = reference();
  f.load_chunk(bytes);
  if (f.layer_count() != reference().layer_count() || f.items() != reference().items()) {
    std::abort();
  }
}

void exercise_rdb(std::string_view bytes) {
  std::vector<std::string> parts;
  while (!bytes.empty()) {
    if (bytes.size() < 4 || parts.size() > ringbloom::layered_bloom_filter::max_layers) {
      throw ringbloom::data_error("not a sequence of parts");
    }
    const auto n =
        ringbloom::io::load_le<std::uint32_t>(reinterpret_cast<const unsigned char*>(bytes.data()));
    if (n > bytes.size() - 4) throw ringbloom::data_error("a part passes the end");
    parts.emplace_back(bytes.substr(4, n));
    bytes.remove_prefix(4 + std::size_t{n});
  }
  if (parts.empty()) throw ringbloom::data_error("no header");
  const std::vector<std::string> blobs(parts.begin() + 1, parts.end());
  const auto f = ringbloom::layered_bloom_filter::from_blobs(parts.front(), blobs, limit);
  if (!writes_back(f, parts.front())) std::abort();
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    const std::string again = f.layer_blob(i);
    if (again == blobs[i]) continue;
    // A layer in an older file format version (u16 at offset 8) is written
    // in the current one: the same filter, other bytes. A current one must
    // come back byte for byte.
    const auto version = ringbloom::io::load_le<std::uint16_t>(
        reinterpret_cast<const unsigned char*>(blobs[i].data()) + 8);
    if (version == ringbloom::filter_format_version ||
        !(ringbloom::deserialize_filter(again) == ringbloom::deserialize_filter(blobs[i]))) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t form = data[0] % 3;
  if (form == 0) ringbloom::fuzz::load_or_refuse(data + 1, size - 1, exercise_header);
  if (form == 1) {
    ringbloom::fuzz::load_or_refuse(data + 1, size - 1, exercise_chunk);
    // Every item the fixed filter holds is still there after any chunk the
    // loader refused (it must not have written a word).
    ringbloom::layered_bloom_filter f = reference();
    try {
      f.load_chunk({reinterpret_cast<const char*>(data + 1), size - 1});
    } catch (const ringbloom::data_error&) {
      if (!(f == reference())) std::abort();
    }
  }
  if (form == 2) ringbloom::fuzz::load_or_refuse(data + 1, size - 1, exercise_rdb);
  return 0;
}
