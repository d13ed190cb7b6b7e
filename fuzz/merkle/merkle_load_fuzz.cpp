// libFuzzer target over the Merkle tree file loader.
//
// The loader's contract: any byte string either loads as a valid tree or
// throws ringbloom::data_error; never a crash, a hang, a huge allocation, a
// sanitizer report or another exception. A loaded tree must serialise back to
// exactly the input bytes, compare equal to itself with an empty diff, and
// coarsen without error.
//
// Random bytes almost never carry a valid XXH3 checksum, so each input is
// tried twice: as given, and with its last 8 bytes replaced by the correct
// checksum, which lets the fuzzer reach the field checks behind it.
//
// Seed corpus: fuzz/merkle/corpus/merkle_load_fuzz/ (the golden file of tests/merkle/data).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ringbloom/error.hpp"
#include "ringbloom/hash.hpp"
#include "ringbloom/merkle/merkle_file.hpp"

namespace {

void exercise(std::string_view bytes) {
  const ringbloom::merkle_tree tree = ringbloom::deserialize_tree(bytes);
  if (ringbloom::serialize_tree(tree) != bytes) std::abort();
  const ringbloom::merkle_diff d = ringbloom::diff(tree, tree);
  if (!d.empty() || d.digests_exchanged > 1) std::abort();
  if (tree.coarsened(1).rows() != tree.rows()) std::abort();
}

void try_load(std::string_view bytes) {
  try {
    exercise(bytes);
  } catch (const ringbloom::data_error&) {
    // refused: fine
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try_load(bytes);
  if (size >= 16) {
    std::string fixed(bytes);
    const std::uint64_t sum = ringbloom::xxh3_64(std::string_view(fixed).substr(0, size - 8));
    for (std::size_t i = 0; i < 8; ++i) {
      fixed[size - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xff);
    }
    try_load(fixed);
  }
  return 0;
}
