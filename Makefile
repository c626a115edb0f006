# The two set-up commands (README):
#   make run    installs dependencies, builds, and runs executor_runner on a generated sample program
#   make test   installs dependencies, builds, and runs the whole test suite
# Other targets: build, asan (sanitizer build + tests), test-arm64 (aarch64 under qemu), bench (vkrt_bench over the samples into
# docs/benchmarks.md), clean.

BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps configure build run test asan test-arm64 bench fuzz clean

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/examples/make_sample_programs $(BUILD)/samples
	$(BUILD)/executor_runner/executor_runner $(BUILD)/samples/add_mul.pte --num_executions 10

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVKRT_SANITIZE=address,undefined -DVKRT_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# The CPU suites cross-built for aarch64 and run under qemu-user, NEON-only and with
# dotprod + i8mm (scripts/test-arm64.sh; installs its Debian packages).
test-arm64:
	scripts/test-arm64.sh

# vkrt_bench over every sample program: docs/benchmarks.md and docs/bench/*.png (plots need
# python3-matplotlib, installed here on demand).
bench: build
	@python3 -c 'import matplotlib' 2>/dev/null || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || \
	  $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get install -y --no-install-recommends python3-matplotlib
	scripts/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-arm64
