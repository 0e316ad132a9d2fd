// The compression trace: the activation's store and load uncompressed, beside the compressed path (compress
// work, store and load of the codes and metadata, decompress work). The activation is on chip where it is
// produced and where it is consumed, in both alternatives: the passes' work records carry no DRAM bytes.
#include "compress_trace.hpp"

#include <algorithm>

#include "ecosim/traces/trace_writer.hpp"

namespace ecosim::cli {

namespace {

/// A DMA transfer of `bytes` of type t between the buffers and DRAM: a store writes them, a load reads them.
OpRecord transfer(std::string name, DType t, std::uint64_t bytes, bool store) {
  OpRecord r;
  r.name = std::move(name);
  r.kind = OpClass::memcpy;
  r.func = "copy";
  r.n = std::max<std::uint64_t>(1, bytes * 8 / bits(t));  // the elements those bytes hold
  r.a_dtype = r.b_dtype = t;
  if (store)
    r.counts.add_written_bytes(t, bytes);
  else
    r.counts.add_read_bytes(t, bytes);
  return r;
}

/// `pass` with its arithmetic and no DRAM traffic: it works on the activation on chip.
OpRecord on_chip(const OpRecord& pass) {
  OpRecord r = pass;
  r.counts = OpCounts{};
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (const std::uint64_t n = pass.counts.ops(k, t)) r.counts.add(k, t, n);
  return r;
}

}  // namespace

void write_compress_trace(const std::string& path, const std::string& producer, const nlohmann::json& workload,
                          const CompressedActivation& a) {
  std::vector<OpRecord> uncompressed, compressed;
  const std::uint64_t activation_bytes = storage_bytes(a.input, a.elements);
  uncompressed.push_back(transfer("uncompressed.store_activation", a.input, activation_bytes, true));
  uncompressed.push_back(transfer("uncompressed.load_activation", a.input, activation_bytes, false));
  for (const OpRecord& pass : a.compress_pass) compressed.push_back(on_chip(pass));
  for (const auto& [t, bytes] : a.kept_bytes)
    compressed.push_back(transfer("compressed.store_" + std::string(name(t)), t, bytes, true));
  for (const auto& [t, bytes] : a.kept_bytes)
    compressed.push_back(transfer("compressed.load_" + std::string(name(t)), t, bytes, false));
  for (const OpRecord& pass : a.decompress_pass) compressed.push_back(on_chip(pass));

  trace::Header header{.producer = producer, .convention = Convention::exact, .workload = workload};
  header.float_storage = trace::FloatStorage::recorded;
  header.alternatives = {{"uncompressed", uncompressed.size()}, {"compressed", compressed.size()}};
  trace::TraceWriter writer(path, header);
  for (const OpRecord& r : uncompressed) writer.record(r);
  for (const OpRecord& r : compressed) writer.record(r);
  writer.finish();
}

}  // namespace ecosim::cli
