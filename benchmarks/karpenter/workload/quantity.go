package workload

import "k8s.io/apimachinery/pkg/api/resource"

func resourceSub(a resource.Quantity, b string) *resource.Quantity {
	out := a.DeepCopy()
	out.Sub(resource.MustParse(b))
	return &out
}
