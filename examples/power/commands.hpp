#pragma once
// warpkit-power subcommands kept in their own translation units.

#include <string>

namespace example {

/// `refine`: least-squares scaling factors from an activity file and a measured-power file.
/// Prints `name value` per column, then `mean_abs_rel_error value`; warnings go to stderr.
/// Throws warpkit::error on bad input (a file that cannot be read included).
int run_refine(const std::string& activity_file, const std::string& measured_file);

} // namespace example
