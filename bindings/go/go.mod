module github.com/nodeplan/nodeplan/bindings/go

go 1.23

require google.golang.org/protobuf v1.36.11
