// The system calls the Linux drivers make, behind a small table so tests can run the drivers
// against a fake device (tests/ethosu/fake_device.h) and check their ioctl sequences.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace vkrt::ethosu {

class Syscalls {
 public:
  virtual ~Syscalls() = default;
  // Each returns the result (fd, ioctl value, ...) or -errno on failure.
  virtual int open(const char* path, int flags) = 0;
  virtual int close(int fd) = 0;
  virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
  // Maps `length` bytes of fd at `offset` read-write shared; stores the address in *address.
  virtual int mmap(int fd, size_t length, off_t offset, void** address) = 0;
  virtual int munmap(void* address, size_t length) = 0;
  // Waits for POLLIN on fd: >0 ready, 0 timed out (timeout_ms < 0 waits forever).
  virtual int poll_in(int fd, int timeout_ms) = 0;
};

// The real calls (EINTR retried).
Syscalls& real_syscalls();

// The table drivers opened by name use: the real one unless a test installed another. Not
// thread-safe to swap while drivers are being opened.
Syscalls& active_syscalls();
// nullptr restores the real table. Returns the previous one.
Syscalls* set_active_syscalls(Syscalls* syscalls);

}  // namespace vkrt::ethosu
