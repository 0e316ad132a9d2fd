// JSON form of trace header and op records (the writer's half of the format).
#include "ecosim/traces/trace.hpp"

namespace ecosim::trace {

std::string_view name(FloatStorage s) { return s == FloatStorage::operand ? "operand" : "recorded"; }

nlohmann::json to_json(const Header& h) {
  nlohmann::json j = {{"record", "header"},
                      {"format", kFormatName},
                      {"version", kFormatVersion},
                      {"producer", h.producer},
                      {"convention", name(h.convention)},
                      {"workload", h.workload}};
  if (h.float_storage != FloatStorage::operand) j["float_storage"] = name(h.float_storage);
  for (const Alternative& a : h.alternatives) j["alternatives"].push_back({{"name", a.name}, {"ops", a.ops}});
  return j;
}

nlohmann::json to_json(const OpRecord& r) {
  nlohmann::json ops = nlohmann::json::object(), read = nlohmann::json::object(), written = nlohmann::json::object();
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (auto n = r.counts.ops(k, t)) ops[std::string(name(k))][std::string(name(t))] = n;
  for (DType t : kAllDTypes) {
    if (auto n = r.counts.read_bytes(t)) read[std::string(name(t))] = n;
    if (auto n = r.counts.written_bytes(t)) written[std::string(name(t))] = n;
  }
  nlohmann::json j{{"record", "op"},
                   {"name", r.name},
                   {"kind", name(r.kind)},
                   {"batch", r.batch},
                   {"m", r.m},
                   {"n", r.n},
                   {"k", r.k},
                   {"a_dtype", name(r.a_dtype)},
                   {"b_dtype", name(r.b_dtype)},
                   {"ops", ops},
                   {"bytes_read", read},
                   {"bytes_written", written}};
  if (!r.func.empty()) j["func"] = r.func;
  if (!r.params.empty()) j["params"] = r.params;
  if (!r.group.empty()) j["group"] = r.group;
  return j;
}

}  // namespace ecosim::trace
