# The front door. `make test` and `make bench` install what they need (Debian
# packages), build and run; plain CMake works too (see README.md).
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
BENCH_FILTER ?= .
BENCH_REPS  ?= 5
# The alloc/ rows vary most from process to process (threads on a shared
# machine): more rounds of their interleaved runs (bench/alloc_runs.sh).
ALLOC_REPS  ?= 9
# Seconds per benchmark and repetition (fl_bench's default when empty; see bench/common.hpp).
BENCH_MIN_TIME ?=
# Debian's python3-matplotlib belongs to /usr/bin/python3, which a pyenv/venv
# python3 earlier on PATH would not see.
PYTHON      ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
FUZZ_SECONDS ?= 15
# `make fuzz`: seconds per target of the long run (default 5 minutes each).
FUZZ_TIME   ?= 300
CMAKE_GEN   := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps bench-deps test test-release test-asan test-tsan test-fuzz fuzz bench bench-doc clean

all: test

deps:
	@scripts/deps.sh test

bench-deps:
	@scripts/deps.sh bench

# Four builds: RelWithDebInfo (plus the package test), ASan+UBSan, TSan (threaded
# tests only) and clang's libFuzzer targets with a short smoke run each.
test: deps test-release test-asan test-tsan test-fuzz
	@echo "fl: all test builds passed"

test-release:
	cmake -S . -B build $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFL_WERROR=ON -DFL_BUILD_TESTS=ON
	cmake --build build -j $(JOBS)
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B build-asan $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	      -DFL_WERROR=ON -DFL_BUILD_TESTS=ON -DFL_INSTALL=OFF -DFL_BUILD_EXAMPLES=OFF "-DFL_SANITIZE=address;undefined" \
	      -DCMAKE_CXX_FLAGS=-D_GLIBCXX_ASSERTIONS
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

test-tsan:
	cmake -S . -B build-tsan $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	      -DFL_WERROR=ON -DFL_BUILD_TESTS=ON -DFL_INSTALL=OFF -DFL_BUILD_EXAMPLES=OFF -DFL_SANITIZE=thread
	cmake --build build-tsan -j $(JOBS)
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan --output-on-failure -j $(JOBS) -L threads

test-fuzz:
	CC=clang CXX=clang++ cmake -S . -B build-fuzz $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DFL_BUILD_TESTS=OFF -DFL_BUILD_FUZZ=ON -DFL_INSTALL=OFF -DFL_BUILD_EXAMPLES=OFF \
	    "-DFL_SANITIZE=address;undefined;fuzzer-no-link" -DFL_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build build-fuzz -j $(JOBS)
	ctest --test-dir build-fuzz --output-on-failure -j $(JOBS)

# The long fuzzing run: every fuzz target for FUZZ_TIME seconds, one after the
# other, from the corpora in tests/fuzz/corpus/; figures in build-fuzz/fuzz-summary.md
# (docs/reliability.md quotes them). `make test` keeps the short smoke runs.
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DFL_BUILD_TESTS=OFF -DFL_BUILD_FUZZ=ON -DFL_INSTALL=OFF -DFL_BUILD_EXAMPLES=OFF \
	    "-DFL_SANITIZE=address;undefined;fuzzer-no-link" -DFL_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build build-fuzz -j $(JOBS)
	scripts/fuzz.sh build-fuzz $(FUZZ_TIME)

# Release build of the benchmark program, the whole suite (or BENCH_FILTER=regex),
# then bench-results/{results.json,report.md,*.png}. The alloc/ section runs in
# processes of its own, once per allocator (bench/alloc_runs.sh), and is merged
# into results.json.
bench: bench-deps
	cmake -S . -B build-bench $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release -DFL_BUILD_BENCH=ON \
	      -DFL_BUILD_TESTS=OFF -DFL_BUILD_EXAMPLES=OFF -DFL_INSTALL=OFF
	cmake --build build-bench -j $(JOBS) --target fl_bench
	@mkdir -p bench-results
	$(if $(BENCH_MIN_TIME),FL_BENCH_MIN_TIME=$(BENCH_MIN_TIME)) FL_BENCH_SKIP_ALLOC=1 build-bench/bench/fl_bench \
	  --benchmark_filter='$(BENCH_FILTER)' --benchmark_repetitions=$(BENCH_REPS) \
	  --benchmark_out=bench-results/results.json --benchmark_out_format=json
	$(if $(BENCH_MIN_TIME),FL_BENCH_MIN_TIME=$(BENCH_MIN_TIME)) bench/alloc_runs.sh build-bench/bench/fl_bench \
	  bench-results/alloc '$(BENCH_FILTER)' $(ALLOC_REPS)
	$(PYTHON) bench/report/report.py bench-results/results.json bench-results --merge bench-results/alloc

# Writes the tables of the last `make bench` into docs/performance.md.
bench-doc:
	$(PYTHON) bench/report/report.py bench-results/results.json bench-results --update-doc docs/performance.md

clean:
	rm -rf build build-asan build-tsan build-fuzz build-bench bench-results
