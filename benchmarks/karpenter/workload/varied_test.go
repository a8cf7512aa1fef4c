package workload_test

import (
	"bytes"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/workload"
)

// Same seed, same bytes; the files read back into the same cluster.
func TestVariedIsReproducible(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		a, b := t.TempDir(), t.TempDir()
		if err := workload.Varied(seed).Write(a); err != nil {
			t.Fatal(err)
		}
		if err := workload.Varied(seed).Write(b); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifests.yaml", "catalog.yaml", "options.yaml"} {
			if !bytes.Equal(read(t, filepath.Join(a, f)), read(t, filepath.Join(b, f))) {
				t.Fatalf("seed %d: %s differs between two generations", seed, f)
			}
		}
		w, err := workload.Read(a)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		v := workload.Varied(seed)
		if len(w.Pods) != len(v.Pods) || len(w.NodeClaims) != len(v.NodeClaims) || len(w.Nodes) != len(v.Nodes) {
			t.Fatalf("seed %d: read back %d pods %d claims %d nodes, generated %d %d %d", seed,
				len(w.Pods), len(w.NodeClaims), len(w.Nodes), len(v.Pods), len(v.NodeClaims), len(v.Nodes))
		}
	}
}

// Over 200 seeds every feature the generator promises appears, and sizes
// span the promised ranges.
func TestVariedCoversItsFeatures(t *testing.T) {
	seen := map[string]int{}
	maxPods, minTypes, maxTypes := 0, 1000, 0
	for seed := int64(1); seed <= 200; seed++ {
		w := workload.Varied(seed)
		pending := 0
		for _, p := range w.Pods {
			if p.Spec.NodeName != "" {
				continue
			}
			pending++
			if p.UID == "" {
				seen["no uid"]++
			} else {
				seen["uid"]++
			}
			if p.CreationTimestamp.IsZero() {
				seen["no timestamp"]++
			}
			for _, c := range p.Spec.TopologySpreadConstraints {
				seen["spread "+c.TopologyKey]++
				if c.MaxSkew == 3 {
					seen["maxSkew 3"]++
				}
				if c.MinDomains != nil {
					seen["minDomains"]++
				}
				if c.LabelSelector.MatchLabels["app"] == "" {
					seen["shared spread selector"]++
				}
			}
			if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
				seen["required anti-affinity"]++
			}
		}
		maxPods = max(maxPods, pending)
		minTypes, maxTypes = min(minTypes, len(w.Catalog.InstanceTypes)), max(maxTypes, len(w.Catalog.InstanceTypes))
		if len(w.NodeClaims) > 0 {
			seen["in-flight"]++
		}
		if len(w.Nodes) > 0 {
			seen["nodes"]++
		}
		limited := 0
		for _, np := range w.NodePools {
			if _, ok := np.Spec.Limits[corev1.ResourceCPU]; ok {
				limited++
			}
		}
		if limited > 0 {
			seen["limits"]++
		}
		if len(w.NodePools) >= 3 {
			seen["3+ NodePools"]++
		}
	}
	for _, f := range []string{"no uid", "uid", "no timestamp", "spread kubernetes.io/hostname", "spread topology.kubernetes.io/zone",
		"spread karpenter.sh/capacity-type", "maxSkew 3", "minDomains", "shared spread selector", "required anti-affinity",
		"in-flight", "nodes", "limits", "3+ NodePools"} {
		if seen[f] == 0 {
			t.Errorf("no %s in 200 clusters", f)
		}
	}
	if maxPods < 200 || minTypes > 6 || maxTypes < 300 {
		t.Errorf("sizes: max pending pods %d, catalog %d..%d types", maxPods, minTypes, maxTypes)
	}
	t.Logf("%v; max pending %d; types %d..%d", seen, maxPods, minTypes, maxTypes)
}

// An untied cluster offers one zone and one capacity type everywhere, and
// leaves the generated cluster as it was.
func TestUntieLeavesOneZoneAndCapacityType(t *testing.T) {
	for seed := int64(1); seed <= 50; seed++ {
		v := workload.Varied(seed)
		before := len(v.Catalog.InstanceTypes[0].Offerings)
		u := workload.Untie(v)
		if len(v.Catalog.InstanceTypes[0].Offerings) != before {
			t.Fatalf("seed %d: Untie changed the generated catalog", seed)
		}
		for _, it := range u.Catalog.InstanceTypes {
			for _, o := range it.Offerings {
				if o.Zone != workload.UntiedZone || o.CapacityType != workload.UntiedCapacityType {
					t.Fatalf("seed %d: %s keeps offering %s/%s", seed, it.Name, o.Zone, o.CapacityType)
				}
			}
		}
		for _, np := range u.NodePools {
			for _, r := range np.Spec.Template.Spec.Requirements {
				if r.Key == corev1.LabelTopologyZone && (len(r.Values) != 1 || r.Values[0] != workload.UntiedZone) {
					t.Fatalf("seed %d: NodePool %s zone requirement %v", seed, np.Name, r.Values)
				}
			}
		}
		for _, nc := range u.NodeClaims {
			if z, ok := nc.Labels[corev1.LabelTopologyZone]; ok && z != workload.UntiedZone {
				t.Fatalf("seed %d: NodeClaim %s in %s", seed, nc.Name, z)
			}
		}
		for _, n := range u.Nodes {
			if z, ok := n.Labels[corev1.LabelTopologyZone]; ok && z != workload.UntiedZone {
				t.Fatalf("seed %d: node %s in %s", seed, n.Name, z)
			}
		}
	}
}
