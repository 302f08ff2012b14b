module github.com/libsvmgo/libsvmgo

go 1.26.0

require (
	github.com/VictoriaMetrics/metrics v1.35.1
	github.com/fsnotify/fsnotify v1.10.1
	github.com/nats-io/nats.go v1.55.0
	github.com/tinylib/msgp v1.6.5
	golang.org/x/net v0.60.0
	golang.org/x/sys v0.48.0
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/klauspost/compress v1.20.0 // indirect
	github.com/nats-io/nkeys v0.4.16 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/valyala/fastrand v1.1.0 // indirect
	github.com/valyala/histogram v1.2.0 // indirect
	golang.org/x/crypto v0.57.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)
