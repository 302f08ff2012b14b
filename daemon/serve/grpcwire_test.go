package serve

import (
	"bytes"
	"fmt"
	"testing"

	protoapi "google.golang.org/protobuf/proto"

	"github.com/libsvmgo/libsvmgo/core"
)

// TestEncodeResponseMatchesProto checks that encodeResponse writes the
// bytes protobuf writes for grpcResponse's message, for class labels
// (negative, zero and large ones, whose varints take 1 to 10 bytes) and
// regression values, each output alone and all three, typed and raw, with
// an id and without.
func TestEncodeResponseMatchesProto(t *testing.T) {
	inf := &inference{rows: 3, k: 2, c: 4,
		labels:   []float64{-1, 0, 1 << 40},
		decision: []float64{0.5, -2.25, 1e-300, -0.0, 7, 3},
		prob:     []float64{0.1, 0.2, 0.3, 0.4, 0.25, 0.25, 0.25, 0.25, 1, 0, 0, 0},
	}
	for _, task := range []core.Task{core.TaskClassification, core.TaskRegression} {
		v := &version{model: "m", name: "12", info: core.ModelInfo{Task: task}}
		for _, want := range []outputs{{label: true}, {decision: true}, {probability: true}, {true, true, true}} {
			for _, raw := range []bool{false, true} {
				for _, id := range []string{"", "request-7"} {
					inf.want = want
					name := fmt.Sprintf("task %v, outputs %+v, raw %v, id %q", task, want, raw, id)
					wantBytes, err := protoapi.Marshal(grpcResponse(id, v, inf, raw))
					if err != nil {
						t.Fatal(err)
					}
					r := encodeResponse(id, v, inf, raw)
					if got := r.data.Materialize(); !bytes.Equal(got, wantBytes) {
						t.Errorf("%s:\n got % x\nwant % x", name, got, wantBytes)
					}
					r.data.Free()
				}
			}
		}
	}
}
