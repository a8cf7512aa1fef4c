// Package kube converts Kubernetes objects into nodeplan messages through
// their JSON: k8s.io/api objects (Pods, Nodes, Namespaces, DaemonSets,
// Deployments, PodDisruptionBudgets, volumes, StorageClasses and their lists),
// Karpenter's NodePools and NodeClaims (sigs.k8s.io/karpenter types, or
// unstructured objects and maps as a dynamic client returns them), and raw
// JSON.
//
// It is a module of its own so that the core binding
// (github.com/nodeplan/nodeplan/bindings/go) pulls in no client libraries.
package kube

import (
	"bytes"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/nodeplan/nodeplan/bindings/go/nodeplanv1"
)

// Convert fills `into` from obj's Kubernetes JSON: obj may be a typed object,
// an unstructured object, a map, or JSON bytes. Unknown fields are ignored;
// numbers where nodeplan keeps strings (int-or-string, quantities) become
// strings.
func Convert(obj any, into proto.Message) error {
	data, err := jsonOf(obj)
	if err != nil {
		return err
	}
	// Numbers stay json.Number: exact for int64 fields, and their own text
	// when they become strings.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return fmt.Errorf("kube: %w", err)
	}
	tree = coerce(tree, into.ProtoReflect().Descriptor())
	data, err = json.Marshal(tree)
	if err != nil {
		return fmt.Errorf("kube: %w", err)
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, into); err != nil {
		return fmt.Errorf("kube: %s %s: %w", into.ProtoReflect().Descriptor().Name(), nameOf(tree), err)
	}
	return nil
}

// Pod converts a k8s.io/api Pod.
func Pod(p *corev1.Pod) (*nodeplanv1.Pod, error) {
	out := &nodeplanv1.Pod{}
	return out, Convert(p, out)
}

// Node converts a k8s.io/api Node.
func Node(n *corev1.Node) (*nodeplanv1.Node, error) {
	out := &nodeplanv1.Node{}
	return out, Convert(n, out)
}

// NodePool converts a Karpenter NodePool: a *v1.NodePool of
// sigs.k8s.io/karpenter, an *unstructured.Unstructured, a map or JSON bytes.
func NodePool(obj any) (*nodeplanv1.NodePool, error) {
	out := &nodeplanv1.NodePool{}
	return out, Convert(obj, out)
}

// NodeClaim converts a Karpenter NodeClaim (as NodePool does).
func NodeClaim(obj any) (*nodeplanv1.NodeClaim, error) {
	out := &nodeplanv1.NodeClaim{}
	return out, Convert(obj, out)
}

