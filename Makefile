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
# apt-get that waits for another apt or dpkg run to let go of its lock
# (unattended upgrades, or two make runs at once) instead of failing.
APT_GET   := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600
BIN       := bin/svmgo
# The full build of the command (every command; watch, serve and follow run
# here): bin/svmgo, the batch build, execs it for those three.
DAEMON_BIN := bin/svmgo-daemon
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

# make install: GNU directory variables; DESTDIR stages the tree for a package.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR       ?= $(PREFIX)/share/man
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR   ?= $(PREFIX)/share/zsh/site-functions
MANPAGE      := bin/svmgo.1
# The version is svmgo.h's SVMGO_VERSION_* macros; the soname carries the
# major version (libsvmgo.so.0), the installed file the full one.
VERSION := $(shell sed -n 's/^\#define SVMGO_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9][0-9]*\)$$/\2/p' include/svmgo.h | paste -sd.)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SOLIB   := lib/libsvmgo.so.$(VERSION)
ARCHIVE := lib/libsvmgo.a

# make wheel: Debian's python3 (with its setuptools, wheel, numpy, scipy and
# scikit-learn) builds and tests the Python package.
DEB_PYTHON ?= /usr/bin/python3
WHEEL_PLAT := linux_$(shell uname -m)
WHEEL      := dist/svmgo-$(VERSION)-py3-none-$(WHEEL_PLAT).whl
ARM64_WHEEL := dist/linux-arm64/svmgo-$(VERSION)-py3-none-linux_aarch64.whl
ARMV7_LIB   := lib/linux-armv7/libsvmgo.so
ARMV7_WHEEL := dist/linux-armv7/svmgo-$(VERSION)-py3-none-linux_armv7l.whl

GO_SRC   := $(shell find core daemon quantize capi \( -name '*.go' -o -name '*.s' \) -not -name '*_test.go' -not -path '*/testdata/*' 2>/dev/null)
CAPI_C   := $(shell find capi -maxdepth 1 \( -name '*.c' -o -name '*.h' \) 2>/dev/null)

.PHONY: all build lib demo test test-deps test-deps-fleet test-fleet fleet-soak test-long vet test-c test-cpp test-python readme-check cross-arm64 test-deps-mcu test-mcu test-mcu-full \
	fuzz-seeds bench bench-deps bench-readme clean install uninstall test-install \
	python-deps wheel wheel-arm64 test-wheel test-service arm64-lib soak \
	test-deps-serve test-serve serve-soak proto-serve \
	armv7-lib cross-armv7 wheel-armv7 test-armv7-shared

all: build lib

build: $(BIN)

lib: $(LIB)

# The commit --version and svmgo_build_info report when the toolchain
# records none (GOFLAGS=-buildvcs=false): git's, "+modified" when dirty.
GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +modified)
GO_LDFLAGS := -X github.com/libsvmgo/libsvmgo/daemon/buildinfo.commit=$(GIT_COMMIT)

