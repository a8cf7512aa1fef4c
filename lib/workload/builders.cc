#include "workload/builders.h"

namespace nodeplan::workload {

v1::Pod MakePod(const std::string& name, const std::string& ns,
                const std::string& cpu, const std::string& memory) {
  v1::Pod pod;
  pod.set_api_version("v1");
  pod.set_kind("Pod");
  pod.mutable_metadata()->set_name(name);
  pod.mutable_metadata()->set_namespace_(ns);
  pod.mutable_metadata()->set_uid(ns + "-" + name);
  v1::Container* container = pod.mutable_spec()->add_containers();
  container->set_name("app");
  auto& requests = *container->mutable_resources()->mutable_requests();
  if (!cpu.empty()) requests["cpu"] = cpu;
  if (!memory.empty()) requests["memory"] = memory;
  v1::PodCondition* scheduled = pod.mutable_status()->add_conditions();
  scheduled->set_type("PodScheduled");
  scheduled->set_status("False");
  scheduled->set_reason("Unschedulable");
  pod.mutable_status()->set_phase("Pending");
  return pod;
}

v1::NodeSelectorRequirement Requirement(const std::string& key,
                                        const std::string& op,
                                        std::vector<std::string> values) {
  v1::NodeSelectorRequirement req;
  req.set_key(key);
  req.set_operator_(op);
  for (auto& v : values) req.add_values(std::move(v));
  return req;
}

v1::LabelSelector MatchLabels(
    std::initializer_list<std::pair<std::string, std::string>> labels) {
  v1::LabelSelector selector;
  for (const auto& [k, v] : labels) (*selector.mutable_match_labels())[k] = v;
  return selector;
}

v1::Taint MakeTaint(const std::string& key, const std::string& value,
                    const std::string& effect) {
  v1::Taint taint;
  taint.set_key(key);
  taint.set_value(value);
  taint.set_effect(effect);
  return taint;
}

}  // namespace nodeplan::workload
