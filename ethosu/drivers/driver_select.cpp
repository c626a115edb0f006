// Driver selection (see driver_select.h).
#include "ethosu/drivers/driver_select.h"

#include <string>
#include <vector>

#include "ethosu/drivers/drm_accel_driver.h"
#include "ethosu/drivers/ethosu_char_driver.h"
#include "ethosu/drivers/recording_driver.h"
#include "ethosu/drivers/virtual_driver.h"

namespace vkrt::ethosu {
namespace {

constexpr int kProbeCount = 4;  // /dev/ethosu0..3, /dev/accel/accel0..3

using Opener = Result<std::unique_ptr<Driver>> (*)(const std::string&, Syscalls&);

// Tries each path in turn; returns the first driver that opens, else NotFound listing all tries.
Result<std::unique_ptr<Driver>> probe(const std::vector<std::pair<std::string, Opener>>& candidates,
                                      Syscalls& sys) {
  std::string tried;
  for (const auto& [path, opener] : candidates) {
    auto driver = opener(path, sys);
    if (driver.ok()) return driver;
    if (!tried.empty()) tried += "; ";
    tried += driver.status().message();
  }
  return make_error(Error::NotFound, "no Ethos-U NPU device found (tried ", tried,
                    "). Set EthosUBackend.driver (ethosu-char, drm-accel, virtual, recording) and "
                    "EthosUBackend.device to choose one");
}

std::vector<std::pair<std::string, Opener>> char_candidates() {
  std::vector<std::pair<std::string, Opener>> c;
  for (int i = 0; i < kProbeCount; ++i) c.emplace_back("/dev/ethosu" + std::to_string(i), &open_ethosu_char_driver);
  return c;
}

std::vector<std::pair<std::string, Opener>> accel_candidates() {
  std::vector<std::pair<std::string, Opener>> c;
  for (int i = 0; i < kProbeCount; ++i) c.emplace_back("/dev/accel/accel" + std::to_string(i), &open_drm_accel_driver);
  return c;
}

}  // namespace

Result<std::unique_ptr<Driver>> open_driver(std::string_view driver, std::string_view device,
                                            Syscalls& sys) {
  std::string path(device);
  if (driver == kRecordingDriverName) {
    return std::unique_ptr<Driver>(new RecordingDriver(recording_driver_state()));
  }
  if (driver == kVirtualDriverName) return open_virtual_driver();
  if (driver == kEthosuCharDriverName) {
    if (!path.empty()) return open_ethosu_char_driver(path, sys);
    return probe(char_candidates(), sys);
  }
  if (driver == kDrmAccelDriverName) {
    if (!path.empty()) return open_drm_accel_driver(path, sys);
    return probe(accel_candidates(), sys);
  }
  if (driver.empty() || driver == "auto") {
    if (!path.empty()) {
      Opener opener = path.rfind("/dev/accel/", 0) == 0 ? &open_drm_accel_driver : &open_ethosu_char_driver;
      return opener(path, sys);
    }
    auto all = char_candidates();
    for (auto& c : accel_candidates()) all.push_back(std::move(c));
    return probe(all, sys);
  }
  return make_error(Error::InvalidArgument, "EthosUBackend.driver: unknown driver '", driver,
                    "' (known: auto, ethosu-char, drm-accel, virtual, recording)");
}

}  // namespace vkrt::ethosu
