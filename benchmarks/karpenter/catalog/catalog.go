// Package catalog reads and writes nodeplan's catalog file format
// (proto/nodeplan/v1/catalog.proto, as YAML or proto3 JSON) and converts it to
// and from Karpenter's cloudprovider.InstanceType.
//
// The Go structs mirror the proto messages field for field so that the same
// file feeds nodeplan and Karpenter. They are written by hand (not generated)
// so that this module does not depend on nodeplan's generated code for its
// Karpenter half.
package catalog

import (
	"fmt"
	"os"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Offering mirrors nodeplan.v1.Offering.
type Offering struct {
	Zone                string  `json:"zone"`
	CapacityType        string  `json:"capacityType"`
	Price               float64 `json:"price"`
	Available           *bool   `json:"available,omitempty"`
	ReservationID       string  `json:"reservationID,omitempty"`
	ReservationCapacity int32   `json:"reservationCapacity,omitempty"`
}

// IsAvailable applies the proto rule: absent means available.
func (o Offering) IsAvailable() bool { return o.Available == nil || *o.Available }

// Overhead mirrors nodeplan.v1.Overhead.
type Overhead struct {
	KubeReserved      map[string]string `json:"kubeReserved,omitempty"`
	SystemReserved    map[string]string `json:"systemReserved,omitempty"`
	EvictionThreshold map[string]string `json:"evictionThreshold,omitempty"`
}

// InstanceType mirrors nodeplan.v1.InstanceType.
type InstanceType struct {
	Name         string                           `json:"name"`
	Labels       map[string]string                `json:"labels,omitempty"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements,omitempty"`
	Capacity     map[string]string                `json:"capacity,omitempty"`
	Overhead     *Overhead                        `json:"overhead,omitempty"`
	Offerings    []Offering                       `json:"offerings,omitempty"`
}

// Catalog mirrors nodeplan.v1.Catalog.
type Catalog struct {
	APIVersion      string         `json:"apiVersion,omitempty"`
	Kind            string         `json:"kind,omitempty"`
	Region          string         `json:"region,omitempty"`
	WellKnownLabels []string       `json:"wellKnownLabels,omitempty"`
	InstanceTypes   []InstanceType `json:"instanceTypes"`
	Source          string         `json:"source,omitempty"`
}

// Load reads a catalog file (YAML or JSON).
func Load(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// Parse decodes catalog bytes (YAML or JSON), rejecting unknown fields so a
// misspelt field is an error rather than a silently different catalog.
func Parse(data []byte) (*Catalog, error) {
	c := &Catalog{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return c, nil
}

// Save writes the catalog as YAML.
func (c *Catalog) Save(path string) error {
	data, err := c.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Marshal renders the catalog as YAML with a deterministic field order.
func (c *Catalog) Marshal() ([]byte, error) { return yaml.Marshal(c) }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
