// bench/filter/fastfilter_blocked_peer.hpp: fastfilter_cpp's blocked Bloom
// filter (SimdBlockFilterFixed: 256-bit blocks, one bit in each of 8 32-bit
// words, any number of blocks) for bloom_bench's equal-rate table.
//
// Built only when a developer points the benchmark at a fastfilter_cpp
// checkout, outside this repository:
//
//   cmake --preset bench -DRINGBLOOM_FASTFILTER_INCLUDE=/path/to/fastfilter_cpp/src
//
// fastfilter_blocked_peer.cpp is then compiled with -mavx2 (the filter is
// AVX2 code). fastfilter_cpp's item type is a 64-bit integer and its hash
// (SimpleMixSplit) takes a random seed per filter, so its keys are integers
// and its rates vary slightly between runs; the rate is a property of the
// layout, which is what the table compares.
#pragma once

#include <cstddef>

namespace ringbloom::bench {

/// The measured false-positive rate of a SimdBlockFilterFixed of
/// `bits_per_key` x n bits (whole 256-bit blocks) holding n distinct
/// integer keys, probed with m integer keys never added.
[[nodiscard]] double fastfilter_blocked_fpr(double bits_per_key, std::size_t n, std::size_t m);

}  // namespace ringbloom::bench