# The command needs no cgo (only net's resolver and os/user would use it):
# built static, it skips the dynamic loader and libc's pages at every start
# (heart_scale train-linear: -2.7 ms CPU, -1.5 MiB peak RSS). bin/svmgo is
# the batch build (-tags svmgo_batch: no gRPC, NATS or HTTP server linked,
# whose package inits cost every command 7 MiB of peak RSS); for watch,
# serve and follow it execs bin/svmgo-daemon, the full build, next to it
# (daemon/cmd/svmgo/batch.go). grpcnotrace leaves gRPC's golang.org/x/net/trace
# out of the daemon (its init and html/template: -0.48 MB of binary), which
# svmgo serve does not use.
$(BIN): $(GO_SRC) go.mod go.sum $(DAEMON_BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -tags svmgo_batch -ldflags '$(GO_LDFLAGS)' -o $@ ./daemon/cmd/svmgo

$(DAEMON_BIN): $(GO_SRC) go.mod go.sum
	CGO_ENABLED=0 $(GO) build -tags grpcnotrace -trimpath -ldflags '$(GO_LDFLAGS)' -o $@ ./daemon/cmd/svmgo

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

# Every test in its -short form, the fuzz targets' seed corpora included
# (go test runs them), without the race detector; then capi, core,
# core/linear and daemon/... again under it, less RACE_SKIP; then the C,
# C++ and Python clients of libsvmgo.so, the README's examples, the arm64
# build under qemu, make install with the examples built against it by
# pkg-config, the Python wheels (the x86-64 one installed in a fresh venv
# and tested there), the systemd unit, and the demo. make test-long runs
# the long forms too (the parity cases on the large data sets, the
# daemon's crash loops).
#
# RACE_SKIP names the tests the race pass leaves to the plain one: solver
# parity, optimality and determinism checks on the shared data sets, each
# one goroutine's arithmetic (or a thread-count comparison another race-run
# test covers on small data). The race detector has nothing to check in
# them and slows them 20-100 times: under it they were most of the 10
# minutes make test may take. Their concurrent code paths stay in the race
# pass through the tests that exercise them (kparallel, the trainers'
# Threads, predict batches, the daemon's and the C ABI's concurrency tests).
RACE_PKGS  := ./capi ./core ./core/linear ./daemon/...
RACE_SKIP  := ^(TestL1ParityWithLIBLINEAR|TestL1LayoutsSeedsThreads|TestLRDualParityWithLIBLINEAR|TestLRDualKKT|TestLRDualDeterministic|TestKernelProbabilityLogLossLIBSVM|TestWarmStreamNoDrift|TestSVRQ|TestBlockedDecisionsMatchRowAtATime|TestKernelTrainModel|TestKernelKKT|TestNuKKT|TestNuWarmStart|TestMultinomialSolveNoAllocs|TestExportPredictsAsLIBSVM)$$
test: vet $(BIN) $(LIB) test-deps test-deps-fleet
	$(GO) test -count=1 -short ./...
	$(GO) test -count=1 -short -race -timeout 30m -skip '$(RACE_SKIP)' $(RACE_PKGS)
	$(MAKE) --no-print-directory test-c test-cpp test-python readme-check cross-arm64 test-serve test-mcu test-fleet test-onnx
	$(MAKE) --no-print-directory test-install test-wheel wheel-arm64 test-service cross-armv7
	$(MAKE) --no-print-directory demo > /dev/null

# The kill -9 soak (issue 22; not part of make test: an hour or more, the
# store growing by 10 rows a cycle): SOAK_CYCLES random SIGKILLs of svmgo
# watch over a stream of batches, exactly-once, the stored rows and the
# model versions checked after each (examples/soak).
SOAK_CYCLES ?= 10000
soak: $(BIN)
	$(GO) run ./examples/soak -bin $(BIN) -cycles $(SOAK_CYCLES)

# Debian's packages the Go tests compare with, installed when missing:
# promtool (prometheus) checks the daemon's /metrics, svm-predict and
# liblinear-predict (libsvm-tools, liblinear-tools) read exported models.
test-deps:
	@command -v promtool >/dev/null && command -v svm-predict >/dev/null && command -v liblinear-predict >/dev/null || { \
		echo "installing prometheus libsvm-tools liblinear-tools"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq prometheus libsvm-tools liblinear-tools >/dev/null; }

# ---- svmgo serve (issue 27) -------------------------------------------------------

# The OIP gRPC client of the conformance test: Debian's grpcio and
# grpc-tools for /usr/bin/python3 (the stubs are generated from the vendored
# proto at test time); curl drives the REST routes.
test-deps-serve:
	@/usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null && command -v curl >/dev/null || { \
		echo "installing python3-grpcio python3-grpc-tools curl"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq python3-grpcio python3-grpc-tools curl >/dev/null; }

# svmgo serve and svmgo watch --serve as real processes on loopback: the
# conformance test (curl, the Python gRPC client, svmgo predict on every
# set of $(SHARED)), a short swap soak, and the daemon serving its own
# models. The fuzz targets' seeds run in the plain go test of daemon/....
test-serve: test-deps-serve
	$(GO) test -count=1 -run '^(TestServeConformance|TestServeSwapSoak|TestWatchServe)$$' ./daemon/cmd/svmgo

# The full swap soak of issue 27: 8 clients for 60 s while 500 versions
# are published, one in five corrupt; prints p50/p99 with and without swaps.
serve-soak:
	SVMGO_SERVE_SOAK_SECONDS=60 SVMGO_SERVE_SOAK_VERSIONS=500 \
		$(GO) test -count=1 -timeout 10m -v -run '^TestServeSwapSoak$$' ./daemon/cmd/svmgo | grep -v '^=== RUN'

# Regenerates daemon/serve/inferencepb from the vendored proto (the
# generated code is committed: go build needs no protoc): Debian's
# python3-grpc-tools protoc with protoc-gen-go and protoc-gen-go-grpc from
# the Go module proxy.
proto-serve: test-deps-serve
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
	cd daemon/serve/inferencepb && PATH=$(CURDIR)/bin:$$PATH /usr/bin/python3 -m grpc_tools.protoc -I. \
		--go_out=. --go_opt=paths=source_relative --go_opt=Mgrpc_predict_v2.proto=github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb \
		--go-grpc_out=. --go-grpc_opt=paths=source_relative \
		--go-grpc_opt=Mgrpc_predict_v2.proto=github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb grpc_predict_v2.proto
# The NATS fleet (issue 28): Debian's nats-server, which the fleet tests
# start on loopback (a JetStream hub, leaf nodes), installed when missing.
test-deps-fleet:
	@command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || { \
		echo "installing nats-server"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq nats-server >/dev/null; }

# The fleet's acceptance (daemon/fleet, acceptance_test.go) with real
# nats-server processes on loopback: svmgo watch killed with SIGKILL while a
# stream feeds it, followers on a hub and two leaf nodes, the hub killed
# and a leaf cut off, a 10 MB transfer, and the C client below serving a
# follower's directory. make test runs it at a small scale (under a minute);
# make fleet-soak at the issue's full scale (1,000 batches and 50 kills;
# 100 followers and 200 versions; a 30 s cut), printing its figures.
FLEET_ENV = FLEET_SVMGO=$(CURDIR)/$(BIN) FLEET_C_CLIENT=$(CURDIR)/bin/fleet_client_c
test-fleet: $(BIN) bin/fleet_client_c test-deps-fleet
	@mkdir -p bin
	$(FLEET_ENV) $(GO) test -count=1 -run 'TestFleet' -v ./daemon/fleet > bin/test-fleet.log 2>&1; rc=$$?; \
		grep -E '^(fleet|--- |ok|FAIL|PASS|panic)' bin/test-fleet.log; \
		[ $$rc -eq 0 ] || { tail -60 bin/test-fleet.log; exit 1; }
fleet-soak: $(BIN) bin/fleet_client_c test-deps-fleet
	@mkdir -p bin
	$(FLEET_ENV) FLEET_SCALE=full $(GO) test -count=1 -timeout 60m -run 'TestFleet' -v ./daemon/fleet > bin/fleet-soak.log 2>&1; rc=$$?; \
		grep -E '^(fleet|--- |ok|FAIL|PASS|panic)' bin/fleet-soak.log; \
		[ $$rc -eq 0 ] || { tail -60 bin/fleet-soak.log; exit 1; }

bin/fleet_client_c: examples/fleet/fleet_client.c include/svmgo.h $(LIB)
	@mkdir -p bin
	$(CC) $(EX_CFLAGS) $< $(EX_LDFLAGS) -o $@

# Every Go test in its long form (no -short, no race detector).
test-long:
	$(GO) test -count=1 ./...

# ---- ONNX (issue 26) -------------------------------------------------------------
# ONNX Runtime 1.17 from npm (its package bundles libonnxruntime.so; newer
# versions download binaries at install time), in a cache this Makefile
# owns; Debian's python3-onnx and python3-sklearn build graphs in
# skl2onnx's layout.
ORT_DIR     := .cache/ort
ORT_MODULES := $(ORT_DIR)/node_modules
ORT_VERSION := 1.17.0

.PHONY: test-onnx test-deps-onnx bench-onnx

test-deps-onnx:
	@$(DEB_PYTHON) -c 'import onnx, sklearn' 2>/dev/null || { \
		echo "installing python3-onnx python3-sklearn"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq python3-onnx python3-sklearn >/dev/null; }
	@test -f $(ORT_MODULES)/onnxruntime-node/package.json && \
		grep -q '"version": "$(ORT_VERSION)"' $(ORT_MODULES)/onnxruntime-node/package.json || { \
		echo "installing onnxruntime-node@$(ORT_VERSION) into $(ORT_DIR)"; \
		mkdir -p $(ORT_DIR) && cd $(ORT_DIR) && npm install --ignore-scripts --no-audit --no-fund --silent \
			onnxruntime-node@$(ORT_VERSION) >/dev/null; }

# Every exported kind run by ONNX Runtime against svmgo's predictions, and
# scikit-learn models as skl2onnx-layout graphs imported and predicted.
test-onnx: $(BIN) test-deps-onnx
	SVMGO_ORT_NODE_PATH=$(CURDIR)/$(ORT_MODULES) $(GO) test -count=1 -run 'TestONNXRuntime' ./core/onnx
	SVMGO_BIN=$(CURDIR)/$(BIN) SVMGO_TEST_DATA=$(abspath $(SHARED)) $(DEB_PYTHON) -m unittest discover -s examples/onnx

# svmgo predict against ONNX Runtime 1.17 (1 and 2 threads) on the same
# exported RBF models of digits, shuttle and Fashion-MNIST 10k (not part of
# make test: the Fashion model trains for minutes, once).
bench-onnx: $(BIN) test-deps-onnx
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/onnx/bench.sh

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

# The numpy, scipy and scikit-learn tests (test_sklearn.py) skip when
# $(PYTHON) lacks them. Debian's
# python3-numpy serves /usr/bin/python3, which may not be the python3 on
# PATH: when only it has numpy, the suite runs again with it.
test-python: $(LIB) $(BIN)
	SVMGO_LIB=$(CURDIR)/$(LIB) SVMGO_BIN=$(CURDIR)/$(BIN) SVMGO_TEST_DATA=$(abspath $(SHARED)) \
		$(PYTHON) -m unittest discover -s examples/python
	$(PYTHON) -m unittest discover -s examples/bench
	SVMGO_LIB=$(CURDIR)/$(LIB) $(PYTHON) examples/python/readme_example.py
	@if ! $(PYTHON) -c 'import numpy' 2>/dev/null && [ -x /usr/bin/python3 ] && \
		/usr/bin/python3 -c 'import numpy' 2>/dev/null; then \
		echo "SVMGO_LIB=$(CURDIR)/$(LIB) SVMGO_BIN=$(CURDIR)/$(BIN) /usr/bin/python3 -m unittest discover -s examples/python"; \
		SVMGO_LIB=$(CURDIR)/$(LIB) SVMGO_BIN=$(CURDIR)/$(BIN) SVMGO_TEST_DATA=$(abspath $(SHARED)) \
			/usr/bin/python3 -m unittest discover -s examples/python; \
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
cross-arm64: arm64-lib
	@mkdir -p bin/linux-arm64
	aarch64-linux-gnu-gcc $(EX_CFLAGS) $(C_DEMO_SRC) -Llib/linux-arm64 -lsvmgo -o bin/linux-arm64/svmgo_demo_c
	qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$(CURDIR)/lib/linux-arm64 bin/linux-arm64/svmgo_demo_c
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -c -o bin/linux-arm64/simd.test ./core/simd
	qemu-aarch64 bin/linux-arm64/simd.test -test.count=1
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -c -o bin/linux-arm64/core.test ./core
	qemu-aarch64 bin/linux-arm64/core.test -test.count=1 \
		-test.run 'BlockedDecisions|BlockedSpecial|BlockedPredictNoAllocs'
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) test -c -o bin/linux-arm64/linear.test ./core/linear
	qemu-aarch64 bin/linux-arm64/linear.test -test.count=1 -test.run 'LinearBlockedMatches|DecisionDenseBatch'

