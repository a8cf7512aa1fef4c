#ifndef NODEPLAN_LIB_WORKLOAD_BUILDERS_H_
#define NODEPLAN_LIB_WORKLOAD_BUILDERS_H_

// Small constructors for the Kubernetes-shaped protos the generators emit.

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "nodeplan/v1/k8s.pb.h"
#include "nodeplan/v1/karpenter.pb.h"

namespace nodeplan::workload {

// A pending pod with one container "app" requesting cpu and memory.
v1::Pod MakePod(const std::string& name, const std::string& ns,
                const std::string& cpu, const std::string& memory);

v1::NodeSelectorRequirement Requirement(const std::string& key,
                                        const std::string& op,
                                        std::vector<std::string> values = {});

v1::LabelSelector MatchLabels(
    std::initializer_list<std::pair<std::string, std::string>> labels);

v1::Taint MakeTaint(const std::string& key, const std::string& value,
                    const std::string& effect);

}  // namespace nodeplan::workload

#endif  // NODEPLAN_LIB_WORKLOAD_BUILDERS_H_
