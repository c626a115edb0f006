// Fake Ethos-U kernel drivers (see fake_device.h).
#include "tests/ethosu/fake_device.h"

#include <cerrno>
#include <cstring>

namespace vkrt::ethosu::testing {

namespace cu = char_uapi;
namespace du = drm_uapi;

int FakeDevice::new_fd(Fd fd) {
  int n = next_fd_++;
  fds_.emplace(n, std::move(fd));
  return n;
}

bool FakeDevice::failing(const std::string& call, int* result) {
  auto it = fail.find(call);
  if (it == fail.end()) return false;
  *result = it->second;
  return true;
}

FakeDevice::Memory* FakeDevice::buffer_for_fd(int fd) {
  auto it = fds_.find(fd);
  return it != fds_.end() && it->second.type == FdType::Buffer ? it->second.memory.get() : nullptr;
}

FakeDevice::Memory* FakeDevice::bo(uint32_t handle) {
  auto it = bos_.find(handle);
  return it != bos_.end() ? it->second.get() : nullptr;
}

int FakeDevice::open(const char* path, int flags) {
  std::string call = std::string("open ") + path;
  calls.push_back(call);
  int r;
  if (failing(call, &r)) return r;
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return -ENOENT;
  return new_fd(Fd{FdType::Device, it->second, nullptr});
}

int FakeDevice::close(int fd) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  static const char* kTypes[] = {"device", "buffer", "network", "inference"};
  calls.push_back(std::string("close ") + kTypes[int(it->second.type)]);
  fds_.erase(it);
  return 0;
}

int FakeDevice::ioctl(int fd, unsigned long request, void* arg) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  if (it->second.kind == Kind::Char) return char_ioctl(fd, it->second, request, arg);
  if (it->second.type != FdType::Device) return -ENOTTY;
  return drm_ioctl(request, arg);
}

int FakeDevice::char_ioctl(int fd, Fd& f, unsigned long request, void* arg) {
  auto record = [&](const char* name, int* r) {
    calls.push_back(std::string("ioctl ") + name);
    return failing(name, r);
  };
  int r = 0;
  if (request == cu::kDriverVersion && f.type == FdType::Device) {
    if (record("DRIVER_VERSION_GET", &r)) return r;
    *static_cast<cu::DriverVersion*>(arg) = driver_version;
    return 0;
  }
  if (request == cu::kCapabilities && f.type == FdType::Device) {
    if (record("CAPABILITIES_REQ", &r)) return r;
    *static_cast<cu::Capabilities*>(arg) = capabilities;
    return 0;
  }
  if (request == cu::kBufferCreate && f.type == FdType::Device) {
    if (record("BUFFER_CREATE", &r)) return r;
    auto* req = static_cast<cu::BufferCreate*>(arg);
    return new_fd(Fd{FdType::Buffer, Kind::Char, std::make_shared<Memory>(req->size)});
  }
  if (request == cu::kNetworkCreate && f.type == FdType::Device) {
    if (record("NETWORK_CREATE", &r)) return r;
    auto* req = static_cast<cu::NetworkCreate*>(arg);
    if (req->type != cu::kNetworkUserBuffer || req->network.data_ptr == 0) return -EINVAL;
    auto* data = reinterpret_cast<const uint8_t*>(uintptr_t(req->network.data_ptr));
    network_data.assign(data, data + req->network.size);
    return new_fd(Fd{FdType::Network, Kind::Char, nullptr});
  }
  if (request == cu::kNetworkInfo && f.type == FdType::Network) {
    if (record("NETWORK_INFO", &r)) return r;
    auto* info = static_cast<cu::NetworkInfo*>(arg);
    *info = cu::NetworkInfo{};
    info->ifm_count = 1;
    info->ofm_count = 1;
    return 0;
  }
  if (request == cu::kInferenceCreate && f.type == FdType::Network) {
    if (record("INFERENCE_CREATE", &r)) return r;
    last_inference = *static_cast<cu::InferenceCreate*>(arg);
    for (uint32_t i = 0; i < last_inference.ifm_count; ++i)
      if (!buffer_for_fd(int(last_inference.ifm_fd[i]))) return -EBADF;
    for (uint32_t i = 0; i < last_inference.ofm_count; ++i)
      if (!buffer_for_fd(int(last_inference.ofm_fd[i]))) return -EBADF;
    if (on_run) on_run(*this);
    return new_fd(Fd{FdType::Inference, Kind::Char, nullptr});
  }
  if (request == cu::kInferenceStatus && f.type == FdType::Inference) {
    if (record("INFERENCE_STATUS", &r)) return r;
    auto* status = static_cast<cu::ResultStatus*>(arg);
    *status = cu::ResultStatus{};
    status->status = inference_status;
    status->pmu_config = last_inference.pmu_config;
    status->pmu_count.cycle_count = last_inference.pmu_config.cycle_count ? cycle_count : 0;
    for (int i = 0; i < cu::kPmuEventMax; ++i) status->pmu_count.events[i] = last_inference.pmu_config.events[i] ? 10u + i : 0;
    return 0;
  }
  if (request == cu::kInferenceCancel && f.type == FdType::Inference) {
    if (record("INFERENCE_CANCEL", &r)) return r;
    static_cast<cu::CancelStatus*>(arg)->status = cu::kOk;
    return 0;
  }
  calls.push_back("ioctl unknown");
  (void)fd;
  return -ENOTTY;
}

