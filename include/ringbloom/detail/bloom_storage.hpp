// ringbloom/detail/bloom_storage.hpp: the word array behind every filter.
//
// Internal. A word_store is either an owned, zero-initialised, 64-byte
// aligned array of 64-bit words (so a blocked filter's 512-bit blocks are
// cache lines), or a read-only view of words that live elsewhere (a mapped
// file), kept alive by a shared handle. Copying an owned store copies the
// words; copying a view shares the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

namespace ringbloom::detail {

/// An allocator that aligns every array to `Align` bytes.
template <class T, std::size_t Align>
struct aligned_allocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = aligned_allocator<U, Align>;
  };
  aligned_allocator() noexcept = default;
  template <class U>
  explicit aligned_allocator(const aligned_allocator<U, Align>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{Align}));
  }
  void deallocate(T* p, std::size_t /*n*/) noexcept {
    ::operator delete (p, std::align_val_t{Align});
  }
  friend bool operator==(const aligned_allocator&, const aligned_allocator&) noexcept {
    return true;
  }
};

/// Bytes of one cache line and of one blocked-filter block.
inline constexpr std::size_t cache_line_bytes = 64;

class word_store {
 public:
  word_store() = default;

  /// `count` zero words, owned.
  explicit word_store(std::size_t count) : owned_(count, 0) {}

  /// A read-only view of `count` words at `data` (8-byte aligned), valid as
  /// long as `keepalive` is.
  [[nodiscard]] static word_store view(const std::uint64_t* data, std::size_t count,
                                       std::shared_ptr<const void> keepalive) {
    word_store s;
    s.view_ = data;
    s.view_size_ = count;
    s.keepalive_ = std::move(keepalive);
    return s;
  }

  [[nodiscard]] bool read_only() const noexcept { return keepalive_ != nullptr; }
  [[nodiscard]] std::size_t size() const noexcept {
    return read_only() ? view_size_ : owned_.size();
  }
  [[nodiscard]] const std::uint64_t* data() const noexcept {
    return read_only() ? view_ : owned_.data();
  }
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return {data(), size()}; }

  /// The words for writing. Throws std::logic_error for a read-only view.
  [[nodiscard]] std::uint64_t* mutable_data();

  /// An owned copy of a view (or a copy of an owned store).
  [[nodiscard]] word_store owned_copy() const;

 private:
  std::vector<std::uint64_t, aligned_allocator<std::uint64_t, cache_line_bytes>> owned_;
  const std::uint64_t* view_ = nullptr;
  std::size_t view_size_ = 0;
  std::shared_ptr<const void> keepalive_;
};

}  // namespace ringbloom::detail