# ---- 32-bit ARM Linux (issue 29) -------------------------------------------------

# libsvmgo.so and svmgo for armv7 (GOARM=7, hard float: Raspberry Pi OS
# 32-bit and the like), with Debian's cross compiler and qemu-user,
# installed when missing.
ARMV7_GO   := GOOS=linux GOARCH=arm GOARM=7
ARMV7_CC   := arm-linux-gnueabihf-gcc
QEMU_ARMV7 := qemu-arm -L /usr/arm-linux-gnueabihf
armv7-lib:
	@command -v $(ARMV7_CC) >/dev/null && command -v qemu-arm >/dev/null || { \
		echo "installing gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf qemu-user"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq \
			gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf qemu-user >/dev/null; }
	CGO_ENABLED=1 $(ARMV7_GO) CC=$(ARMV7_CC) $(GO) build -trimpath -buildmode=c-shared -o $(ARMV7_LIB) ./capi
	rm -f lib/linux-armv7/libsvmgo.h
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) build -trimpath -o bin/linux-armv7/svmgo ./daemon/cmd/svmgo

# Under qemu-arm: the C demo on the armv7 library; the C ABI's tests
# driven from C (misuse, predict, the loader) and its 32-bit size checks;
# the command's train/predict/quantize/export tests (heart_scale; make
# test-armv7-shared runs its predict on every shared set); the blocked
# kernel predictor on the portable simd path (its stated accuracy, near
# ties refined); and the 32-bit boundaries of the model-file reader, data
# sets and memory checks.
cross-armv7: armv7-lib wheel-armv7
	$(ARMV7_CC) $(EX_CFLAGS) $(C_DEMO_SRC) -Llib/linux-armv7 -lsvmgo -o bin/linux-armv7/svmgo_demo_c
	$(QEMU_ARMV7) -E LD_LIBRARY_PATH=$(CURDIR)/lib/linux-armv7 bin/linux-armv7/svmgo_demo_c
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) test -c -o bin/linux-armv7/svmgo.test ./daemon/cmd/svmgo
	cd daemon/cmd/svmgo && qemu-arm $(CURDIR)/bin/linux-armv7/svmgo.test -test.count=1 \
		-test.run 'TestTrainPredict|TestPredictQuantized$$|TestPredictRefusesNaNModel|TestExportCPredictsAsPredict'
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) test -c -o bin/linux-armv7/core.test ./core
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) test -c -o bin/linux-armv7/model.test ./core/model
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) test -c -o bin/linux-armv7/data.test ./core/data
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) test -c -o bin/linux-armv7/modelfile.test ./core/modelfile
	qemu-arm bin/linux-armv7/core.test -test.count=1 \
		-test.run 'TestTrainersRefuseSizesBeyondMemory|BlockedDecisions|BlockedSpecial|BlockedPredictNoAllocs|BlockedRefinesTies'
	qemu-arm bin/linux-armv7/model.test -test.count=1 -test.run TestCheckMemoryPastAddressSpace
	qemu-arm bin/linux-armv7/data.test -test.count=1 -test.run 'TestNewDenseRefusesWrappedCapacity'
	qemu-arm bin/linux-armv7/modelfile.test -test.count=1 -test.run 'TestFrameSizePast2GiB|TestReadFileErrors'
	CGO_ENABLED=1 $(ARMV7_GO) CC=$(ARMV7_CC) $(GO) test -c -o bin/linux-armv7/capi.test ./capi
	cd capi && CGO_ENABLED=1 $(ARMV7_GO) CC=$(ARMV7_CC) SVMGO_TEST_CC=$(ARMV7_CC) SVMGO_TEST_CXX=arm-linux-gnueabihf-g++ \
		SVMGO_TEST_EXEC="$(QEMU_ARMV7)" $(QEMU_ARMV7) $(CURDIR)/bin/linux-armv7/capi.test -test.count=1 \
		-test.run 'TestMisuseFromC|TestPredictMatchesGoAPI|TestPredictErrors|TestLoadSpecialFiles|TestSizesPast2GiBRefused|TestLinearBlockedRows'

