package workload

import (
	"bytes"
	"path/filepath"
	"testing"
)

// Same seed, same bytes; different seeds, different clusters; a written case
// reads back to the same bytes.
func TestRandomDisruptionIsReproducible(t *testing.T) {
	render := func(c *DisruptCase) []byte {
		m, err := c.ManifestBytes()
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.ParamsBytes()
		if err != nil {
			t.Fatal(err)
		}
		cat, err := c.Catalog.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Join([][]byte{m, p, cat}, []byte("\n"))
	}
	for seed := int64(0); seed < 20; seed++ {
		a, b := render(RandomDisruption(seed, DefaultDisruptionConfig)), render(RandomDisruption(seed, DefaultDisruptionConfig))
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two generations differ", seed)
		}
		if bytes.Equal(a, render(RandomDisruption(seed+1000, DefaultDisruptionConfig))) {
			t.Fatalf("seed %d and %d give the same cluster", seed, seed+1000)
		}
		dir := filepath.Join(t.TempDir(), "case")
		c := RandomDisruption(seed, DefaultDisruptionConfig)
		if err := c.Write(dir); err != nil {
			t.Fatal(err)
		}
		back, err := ReadDisruptCase(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := render(back); !bytes.Equal(got, a) {
			t.Fatalf("seed %d: case does not read back to the same bytes", seed)
		}
	}
}

// Across seeds the generator covers what the differential test needs.
func TestRandomDisruptionCoverage(t *testing.T) {
	seen := map[string]bool{}
	for seed := int64(0); seed < 300; seed++ {
		c := RandomDisruption(seed, DefaultDisruptionConfig)
		for _, np := range c.NodePools {
			seen["policy "+string(np.Spec.Disruption.ConsolidationPolicy)] = true
			for _, b := range np.Spec.Disruption.Budgets {
				if b.Schedule != nil {
					seen["cron budget"] = true
				}
				if len(b.Reasons) > 0 {
					seen["reason budget"] = true
				}
			}
			if np.Spec.Weight != nil {
				seen["weight"] = true
			}
		}
		for _, nc := range c.NodeClaims {
			if nc.DeletionTimestamp != nil {
				seen["deleting"] = true
			}
			if nc.Annotations["karpenter.sh/nodepool-hash-version"] != "v3" {
				seen["hash version"] = true
			}
			seen["capacity "+nc.Labels["karpenter.sh/capacity-type"]] = true
		}
		if len(c.PDBs) > 0 {
			seen["pdb"] = true
		}
		if len(c.DaemonSets) > 0 {
			seen["daemonset"] = true
		}
		if len(c.Params.MarkedForDeletion) > 0 {
			seen["marked for deletion"] = true
		}
		if len(c.Params.Nominated) > 0 {
			seen["nominated"] = true
		}
		if len(c.Params.ProviderDrifted) > 0 {
			seen["provider drift"] = true
		}
		for _, p := range c.Pods {
			if p.Annotations["karpenter.sh/do-not-disrupt"] != "" {
				seen["pod do-not-disrupt"] = true
			}
			if len(p.OwnerReferences) == 0 && p.Spec.NodeName != "" {
				seen["bare pod"] = true
			}
		}
		for _, n := range c.Nodes {
			if n.Annotations["karpenter.sh/do-not-disrupt"] == "true" {
				seen["node do-not-disrupt"] = true
			}
			if n.Labels["karpenter.sh/initialized"] != "true" {
				seen["uninitialized"] = true
			}
		}
	}
	for _, want := range []string{"policy WhenEmpty", "policy WhenEmptyOrUnderutilized", "policy Balanced", "cron budget",
		"reason budget", "weight", "deleting", "hash version", "capacity spot", "capacity on-demand", "pdb", "daemonset",
		"provider drift", "marked for deletion", "nominated", "pod do-not-disrupt", "bare pod", "node do-not-disrupt", "uninitialized"} {
		if !seen[want] {
			t.Errorf("300 seeds never produce: %s", want)
		}
	}
}
