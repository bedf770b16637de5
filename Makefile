# Thin wrappers over apt, CMake and CTest. `make demo` and `make test` work on a fresh Debian 12.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
# What the command-line tool needs to build (`make demo`), all from Debian 12; catch2 because the
# tests are configured with the tool.
CLI_PACKAGES = build-essential cmake libboost-dev nlohmann-json3-dev libsimdjson-dev libfmt-dev \
               libcli11-dev catch2 libkainjow-mustache-dev libssl-dev libyaml-cpp-dev
# And what the tests, the fuzzers and the Python module need (chromium, cmark-gfm and xmllint check
# reports; fonts-dejavu-core is the sans-serif whose widths plot/text_metrics.hpp measures with).
DEBIAN_PACKAGES = $(CLI_PACKAGES) python3-numpy python3-pandas \
                  chromium fonts-dejavu-core cmark-gfm libxml2-utils \
                  clang libclang-rt-14-dev lld pybind11-dev python3-dev python3-pytest python3-distributed openssl
# clang, its libFuzzer runtime (libclang-rt-14-dev: only a Recommends of clang) and lld (links the
# 33 fuzz targets in a fraction of ld's time) are for `make fuzz-smoke`, part of `make test`.
# pybind11-dev and python3-dev build the Python module; python3-pytest and python3-distributed (Dask)
# run its tests (python/tests, examples/dask). libssl-dev is the driver's and the simulator's TLS;
# the openssl command makes the tests' certificates.

.PHONY: all deps deps-cli build test test-programs ctest-tool ctest-alone ctest-programs asan-build test-asan test-asan-unit demo demo-live bench bench-peers fuzz-build smoke-build fuzz-smoke fuzz clean
# The conformance test's independent client: the official openai package (npm, pinned by the lock
# file), run with Node; Debian's nodejs and npm when the machine has no Node.
CONFORMANCE = tests/conformance

all: build

# Installs what is missing (as root); otherwise says what to install.
define install_missing # package list
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "missing Debian packages (run as root or: sudo apt-get install" $$missing")"; exit 1; \
	  fi; \
	fi
endef
deps:
	$(call install_missing,$(DEBIAN_PACKAGES))
deps-cli:
	$(call install_missing,$(CLI_PACKAGES))

$(CONFORMANCE)/node_modules/openai/package.json: $(CONFORMANCE)/package-lock.json | deps
	@command -v npm >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm; } \
	  || { echo "missing Node.js and npm (run as root or: sudo apt-get install nodejs npm)"; exit 1; }
	npm ci --prefix $(CONFORMANCE) --no-audit --no-fund --loglevel=error

# -O2, as Debian builds its packages: g++ 12 took 500 s of CPU for tools/servestat/main.cpp at -O3,
# 171 s at -O2, and the tool's output is the same (docs/design.md).
RELEASE_CONFIG = -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG"

# PAR is how the cmake builds below run in parallel: -j JOBS on their own; empty under `make test`,
# whose three builds share one make's job slots (cmake --build then takes make's jobserver).
PAR ?= -j $(JOBS)
build: deps
	cmake -S . -B $(BUILD) $(RELEASE_CONFIG) -DSERVESTAT_PYTHON_OPTIMIZE=
	+cmake --build $(BUILD) $(PAR)

# The whole suite, and a short run of every fuzz target over its corpus (fuzz/README.md). The tests
# that run the tool (label `tool`: the CLI tests, the demo report, the install) run it built with
# AddressSanitizer + UBSan; the unit suite, the header checks and the example build as released. The
# three builds compile side by side, sharing one make's job slots (each ends on a long translation
# unit that would otherwise leave a core idle), the configure steps inside their recipes so that no
# build waits for a slot behind another's configure. The release tests then run one at a time
# beside the tool's (whose last minute leaves a core idle), output kept apart per ctest; then the
# tests labelled `alone`.
test: deps $(CONFORMANCE)/node_modules/openai/package.json
	@mkdir -p $(BUILD); : > $(STAMPS); start=$$(date +%s); status=0; \
	echo "== make test 1/3: three builds side by side: the release tests, the tool with ASan and UBSan, the fuzz targets"; \
	$(MAKE) --no-print-directory -j $(JOBS) PAR= STAMPS=$(STAMPS) test-programs asan-build $(if $(HAVE_FUZZ),smoke-build) || status=$$?; \
	built=$$(date +%s); \
	if [ $$status = 0 ]; then echo "== make test 2/3: the tests (ctest)"; \
	  $(MAKE) --no-print-directory -j 2 --output-sync=target STAMPS=$(STAMPS) ctest-tool ctest-programs || status=$$?; \
	  $(MAKE) --no-print-directory STAMPS=$(STAMPS) ctest-alone || status=$$?; fi; \
	tested=$$(date +%s); \
	if [ $$status = 0 ]; then echo "== make test 3/3: fuzz smoke"; \
	  $(if $(HAVE_FUZZ),fuzz/run_smoke.sh $(SMOKE_BUILD),echo "$(FUZZ_SKIPPED)") || status=$$?; fi; \
	end=$$(date +%s); \
	echo "make test $$([ $$status = 0 ] && echo passed || echo FAILED) in $$((end - start)) s after the packages:" \
	  "builds $$((built - start)) s, tests $$((tested - built)) s, fuzz smoke $$((end - tested)) s"; \
	awk -v start=$$start -v built=$$built '{ t = $$1 - ($$1 <= built ? start : built); $$1 = ""; \
	  printf "  %-26s done after %4d s\n", substr($$0, 2), t }' $(STAMPS); \
	exit $$status
