module github.com/nodeplan/nodeplan/examples/go

go 1.23

require (
	github.com/nodeplan/nodeplan/bindings/go v0.0.0
	google.golang.org/protobuf v1.36.11
)

replace github.com/nodeplan/nodeplan/bindings/go => ../../bindings/go
