// Real system calls for the Linux drivers.
#include "ethosu/drivers/syscalls.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace vkrt::ethosu {
namespace {

class RealSyscalls final : public Syscalls {
 public:
  int open(const char* path, int flags) override {
    int fd;
    do fd = ::open(path, flags | O_CLOEXEC); while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
  }
  int close(int fd) override { return ::close(fd) < 0 ? -errno : 0; }
  int ioctl(int fd, unsigned long request, void* arg) override {
    int r;
    do r = ::ioctl(fd, request, arg); while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
  }
  int mmap(int fd, size_t length, off_t offset, void** address) override {
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    if (p == MAP_FAILED) return -errno;
    *address = p;
    return 0;
  }
  int munmap(void* address, size_t length) override {
    return ::munmap(address, length) < 0 ? -errno : 0;
  }
  int poll_in(int fd, int timeout_ms) override {
    pollfd pfd{fd, POLLIN, 0};
    int r;
    do r = ::poll(&pfd, 1, timeout_ms); while (r < 0 && errno == EINTR);
    if (r < 0) return -errno;
    if (r > 0 && (pfd.revents & (POLLERR | POLLNVAL))) return -EIO;
    return r;
  }
};

Syscalls* g_active = nullptr;

}  // namespace

Syscalls& real_syscalls() {
  static RealSyscalls real;
  return real;
}

Syscalls& active_syscalls() { return g_active ? *g_active : real_syscalls(); }

Syscalls* set_active_syscalls(Syscalls* syscalls) {
  Syscalls* previous = g_active;
  g_active = syscalls;
  return previous;
}

}  // namespace vkrt::ethosu
