// Memory advice for the filters' word arrays (ringbloom/filter/detail/bloom_storage.hpp).
#include "ringbloom/filter/detail/bloom_storage.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ringbloom::detail {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // madvise wants a page-aligned start; the allocator aligns large arrays to
  // 2 MiB. The result is ignored: with THP disabled the advice just fails.
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace ringbloom::detail
