package serve

import (
	"context"
	"errors"
	"math"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/libsvmgo/libsvmgo/core/simd"
	"github.com/libsvmgo/libsvmgo/daemon/serve/inferencepb"
)

// grpcService is inference.GRPCInferenceService over the server's
// repository: the same resolution, limits, decoding checks and outputs as
// the REST endpoints.
type grpcService struct {
	inferencepb.UnimplementedGRPCInferenceServiceServer
	s *Server
}

// grpcError turns err into a gRPC status with the code statusOf gives.
func grpcError(err error) error {
	_, code := statusOf(err)
	return status.Error(code, err.Error())
}

func (g *grpcService) ServerLive(context.Context, *inferencepb.ServerLiveRequest) (*inferencepb.ServerLiveResponse, error) {
	return &inferencepb.ServerLiveResponse{Live: true}, nil
}

func (g *grpcService) ServerReady(context.Context, *inferencepb.ServerReadyRequest) (*inferencepb.ServerReadyResponse, error) {
	return &inferencepb.ServerReadyResponse{Ready: g.s.ready()}, nil
}

// ModelReady answers ready=false for a model with no version yet, and
// NOT_FOUND for a name or version not served.
func (g *grpcService) ModelReady(_ context.Context, req *inferencepb.ModelReadyRequest) (*inferencepb.ModelReadyResponse, error) {
	_, _, err := g.s.repo.resolve(req.GetName(), req.GetVersion())
	if errors.Is(err, ErrNotReady) {
		return &inferencepb.ModelReadyResponse{Ready: false}, nil
	}
	if err != nil {
		return nil, grpcError(err)
	}
	return &inferencepb.ModelReadyResponse{Ready: true}, nil
}

func (g *grpcService) ServerMetadata(context.Context, *inferencepb.ServerMetadataRequest) (*inferencepb.ServerMetadataResponse, error) {
	md := serverMetadata()
	return &inferencepb.ServerMetadataResponse{Name: md.Name, Version: md.Version, Extensions: md.Extensions}, nil
}

func (g *grpcService) ModelMetadata(_ context.Context, req *inferencepb.ModelMetadataRequest) (*inferencepb.ModelMetadataResponse, error) {
	md, err := g.s.metadataOf(req.GetName(), req.GetVersion())
	if err != nil {
		return nil, grpcError(err)
	}
	tensors := func(ts []tensorMetadata) []*inferencepb.ModelMetadataResponse_TensorMetadata {
		out := make([]*inferencepb.ModelMetadataResponse_TensorMetadata, len(ts))
		for i, t := range ts {
			out[i] = &inferencepb.ModelMetadataResponse_TensorMetadata{Name: t.Name, Datatype: t.Datatype, Shape: t.Shape}
		}
		return out
	}
	return &inferencepb.ModelMetadataResponse{
		Name: md.Name, Versions: md.Versions, Platform: md.Platform,
		Inputs: tensors(md.Inputs), Outputs: tensors(md.Outputs), Properties: md.Properties,
	}, nil
}

// ModelInfer runs one inference on the version the request names (the
// newest served when it names none), to the end on that version.
func (g *grpcService) ModelInfer(_ context.Context, req *inferencepb.ModelInferRequest) (*inferencepb.ModelInferResponse, error) {
	start := time.Now()
	s := g.s
	name, vname := req.GetModelName(), ""
	resp, err := g.infer(req, &vname)
	if s.repo.model(name) == nil {
		name = ""
	}
	if err := g.answer(start, name, vname, err); err != nil {
		return nil, err
	}
	return resp, nil
}

// answer counts the request, for model name ("" for a name not served)
// and version vname, started at start, and returns err as its gRPC status.
func (g *grpcService) answer(start time.Time, name, vname string, err error) error {
	code := codes.OK
	if err != nil {
		_, code = statusOf(err)
		err = status.Error(code, err.Error())
	}
	g.s.repo.metrics.observe(name, vname, "grpc", code.String(), time.Since(start).Seconds())
	return err
}

// infer is ModelInfer's work; it sets *vname to the version resolved.
func (g *grpcService) infer(req *inferencepb.ModelInferRequest, vname *string) (*inferencepb.ModelInferResponse, error) {
	s := g.s
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.releaseSlot()
	_, v, err := s.repo.resolve(req.GetModelName(), req.GetModelVersion())
	if err != nil {
		return nil, err
	}
	*vname = v.name
	inf := s.getInference()
	defer inf.release()
	s.takeTurn(inf)
	defer s.endTurn(inf)
	raw := len(req.GetRawInputContents()) > 0
	if err := decodeGRPC(inf, req, v, &s.lim); err != nil {
		return nil, err
	}
	if err := inf.run(v); err != nil {
		return nil, err
	}
	return grpcResponse(req.GetId(), v, inf, raw), nil
}

