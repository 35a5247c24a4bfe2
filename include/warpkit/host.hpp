#pragma once
/// \file
/// Everything in warpkit/host: value types and launch files (the host side of a kernel launch).

#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/value_type.hpp>
