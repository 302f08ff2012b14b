module github.com/libsvmgo/libsvmgo

go 1.26

require (
	github.com/VictoriaMetrics/metrics v1.35.1
	github.com/fsnotify/fsnotify v1.10.1
	github.com/tinylib/msgp v1.6.5
	golang.org/x/sys v0.15.0
	google.golang.org/protobuf v1.36.1
)

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/valyala/fastrand v1.1.0 // indirect
	github.com/valyala/histogram v1.2.0 // indirect
)
