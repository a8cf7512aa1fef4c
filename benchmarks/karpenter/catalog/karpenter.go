package catalog

import (
	"fmt"
	"sort"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// ToKarpenter converts the catalog into Karpenter instance types.
//
// Requirements of an instance type are built the way Karpenter's providers
// build them: each label becomes `key In [value]`, the listed requirements are
// added (intersected), and, unless the catalog already constrains them, the
// zone and capacity-type requirements are the values of the type's available
// offerings (as pkg/cloudprovider/fake does). A catalog region becomes
// `topology.kubernetes.io/region In [region]` on every type.
//
// Each offering carries zone and capacity-type requirements, and for a
// reserved offering also cloudprovider.ReservationIDLabel In [id].
func (c *Catalog) ToKarpenter() ([]*cloudprovider.InstanceType, error) {
	out := make([]*cloudprovider.InstanceType, 0, len(c.InstanceTypes))
	for i := range c.InstanceTypes {
		it, err := c.InstanceTypes[i].toKarpenter(c.Region)
		if err != nil {
			return nil, fmt.Errorf("catalog.instanceTypes[%d] (%s): %w", i, c.InstanceTypes[i].Name, err)
		}
		out = append(out, it)
	}
	return out, nil
}

func parseList(field string, m map[string]string) (corev1.ResourceList, error) {
	if len(m) == 0 {
		return corev1.ResourceList{}, nil
	}
	rl := corev1.ResourceList{}
	for _, k := range sortedKeys(m) {
		q, err := resource.ParseQuantity(m[k])
		if err != nil {
			return nil, fmt.Errorf("%s[%s]: %w", field, k, err)
		}
		rl[corev1.ResourceName(k)] = q
	}
	return rl, nil
}

func (t *InstanceType) toKarpenter(region string) (*cloudprovider.InstanceType, error) {
	capacity, err := parseList("capacity", t.Capacity)
	if err != nil {
		return nil, err
	}
	overhead := &cloudprovider.InstanceTypeOverhead{
		KubeReserved: corev1.ResourceList{}, SystemReserved: corev1.ResourceList{}, EvictionThreshold: corev1.ResourceList{},
	}
	if t.Overhead != nil {
		if overhead.KubeReserved, err = parseList("overhead.kubeReserved", t.Overhead.KubeReserved); err != nil {
			return nil, err
		}
		if overhead.SystemReserved, err = parseList("overhead.systemReserved", t.Overhead.SystemReserved); err != nil {
			return nil, err
		}
		if overhead.EvictionThreshold, err = parseList("overhead.evictionThreshold", t.Overhead.EvictionThreshold); err != nil {
			return nil, err
		}
	}
	reqs := scheduling.NewRequirements()
	reqs.Add(scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, t.Name))
	if region != "" {
		reqs.Add(scheduling.NewRequirement(corev1.LabelTopologyRegion, corev1.NodeSelectorOpIn, region))
	}
	for _, k := range sortedKeys(t.Labels) {
		reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpIn, t.Labels[k]))
	}
	for _, r := range t.Requirements {
		reqs.Add(scheduling.NewRequirement(r.Key, r.Operator, r.Values...))
	}
	offerings := cloudprovider.Offerings{}
	for j, o := range t.Offerings {
		if o.Zone == "" || o.CapacityType == "" {
			return nil, fmt.Errorf("offerings[%d]: zone and capacityType are required", j)
		}
		labels := map[string]string{corev1.LabelTopologyZone: o.Zone, v1.CapacityTypeLabelKey: o.CapacityType}
		if o.ReservationID != "" {
			labels[cloudprovider.ReservationIDLabel] = o.ReservationID
		}
		offerings = append(offerings, &cloudprovider.Offering{
			Requirements:        scheduling.NewLabelRequirements(labels),
			Price:               o.Price,
			Available:           o.IsAvailable(),
			ReservationCapacity: int(o.ReservationCapacity),
		})
	}
	available := offerings.Available()
	if !reqs.Has(corev1.LabelTopologyZone) {
		reqs.Add(scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, lo.Map(available, func(o *cloudprovider.Offering, _ int) string { return o.Zone() })...))
	}
	if !reqs.Has(v1.CapacityTypeLabelKey) {
		reqs.Add(scheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, lo.Map(available, func(o *cloudprovider.Offering, _ int) string { return o.CapacityType() })...))
	}
	return &cloudprovider.InstanceType{
		Name:         t.Name,
		Requirements: reqs,
		Offerings:    offerings,
		Capacity:     capacity,
		Overhead:     overhead,
	}, nil
}

func listToMap(rl corev1.ResourceList) map[string]string {
	if len(rl) == 0 {
		return nil
	}
	m := map[string]string{}
	for k, q := range rl {
		m[string(k)] = q.String()
	}
	return m
}

// FromKarpenter writes Karpenter instance types (for example the fake
// provider's fake.InstanceTypes(400)) in nodeplan's catalog format, so that
// nodeplan reads exactly the catalog Karpenter's benchmark uses. Single-valued
// In requirements become labels; zone and capacity-type requirements are left
// out when they equal what the available offerings imply.
func FromKarpenter(its []*cloudprovider.InstanceType, wellKnown []string) *Catalog {
	c := &Catalog{APIVersion: "nodeplan.io/v1", Kind: "Catalog", WellKnownLabels: wellKnown}
	for _, it := range its {
		t := InstanceType{Name: it.Name, Labels: map[string]string{}, Capacity: listToMap(it.Capacity)}
		if it.Overhead != nil {
			t.Overhead = &Overhead{
				KubeReserved:      listToMap(it.Overhead.KubeReserved),
				SystemReserved:    listToMap(it.Overhead.SystemReserved),
				EvictionThreshold: listToMap(it.Overhead.EvictionThreshold),
			}
		}
		available := it.Offerings.Available()
		implied := map[string]sets.Set[string]{
			corev1.LabelTopologyZone: sets.New(lo.Map(available, func(o *cloudprovider.Offering, _ int) string { return o.Zone() })...),
			v1.CapacityTypeLabelKey:  sets.New(lo.Map(available, func(o *cloudprovider.Offering, _ int) string { return o.CapacityType() })...),
		}
		keys := it.Requirements.Keys().UnsortedList()
		sort.Strings(keys)
		for _, k := range keys {
			r := it.Requirements.Get(k)
			if k == corev1.LabelInstanceTypeStable {
				continue
			}
			if want, ok := implied[k]; ok && r.Operator() == corev1.NodeSelectorOpIn && sets.New(r.Values()...).Equal(want) {
				continue
			}
			if r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
				t.Labels[k] = r.Values()[0]
				continue
			}
			for _, nsr := range scheduling.NewRequirements(r).NodeSelectorRequirements() {
				vals := append([]string(nil), nsr.Values...)
				sort.Strings(vals)
				t.Requirements = append(t.Requirements, corev1.NodeSelectorRequirement{Key: nsr.Key, Operator: nsr.Operator, Values: vals})
			}
		}
		for _, o := range it.Offerings {
			off := Offering{Zone: o.Zone(), CapacityType: o.CapacityType(), Price: o.Price, ReservationCapacity: int32(o.ReservationCapacity)}
			// ReservationID() invents a value when the key is absent.
			if o.Requirements.Has(cloudprovider.ReservationIDLabel) {
				off.ReservationID = o.ReservationID()
			}
			if !o.Available {
				off.Available = lo.ToPtr(false)
			}
			t.Offerings = append(t.Offerings, off)
		}
		c.InstanceTypes = append(c.InstanceTypes, t)
	}
	return c
}
