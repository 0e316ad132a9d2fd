// A program outside ecosim, built against the installed package: counts one attention layer into an
// OpCounter while writing it to a trace, reads the trace back and checks that its records add up to the
// counted total. Usage: ecosim_consumer <trace path>; exit 0 when they agree, 1 when not, 2 on an error.
#include <cstdio>
#include <exception>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/traces/trace_reader.hpp"
#include "ecosim/traces/trace_writer.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ecosim_consumer <trace path>\n");
    return 2;
  }
  try {
    ecosim::AttentionConfig layer;
    layer.variant = ecosim::AttentionVariant::ecoformer;
    layer.batch = 2;
    layer.heads = 2;
    layer.seq = 64;
    layer.head_dim = 16;
    layer.validate();

    ecosim::OpCounter counted;
    ecosim::trace::Header header;
    header.producer = "ecosim_consumer";
    ecosim::trace::TraceWriter writer(argv[1], header);
    ecosim::FanOutSink both({&counted, &writer});
    ecosim::emit_attention("attention", layer, ecosim::Convention::exact, both);
    writer.finish();

    ecosim::OpCounter read_back;
    ecosim::trace::TraceReader reader(argv[1]);
    for (ecosim::OpRecord op; reader.next(op);) read_back.record(op);

    const auto muls = counted.total().ops(ecosim::OpKind::mul);
    std::printf("counted %llu records (%llu muls), read back %llu records (%llu muls)\n",
                static_cast<unsigned long long>(counted.records()), static_cast<unsigned long long>(muls),
                static_cast<unsigned long long>(read_back.records()),
                static_cast<unsigned long long>(read_back.total().ops(ecosim::OpKind::mul)));
    if (counted.records() == 0 || muls == 0 || read_back.records() != counted.records() ||
        read_back.total() != counted.total()) {
      std::fprintf(stderr, "ecosim_consumer: the trace read back does not add up to the counted total\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecosim_consumer: error: %s\n", e.what());
    return 2;
  }
}
