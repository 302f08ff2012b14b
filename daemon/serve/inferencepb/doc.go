// Package inferencepb is the generated Go code of the Open Inference
// Protocol's gRPC service, inference.GRPCInferenceService, from
// grpc_predict_v2.proto: the KServe authors' file as the protocol's
// repository publishes it (specification/protocol/open_inference_grpc.proto
// there, kserve's docs/predict-api/v2/grpc_predict_v2.proto), vendored
// unchanged with its Apache-2.0 licence (LICENSE). make proto-serve
// regenerates the .pb.go files; they are committed so that go build needs
// no protoc. Package serve implements the service.
package inferencepb
