// Package manifests reads and writes the Kubernetes manifests nodeplan reads
// (multi-document YAML or JSON as kubectl prints it, including `kind: List`)
// as typed Kubernetes and Karpenter objects.
package manifests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Objects holds the typed objects of a set of manifests, in file order.
type Objects struct {
	NodePools  []*v1.NodePool
	NodeClaims []*v1.NodeClaim
	Pods       []*corev1.Pod
	Nodes      []*corev1.Node
	DaemonSets []*appsv1.DaemonSet
	PDBs       []*policyv1.PodDisruptionBudget
	// Kinds that were read but have no role in the comparison (NodeClasses,
	// Namespaces, ...), counted by kind.
	Ignored map[string]int
}

type typeMeta struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Items      []rawObject `json:"items"`
}

type rawObject = map[string]any

// LoadPaths reads files and directories (every *.yaml, *.yml, *.json inside,
// sorted by name) into Objects.
func LoadPaths(paths ...string) (*Objects, error) {
	objs := &Objects{Ignored: map[string]int{}}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if st.IsDir() {
			files = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				ext := strings.ToLower(filepath.Ext(e.Name()))
				if !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			sort.Strings(files)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := objs.Add(data); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return objs, nil
}

// splitDocuments splits multi-document YAML on lines that are exactly "---".
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if t := bytes.TrimRight(line, " \t\r\n"); string(t) == "---" {
			docs = append(docs, append([]byte(nil), cur.Bytes()...))
			cur.Reset()
			continue
		}
		cur.Write(line)
	}
	docs = append(docs, cur.Bytes())
	return docs
}

// Add decodes one file's bytes.
func (o *Objects) Add(data []byte) error {
	for i, doc := range splitDocuments(data) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		if err := o.addDocument(doc); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
	}
	return nil
}

func (o *Objects) addDocument(doc []byte) error {
	tm := typeMeta{}
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	if tm.Kind == "" {
		// Comments only, or an empty document.
		return nil
	}
	if strings.HasSuffix(tm.Kind, "List") {
		for j, item := range tm.Items {
			b, err := yaml.Marshal(item)
			if err != nil {
				return err
			}
			if err := o.addDocument(b); err != nil {
				return fmt.Errorf("items[%d]: %w", j, err)
			}
		}
		return nil
	}
	switch tm.Kind {
	case "NodePool":
		x := &v1.NodePool{}
		if err := yaml.Unmarshal(defaultKarpenter(doc, tm.Kind), x); err != nil {
			return err
		}
		o.NodePools = append(o.NodePools, x)
	case "NodeClaim":
		x := &v1.NodeClaim{}
		if err := yaml.Unmarshal(defaultKarpenter(doc, tm.Kind), x); err != nil {
			return err
		}
		o.NodeClaims = append(o.NodeClaims, x)
	case "Pod":
		x := &corev1.Pod{}
		if err := yaml.Unmarshal(doc, x); err != nil {
			return err
		}
		if x.Namespace == "" {
			x.Namespace = "default"
		}
		o.Pods = append(o.Pods, x)
	case "Node":
		x := &corev1.Node{}
		if err := yaml.Unmarshal(doc, x); err != nil {
			return err
		}
		o.Nodes = append(o.Nodes, x)
	case "DaemonSet":
		x := &appsv1.DaemonSet{}
		if err := yaml.Unmarshal(doc, x); err != nil {
			return err
		}
		if x.Namespace == "" {
			x.Namespace = "default"
		}
		o.DaemonSets = append(o.DaemonSets, x)
	case "PodDisruptionBudget":
		x := &policyv1.PodDisruptionBudget{}
		if err := yaml.Unmarshal(doc, x); err != nil {
			return err
		}
		if x.Namespace == "" {
			x.Namespace = "default"
		}
		o.PDBs = append(o.PDBs, x)
	default:
		o.Ignored[tm.Kind]++
	}
	return nil
}

// Writer accumulates objects into one multi-document YAML stream.
type Writer struct{ buf bytes.Buffer }

// Add appends one object; apiVersion and kind must be set on it.
func (w *Writer) Add(obj any) error {
	b, err := yaml.Marshal(obj)
	if err != nil {
		return err
	}
	if w.buf.Len() > 0 {
		w.buf.WriteString("---\n")
	}
	w.buf.Write(b)
	return nil
}

// Bytes returns the stream.
func (w *Writer) Bytes() []byte { return w.buf.Bytes() }

// WriteFile writes the stream to path.
func (w *Writer) WriteFile(path string) error { return os.WriteFile(path, w.buf.Bytes(), 0o644) }

// defaultKarpenter applies, on the raw document, the CRD defaults whose
// typed zero value would read as "Never": a NodePool's
// spec.disruption.consolidateAfter (0s) and spec.template.spec.expireAfter
// (720h), a NodeClaim's spec.expireAfter (720h). An API server applies them
// before anyone reads the object; a typed decode cannot tell them apart.
func defaultKarpenter(doc []byte, kind string) []byte {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil || m == nil {
		return doc
	}
	child := func(parent map[string]any, key string) map[string]any {
		c, ok := parent[key].(map[string]any)
		if !ok {
			c = map[string]any{}
			parent[key] = c
		}
		return c
	}
	setDefault := func(obj map[string]any, key, value string) {
		if _, ok := obj[key]; !ok {
			obj[key] = value
		}
	}
	spec := child(m, "spec")
	switch kind {
	case "NodePool":
		setDefault(child(spec, "disruption"), "consolidateAfter", "0s")
		setDefault(child(child(spec, "template"), "spec"), "expireAfter", "720h")
	case "NodeClaim":
		setDefault(spec, "expireAfter", "720h")
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return doc
	}
	return out
}
