// ringbloom/filter/detail/bloom_storage.hpp: the word array behind every filter.
//
// Internal. A word_store is either an owned, zero-initialised, 64-byte
// aligned array of 64-bit words (so a blocked filter's 512-bit blocks are
// cache lines), or a read-only view of words that live elsewhere (a mapped
// file), kept alive by a shared handle. Copying an owned store copies the
// words; copying a view shares the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "ringbloom/allocator_hook.hpp"

namespace ringbloom::detail {

/// Arrays of at least this many bytes are 2 MiB aligned and asked to be
/// backed by huge pages: a large filter is probed at random, and with 4 KiB
/// pages nearly every probe of a 100 MB filter also misses the TLB (a page
/// walk, itself often a cache miss). See docs/performance.md.
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

/// Asks the OS to back [p, p + bytes) with transparent huge pages
/// (madvise(MADV_HUGEPAGE) on Linux; nothing elsewhere). Only advice: the
/// memory works the same either way. Call before the pages are touched.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

/// The hook of every owned word array: the library-wide allocator_hook
/// (ringbloom/allocator_hook.hpp), which the sketches and the cuckoo filter
/// share. These names remain for the filters' callers.
using word_allocator = allocator_hook;

[[nodiscard]] inline const word_allocator*& installed_word_allocator() noexcept {
  return installed_allocator_hook();
}

inline void set_word_allocator(const word_allocator* hook) noexcept { set_allocator_hook(hook); }

/// An allocator that aligns every array to `Align` bytes (huge_page_bytes for
/// arrays that large, which are also advised to use huge pages), or asks the
/// installed word_allocator.
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
    const std::size_t bytes = n * sizeof(T);
    if (const word_allocator* hook = installed_word_allocator()) {
      return static_cast<T*>(hook->allocate(bytes, alignment(bytes)));
    }
    void* p = ::operator new (bytes, std::align_val_t{alignment(bytes)});
    if (bytes >= huge_page_bytes) advise_huge_pages(p, bytes);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (const word_allocator* hook = installed_word_allocator()) {
      hook->deallocate(p, n * sizeof(T), alignment(n * sizeof(T)));
      return;
    }
    ::operator delete (p, std::align_val_t{alignment(n * sizeof(T))});
  }
  [[nodiscard]] static constexpr std::size_t alignment(std::size_t bytes) noexcept {
    return bytes >= huge_page_bytes && huge_page_bytes > Align ? huge_page_bytes : Align;
  }
  friend bool operator==(const aligned_allocator&, const aligned_allocator&) noexcept {
    return true;
  }
};

/// An aligned_allocator whose arrays arrive zeroed and whose value
/// initialisation writes nothing, so that `vector(n)` of it makes n zero
/// words without a pass over them. The zeros come from the hook's
/// allocate_zeroed where it has one (calloc: the OS's zero pages, committed
/// as they are first written, so a 1 GB filter is made at once); else from
/// a memset here. Only for vectors that never shrink and grow again (a
/// grown element would keep what the shrunk one held): word_store's.
template <class T, std::size_t Align>
struct zeroed_allocator : aligned_allocator<T, Align> {
  template <class U>
  struct rebind {
    using other = zeroed_allocator<U, Align>;
  };
  zeroed_allocator() noexcept = default;
  template <class U>
  explicit zeroed_allocator(const zeroed_allocator<U, Align>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    const word_allocator* hook = installed_word_allocator();
    if (hook != nullptr && hook->allocate_zeroed != nullptr) {
      return static_cast<T*>(
          hook->allocate_zeroed(bytes, aligned_allocator<T, Align>::alignment(bytes)));
    }
    T* p = aligned_allocator<T, Align>::allocate(n);
    std::memset(static_cast<void*>(p), 0, bytes);
    return p;
  }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: the zeros stay
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const zeroed_allocator&, const zeroed_allocator&) noexcept { return true; }
};

/// Bytes of one cache line and of one blocked-filter block.
inline constexpr std::size_t cache_line_bytes = 64;

class word_store {
 public:
  word_store() = default;

  /// `count` zero words, owned (see zeroed_allocator: no pass over them).
  explicit word_store(std::size_t count) : owned_(count) {}

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
  std::vector<std::uint64_t, zeroed_allocator<std::uint64_t, cache_line_bytes>> owned_;
  const std::uint64_t* view_ = nullptr;
  std::size_t view_size_ = 0;
  std::shared_ptr<const void> keepalive_;
};

}  // namespace ringbloom::detail
