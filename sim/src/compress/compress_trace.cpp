// The compression trace: the activation's store and load uncompressed, beside the compressed path (compress
// work, store and load of the codes and metadata, decompress work). The activation is on chip where it is
// produced and where it is consumed, in both alternatives: the passes' work records carry no DRAM bytes.
#include "compress_trace.hpp"

#include "ecosim/ops_counter/primitives.hpp"
#include "ecosim/traces/trace_writer.hpp"

namespace ecosim::cli {

void write_compress_trace(const std::string& path, const std::string& producer, const nlohmann::json& workload,
                          const CompressedActivation& a) {
  std::vector<OpRecord> uncompressed, compressed;
  const std::uint64_t activation_bytes = storage_bytes(a.input, a.elements);
  uncompressed.push_back(ops::dram_transfer("uncompressed.store_activation", a.input, activation_bytes, true));
  uncompressed.push_back(ops::dram_transfer("uncompressed.load_activation", a.input, activation_bytes, false));
  for (const OpRecord& pass : a.compress_pass) compressed.push_back(ops::on_chip(pass));
  for (const auto& [t, bytes] : a.kept_bytes)
    compressed.push_back(ops::dram_transfer("compressed.store_" + std::string(name(t)), t, bytes, true));
  for (const auto& [t, bytes] : a.kept_bytes)
    compressed.push_back(ops::dram_transfer("compressed.load_" + std::string(name(t)), t, bytes, false));
  for (const OpRecord& pass : a.decompress_pass) compressed.push_back(ops::on_chip(pass));

  trace::Header header{.producer = producer, .convention = Convention::exact, .workload = workload};
  header.float_storage = trace::FloatStorage::recorded;
  header.alternatives = {{"uncompressed", uncompressed.size()}, {"compressed", compressed.size()}};
  trace::TraceWriter writer(path, header);
  for (const OpRecord& r : uncompressed) writer.record(r);
  for (const OpRecord& r : compressed) writer.record(r);
  writer.finish();
}

}  // namespace ecosim::cli
