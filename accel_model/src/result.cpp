// Energy ledger, leakage, result accumulation and JSON rendering of replay results.
#include "ecosim/accel_model/result.hpp"

#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

EnergyBreakdown EnergyBreakdown::operator-(const EnergyBreakdown& o) const {
  EnergyBreakdown r = *this;
  r.array_pj -= o.array_pj, r.vector_pj -= o.vector_pj, r.dram_pj -= o.dram_pj, r.leakage_pj -= o.leakage_pj;
  for (std::size_t b = 0; b < kBufferCount; ++b) r.sram_pj[b] -= o.sram_pj[b];
  return r;
}

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& o) {
  array_pj += o.array_pj, vector_pj += o.vector_pj, dram_pj += o.dram_pj, leakage_pj += o.leakage_pj;
  for (std::size_t b = 0; b < kBufferCount; ++b) sram_pj[b] += o.sram_pj[b];
  return *this;
}

void EnergyLedger::dram(std::uint64_t bits) { dram_bits_ = checked_add(dram_bits_, bits); }

void EnergyLedger::sram(Buffer buffer, std::uint64_t bits, bool write) {
  std::uint64_t& tally = (write ? sram_write_bits_ : sram_read_bits_)[std::size_t(buffer)];
  tally = checked_add(tally, bits);
}

void EnergyLedger::array(std::uint64_t cycles) { array_cycles_ = checked_add(array_cycles_, cycles); }

void EnergyLedger::vector(double pj, std::uint64_t tiles) {
  if (tiles == 0) return;
  if (vector_tiles_ != 0 && pj != vector_tile_pj_) {  // a run of another value ends
    vector_done_pj_ += vector_tile_pj_ * double(vector_tiles_);
    vector_tiles_ = 0;
  }
  vector_tile_pj_ = pj;
  vector_tiles_ = checked_add(vector_tiles_, tiles);
}

EnergyBreakdown EnergyLedger::total() const {
  EnergyBreakdown e;
  e.dram_pj = double(dram_bits_) * config_->dram_pj_per_bit;
  e.array_pj = double(array_cycles_) * config_->array_pj_per_cycle;
  e.vector_pj = vector_done_pj_ + vector_tile_pj_ * double(vector_tiles_);
  for (Buffer b : kAllBuffers) {
    const BufferConfig& buf = config_->buffer(b);
    e.sram_pj[std::size_t(b)] = double(sram_read_bits_[std::size_t(b)]) * buf.read_pj_per_bit +
                                double(sram_write_bits_[std::size_t(b)]) * buf.write_pj_per_bit;
  }
  return e;
}

void ReplayResult::add(const OpRow& row) {
  total.tiles = checked_add(total.tiles, row.tiles);
  total.macs = checked_add(total.macs, row.macs);
  total.cycles = checked_add(total.cycles, row.cycles);
  total.array_cycles = checked_add(total.array_cycles, row.array_cycles);
  total.vector_cycles = checked_add(total.vector_cycles, row.vector_cycles);
  total.dram_cycles = checked_add(total.dram_cycles, row.dram_cycles);
  total.dram_bits = checked_add(total.dram_bits, row.dram_bits);
  total.summed_stall_cycles = checked_add(total.summed_stall_cycles.value_or(0), row.stall_cycles());
  for (std::size_t b = 0; b < kBufferCount; ++b) {
    total.sram_read_bits[b] = checked_add(total.sram_read_bits[b], row.sram_read_bits[b]);
    total.sram_write_bits[b] = checked_add(total.sram_write_bits[b], row.sram_write_bits[b]);
  }
  total.energy += row.energy;
}

AreaBreakdown area_breakdown(const AccelConfig& config) {
  AreaBreakdown area;
  area.array_mm2 = config.array_area_mm2;
  for (Buffer b : kAllBuffers) area.sram_mm2[std::size_t(b)] = config.buffer(b).area_mm2;
  return area;
}

nlohmann::json to_json(const AreaBreakdown& area) {
  nlohmann::json j = {{"array", area.array_mm2}, {"total", area.total_mm2()}};
  for (Buffer b : kAllBuffers) j["sram_" + std::string(name(b))] = area.sram_mm2[std::size_t(b)];
  return j;
}

ReplayResult make_result(const AccelConfig& config, std::string engine) {
  ReplayResult r;
  r.accelerator = config.name;
  r.engine = std::move(engine);
  r.clock_mhz = config.clock_mhz;
  r.peak_macs_per_cycle = config.rows * config.cols * fusion(config.pmin_bits, config.pmin_bits, config).spatial;
  r.leakage_mw = config.leakage_mw();
  r.area = area_breakdown(config);
  r.total.name = "total";
  return r;
}

void charge_load(const TileWork& t, EnergyLedger& ledger, std::uint64_t count) {
  for (Buffer b : kAllBuffers) {
    const std::uint64_t bits = checked_mul(t.load_bits[std::size_t(b)], count);
    ledger.dram(bits);
    ledger.sram(b, bits, true);
  }
}

