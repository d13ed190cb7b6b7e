// Streamed writes in checkpoints (see ringbloom/io/checkpoint.hpp).
#include "ringbloom/io/checkpoint.hpp"

#include <stdexcept>
#include <utility>

#include "ringbloom/io/file_io.hpp"

namespace ringbloom::io {

checkpointed_stream::checkpointed_stream(std::filesystem::path path, fold_fn fold,
                                         checkpoint_policy policy)
    : path_(std::move(path)), fold_(std::move(fold)), policy_(policy) {
  if (!fold_) throw std::invalid_argument("a checkpointed stream needs a fold function");
  if (policy_.interval.count() <= 0 || policy_.max_items == 0 || policy_.max_bytes == 0) {
    throw std::invalid_argument(
        "a checkpoint policy needs a positive interval, item limit and byte limit; use for "
        "example 1000 ms and 4194304 items");
  }
}

checkpointed_stream checkpointed_stream::patching(std::filesystem::path path, patch_fn patch,
                                                  checkpoint_policy policy) {
  if (!patch) throw std::invalid_argument("a checkpointed stream needs a patch function");
  checkpointed_stream out(
      std::move(path), [](std::string&, std::span<const std::string_view>) {}, policy);
  out.patch_ = std::move(patch);
  return out;
}

void checkpointed_stream::add(std::string_view item) {
  if (ends_.empty()) oldest_ = clock::now();
  arena_.append(item);
  ends_.push_back(arena_.size());
}

bool checkpointed_stream::full() const noexcept {
  return !ends_.empty() &&
         (ends_.size() >= policy_.max_items || arena_.size() >= policy_.max_bytes);
}

bool checkpointed_stream::due(clock::time_point now) const noexcept {
  return full() || (!ends_.empty() && now >= oldest_ + policy_.interval);
}

std::optional<checkpointed_stream::clock::time_point> checkpointed_stream::deadline()
    const noexcept {
  if (ends_.empty()) return std::nullopt;
  return oldest_ + policy_.interval;
}

std::uint64_t checkpointed_stream::checkpoint() {
  if (ends_.empty()) return 0;
  const auto start = clock::now();
  views_.clear();
  std::uint64_t begin = 0;
  for (const std::uint64_t end : ends_) {
    views_.emplace_back(arena_.data() + begin, static_cast<std::size_t>(end - begin));
    begin = end;
  }
  if (patch_) {
    patch_file_locked(path_, [&](locked_file& file) { patch_(file, views_); });
  } else {
    edit_file_locked(
        path_, [&](std::string& file) { fold_(file, views_); }, file_);
  }
  const std::uint64_t done = ends_.size();
  arena_.clear();
  ends_.clear();
  stats_.durable_items += done;
  stats_.checkpoints += 1;
  stats_.time_in_checkpoints += clock::now() - start;
  return done;
}

}  // namespace ringbloom::io