# When each part of `make test` ended, for its summary: `seconds-since-epoch what` lines.
STAMPS ?=
stamp = $(if $(STAMPS),@echo "$$(date +%s) $(1)" >> $(STAMPS))
test: STAMPS = $(CURDIR)/$(BUILD)/make-test-times

# The Python module at -O0 (python/CMakeLists.txt): `make build` builds it again at the Release flags.
# The unit suite first: its one unit is the longest of this build (about 3 minutes), and left to
# make's order it can start last, with a core idle while it ends; the header checks, many and
# short, then fill both cores to the end.
test-programs: deps
	cmake -S . -B $(BUILD) $(RELEASE_CONFIG) -DSERVESTAT_PYTHON_OPTIMIZE=-O0
	+cmake --build $(BUILD) $(PAR) --target servestat_tests
	+cmake --build $(BUILD) $(PAR) --target servestat_test_programs
	$(call stamp,build: release tests)
ctest-tool:
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L tool -LE alone
	$(call stamp,tests: the tool's (ASan))
# Tests whose checks hang on the accelerated simulator's wall-clock latency or throughput (tune, the
# auto sweep's knee) run after the others, one at a time, with nothing beside them.
ctest-alone:
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -L alone
	$(call stamp,tests: alone (ASan))
# The Python module's tests compare with the CLI: the ASan build's, the one `make test` builds.
ctest-programs:
	SERVESTAT_CLI=$(CURDIR)/$(ASAN_BUILD)/servestat ctest --test-dir $(BUILD) --output-on-failure -LE tool
	$(call stamp,tests: release)

# Under ASan/UBSan `make test` runs the tool on everything the CLI tests feed it (every reader on
# ../shared/data, reports, bad input); compiling the whole unit suite instrumented as well would
# take the suite past ten minutes on two cores, so that is `make test-asan-unit`. -Og: the CLI tests
# run 2.6 times faster than at -O0 for 29% more compile time; -g1 keeps the line tables ASan's
# reports need and skips the rest of the debug information, which costs compile time. Assertions
# stay on (no NDEBUG).
ASAN_CONFIG = -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -Og" -DSERVESTAT_SANITIZE=ON
asan-build: deps
	cmake -S . -B $(ASAN_BUILD) $(ASAN_CONFIG)
	+cmake --build $(ASAN_BUILD) $(PAR) --target servestat_cli
	$(call stamp,build: tool (ASan))

test-asan: asan-build $(CONFORMANCE)/node_modules/openai/package.json
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L tool

test-asan-unit: deps
	cmake -S . -B $(ASAN_BUILD) $(ASAN_CONFIG)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target servestat_tests servestat_cli
	/usr/bin/python3 tests/tools/numpy_quantile_reference.py $(ASAN_BUILD)/numpy_quantiles.json
	/usr/bin/python3 tests/tools/exact_moments_reference.py $(ASAN_BUILD)/exact_moments.json
	cd $(ASAN_BUILD)/tests && SERVESTAT_NUMPY_QUANTILES=$(CURDIR)/$(ASAN_BUILD)/numpy_quantiles.json \
	  SERVESTAT_EXACT_MOMENTS=$(CURDIR)/$(ASAN_BUILD)/exact_moments.json ./servestat_tests
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L tool

# The command-line tool alone (the unit suite, the header checks and the Python module are for
# `make build` and `make test`), then the reports from the bundled logs, saying what it does as it goes.
demo:
	@start=$$(date +%s); set -e; \
	echo "== make demo 1/3: the Debian packages the tool needs"; \
	$(MAKE) --no-print-directory deps-cli; \
	echo "== make demo 2/3: building the command-line tool, $(BUILD)/servestat (about 2 minutes on 2 cores)"; \
	cmake -S . -B $(BUILD) $(RELEASE_CONFIG) > /dev/null; \
	cmake --build $(BUILD) -j $(JOBS) --target servestat_cli -- --no-print-directory; \
	echo "== make demo 3/3: rendering the reports of the bundled logs into reports/"; \
	examples/render_demo.sh $(CURDIR)/$(BUILD)/servestat reports; \
	echo "make demo: done in $$(($$(date +%s) - start)) s. Open reports/demo/report.html (also sweep-live," \
	  "compare-live, compare-exp5, trend-weekly); reports/demo-stats.txt is servestat stats of the same logs"

# The simulator with the notebook's bad and fair settings, the load driver against both (a sweep
# and the workload mixes), then the reports: examples/logs, examples/live and reports/ anew.
demo-live: deps-cli
	cmake -S . -B $(BUILD) $(RELEASE_CONFIG)
	cmake --build $(BUILD) -j $(JOBS) --target servestat_cli
	examples/live_demo.sh $(CURDIR)/$(BUILD)/servestat
	examples/render_demo.sh $(CURDIR)/$(BUILD)/servestat reports
	@echo "wrote examples/logs, examples/live and reports/"

bench: deps
	cmake -S . -B $(BUILD) $(RELEASE_CONFIG) -DSERVESTAT_BUILD_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS) --target bench_ingest_stats servestat_cli
	/usr/bin/python3 bench/run_ingest_stats.py $(BUILD)

