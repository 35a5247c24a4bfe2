#pragma once
/// \file
/// Everything in warpkit/host: the host side of running kernels (device buffers, launches on a
/// preset, launch files).

#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/host/memory_cap.hpp>
#include <warpkit/host/value_type.hpp>