# The command's predict on every shared set under qemu-arm, against
# Debian's svm-predict and liblinear-predict (TestExportPredictsAsLIBSVM:
# minutes under emulation, so not part of make test).
test-armv7-shared: armv7-lib
	CGO_ENABLED=0 $(ARMV7_GO) $(GO) test -c -o bin/linux-armv7/svmgo.test ./daemon/cmd/svmgo
	cd daemon/cmd/svmgo && qemu-arm $(CURDIR)/bin/linux-armv7/svmgo.test -test.count=1 -test.v \
		-test.run 'TestExportPredictsAsLIBSVM'

# The armv7 wheel, from the cross build (dist/linux-armv7/).
wheel-armv7: python-deps armv7-lib
	$(call build_wheel,bin/wheel-armv7,$(ARMV7_LIB),bin/linux-armv7/svmgo,dist/linux-armv7,linux_armv7l)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cd $$tmp && unzip -q $(CURDIR)/$(ARMV7_WHEEL) && \
	file svmgo/libsvmgo.so svmgo/bin/svmgo | grep -c 'ARM, EABI5' | grep -qx 2 && \
	qemu-arm svmgo/bin/svmgo --version && echo "$(ARMV7_WHEEL): libsvmgo.so and svmgo for armv7"

# ---- Microcontrollers (issue 29) ---------------------------------------------------