// decodeGRPC checks a gRPC inference request against version v and the
// limits and reads its input into inf: from raw_input_contents when the
// request has them (little-endian, as the protocol lays them), else from
// the typed contents the datatype names.
func decodeGRPC(inf *inference, req *inferencepb.ModelInferRequest, v *version, lim *Limits) error {
	if len(req.GetInputs()) != 1 {
		return badRequestf("want exactly one input tensor, got %d", len(req.GetInputs()))
	}
	in := req.GetInputs()[0]
	dt := parseDatatype(in.GetDatatype())
	if dt == dtInvalid {
		return badRequestf("input datatype %q: want FP32, FP64 or an INT/UINT type", in.GetDatatype())
	}
	if err := inf.input(in.GetShape(), v, lim); err != nil {
		return err
	}
	if raws := req.GetRawInputContents(); len(raws) > 0 {
		if len(raws) != 1 {
			return badRequestf("want one raw_input_contents entry, got %d", len(raws))
		}
		if err := rawData(inf.x, raws[0], dt, inf.rows, inf.cols); err != nil {
			return err
		}
	} else if err := typedContents(inf.x, in.GetContents(), dt); err != nil {
		return err
	}
	for _, o := range req.GetOutputs() {
		if err := inf.want.add(o.GetName()); err != nil {
			return err
		}
	}
	for k, p := range req.GetParameters() {
		if k != OutputDecision && k != OutputProbability {
			continue
		}
		on, ok := p.GetParameterChoice().(*inferencepb.InferParameter_BoolParam)
		if !ok {
			return badRequestf("parameter %q: want a bool_param", k)
		}
		if on.BoolParam {
			inf.want.label = true
			inf.want.add(k)
		}
	}
	return nil
}

// typedContents reads the contents field datatype dt uses into dst,
// which has the shape's size.
func typedContents(dst []float32, c *inferencepb.InferTensorContents, dt datatype) error {
	switch dt {
	case dtFP32:
		return convertFP32(dst, c.GetFp32Contents())
	case dtFP64:
		return convert(dst, c.GetFp64Contents(), dt, "fp64_contents")
	case dtINT8, dtINT16, dtINT32:
		return convert(dst, c.GetIntContents(), dt, "int_contents")
	case dtINT64:
		return convert(dst, c.GetInt64Contents(), dt, "int64_contents")
	case dtUINT8, dtUINT16, dtUINT32:
		return convert(dst, c.GetUintContents(), dt, "uint_contents")
	case dtUINT64:
		return convert(dst, c.GetUint64Contents(), dt, "uint64_contents")
	}
	return badRequestf("input datatype %s has no contents field", dt)
}

// convertFP32 is convert for fp32_contents, which need no conversion and
// no bounds beyond being finite: one copy, then one pass over the
// exponent bits.
func convertFP32(dst, src []float32) error {
	if len(src) != len(dst) {
		return badRequestf("input fp32_contents has %d values; the shape needs %d", len(src), len(dst))
	}
	copy(dst, src)
	if i := simd.FirstNonFinite(dst); i >= 0 {
		return fp32NonFinite(i, dst[i])
	}
	return nil
}

// convert copies src into dst as float32, refusing a count other than
// len(dst), values outside dt's bounds and non-finite values.
func convert[T int32 | int64 | uint32 | uint64 | float32 | float64](dst []float32, src []T, dt datatype, field string) error {
	if len(src) != len(dst) {
		return badRequestf("input %s has %d values; the shape needs %d", field, len(src), len(dst))
	}
	lo, hi := dt.bounds()
	for i, x := range src {
		f := float64(x)
		if f < lo || f > hi {
			return badRequestf("input %s value %d (%v) is outside %s", field, i, f, dt)
		}
		y := float32(x)
		if g := float64(y); math.IsNaN(g) || math.IsInf(g, 0) {
			return badRequestf("input %s value %d is %v: features must be finite float32 values", field, i, f)
		}
		dst[i] = y
	}
	return nil
}

// grpcResponse builds the answer to the request id: raw_output_contents
// when the request sent raw input, typed contents otherwise.
func grpcResponse(id string, v *version, inf *inference, raw bool) *inferencepb.ModelInferResponse {
	resp := &inferencepb.ModelInferResponse{ModelName: v.model, ModelVersion: v.name, Id: id}
	add := func(name, dt string, data []float64, cols int) {
		shape := []int64{int64(inf.rows)}
		if cols > 0 {
			shape = append(shape, int64(cols))
		}
		t := &inferencepb.ModelInferResponse_InferOutputTensor{Name: name, Datatype: dt, Shape: shape}
		integer := dt == "INT64"
		switch {
		case raw:
			resp.RawOutputContents = append(resp.RawOutputContents, appendRaw(make([]byte, 0, 8*len(data)), data, integer))
		case integer:
			c := make([]int64, len(data))
			for i, x := range data {
				c[i] = int64(x)
			}
			t.Contents = &inferencepb.InferTensorContents{Int64Contents: c}
		default:
			t.Contents = &inferencepb.InferTensorContents{Fp64Contents: append([]float64(nil), data...)}
		}
		resp.Outputs = append(resp.Outputs, t)
	}
	if inf.want.label {
		add(OutputLabel, v.labelDatatype(), inf.labels, 0)
	}
	if inf.want.decision {
		add(OutputDecision, "FP64", inf.decision, inf.k)
	}
	if inf.want.probability {
		add(OutputProbability, "FP64", inf.prob, inf.c)
	}
	return resp
}