// ManifestSet groups objects of any supported kind (and lists of them) the
// way nodeplan.LoadManifests does. A typed k8s.io/api object is recognized
// by its Go type; anything else by its JSON "kind" (so Karpenter objects
// need apiVersion/kind set, as the API server and dynamic clients return
// them).
func ManifestSet(objs ...any) (*nodeplanv1.ManifestSet, error) {
	set := &nodeplanv1.ManifestSet{}
	for _, obj := range objs {
		if err := add(set, obj); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// ScheduleRequest is ManifestSet's objects placed in a ScheduleRequest
// (catalog "aws" unless base sets one). base may be nil.
func ScheduleRequest(base *nodeplanv1.ScheduleRequest, objs ...any) (*nodeplanv1.ScheduleRequest, error) {
	set, err := ManifestSet(objs...)
	if err != nil {
		return nil, err
	}
	req := &nodeplanv1.ScheduleRequest{}
	if base != nil {
		req = proto.Clone(base).(*nodeplanv1.ScheduleRequest)
	}
	req.NodePools = append(req.NodePools, set.NodePools...)
	req.NodeClasses = append(req.NodeClasses, set.NodeClasses...)
	req.NodeOverlays = append(req.NodeOverlays, set.NodeOverlays...)
	req.Nodes = append(req.Nodes, set.Nodes...)
	req.Namespaces = append(req.Namespaces, set.Namespaces...)
	req.NodeClaims = append(req.NodeClaims, set.NodeClaims...)
	req.Pods = append(req.Pods, set.Pods...)
	req.DaemonSets = append(req.DaemonSets, set.DaemonSets...)
	req.Deployments = append(req.Deployments, set.Deployments...)
	req.PersistentVolumeClaims = append(req.PersistentVolumeClaims, set.PersistentVolumeClaims...)
	req.PersistentVolumes = append(req.PersistentVolumes, set.PersistentVolumes...)
	req.StorageClasses = append(req.StorageClasses, set.StorageClasses...)
	req.CsiNodes = append(req.CsiNodes, set.CsiNodes...)
	if req.Catalog == nil && req.CatalogRef == "" {
		if len(set.Catalogs) > 0 {
			req.Catalog = set.Catalogs[0]
		} else {
			req.CatalogRef = "aws"
		}
	}
	return req, nil
}

func add(set *nodeplanv1.ManifestSet, obj any) error {
	switch o := obj.(type) {
	case *corev1.PodList:
		return addItems(set, o.Items)
	case *corev1.NodeList:
		return addItems(set, o.Items)
	case *corev1.NamespaceList:
		return addItems(set, o.Items)
	case *appsv1.DaemonSetList:
		return addItems(set, o.Items)
	case *appsv1.DeploymentList:
		return addItems(set, o.Items)
	case []any:
		for _, item := range o {
			if err := add(set, item); err != nil {
				return err
			}
		}
		return nil
	}
	kind, err := kindOf(obj)
	if err != nil {
		return err
	}
	if kind == "List" || (len(kind) > 4 && kind[len(kind)-4:] == "List") {
		data, err := jsonOf(obj)
		if err != nil {
			return err
		}
		var list struct{ Items []json.RawMessage }
		if err := json.Unmarshal(data, &list); err != nil {
			return fmt.Errorf("kube: %s: %w", kind, err)
		}
		for _, item := range list.Items {
			if err := add(set, []byte(item)); err != nil {
				return err
			}
		}
		return nil
	}
	var msg proto.Message
	switch kind {
	case "Pod":
		m := &nodeplanv1.Pod{}
		set.Pods, msg = append(set.Pods, m), m
	case "Node":
		m := &nodeplanv1.Node{}
		set.Nodes, msg = append(set.Nodes, m), m
	case "Namespace":
		m := &nodeplanv1.Namespace{}
		set.Namespaces, msg = append(set.Namespaces, m), m
	case "DaemonSet":
		m := &nodeplanv1.DaemonSet{}
		set.DaemonSets, msg = append(set.DaemonSets, m), m
	case "Deployment":
		m := &nodeplanv1.Deployment{}
		set.Deployments, msg = append(set.Deployments, m), m
	case "PodDisruptionBudget":
		m := &nodeplanv1.PodDisruptionBudget{}
		set.PodDisruptionBudgets, msg = append(set.PodDisruptionBudgets, m), m
	case "PersistentVolumeClaim":
		m := &nodeplanv1.PersistentVolumeClaim{}
		set.PersistentVolumeClaims, msg = append(set.PersistentVolumeClaims, m), m
	case "PersistentVolume":
		m := &nodeplanv1.PersistentVolume{}
		set.PersistentVolumes, msg = append(set.PersistentVolumes, m), m
	case "StorageClass":
		m := &nodeplanv1.StorageClass{}
		set.StorageClasses, msg = append(set.StorageClasses, m), m
	case "CSINode":
		m := &nodeplanv1.CSINode{}
		set.CsiNodes, msg = append(set.CsiNodes, m), m
	case "NodePool":
		m := &nodeplanv1.NodePool{}
		set.NodePools, msg = append(set.NodePools, m), m
	case "NodeClaim":
		m := &nodeplanv1.NodeClaim{}
		set.NodeClaims, msg = append(set.NodeClaims, m), m
	case "NodeClass", "EC2NodeClass":
		m := &nodeplanv1.NodeClass{}
		set.NodeClasses, msg = append(set.NodeClasses, m), m
	case "NodeOverlay":
		m := &nodeplanv1.NodeOverlay{}
		set.NodeOverlays, msg = append(set.NodeOverlays, m), m
	default:
		return fmt.Errorf("kube: unsupported kind %q", kind)
	}
	return Convert(obj, msg)
}

func addItems[T any](set *nodeplanv1.ManifestSet, items []T) error {
	for i := range items {
		if err := add(set, &items[i]); err != nil {
			return err
		}
	}
	return nil
}

// kindOf names obj's kind: by Go type for k8s.io/api objects (whose TypeMeta
// client-go leaves empty), else by the JSON "kind".
func kindOf(obj any) (string, error) {
	switch obj.(type) {
	case *corev1.Pod, corev1.Pod:
		return "Pod", nil
	case *corev1.Node, corev1.Node:
		return "Node", nil
	case *corev1.Namespace, corev1.Namespace:
		return "Namespace", nil
	case *appsv1.DaemonSet, appsv1.DaemonSet:
		return "DaemonSet", nil
	case *appsv1.Deployment, appsv1.Deployment:
		return "Deployment", nil
	case *policyv1.PodDisruptionBudget, policyv1.PodDisruptionBudget:
		return "PodDisruptionBudget", nil
	case *corev1.PersistentVolumeClaim, corev1.PersistentVolumeClaim:
		return "PersistentVolumeClaim", nil
	case *corev1.PersistentVolume, corev1.PersistentVolume:
		return "PersistentVolume", nil
	case *storagev1.StorageClass, storagev1.StorageClass:
		return "StorageClass", nil
	case *storagev1.CSINode, storagev1.CSINode:
		return "CSINode", nil
	}
	data, err := jsonOf(obj)
	if err != nil {
		return "", err
	}
	var meta struct{ Kind string }
	if err := json.Unmarshal(data, &meta); err != nil {
		return "", fmt.Errorf("kube: %w", err)
	}
	if meta.Kind == "" {
		return "", fmt.Errorf("kube: %T has no kind (set apiVersion and kind)", obj)
	}
	return meta.Kind, nil
}

func jsonOf(obj any) ([]byte, error) {
	switch o := obj.(type) {
	case []byte:
		return o, nil
	case json.RawMessage:
		return o, nil
	case string:
		return []byte(o), nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("kube: %T: %w", obj, err)
	}
	return data, nil
}

func nameOf(tree any) string {
	if m, ok := tree.(map[string]any); ok {
		if meta, ok := m["metadata"].(map[string]any); ok {
			if name, ok := meta["name"].(string); ok {
				return name
			}
		}
	}
	return "?"
}

// coerce turns JSON numbers into strings wherever the message keeps a string
// (Kubernetes writes int-or-string fields such as maxUnavailable: 1 as
// numbers), walking the tree alongside the message descriptor.
func coerce(v any, md protoreflect.MessageDescriptor) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	fields := md.Fields()
	for key, value := range obj {
		fd := fields.ByJSONName(key)
		if fd == nil {
			fd = fields.ByName(protoreflect.Name(key))
		}
		if fd == nil || value == nil {
			continue
		}
		switch {
		case fd.IsMap():
			if m, ok := value.(map[string]any); ok {
				for k, item := range m {
					m[k] = coerceScalar(item, fd.MapValue())
				}
			}
		case fd.IsList():
			if list, ok := value.([]any); ok {
				for i, item := range list {
					list[i] = coerceScalar(item, fd)
				}
			}
		default:
			obj[key] = coerceScalar(value, fd)
		}
	}
	return obj
}

func coerceScalar(v any, fd protoreflect.FieldDescriptor) any {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if n, ok := v.(json.Number); ok {
			return n.String()
		}
	case protoreflect.MessageKind:
		return coerce(v, fd.Message())
	}
	return v
}