# Debian's Cortex-M cross compiler and qemu-system-arm, installed when
# missing. (The qemu runs need no C library: core/cgen/testdata/driver.c
# brings its own vector table and semihosting calls, and libgcc, which
# gcc-arm-none-eabi ships, the software floating point.)
test-deps-mcu:
	@command -v arm-none-eabi-gcc >/dev/null && command -v qemu-system-arm >/dev/null || { \
		echo "installing gcc-arm-none-eabi qemu-system-arm"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq gcc-arm-none-eabi qemu-system-arm >/dev/null; }

# svmgo export --format c's acceptance (core/cgen): every shared set's
# models, float and quantized, compiled strict on the host and for a
# Cortex-M4F and a Cortex-M3, predicting as the library on the host (every
# test row) and under qemu on MPS2 boards (MCU_ROWS rows spread over each
# set). make test-mcu-full runs every row on the Cortex-M4F and up to
# MCU_M3_ROWS spread over each set on the M3 (emulated soft double: all
# 14,500 shuttle rows take 6 minutes a RBF model and target at load 20),
# writes the figures to bin/mcu-sizes.tsv and examples/mcu/README.md's
# size table from them (examples/mcu/size_table.py); 20 minutes at load 20.
MCU_ROWS ?= 24
MCU_M3_ROWS ?= 2000
test-mcu: test-deps-mcu
	SVMGO_MCU_ROWS=$(MCU_ROWS) $(GO) test -count=1 -run TestGeneratedMatchesLibrary ./core/cgen

test-mcu-full: test-deps-mcu
	@mkdir -p bin
	SVMGO_MCU_ROWS=0 SVMGO_MCU_M3_ROWS=$(MCU_M3_ROWS) SVMGO_CGEN_SIZES=$(CURDIR)/bin/mcu-sizes.tsv \
		$(GO) test -count=1 -timeout 150m -v -run TestGeneratedMatchesLibrary ./core/cgen
	$(PYTHON) examples/mcu/size_table.py bin/mcu-sizes.tsv examples/mcu/README.md

# ---- Install -----------------------------------------------------------------

# The installed shared library: its soname is libsvmgo.so.MAJOR, so programs
# linked against it load any later MAJOR.x. (lib/libsvmgo.so, the build
# tree's, has none: the examples and tests find it by path.)
$(SOLIB): $(GO_SRC) $(CAPI_C) include/svmgo.h go.mod go.sum
	$(GO) build -trimpath -buildmode=c-shared -ldflags=-extldflags=-Wl,-soname,libsvmgo.so.$(SOMAJOR) -o $@ ./capi
	rm -f lib/libsvmgo.so.$(SOMAJOR).*.h lib/libsvmgo.so.*.h

# The static archive, for linking the library into a program (devices
# without a shared-library loader path, fully static binaries).
$(ARCHIVE): $(GO_SRC) $(CAPI_C) include/svmgo.h go.mod go.sum
	$(GO) build -trimpath -buildmode=c-archive -o $@ ./capi
	rm -f lib/libsvmgo.h

# svmgo.pc for pkg-config: `pkg-config --cflags --libs svmgo` links the
# shared library, `pkg-config --static --libs svmgo` with -static the
# archive (which needs the Go runtime's -lpthread).
define SVMGO_PC
prefix=$(PREFIX)
exec_prefix=$${prefix}
libdir=$(patsubst $(PREFIX)/%,$${exec_prefix}/%,$(LIBDIR))
includedir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

Name: svmgo
Description: Support vector machines for edge devices: training with warm start, prediction, model files, hot swap
Version: $(VERSION)
Cflags: -I$${includedir}
Libs: -L$${libdir} -lsvmgo
Libs.private: -lpthread
endef
export SVMGO_PC

INSTALLED := $(BINDIR)/svmgo $(BINDIR)/svmgo-daemon $(INCLUDEDIR)/svmgo.h $(INCLUDEDIR)/svmgo.hpp \
	$(LIBDIR)/libsvmgo.so.$(VERSION) $(LIBDIR)/libsvmgo.so.$(SOMAJOR) $(LIBDIR)/libsvmgo.so \
	$(LIBDIR)/libsvmgo.a $(PKGCONFIGDIR)/svmgo.pc $(MANDIR)/man1/svmgo.1 $(BASHCOMPDIR)/svmgo $(ZSHCOMPDIR)/_svmgo

# svmgo(1), generated from the command's own help (mkman.sh).
$(MANPAGE): $(BIN) daemon/cmd/svmgo/mkman.sh
	sh daemon/cmd/svmgo/mkman.sh $(BIN) $(VERSION) > $@

