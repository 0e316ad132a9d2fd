// Internal: `ecosim validate --variant V --input q.npy,k.npy,v.npy --output mine.npy`: a user's own kernel
// output against the CPU reference of the same variant, parameters, seed and inputs.
#pragma once
#include <boost/program_options.hpp>

namespace ecosim::cli {

/// The options of the comparison: --variant, --input, --output, --seed, the variant parameters, work limits.
boost::program_options::options_description validate_output_options();
/// Prints max-abs and relative Frobenius error, the tolerance and PASS/FAIL; returns 0 on a pass, 1 on a
/// failed comparison; throws ecosim::Error for a missing option or unreadable or mismatched files.
int validate_output(const boost::program_options::variables_map& vm);

}  // namespace ecosim::cli
