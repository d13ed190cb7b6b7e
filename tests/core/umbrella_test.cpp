// ringbloom/ringbloom.hpp, the umbrella header: it compiles on its own (this
// file includes it first), and it includes every public header, so that a
// header added later cannot be forgotten in it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "ringbloom/ringbloom.hpp"

namespace ringbloom {
namespace {

namespace fs = std::filesystem;

/// The headers under include/ringbloom but detail/ folders and the tour (not
/// installed: it is `ringbloom demo`, not library API), as include paths
/// ("ringbloom/filter/bloom.hpp"), without the umbrella itself.
std::set<std::string> public_headers() {
  const fs::path include = fs::path(RINGBLOOM_SOURCE_DIR) / "include";
  std::set<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(include / "ringbloom")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
    const std::string path = fs::relative(entry.path(), include).generic_string();
    if (path.find("/detail/") != std::string::npos || path.starts_with("ringbloom/tour/") ||
        path == "ringbloom/ringbloom.hpp") {
      continue;
    }
    out.insert(path);
  }
  return out;
}

TEST(Umbrella, IncludesEveryPublicHeader) {
  std::ifstream in(fs::path(RINGBLOOM_SOURCE_DIR) / "include" / "ringbloom" / "ringbloom.hpp");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::set<std::string> headers = public_headers();
  ASSERT_GT(headers.size(), 40u);  // the walk found the tree
  for (const auto& header : headers) {
    EXPECT_NE(text.find("#include \"" + header + "\""), std::string::npos)
        << "ringbloom.hpp does not include " << header;
  }
}

}  // namespace
}  // namespace ringbloom
