// Test support: a minimal valid trace header (the current version, 2) and one GEMM op record (one JSON line
// each), shared by the trace reader tests.
#pragma once
#include <string>

inline const std::string kHeader =
    R"({"record":"header","format":"ecosim-trace","version":2,"producer":"t","convention":"exact","workload":{}})";
inline const std::string kOp =
    R"({"record":"op","name":"l.qk","kind":"gemm","batch":1,"m":2,"n":3,"k":4,"a_dtype":"fp32","b_dtype":"fp32",)"
    R"("ops":{"mul":{"fp32":24},"add":{"fp32":18}},"bytes_read":{"fp32":80},"bytes_written":{"fp32":24}})";
