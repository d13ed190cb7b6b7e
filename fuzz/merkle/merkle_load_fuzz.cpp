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
#include <string_view>

#include "ringbloom/merkle/merkle_file.hpp"
#include "support/load_or_refuse.hpp"

namespace {

void exercise(std::string_view bytes) {
  const ringbloom::merkle_tree tree = ringbloom::deserialize_tree(bytes);
  if (ringbloom::serialize_tree(tree) != bytes) std::abort();
  const ringbloom::merkle_diff d = ringbloom::diff(tree, tree);
  if (!d.empty() || d.digests_exchanged > 1) std::abort();
  if (tree.coarsened(1).rows() != tree.rows()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ringbloom::fuzz::load_or_refuse(data, size, exercise);
  return 0;
}
