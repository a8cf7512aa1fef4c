// Package nodeplan calls nodeplan's C ABI (libnodeplan.so) through cgo:
// Karpenter's node-autoscaling decisions as pure functions over
// Kubernetes-shaped protobuf messages (package nodeplanv1).
//
// Each call marshals a request, calls the C library once and unmarshals the
// response. For large plans, ScheduleOptions.InstanceTypeEncoding "Indexed"
// makes the response name each instance type once (see InstanceTypes and
// ExpandInstanceTypes). A pod that fits nowhere is an answer (ScheduleResponse
// Unschedulable), not an error; errors are *Error values carrying the
// absl::StatusCode number.
//
// The C library is found with pkg-config (nodeplan.pc). The generated
// nodeplanv1 package comes from protoc-gen-go at the version go.mod pins,
// written by the CMake build (target nodeplan_proto_go); it is not checked in.
//
// Conversion from k8s.io/api objects and Karpenter NodePools lives in the
// separate module github.com/nodeplan/nodeplan/bindings/go/kube, so this
// package needs no Kubernetes client libraries.
package nodeplan
