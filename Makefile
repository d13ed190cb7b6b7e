# The two commands of the README, plus a few developer conveniences.
# Everything goes through CMake presets; build trees live in build/<preset>.
.PHONY: demo test deps release asan tsan fuzz-smoke consumer-test bench format clean

demo: deps
	cmake --preset release >/dev/null
	cmake --build --preset release --target ringbloom_cli
	./build/release/ringbloom demo

test: deps
	cmake --workflow --preset release
	cmake --workflow --preset asan
	cmake --workflow --preset tsan
	$(MAKE) --no-print-directory fuzz-smoke
	scripts/consumer-test build/release

deps:
	@scripts/install-deps

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
