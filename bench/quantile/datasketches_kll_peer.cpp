// The DataSketches kll_sketch peer (datasketches_kll_peer.hpp).
#include "quantile/datasketches_kll_peer.hpp"

#include <kll_sketch.hpp>

namespace ringbloom::bench {

namespace {

// A std allocator that counts the bytes live through it, per sketch.
template <class T>
struct counting_allocator {
  using value_type = T;
  std::size_t* live = nullptr;
  counting_allocator() = default;
  explicit counting_allocator(std::size_t* counter) : live(counter) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& other) noexcept : live(other.live) {}
  T* allocate(std::size_t n) {
    if (live) *live += n * sizeof(T);
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (live) *live -= n * sizeof(T);
    std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  bool operator==(const counting_allocator<U>& other) const noexcept {
    return live == other.live;
  }
};

}  // namespace

struct datasketches_kll::impl {
  std::size_t live = 0;
  datasketches::kll_sketch<double, std::less<double>, counting_allocator<double>> sketch;
  explicit impl(std::uint16_t k)
      : sketch(k, std::less<double>(), counting_allocator<double>(&live)) {}
};

datasketches_kll::datasketches_kll(std::uint16_t k) : impl_(std::make_unique<impl>(k)) {}
datasketches_kll::~datasketches_kll() = default;

void datasketches_kll::add_each(const double* xs, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) impl_->sketch.update(xs[i]);
}
double datasketches_kll::quantile(double q) const { return impl_->sketch.get_quantile(q); }
double datasketches_kll::rank(double x) const { return impl_->sketch.get_rank(x); }
std::uint64_t datasketches_kll::count() const { return impl_->sketch.get_n(); }
std::size_t datasketches_kll::retained() const { return impl_->sketch.get_num_retained(); }
std::size_t datasketches_kll::heap_bytes() const { return impl_->live; }
std::size_t datasketches_kll::serialized_bytes() const {
  return impl_->sketch.get_serialized_size_bytes();
}

}  // namespace ringbloom::bench
