# libsvmgo — see README.md. `make` builds the command and the C library,
# `make demo` runs the main job on bundled data, `make test` runs every test,
# `make bench` compares with LIBLINEAR and times the C ABI.

GO        ?= go
# Make's built-in default for CC is cc; the examples are checked with gcc.
ifeq ($(origin CC),default)
CC        := gcc
endif
CXX       ?= g++
PYTHON    ?= python3
BIN       := bin/svmgo
LIB       := lib/libsvmgo.so
ARM64_LIB := lib/linux-arm64/libsvmgo.so
SHARED    ?= ../shared/data
# Large benchmark data (Fashion-MNIST) is built here, never in the repo.
SVMGO_DATA ?= $(HOME)/.cache/libsvmgo
DEMO_DATA := examples/data

# The C and C++ clients: the strictest warnings, as a user's build might
# have them; the rpath finds lib/libsvmgo.so from bin/ without LD_LIBRARY_PATH.
EX_CFLAGS   := -std=c99 -O2 -Wall -Wextra -Wpedantic -Werror -Iinclude
EX_CXXFLAGS := -std=c++17 -O2 -Wall -Wextra -Werror -Iinclude
EX_LDFLAGS  := -Llib -lsvmgo -Wl,-rpath,'$$ORIGIN/../lib'
C_DEMO_SRC  := examples/c/svmgo_demo.c examples/c/libsvm_reader.c
C_KERNEL_SRC := examples/c/svmgo_kernel_demo.c examples/c/libsvm_reader.c
# The kernel clients fit an RBF C-SVC with probabilities on heart_scale.
KERNEL_OPTIONS := -t 2 -c 4 -b 1

GO_SRC   := $(shell find core daemon quantize capi -name '*.go' -not -name '*_test.go' -not -path '*/testdata/*' 2>/dev/null)
CAPI_C   := $(shell find capi -maxdepth 1 \( -name '*.c' -o -name '*.h' \) 2>/dev/null)

.PHONY: all build lib demo test vet test-c test-cpp test-python readme-check cross-arm64 \
	fuzz-seeds bench bench-deps bench-readme clean

all: build lib

build: $(BIN)

lib: $(LIB)

$(BIN): $(GO_SRC) go.mod go.sum
	$(GO) build -trimpath -o $@ ./daemon/cmd/svmgo

# The shared library. cgo also writes lib/libsvmgo.h, its own view of the
# exports: it is not the contract (include/svmgo.h is), so it goes.
$(LIB): $(GO_SRC) $(CAPI_C) include/svmgo.h go.mod go.sum
	$(GO) build -trimpath -buildmode=c-shared -o $@ ./capi
	rm -f lib/libsvmgo.h

# The main job (issue 4, examples/demo/demo.sh): svmgo watch on a temporary
# root, a Python client holding a watched model, the bundled batches dropped
# into incoming/ one by one, each new version hot-swapped into the client;
# then SIGTERM, a summary, and the offline train/predict/cross-validate
# reference on the same rows.
demo: $(BIN) $(LIB)
	BIN=$(CURDIR)/$(BIN) DATA=$(CURDIR)/$(DEMO_DATA) PYTHON=$(PYTHON) SVMGO_LIB=$(CURDIR)/$(LIB) \
		bash examples/demo/demo.sh

vet:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

# Every test, the fuzz targets' seed corpora included (go test runs them),
# then the C, C++ and Python clients of libsvmgo.so, the README's examples,
# the arm64 build under qemu, and the demo.
test: vet $(BIN) $(LIB)
	$(GO) test -count=1 ./...
	$(MAKE) --no-print-directory test-c test-cpp test-python readme-check cross-arm64
	$(MAKE) --no-print-directory demo > /dev/null

# ---- Clients of libsvmgo.so ---------------------------------------------------

bin/svmgo_demo_c: $(C_DEMO_SRC) examples/c/libsvm_reader.h include/svmgo.h $(LIB)
	@mkdir -p bin
	$(CC) $(EX_CFLAGS) $(C_DEMO_SRC) $(EX_LDFLAGS) -o $@

