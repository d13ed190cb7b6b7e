// ringbloom/allocator_hook.hpp: one process-wide hook through which the
// library allocates the storage of its filters and sketches.
//
// What it is. A host that must account for memory itself installs an
// allocator_hook: from then on every array a filter or sketch owns (a Bloom
// filter's words, a cuckoo filter's buckets, a Count-Min sketch's counters,
// a Top-K's buckets and heap, a HyperLogLog's registers) is allocated and
// freed through it. The Redis module routes them to RedisModule_Alloc, so
// that used_memory and maxmemory see every value (docs/redis.md).
//
// When to use it. Only in a host with its own allocator. Off by default:
// without a hook the arrays come from operator new, exactly as a
// std::allocator would give them, and nothing changes.
//
// Guarantees. `allocate(bytes, alignment)` must return `bytes` bytes aligned
// to at least min(alignment, 64), or throw std::bad_alloc; `deallocate` frees
// what it returned. `allocate_zeroed` is optional (nullptr: the library
// calls `allocate` and writes the zeros itself): the same as `allocate`, but
// the bytes must read as zero, as calloc's do; a host gives it so that a
// large filter's pages, which the OS hands out zeroed, are committed only
// when first written instead of all at once when the filter is made (the
// Redis module uses RedisModule_Calloc). `deallocate` frees its arrays too. Install the hook before
// any filter or sketch exists and never change it while one does: an array must go back to the
// allocator it came from. Not synchronised.
//
// Example:
//
//   void* my_alloc(std::size_t bytes, std::size_t alignment);
//   void my_free(void* p, std::size_t bytes, std::size_t alignment) noexcept;
//   constexpr ringbloom::allocator_hook hook{my_alloc, my_free, nullptr};
//   ringbloom::set_allocator_hook(&hook);   // first thing, before any sketch
//   ringbloom::count_min_sketch cms(2000, 5);  // its counters come from my_alloc
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace ringbloom {

struct allocator_hook {
  void* (*allocate)(std::size_t bytes, std::size_t alignment);
  void (*deallocate)(void* p, std::size_t bytes, std::size_t alignment) noexcept;
  /// Optional: `bytes` zero bytes (see the guarantees above), or nullptr.
  void* (*allocate_zeroed)(std::size_t bytes, std::size_t alignment) = nullptr;
};

/// The installed hook; nullptr (the default) is operator new.
[[nodiscard]] inline const allocator_hook*& installed_allocator_hook() noexcept {
  static const allocator_hook* installed = nullptr;
  return installed;
}

/// Installs `hook` for the whole process (nullptr: the default again). See
/// the guarantees above: only while no filter or sketch exists.
inline void set_allocator_hook(const allocator_hook* hook) noexcept {
  installed_allocator_hook() = hook;
}

/// A std allocator that asks the installed hook, or behaves as
/// std::allocator<T> when there is none.
template <class T>
struct hooked_allocator {
  using value_type = T;
  hooked_allocator() noexcept = default;
  template <class U>
  explicit hooked_allocator(const hooked_allocator<U>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (const allocator_hook* hook = installed_allocator_hook()) {
      return static_cast<T*>(hook->allocate(bytes, alignof(T)));
    }
    if constexpr (over_aligned) {
      return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    } else {
      return static_cast<T*>(::operator new(bytes));
    }
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (const allocator_hook* hook = installed_allocator_hook()) {
      hook->deallocate(p, n * sizeof(T), alignof(T));
    } else if constexpr (over_aligned) {
      ::operator delete (p, std::align_val_t{alignof(T)});
    } else {
      ::operator delete(p);
    }
  }
  friend bool operator==(const hooked_allocator&, const hooked_allocator&) noexcept { return true; }

 private:
  static constexpr bool over_aligned = alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;
};

/// A vector whose elements live in hooked memory.
template <class T>
using hooked_vector = std::vector<T, hooked_allocator<T>>;

}  // namespace ringbloom
