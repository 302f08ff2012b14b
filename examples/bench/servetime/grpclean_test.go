package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
	"github.com/libsvmgo/libsvmgo/core/data"
	"github.com/libsvmgo/libsvmgo/core/modelfile"
	"github.com/libsvmgo/libsvmgo/daemon/modeldir"
	"github.com/libsvmgo/libsvmgo/daemon/serve"
)

// TestLeanGRPCClient drives a served model with the lean gRPC client, calls
// on one connection one after another: every answer's label is the
// model's own prediction of the row sent, and a row of the wrong width
// gets INVALID_ARGUMENT (grpc-status 3) without upsetting the calls after
// it.
func TestLeanGRPCClient(t *testing.T) {
	const nf, l = 6, 60
	rng := rand.New(rand.NewPCG(7, 8))
	ds := data.NewDense(l, nf)
	x := make([]float32, nf)
	for i := range l {
		label := float64(i % 3)
		for j := range x {
			x[j] = rng.Float32() + float32(label)
		}
		if err := ds.AppendDense(label, x); err != nil {
			t.Fatal(err)
		}
	}
	m, err := core.TrainKernelModel(ds, core.DefaultKernelParams())
	if err != nil {
		t.Fatal(err)
	}
	g := dialLeanGRPC(serveModel(t, m))
	defer g.close()
	for i := range 2 * l {
		if i == l/2 {
			msg, err := protoapi.Marshal(singleRequest(ds.DenseRow(0)[:nf-1]))
			if err != nil {
				t.Fatal(err)
			}
			if g.call(msg); g.status != "3" {
				t.Fatalf("a row of %d features: grpc-status %q, want 3", nf-1, g.status)
			}
		}
		row := ds.DenseRow(i % l)
		msg, err := protoapi.Marshal(singleRequest(row))
		if err != nil {
			t.Fatal(err)
		}
		g.call(msg)
		out := g.answer().GetOutputs()
		if len(out) != 1 || len(out[0].GetContents().GetInt64Contents()) != 1 {
			t.Fatalf("call %d: outputs %v", i, out)
		}
		if got, want := float64(out[0].GetContents().GetInt64Contents()[0]), m.PredictDense(row); got != want {
			t.Errorf("row %d: label %v, model %v", i%l, got, want)
		}
	}
}

// serveModel serves m as model "m" over gRPC on a loopback port until the
// test ends, and returns the address.
func serveModel(t *testing.T, m core.Model) string {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := modelfile.WriteFile(filepath.Join(root, "m", modeldir.FileName(1)), m); err != nil {
		t.Fatal(err)
	}
	repo, err := serve.OpenRepository(root, serve.RepositoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(repo, serve.Config{GRPCAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		repo.Close()
	})
	return srv.GRPCAddr()
}
