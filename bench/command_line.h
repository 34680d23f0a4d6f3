// rowwise-bench's command line: flags into a Config (--help: the usage text).
#pragma once
#include <string>

#include "bench_cases.h"

namespace rowwise_bench {

// Exits (status 0) after printing the usage for --help, and (status 1) with a message for a bad flag.
Config parse_args(int argc, char** argv);

// Prints "rowwise-bench: message (see --help)" and exits with status 1.
[[noreturn]] void usage_error(const std::string& message);

}  // namespace rowwise_bench
