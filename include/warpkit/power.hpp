#pragma once
/// \file
/// Everything in warpkit/power: the GPUWattch-style model (eq. 1 and 2), power traces and
/// energy reports, LSE refinement and constant-power fit, DVFS, lane clock gating, the RLC
/// filter. power/calibration.hpp pulls in Eigen's QR.

#include <warpkit/power/activity.hpp>
#include <warpkit/power/calibration.hpp>
#include <warpkit/power/calibration_csv.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/concepts.hpp>
#include <warpkit/power/dram.hpp>
#include <warpkit/power/dvfs.hpp>
#include <warpkit/power/lane_gating.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/params.hpp>
#include <warpkit/power/reference.hpp>
#include <warpkit/power/report.hpp>
#include <warpkit/power/rlc_filter.hpp>
#include <warpkit/power/trace.hpp>