install: $(BIN) $(SOLIB) $(ARCHIVE) $(MANPAGE)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 $(MANPAGE) $(DESTDIR)$(MANDIR)/man1/svmgo.1
	install -m 644 examples/completion/svmgo.bash $(DESTDIR)$(BASHCOMPDIR)/svmgo
	install -m 644 examples/completion/_svmgo $(DESTDIR)$(ZSHCOMPDIR)/_svmgo
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/svmgo
	install -m 755 $(DAEMON_BIN) $(DESTDIR)$(BINDIR)/svmgo-daemon
	install -m 644 include/svmgo.h include/svmgo.hpp $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(SOLIB) $(DESTDIR)$(LIBDIR)/libsvmgo.so.$(VERSION)
	ln -sfn libsvmgo.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsvmgo.so.$(SOMAJOR)
	ln -sfn libsvmgo.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libsvmgo.so
	install -m 644 $(ARCHIVE) $(DESTDIR)$(LIBDIR)/libsvmgo.a
	printf '%s\n' "$$SVMGO_PC" > $(DESTDIR)$(PKGCONFIGDIR)/svmgo.pc
	@echo "installed libsvmgo $(VERSION) under $(DESTDIR)$(PREFIX) (run ldconfig if $(LIBDIR) is in the loader's path)"

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# make install into a temporary prefix, then the C and C++ examples built
# with pkg-config against it, dynamically and statically, and run; the
# installed command's --version; then DESTDIR staging and make uninstall,
# which must leave no file behind.
test-install: $(BIN) $(SOLIB) $(ARCHIVE) $(MANPAGE)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && set -e && \
	$(MAKE) --no-print-directory -s install PREFIX=$$tmp/usr > /dev/null && \
	lib=$$tmp/usr/lib && \
	test "$$(readlink $$lib/libsvmgo.so)" = libsvmgo.so.$(SOMAJOR) && \
	test "$$(readlink $$lib/libsvmgo.so.$(SOMAJOR))" = libsvmgo.so.$(VERSION) && test -f $$lib/libsvmgo.so.$(VERSION) && \
	readelf -d $$lib/libsvmgo.so.$(VERSION) | grep -q 'Library soname: \[libsvmgo.so.$(SOMAJOR)\]' && \
	export PKG_CONFIG_PATH=$$lib/pkgconfig && \
	test "$$(pkg-config --modversion svmgo)" = $(VERSION) && \
	echo "make install PREFIX=$$tmp/usr: libsvmgo.so -> libsvmgo.so.$(SOMAJOR) -> libsvmgo.so.$(VERSION) (soname libsvmgo.so.$(SOMAJOR)), libsvmgo.a, svmgo.pc $(VERSION)" && \
	cflags="-std=c99 -O2 -Wall -Wextra -Wpedantic -Werror" && \
	echo "cc \$$(pkg-config --cflags --libs svmgo): examples/c/svmgo_demo.c, readme_example.c, svmgo_kernel_demo.c; c++: examples/cpp/svmgo_demo.cpp" && \
	$(CC) $$cflags $(C_DEMO_SRC) $$(pkg-config --cflags --libs svmgo) -Wl,-rpath,$$lib -o $$tmp/demo_dyn && \
	$(CC) $$cflags examples/c/readme_example.c $$(pkg-config --cflags --libs svmgo) -Wl,-rpath,$$lib -o $$tmp/readme_dyn && \
	$(CC) $$cflags $(C_KERNEL_SRC) $$(pkg-config --cflags --libs svmgo) -Wl,-rpath,$$lib -o $$tmp/kernel_dyn && \
	$(CXX) -std=c++17 -O2 -Wall -Wextra -Werror examples/cpp/svmgo_demo.cpp $$(pkg-config --cflags --libs svmgo) -Wl,-rpath,$$lib -o $$tmp/demo_cpp && \
	ldd $$tmp/demo_dyn | grep -q "libsvmgo.so.$(SOMAJOR) => $$lib/libsvmgo.so.$(SOMAJOR)" && \
	$$tmp/demo_dyn > /dev/null && $$tmp/readme_dyn && $$tmp/demo_cpp > /dev/null && \
	$$tmp/kernel_dyn $(DEMO_DATA)/heart_scale.train $(DEMO_DATA)/heart_scale.test "$(KERNEL_OPTIONS)" | grep '^Accuracy' && \
	echo "cc -static \$$(pkg-config --static --cflags --libs svmgo): examples/c/svmgo_demo.c, readme_example.c" && \
	$(CC) $$cflags -static $(C_DEMO_SRC) $$(pkg-config --static --cflags --libs svmgo) -o $$tmp/demo_static && \
	$(CC) $$cflags -static examples/c/readme_example.c $$(pkg-config --static --cflags --libs svmgo) -o $$tmp/readme_static && \
	file $$tmp/demo_static | grep -q 'statically linked' && \
	$$tmp/demo_static > /dev/null && $$tmp/readme_static && \
	$$tmp/usr/bin/svmgo --version && \
	$$tmp/usr/bin/svmgo serve -h | grep -q '^usage: svmgo serve' && \
	echo "svmgo serve -h: the installed batch build runs svmgo-daemon" && \
	MANPATH=$$tmp/usr/share/man man svmgo 2>/dev/null | grep -q 'svmgo export --format' && \
	bash -c ". $$tmp/usr/share/bash-completion/completions/svmgo && complete -p svmgo" > /dev/null && \
	test -f $$tmp/usr/share/zsh/site-functions/_svmgo && \
	echo "man svmgo: the installed manual page; bash and zsh completion installed" && \
	$(MAKE) --no-print-directory -s install DESTDIR=$$tmp/stage PREFIX=/usr > /dev/null && \
	grep -qx 'prefix=/usr' $$tmp/stage/usr/lib/pkgconfig/svmgo.pc && \
	test $$(find $$tmp/stage -type f -o -type l | wc -l) -eq 12 && \
	$(MAKE) --no-print-directory -s uninstall DESTDIR=$$tmp/stage PREFIX=/usr && \
	left=$$(find $$tmp/stage -type f -o -type l) && test -z "$$left" || { echo "make uninstall left: $$left"; exit 1; } && \
	echo "make install DESTDIR=… PREFIX=/usr staged 12 files (svmgo.pc prefix=/usr); make uninstall removed them"

