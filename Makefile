# libsvmgo — see README.md. `make demo` runs the main job on bundled data,
# `make test` runs every test, `make bench` compares with LIBLINEAR.

GO        ?= go
BIN       := bin/svmgo
SHARED    ?= ../shared/data
# Large benchmark data (Fashion-MNIST) is built here, never in the repo.
SVMGO_DATA ?= $(HOME)/.cache/libsvmgo
DEMO_DATA := examples/data

.PHONY: all build demo test vet fuzz-seeds bench bench-deps clean

all: build

build: $(BIN)

$(BIN): $(shell find core daemon -name '*.go' -not -name '*_test.go') go.mod go.sum
	$(GO) build -trimpath -o $@ ./daemon/cmd/svmgo

# The main job on the bundled example data: train a linear SVM on
# heart_scale's first 200 rows, predict the other 70, then cross-validate.
demo: $(BIN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	echo "== svmgo train-linear -s 1 -B 1 $(DEMO_DATA)/heart_scale.train" && \
	$(BIN) train-linear -s 1 -B 1 $(DEMO_DATA)/heart_scale.train $$tmp/heart.model && \
	echo "== svmgo predict $(DEMO_DATA)/heart_scale.test" && \
	$(BIN) predict $(DEMO_DATA)/heart_scale.test $$tmp/heart.model $$tmp/heart.out && \
	echo "== svmgo train-linear -s 1 -B 1 -v 5 (5-fold cross validation)" && \
	$(BIN) train-linear -q -s 1 -B 1 -v 5 $(DEMO_DATA)/heart_scale.train

vet:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

# Every test, the fuzz targets' seed corpora included (go test runs them).
test: vet $(BIN)
	$(GO) test -count=1 ./...
	$(MAKE) --no-print-directory demo > /dev/null

bench-deps:
	@command -v liblinear-train >/dev/null || { apt-get update -qq && apt-get install -y -qq liblinear-tools liblinear-dev; }
	@test -f $(SVMGO_DATA)/fashion.train || bash $(SHARED)/make-fashion-mnist.sh $(SVMGO_DATA)

# Go benchmarks, then the comparison table against liblinear-train.
bench: $(BIN) bench-deps
	$(GO) test -run '^$$' -bench . -benchmem ./core/...
	SVMGO_DATA=$(SVMGO_DATA) SHARED=$(SHARED) bash examples/bench/linear.sh

clean:
	rm -rf bin lib