void charge_compute(const TileWork& t, EnergyLedger& ledger, std::uint64_t count) {
  for (Buffer b : kAllBuffers) ledger.sram(b, checked_mul(t.unit_read_bits[std::size_t(b)], count), false);
  for (Buffer b : kAllBuffers) ledger.sram(b, checked_mul(t.unit_write_bits[std::size_t(b)], count), true);
  if (t.unit == Unit::array) ledger.array(checked_mul(t.compute_cycles, count));
  if (t.unit == Unit::vector) ledger.vector(t.vector_pj, count);
}

void charge_store(const TileWork& t, EnergyLedger& ledger, std::uint64_t count) {
  const std::uint64_t bits = checked_mul(t.store_bits, count);
  ledger.sram(Buffer::outputs, bits, false);
  ledger.dram(bits);
}

void charge_tile(const TileWork& t, EnergyLedger& ledger, std::uint64_t count) {
  charge_load(t, ledger, count);
  charge_compute(t, ledger, count);
  charge_store(t, ledger, count);
}

void charge_leakage(OpRow& row, const AccelConfig& config) {
  constexpr double kPjPerMwUs = 1e3;  // 1 mW for 1 µs is 1 nJ
  row.energy.leakage_pj = config.leakage_mw() * double(row.cycles) / config.clock_mhz * kPjPerMwUs;
}

StaticRow::StaticRow(const OpPlan& plan, const AccelConfig& config) : config_(config), ledger_(config) {
  row_.name = plan.name;
  row_.kind = plan.kind;
  row_.mapping = plan.mapping;
}

void StaticRow::add(const TileWork& t, std::uint64_t count) {
  auto tally = [count](std::uint64_t& sum, std::uint64_t each) { sum = checked_add(sum, checked_mul(each, count)); };
  tally(row_.tiles, 1);
  tally(row_.macs, t.macs);
  if (t.unit == Unit::array) tally(row_.array_cycles, t.compute_cycles);
  if (t.unit == Unit::vector) tally(row_.vector_cycles, t.compute_cycles);
  tally(row_.dram_bits, checked_add(t.load_total_bits(), t.store_bits));
  tally(row_.dram_cycles, dram_cycles(t.load_total_bits(), config_) + dram_cycles(t.store_bits, config_));
  for (std::size_t b = 0; b < kBufferCount; ++b) {
    tally(row_.sram_write_bits[b], t.load_bits[b] + t.unit_write_bits[b]);
    tally(row_.sram_read_bits[b], t.unit_read_bits[b]);
  }
  tally(row_.sram_read_bits[std::size_t(Buffer::outputs)], t.store_bits);
  charge_tile(t, ledger_, count);
}

OpRow StaticRow::row() const {
  OpRow row = row_;
  row.energy = ledger_.total();
  return row;
}

nlohmann::json to_json(const OpRow& r, double clock_mhz) {
  nlohmann::json energy = {{"array", r.energy.array_pj},
                           {"vector_unit", r.energy.vector_pj},
                           {"dram", r.energy.dram_pj},
                           {"leakage", r.energy.leakage_pj},
                           {"total", r.energy.total_pj()}};
  nlohmann::json sram;
  for (Buffer b : kAllBuffers) {
    energy["sram_" + std::string(name(b))] = r.energy.sram_pj[std::size_t(b)];
    sram[std::string(name(b))] = {{"read", r.sram_read_bits[std::size_t(b)]},
                                  {"written", r.sram_write_bits[std::size_t(b)]}};
  }
  return {{"name", r.name},
          {"kind", std::string(ecosim::name(r.kind))},
          {"mapping", r.mapping},
          {"tiles", r.tiles},
          {"macs", r.macs},
          {"cycles", r.cycles},
          {"latency_ms", double(r.cycles) / (clock_mhz * 1e3)},
          {"array_cycles", r.array_cycles},
          {"vector_cycles", r.vector_cycles},
          {"stall_cycles", r.stall_cycles()},
          {"dram_cycles", r.dram_cycles},
          {"dram_bits", r.dram_bits},
          {"energy_pj", energy},
          {"sram_bits", sram}};
}

nlohmann::json to_json(const ReplayResult& result) {
  nlohmann::json j = to_json(result.total, result.clock_mhz);
  j.erase("name"), j.erase("kind"), j.erase("mapping");
  j["accelerator"] = result.accelerator;
  j["engine"] = result.engine;
  j["clock_mhz"] = result.clock_mhz;
  j["array_utilisation"] = result.array_utilisation();
  j["mac_utilisation"] = result.mac_utilisation();
  j["leakage_mw"] = result.leakage_mw;
  j["area_mm2"] = to_json(result.area);
  return j;
}

}  // namespace ecosim::accel