# servestat beside pandas, DuckDB and polars (npm packages, benchmark-only: never needed to build or test).
# `npm install`, not `npm ci`: npm 11's ci refuses this lock for leaving out the polars builds for other
# platforms (arm64, Android), which the registry does not resolve; install keeps to the lock all the same.
bench-peers: deps
	cmake -S . -B $(BUILD) $(RELEASE_CONFIG) -DSERVESTAT_BUILD_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS) --target bench_ingest_stats servestat_cli
	npm install --prefix bench/node --no-audit --no-fund
	/usr/bin/python3 bench/side_by_side.py $(BUILD)

# libFuzzer harnesses (fuzz/README.md): clang with Debian's libFuzzer runtime (libclang-rt-14-dev).
# Two builds: -O1 in FUZZ_BUILD for long campaigns (`make fuzz`), and -O0 in SMOKE_BUILD for the
# smoke run of `make test`, which compiles in half the time (44 s against 80 s on two cores).
FUZZ_BUILD   ?= build-fuzz
SMOKE_BUILD  ?= build-fuzz-smoke
FUZZ_RUNTIME  = $(wildcard /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a)
FUZZ_SECONDS ?= 600
HAVE_FUZZ     = $(and $(shell command -v clang++),$(FUZZ_RUNTIME))
FUZZ_SKIPPED  = fuzz-smoke: skipped (needs clang++ and libFuzzer: apt-get install clang libclang-rt-14-dev)
define fuzz_targets # build directory, optimisation flag
	@[ -n "$(HAVE_FUZZ)" ] || { echo "fuzz: needs clang++ and libFuzzer (apt-get install clang libclang-rt-14-dev)"; exit 1; }
	CXX=clang++ cmake -S . -B $(1) -DCMAKE_BUILD_TYPE=Release -DSERVESTAT_FUZZ=ON -DSERVESTAT_FUZZ_OPTIMIZE=$(2) \
	  -DSERVESTAT_BUILD_TESTS=OFF -DSERVESTAT_BUILD_TOOLS=OFF
	+cmake --build $(1) $(PAR) --target servestat_fuzz
	fuzz/make_corpus.sh $(1)
	$(call stamp,build: fuzz targets)
endef
fuzz-build: deps
	$(call fuzz_targets,$(FUZZ_BUILD),-O1)
smoke-build: deps
	$(call fuzz_targets,$(SMOKE_BUILD),-O0)

# Every target over its corpus for a bounded number of runs, two at a time (about 40 s);
# skipped, with a message, where clang or libFuzzer is missing.
fuzz-smoke:
	$(if $(HAVE_FUZZ),$(MAKE) --no-print-directory smoke-build && fuzz/run_smoke.sh $(SMOKE_BUILD),@echo "$(FUZZ_SKIPPED)")

# Long runs, one target after another: FUZZ_SECONDS each (make fuzz FUZZ_SECONDS=1800), or one
# target: fuzz/run_campaign.sh TARGET SECONDS.
fuzz: fuzz-build
	@for t in $$(grep -E '^[a-z]' fuzz/targets.txt | awk '{print $$1}'); do \
	  echo "== fuzz_$$t"; log=$(FUZZ_BUILD)/fuzz-campaign/$$t.log; mkdir -p $(FUZZ_BUILD)/fuzz-campaign; \
	  if fuzz/run_campaign.sh $$t $(FUZZ_SECONDS) $(FUZZ_BUILD) > $$log 2>&1; then grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' $$log; \
	  else grep -E 'CONTRACT|ERROR|runtime error|written to' $$log; echo "fuzz_$$t failed: $$log"; exit 1; fi; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(SMOKE_BUILD)