bin/readme_example_c: examples/c/readme_example.c include/svmgo.h $(LIB)
	@mkdir -p bin
	$(CC) $(EX_CFLAGS) $< $(EX_LDFLAGS) -o $@

bin/svmgo_kernel_demo_c: $(C_KERNEL_SRC) examples/c/libsvm_reader.h include/svmgo.h $(LIB)
	@mkdir -p bin
	$(CC) $(EX_CFLAGS) $(C_KERNEL_SRC) $(EX_LDFLAGS) -o $@

bin/svmgo_demo_cpp: examples/cpp/svmgo_demo.cpp examples/cpp/libsvm_reader.hpp include/svmgo.hpp include/svmgo.h \
		$(LIB)
	@mkdir -p bin
	$(CXX) $(EX_CXXFLAGS) $< $(EX_LDFLAGS) -o $@

bin/svmgo_kernel_demo_cpp: examples/cpp/svmgo_kernel_demo.cpp examples/cpp/libsvm_reader.hpp include/svmgo.hpp \
		include/svmgo.h $(LIB)
	@mkdir -p bin
	$(CXX) $(EX_CXXFLAGS) $< $(EX_LDFLAGS) -o $@

# run_kernel_client runs kernel client $(1) with $(KERNEL_OPTIONS) on
# heart_scale and checks its two "Accuracy = P% (k/n)" lines (labels, most
# probable classes) against bin/svmgo predict and predict -b 1 of a model
# that bin/svmgo train fits here from the same files and options.
define run_kernel_client
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	acc='Accuracy = [0-9.]*% ([0-9]*/[0-9]*)' && \
	$(BIN) train -q $(KERNEL_OPTIONS) $(DEMO_DATA)/heart_scale.train $$tmp/model && \
	{ $(BIN) predict $(DEMO_DATA)/heart_scale.test $$tmp/model $$tmp/out && \
	  $(BIN) predict -b 1 $(DEMO_DATA)/heart_scale.test $$tmp/model $$tmp/out; } | grep -o "$$acc" > $$tmp/want && \
	echo '$(1) $(DEMO_DATA)/heart_scale.train $(DEMO_DATA)/heart_scale.test "$(KERNEL_OPTIONS)"' && \
	{ $(1) $(DEMO_DATA)/heart_scale.train $(DEMO_DATA)/heart_scale.test "$(KERNEL_OPTIONS)" > $$tmp/got; \
	  st=$$?; cat $$tmp/got; [ $$st -eq 0 ]; } && \
	grep -o "^$$acc" $$tmp/got | diff -u --label "bin/svmgo predict, predict -b 1" --label "$(1)" $$tmp/want - && \
	[ $$(wc -l < $$tmp/want) -eq 2 ] && echo "$(1): accuracy as bin/svmgo predict and predict -b 1 print it"
endef

test-c: bin/svmgo_demo_c bin/readme_example_c bin/svmgo_kernel_demo_c $(BIN)
	bin/svmgo_demo_c
	bin/readme_example_c
	$(call run_kernel_client,bin/svmgo_kernel_demo_c)

test-cpp: bin/svmgo_demo_cpp bin/svmgo_kernel_demo_cpp $(BIN)
	bin/svmgo_demo_cpp
	$(call run_kernel_client,bin/svmgo_kernel_demo_cpp)

# The numpy and scipy tests skip when $(PYTHON) lacks them. Debian's
# python3-numpy serves /usr/bin/python3, which may not be the python3 on
# PATH: when only it has numpy, the suite runs again with it.
test-python: $(LIB) $(BIN)
	SVMGO_LIB=$(CURDIR)/$(LIB) SVMGO_BIN=$(CURDIR)/$(BIN) $(PYTHON) -m unittest discover -s examples/python
	$(PYTHON) -m unittest discover -s examples/bench
	SVMGO_LIB=$(CURDIR)/$(LIB) $(PYTHON) examples/python/readme_example.py
	@if ! $(PYTHON) -c 'import numpy' 2>/dev/null && [ -x /usr/bin/python3 ] && \
		/usr/bin/python3 -c 'import numpy' 2>/dev/null; then \
		echo "SVMGO_LIB=$(CURDIR)/$(LIB) SVMGO_BIN=$(CURDIR)/$(BIN) /usr/bin/python3 -m unittest discover -s examples/python"; \
		SVMGO_LIB=$(CURDIR)/$(LIB) SVMGO_BIN=$(CURDIR)/$(BIN) /usr/bin/python3 -m unittest discover -s examples/python; \
	fi

