# Cross-compiling for aarch64 Linux with Debian's crossbuild-essential-arm64 and the :arm64 dev
# packages (multiarch). Tests run under qemu-user (scripts/test-arm64.sh sets the CPU model).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Libraries and headers of the target (the :arm64 packages); programs (flatc, glslang) of the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# ctest and gtest_discover_tests run the test programs through qemu; QEMU_LD_PREFIX finds the
# target's loader and libraries, QEMU_CPU picks the CPU model.
find_program(VKRT_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${VKRT_QEMU_AARCH64})
