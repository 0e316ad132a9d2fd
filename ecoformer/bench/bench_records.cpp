// JSON of bench_records.hpp through nlohmann::json, written to a temporary file and renamed.
#include "bench_records.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::bench {

namespace {
nlohmann::json to_json(const Record& r) {
  nlohmann::json j = {{"kernel", r.kernel}, {"dtype", r.dtype}, {"n", r.n}, {"d", r.d}, {"batch_heads", r.batch_heads}};
  if (!r.time) {
    j["status"] = "n/a";
    j["reason"] = r.reason;
    return j;
  }
  j["status"] = "ok";
  j["median_ms"] = r.time->median_ms;
  j["min_ms"] = r.time->min_ms;
  j["max_ms"] = r.time->max_ms;
  j["repetitions"] = r.time->repetitions;
  j["warmup"] = r.time->warmup;
  j["bound_ms"] = r.bound_ms;
  return j;
}
}  // namespace

void write_records(const std::string& path, const RecordsHeader& header, const std::vector<Record>& records) {
  nlohmann::json doc = {{"benchmark", header.benchmark},
                        {"device", header.device},
                        {"method", header.method},
                        {"warmup", header.plan.warmup},
                        {"repetitions", header.plan.repetitions},
                        {"max_seconds_per_case", header.max_seconds_per_case},
                        {"max_seconds", header.max_seconds},
                        {"records", nlohmann::json::array()}};
  for (const Record& r : records) doc["records"].push_back(to_json(r));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << doc.dump(1) << '\n';
    out.close();
    if (!out) throw Error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

}  // namespace ecosim::bench
