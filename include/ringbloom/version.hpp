// ringbloom/version.hpp: the library's version (semantic versioning).
#pragma once

#include <string_view>

namespace ringbloom {

inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;
inline constexpr int version_patch = 0;
inline constexpr std::string_view version_string = "0.1.0";

}  // namespace ringbloom
