// Read-only file mappings (include/ringbloom/io/mapped_file.hpp).
#include "ringbloom/io/mapped_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ringbloom/error.hpp"
#include "ringbloom/io/file_io.hpp"

namespace ringbloom::io {

namespace {

[[noreturn]] void refuse(std::string_view what, const std::filesystem::path& path, int err) {
  throw io_error(fmt::format("{} '{}': {}", what, path.string(), std::strerror(err)));
}

}  // namespace

std::shared_ptr<const mapped_file> mapped_file::open(const std::filesystem::path& path) {
  std::shared_ptr<mapped_file> file(new mapped_file());
  // A directory, device or socket is refused with read_file's sentence; a
  // pipe cannot be mapped, so it is read with read_file's bounds.
  if (check_input(path) == input_kind::pipe) {
    file->held_ = read_file(path);
    return file;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) refuse("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    refuse("cannot stat", path, err);
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) {  // mmap refuses a length of 0; the empty bytes are refused by the parser
    ::close(fd);
    return file;
  }
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (addr == MAP_FAILED) refuse("cannot map", path, err);
  file->addr_ = addr;
  file->size_ = size;
  return file;
}

mapped_file::~mapped_file() {
  if (addr_ != nullptr) ::munmap(addr_, size_);
}

void mapped_file::advise_random() const noexcept {
  if (addr_ != nullptr) ::madvise(addr_, size_, MADV_RANDOM);
}

}  // namespace ringbloom::io