int FakeDevice::drm_ioctl(unsigned long request, void* arg) {
  auto record = [&](const char* name, int* r) {
    calls.push_back(std::string("ioctl ") + name);
    return failing(name, r);
  };
  int r = 0;
  if (request == du::kVersion) {
    if (record("VERSION", &r)) return r;
    auto* v = static_cast<du::Version*>(arg);
    v->version_major = 1;
    if (v->name && v->name_len > 0) {
      size_t n = std::min(v->name_len, drm_name.size());
      std::memcpy(v->name, drm_name.data(), n);
    }
    v->name_len = drm_name.size();
    return 0;
  }
  if (request == du::kDevQuery) {
    if (record("DEV_QUERY", &r)) return r;
    auto* q = static_cast<du::DevQuery*>(arg);
    if (q->type != du::kQueryNpuInfo || q->size < sizeof(du::NpuInfo)) return -EINVAL;
    std::memcpy(reinterpret_cast<void*>(uintptr_t(q->pointer)), &npu_info, sizeof(npu_info));
    return 0;
  }
  if (request == du::kBoCreate) {
    if (record("BO_CREATE", &r)) return r;
    auto* c = static_cast<du::BoCreate*>(arg);
    c->handle = next_handle_++;
    bos_[c->handle] = std::make_shared<Memory>(c->size);
    return 0;
  }
  if (request == du::kBoMmapOffset) {
    if (record("BO_MMAP_OFFSET", &r)) return r;
    auto* m = static_cast<du::BoMmapOffset*>(arg);
    if (!bo(m->handle)) return -ENOENT;
    m->offset = uint64_t(m->handle) << 20;
    return 0;
  }
  if (request == du::kCmdstreamBoCreate) {
    if (record("CMDSTREAM_BO_CREATE", &r)) return r;
    auto* c = static_cast<du::CmdstreamBoCreate*>(arg);
    auto* data = reinterpret_cast<const uint8_t*>(uintptr_t(c->data));
    network_data.assign(data, data + c->size);
    c->handle = next_handle_++;
    cmd_bos_.push_back(c->handle);
    return 0;
  }
  if (request == du::kSubmit) {
    if (record("SUBMIT", &r)) return r;
    auto* s = static_cast<du::Submit*>(arg);
    if (s->job_count != 1 || s->pad != 0) return -EINVAL;
    last_job = *reinterpret_cast<const du::Job*>(uintptr_t(s->jobs));
    if (std::find(cmd_bos_.begin(), cmd_bos_.end(), last_job.cmd_bo) == cmd_bos_.end()) return -ENOENT;
    for (uint32_t h : last_job.region_bo_handles)
      if (h != 0 && !bo(h)) return -ENOENT;
    if (on_run) on_run(*this);
    return submit_result;
  }
  if (request == du::kBoWait) {
    if (record("BO_WAIT", &r)) return r;
    last_wait_deadline = static_cast<du::BoWait*>(arg)->timeout_ns;
    return bo_wait_result;
  }
  if (request == du::kGemClose) {
    calls.push_back("ioctl GEM_CLOSE");
    uint32_t h = static_cast<du::GemClose*>(arg)->handle;
    if (bos_.erase(h) == 0) {
      auto it = std::find(cmd_bos_.begin(), cmd_bos_.end(), h);
      if (it == cmd_bos_.end()) return -EINVAL;
      cmd_bos_.erase(it);
    }
    return 0;
  }
  calls.push_back("ioctl unknown");
  return -ENOTTY;
}

int FakeDevice::mmap(int fd, size_t length, off_t offset, void** address) {
  calls.push_back("mmap");
  int r;
  if (failing("mmap", &r)) return r;
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  Memory* m = nullptr;
  if (it->second.type == FdType::Buffer && offset == 0) {
    m = it->second.memory.get();
  } else if (it->second.kind == Kind::Drm && it->second.type == FdType::Device) {
    m = bo(uint32_t(uint64_t(offset) >> 20));
  }
  if (!m || length > m->size) return -EINVAL;
  *address = m->data.get();
  return 0;
}

int FakeDevice::munmap(void* address, size_t length) {
  calls.push_back("munmap");
  return 0;
}

int FakeDevice::poll_in(int fd, int timeout_ms) {
  calls.push_back("poll");
  return poll_times_out ? 0 : 1;
}

}  // namespace vkrt::ethosu::testing