# ---- Python package ------------------------------------------------------------

# Debian's packages for building and testing the wheel, installed when
# missing (no other package index is used).
python-deps:
	@$(DEB_PYTHON) -c 'import numpy, scipy, sklearn, setuptools, wheel, ensurepip, venv' 2>/dev/null || { \
		echo "installing python3-sklearn python3-venv python3-setuptools python3-wheel python3-pip"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq python3-sklearn python3-numpy \
			python3-scipy python3-venv python3-setuptools python3-wheel python3-pip >/dev/null; }

# build_wheel(stage, lib, command, dist, platform): the package of
# examples/python with the library and the command bundled, as a
# py3-none-<platform> wheel, built offline in a scratch copy under bin/.
define build_wheel
	@grep -q '^__version__ = "$(VERSION)"$$' examples/python/svmgo/__init__.py || \
		{ echo "examples/python/svmgo/__init__.py: __version__ is not svmgo.h's $(VERSION)"; exit 1; }
	rm -rf $(1) && mkdir -p $(1)/svmgo/bin $(4)
	cp examples/python/pyproject.toml examples/python/setup.py $(1)/
	cp examples/python/svmgo/*.py examples/python/svmgo/py.typed $(1)/svmgo/
	cp $(2) $(1)/svmgo/libsvmgo.so && cp $(3) $(1)/svmgo/bin/svmgo
	rm -f $(4)/svmgo-*-py3-none-$(5).whl
	cd $(1) && SVMGO_WHEEL_PLAT=$(5) $(DEB_PYTHON) -m pip wheel -q --no-deps --no-build-isolation --no-index -w $(CURDIR)/$(4) .
endef

# The wheel's svmgo is the full build: its one binary runs every command.
wheel: $(LIB) $(DAEMON_BIN) python-deps
	$(call build_wheel,bin/wheel,$(LIB),$(DAEMON_BIN),dist,$(WHEEL_PLAT))
	@ls -l $(WHEEL)

# The arm64 wheel, from the cross build (dist/linux-arm64/, so that
# `pip install dist/*.whl` on this machine finds only its own).
wheel-arm64: python-deps arm64-lib
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -o bin/linux-arm64/svmgo ./daemon/cmd/svmgo
	$(call build_wheel,bin/wheel-arm64,$(ARM64_LIB),bin/linux-arm64/svmgo,dist/linux-arm64,linux_aarch64)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cd $$tmp && unzip -q $(CURDIR)/$(ARM64_WHEEL) && \
	file svmgo/libsvmgo.so svmgo/bin/svmgo | grep -c 'ARM aarch64' | grep -qx 2 && \
	qemu-aarch64 svmgo/bin/svmgo --version && echo "$(ARM64_WHEEL): libsvmgo.so and svmgo for aarch64"

# The acceptance run of the wheel: a fresh virtual environment of Debian's
# python3 (system site packages: numpy, scipy, scikit-learn), pip install of
# the wheel offline, then, outside the repository, import svmgo (the bundled
# library), the console script, and test_sklearn.py against the installed
# package.
test-wheel: wheel
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && set -e && \
	$(DEB_PYTHON) -m venv --system-site-packages $$tmp/venv && \
	$$tmp/venv/bin/pip install -q --no-index --no-deps $(CURDIR)/$(WHEEL) && \
	cp examples/python/test_sklearn.py $$tmp/ && cd $$tmp && \
	env -u SVMGO_LIB -u SVMGO_BIN $$tmp/venv/bin/python -c \
		'import svmgo; print("import svmgo:", svmgo.__file__, "library", svmgo.library_path(), svmgo.library_version())' && \
	$$tmp/venv/bin/svmgo --version && \
	env -u SVMGO_LIB -u SVMGO_BIN SVMGO_TEST_INSTALLED=1 SVMGO_TEST_DATA=$(abspath $(SHARED)) \
		$$tmp/venv/bin/python -m unittest test_sklearn

# ---- Service -------------------------------------------------------------------

# The example unit (examples/systemd/svmgo-watch.service): systemd-analyze
# verify on it, with ExecStart pointed at bin/svmgo, when systemd is
# installed; then its svmgo watch command line, with the example watch.conf
# (its HTTP port made 0, any free one), run on a temporary root until SIGTERM,
# which must stop it cleanly (exit 0) with the root's layout made.
test-service: $(BIN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && set -e && \
	unit=examples/systemd/svmgo-watch.service && \
	sed 's|/usr/local/bin/svmgo|$(CURDIR)/$(BIN)|' $$unit > $$tmp/svmgo-watch.service && \
	if command -v systemd-analyze > /dev/null; then \
		out=$$(systemd-analyze verify $$tmp/svmgo-watch.service 2>&1) || { echo "$$out"; exit 1; }; \
		if [ -n "$$out" ]; then echo "systemd-analyze verify $$unit:"; echo "$$out"; exit 1; fi; \
		echo "systemd-analyze verify $$unit: clean"; \
	else echo "systemd-analyze not installed: $$unit not verified"; fi && \
	sed 's|^http = .*|http = 127.0.0.1:0|' examples/systemd/watch.conf > $$tmp/watch.conf && \
	cmd=$$(sed -n 's/^ExecStart=//p' $$tmp/svmgo-watch.service | \
		sed "s|/var/lib/svmgo|$$tmp/root|g; s|/etc/svmgo/watch.conf|$$tmp/watch.conf|") && \
	mkdir $$tmp/root && { $$cmd > $$tmp/log 2>&1 & pid=$$!; } && \
	for i in $$(seq 50); do grep -q 'daemon started' $$tmp/log && break; sleep 0.1; done && \
	{ kill -TERM $$pid && wait $$pid && grep -q 'http serving' $$tmp/log || { cat $$tmp/log; exit 1; }; } && \
	for d in incoming done rejected models state; do test -d $$tmp/root/$$d; done && \
	echo "$$unit: its ExecStart ran on a temporary root and stopped cleanly on SIGTERM"

# lib/linux-arm64/libsvmgo.so alone (cross-arm64 and wheel-arm64 use it).
arm64-lib:
	@command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null || { \
		echo "installing gcc-aarch64-linux-gnu and qemu-user"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq \
			gcc-aarch64-linux-gnu qemu-user >/dev/null; }
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(GO) build -trimpath -buildmode=c-shared -o $(ARM64_LIB) ./capi
	rm -f lib/linux-arm64/libsvmgo.h

# ---- Benchmarks ------------------------------------------------------------------

bench-deps:
	@command -v liblinear-train >/dev/null && command -v svm-train >/dev/null || { $(APT_GET) update -qq && $(APT_GET) install -y -qq liblinear-tools liblinear-dev libsvm-tools; }
	@command -v wrk >/dev/null && command -v h2load >/dev/null || { $(APT_GET) update -qq && $(APT_GET) install -y -qq wrk nghttp2-client; }
	@test -f $(SVMGO_DATA)/fashion.train || bash $(SHARED)/make-fashion-mnist.sh $(SVMGO_DATA)

# LIBLINEAR250: upstream LIBLINEAR 2.50's train binary, built outside the
# repository, for examples/bench/newton.sh (skipped with a message if unset).
LIBLINEAR250 ?=

# Go benchmarks, the comparison tables against LIBLINEAR and LIBSVM (the
# kernel predict path against svm-predict and svm_predict too), the
# quantized models, the C ABI's prediction costs and the daemon's warm
# retraining, linear and kernel, the kernel streams with the store full
# (stream.sh; each script writes
# examples/bench/out/NAME.md), then the
# tables spliced into examples/bench/README.md.
bench: $(BIN) $(LIB) bench-deps
	$(GO) test -run '^$$' -bench . -benchmem ./core/...
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/bench/linear.sh
	LIBLINEAR250=$(LIBLINEAR250) SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) SVMGO=$(CURDIR)/$(BIN) \
		bash examples/bench/newton.sh
	LIBLINEAR250=$(LIBLINEAR250) SHARED=$(SHARED) SVMGO=$(CURDIR)/$(BIN) bash examples/bench/startup.sh
	SVMGO_DATA=$(SVMGO_DATA) bash examples/bench/kernel.sh
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/bench/predict.sh
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) SVMGO=$(CURDIR)/$(BIN) bash examples/bench/smo.sh
	SHARED=$(SHARED) SVMGO=$(CURDIR)/$(BIN) bash examples/bench/cores.sh
	SHARED=$(SHARED) SVMGO=$(CURDIR)/$(BIN) bash examples/bench/grid.sh
	SVMGO_DATA=$(SVMGO_DATA) bash examples/bench/quantize.sh
	SVMGO_DATA=$(SVMGO_DATA) PYTHON=$(PYTHON) bash examples/bench/capi.sh
	SVMGO=$(CURDIR)/$(BIN) bash examples/bench/daemon.sh
	SVMGO=$(CURDIR)/$(BIN) DATA=$(SHARED)/shuttle.train TRAIN_OPTIONS="-t 2 -c 100 -g 1" OUT=daemon-kernel \
		bash examples/bench/daemon.sh
	$(MAKE) --no-print-directory bench-onnx
	bash examples/bench/warm.sh
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/bench/stream.sh
	SVMGO=$(CURDIR)/$(BIN) SVMGO_DATA=$(SVMGO_DATA) bash examples/bench/serve.sh
	$(MAKE) --no-print-directory bench-readme

# examples/bench/README.md's tables are the scripts' output: each block
# between "<!-- bench:NAME -->" and "<!-- /bench:NAME -->" is replaced by
# examples/bench/out/NAME.md (cases a run did not cover keep their rows).
# README.md quotes a few headline ratios from it.
bench-readme:
	$(PYTHON) examples/bench/readme_tables.py examples/bench/README.md examples/bench/out

clean:
	rm -rf bin lib dist
