# Entry points (see README.md). Every target installs missing Debian packages first.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
WERROR ?= 0
JOBS ?= 2
# One build at a time on this machine: every build takes this lock.
LOCK := flock /tmp/tributary-build.lock

.PHONY: all setup build run test test-slow bench clean asan format format-check

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	@bash scripts/setup.sh
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DTRIBUTARY_WERROR=$(WERROR)

build: $(BUILD)/build.ninja
	@bash scripts/setup.sh
	$(LOCK) cmake --build $(BUILD) -j $(JOBS)

# The C++ sources as .clang-format says (clang-format from Debian, installed by setup).
format:
	@bash scripts/setup.sh
	bash scripts/format.sh

format-check:
	@bash scripts/setup.sh
	bash scripts/format.sh --check

run: build
	rm -rf warehouse/quickstart.db
	$(BUILD)/tributary sql --warehouse warehouse --format table -f examples/quickstart.sql

test: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS) -LE slow
	bash tests/install/install_test.sh $(BUILD)
	python3 tests/sqllogic/run.py --binary $(BUILD)/tributary tests/sql
	python3 tests/sqllogic/run.py --binary $(BUILD)/tributary --s3 tests/sql/ddl tests/sql/dml tests/sql/session
	python3 tests/differential/joins_sqlite.py --binary $(BUILD)/tributary
	python3 tests/differential/joins_sqlite.py --binary $(BUILD)/tributary --aggregate-limit '1 kb' --join-limit '1 kb' --seed 3
	python3 tests/differential/lookup_merge.py --binary $(BUILD)/tributary
	python3 tests/differential/delta_join.py --binary $(BUILD)/tributary
	python3 tests/differential/cross_partition.py --binary $(BUILD)/tributary
	python3 tests/differential/streaming_topn.py --binary $(BUILD)/tributary
	python3 tests/differential/deletion_vectors.py --binary $(BUILD)/tributary
	python3 tests/server/pg_wire_test.py --binary $(BUILD)/tributary
	bash tests/crash/run_all.sh $(BUILD)/tributary

test-slow: build
	@command -v node >/dev/null && command -v npm >/dev/null && command -v zstd >/dev/null && \
	  command -v lz4 >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm zstd lz4)
	python3 tests/slow/memory_test.py --binary $(BUILD)/tributary
	python3 tests/sqllogic/run.py --binary $(BUILD)/tributary --s3 tests/sql
	python3 tests/crash/crash_test.py --binary $(BUILD)/tributary --s3
	python3 tests/crash/concurrency_test.py --binary $(BUILD)/tributary --s3 --statements 50
	python3 tests/differential/joins_sqlite.py --binary $(BUILD)/tributary --rounds 100 --queries 80 --seed 11
	python3 tests/differential/lookup_merge.py --binary $(BUILD)/tributary --rounds 40 --seed 23
	python3 tests/differential/delta_join.py --binary $(BUILD)/tributary --rounds 30 --seed 29
	python3 tests/differential/cross_partition.py --binary $(BUILD)/tributary --rounds 30 --seed 31
	python3 tests/differential/streaming_topn.py --binary $(BUILD)/tributary --rounds 30 --seed 37
	python3 tests/differential/deletion_vectors.py --binary $(BUILD)/tributary --rounds 30 --seed 41
	bash tests/crosscheck/avro_avsc.sh $(BUILD)
	bash tests/crosscheck/parquet_duckdb.sh $(BUILD)
	bash tests/crosscheck/arrow_js.sh $(BUILD)
	python3 tests/crash/s3_tools_test.py --binary $(BUILD)/tributary --parts A
	bash tests/fuzz/run_fuzzers.sh

bench: build
	bash bench/run.sh

asan:
	$(MAKE) build BUILD=build-asan BUILD_TYPE=Asan

clean:
	rm -rf $(BUILD)
