package catalog_test

import (
	"testing"

	"github.com/samber/lo"

	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"

	"github.com/nodeplan/nodeplan/benchmarks/karpenter/catalog"
)

// The benchmark catalog written in nodeplan's format must read back as the
// very instance types Karpenter's benchmark builds.
func TestRoundTripFakeInstanceTypes(t *testing.T) {
	for name, its := range map[string][]*cloudprovider.InstanceType{
		// fake.InstanceTypesAssorted() is left out: its offerings carry a
		// random reservation-ID requirement even when not reserved.
		"InstanceTypes(400)": fake.InstanceTypes(400),
	} {
		t.Run(name, func(t *testing.T) {
			c := catalog.FromKarpenter(its, nil)
			data, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := catalog.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			back, err := parsed.ToKarpenter()
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(its) {
				t.Fatalf("got %d types, want %d", len(back), len(its))
			}
			for i := range its {
				want, got := its[i], back[i]
				if want.Name != got.Name {
					t.Fatalf("[%d] name %s != %s", i, got.Name, want.Name)
				}
				if w, g := want.Requirements.String(), got.Requirements.String(); w != g {
					t.Errorf("%s requirements\n got %s\nwant %s", want.Name, g, w)
				}
				if !equalLists(want.Capacity, got.Capacity) || !equalLists(want.Overhead.Total(), got.Overhead.Total()) {
					t.Errorf("%s capacity/overhead differ", want.Name)
				}
				if !equalLists(want.Allocatable(), got.Allocatable()) {
					t.Errorf("%s allocatable differs", want.Name)
				}
				if len(want.Offerings) != len(got.Offerings) {
					t.Fatalf("%s offerings %d != %d", want.Name, len(got.Offerings), len(want.Offerings))
				}
				for j := range want.Offerings {
					w, g := want.Offerings[j], got.Offerings[j]
					if w.Price != g.Price || w.Available != g.Available || w.Requirements.String() != g.Requirements.String() {
						t.Errorf("%s offering %d differs: %v vs %v", want.Name, j, lo.FromPtr(g), lo.FromPtr(w))
					}
				}
			}
		})
	}
}

func equalLists(a, b map[corevName]quantity) bool { return equal(a, b) }