# The README's C and Python examples are these files, byte for byte: each
# is the fenced block after the line "<!-- file: PATH -->".
README_EXAMPLES := examples/c/readme_example.c examples/python/readme_example.py
readme-check:
	@for f in $(README_EXAMPLES); do \
		awk -v marker="<!-- file: $$f -->" \
			'$$0 == marker { found = 1; next } \
			 found && /^```/ { if (open) exit; open = 1; next } \
			 open { print }' README.md | diff -u --label "$$f" --label "README.md" "$$f" - || \
		{ echo "README.md: the code block after '<!-- file: $$f -->' differs from $$f"; exit 1; }; \
	done; echo "README.md examples match $(README_EXAMPLES)"

# The library for 64-bit ARM, the C demo run on it under qemu-user, and
# under qemu too the tests of core/simd (the portable path arm64 takes) and
# core's blocked predictors on it.
# Debian's cross compiler and qemu are installed when missing.
cross-arm64:
	@command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null || { \
		echo "installing gcc-aarch64-linux-gnu and qemu-user"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			gcc-aarch64-linux-gnu qemu-user >/dev/null; }
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(GO) build -trimpath -buildmode=c-shared -o $(ARM64_LIB) ./capi
	rm -f lib/linux-arm64/libsvmgo.h
	@mkdir -p bin/linux-arm64
	aarch64-linux-gnu-gcc $(EX_CFLAGS) $(C_DEMO_SRC) -Llib/linux-arm64 -lsvmgo -o bin/linux-arm64/svmgo_demo_c
	qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$(CURDIR)/lib/linux-arm64 bin/linux-arm64/svmgo_demo_c
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -c -o bin/linux-arm64/simd.test ./core/simd
	qemu-aarch64 bin/linux-arm64/simd.test -test.count=1
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -c -o bin/linux-arm64/core.test ./core
	qemu-aarch64 bin/linux-arm64/core.test -test.count=1 \
		-test.run 'BlockedDecisions|BlockedSpecial|BlockedPredictNoAllocs|LinearBlockedMatches'

# ---- Benchmarks ------------------------------------------------------------------

bench-deps:
	@command -v liblinear-train >/dev/null && command -v svm-train >/dev/null || { apt-get update -qq && apt-get install -y -qq liblinear-tools liblinear-dev libsvm-tools; }
	@test -f $(SVMGO_DATA)/fashion.train || bash $(SHARED)/make-fashion-mnist.sh $(SVMGO_DATA)

# Go benchmarks, the comparison tables against LIBLINEAR and LIBSVM (the
# kernel predict path against svm-predict and svm_predict too), the
# quantized models, the C ABI's prediction costs and the daemon's warm
# retraining (each script writes examples/bench/out/NAME.md), then the
# tables spliced into README.md.
bench: $(BIN) $(LIB) bench-deps
	$(GO) test -run '^$$' -bench . -benchmem ./core/...
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/bench/linear.sh
	SVMGO_DATA=$(SVMGO_DATA) bash examples/bench/kernel.sh
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/bench/predict.sh
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) SVMGO=$(CURDIR)/$(BIN) bash examples/bench/smo.sh
	SVMGO_DATA=$(SVMGO_DATA) bash examples/bench/quantize.sh
	SVMGO_DATA=$(SVMGO_DATA) PYTHON=$(PYTHON) bash examples/bench/capi.sh
	SVMGO=$(CURDIR)/$(BIN) bash examples/bench/daemon.sh
	bash examples/bench/warm.sh
	$(MAKE) --no-print-directory bench-readme

# README.md's benchmark tables are the scripts' output: each block between
# "<!-- bench:NAME -->" and "<!-- /bench:NAME -->" is replaced by
# examples/bench/out/NAME.md (cases a run did not cover keep their rows).
bench-readme:
	$(PYTHON) examples/bench/readme_tables.py README.md examples/bench/out

clean:
	rm -rf bin lib
