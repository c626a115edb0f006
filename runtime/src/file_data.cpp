#include "file_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

namespace vkrt {

Result<std::shared_ptr<FileData>> FileData::map(const std::string& path) {
  // Allocated before the file is opened: std::bad_alloc from here on would leak the descriptor.
  std::shared_ptr<FileData> fd_data(new FileData());
  fd_data->name_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return make_error(err == ENOENT ? Error::NotFound : Error::AccessFailed, "cannot open ", path, ": ",
                      strerror(err));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(Error::AccessFailed, path, " is not a regular file");
  }
  fd_data->size_ = size_t(st.st_size);
  if (st.st_size > 0) {
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return make_error(Error::AccessFailed, "cannot map ", path, ": ", strerror(err));
    }
    fd_data->mapping_ = p;
    fd_data->data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return fd_data;
}

std::shared_ptr<FileData> FileData::borrow(std::span<const uint8_t> bytes) {
  std::shared_ptr<FileData> f(new FileData());
  f->name_ = "<buffer>";
  f->size_ = bytes.size();
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 16 == 0) {
    f->data_ = bytes.data();
  } else {
    auto* copy = static_cast<uint8_t*>(std::aligned_alloc(16, (bytes.size() + 15) / 16 * 16 + 16));
    if (!copy) throw std::bad_alloc();  // the API boundary reports MemoryAllocationFailed
    memcpy(copy, bytes.data(), bytes.size());
    f->copy_ = std::unique_ptr<uint8_t[], void (*)(uint8_t*)>(copy, [](uint8_t* p) { std::free(p); });
    f->data_ = copy;
  }
  return f;
}

FileData::~FileData() {
  if (mapping_) munmap(mapping_, size_);
}

}  // namespace vkrt
