// libFuzzer target over what CF.LOADCHUNK, CMS.LOADCHUNK, TOPK.LOADCHUNK and
// KLL.LOADCHUNK take from outside: the dump header (parse_dump_header) and the slices that
// staged_value::take_chunk reassembles and loads (redis/types/
// staged_value.hpp), with each type's from_image (the RDB payload of these
// types is the same image).
//
// Input: byte 0 picks the type (CF, CMS, TOPK, KLL), byte 1 the form:
//   even  the rest is a LOADCHUNK session: parts of [u16 length][bytes], the
//         first the header, each later one a slice taken at the iterator
//         the module would compute (so the fuzzer reaches the checks of a
//         whole image), a part's top bit of length moving its iterator by one;
//   odd   the rest is an image, its header made for it (a well-formed dump of
//         arbitrary bytes), cut into slices of byte 2's size.
// Contract: never a crash or sanitizer report; every slice is appended,
// loaded, refused unchanged (out of order) or refused as damaged; a loaded
// value serialises back to its image.
//
// Seed corpus: fuzz/redis/corpus/staged_dump_fuzz/ (none needed: the odd
// forms make well-formed dumps from any bytes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/io/format.hpp"
#include "types/cms_type.hpp"
#include "types/cuckoo_type.hpp"
#include "types/kll_type.hpp"
#include "types/staged_value.hpp"
#include "types/topk_type.hpp"

namespace {

using namespace ringbloom::redis;

constexpr std::uint64_t limit = std::uint64_t{16} << 20;

template <class Traits>
void session(std::string_view header, std::string_view rest, bool even, std::size_t cut) {
  staged_value<typename Traits::type> v;
  try {
    parse_dump_header(header, v.restoring().expected_size, v.restoring().expected_hash);
  } catch (const ringbloom::data_error&) {
    return;  // LOADCHUNK 1 refused
  }
  if (v.restoring().expected_size > limit) return;  // the module refuses past MAX_FILTER_BYTES
  const auto load = [](std::string_view b) { return Traits::from_image(b); };
  while (!rest.empty()) {
    std::string_view slice;
    std::uint64_t shift = 0;
    if (even) {
      if (rest.size() < 2) return;
      const auto n = ringbloom::io::load_le<std::uint16_t>(
          reinterpret_cast<const unsigned char*>(rest.data()));
      shift = n >> 15;
      const std::size_t len = std::min<std::size_t>(n & 0x7fff, rest.size() - 2);
      slice = rest.substr(2, len);
      rest.remove_prefix(2 + len);
    } else {
      slice = rest.substr(0, std::max<std::size_t>(1, cut));
      rest.remove_prefix(slice.size());
    }
    const std::size_t before = v.pending().size();
    const chunk_result r = v.take_chunk(before + slice.size() + shift, slice, load);
    if (r == chunk_result::out_of_order && v.pending().size() != before) std::abort();
    if (r == chunk_result::loaded) {
      if (!v.complete() || Traits::image(*v.value).size() == 0) std::abort();
      return;
    }
    if (r != chunk_result::appended && r != chunk_result::out_of_order) return;
  }
}

template <class Traits>
void exercise(std::string_view bytes, bool even, std::size_t cut) {
  if (even) {
    if (bytes.size() < dump_header_bytes) return;
    session<Traits>(bytes.substr(0, dump_header_bytes), bytes.substr(dump_header_bytes), true, 0);
  } else {
    session<Traits>(dump_header(bytes), bytes, false, cut);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 3), size - 3);
  const bool even = data[1] % 2 == 0;
  const std::size_t cut = data[2] == 0 ? bytes.size() : data[2];
  switch (data[0] % 4) {
    case 0:
      exercise<cf_traits>(bytes, even, cut);
      break;
    case 1:
      exercise<cms_traits>(bytes, even, cut);
      break;
    case 2:
      exercise<topk_traits>(bytes, even, cut);
      break;
    default:
      exercise<kll_traits>(bytes, even, cut);
      break;
  }
  return 0;
}
