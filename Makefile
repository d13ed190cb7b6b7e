# The two commands of the README, plus a few developer conveniences.
# Everything goes through CMake presets; build trees live in build/<preset>.
.PHONY: demo redis-demo test deps build-deps release asan tsan fuzz-smoke consumer-test bench format clean

# The tour needs only the build's own dependencies; the peers that only the
# tests use are installed by `make test`. The build's progress lines come
# without make's "Entering directory" noise, then the tour.
demo: build-deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release --target ringbloom_cli -- --no-print-directory
	@./build/release/ringbloom demo

# The Redis module's tour: a redis-server with ringbloom.so, BF/CF/CMS/TOPK, a restart.
redis-demo: deps
	cmake --preset release >/dev/null
	cmake --build --preset release --target ringbloom_redis
	scripts/redis-demo build/release/redis/ringbloom.so

test: deps
	cmake --workflow --preset release
	cmake --workflow --preset asan
	cmake --workflow --preset tsan
	$(MAKE) --no-print-directory fuzz-smoke
	scripts/consumer-test build/release

deps:
	@scripts/install-deps

build-deps:
	@scripts/install-deps build

fuzz-smoke: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz
	scripts/fuzz-smoke build/fuzz

bench: deps
	cmake --preset bench >/dev/null
	cmake --build --preset bench
	@echo "benchmarks built in build/bench/bench; see docs/performance.md"

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf build
