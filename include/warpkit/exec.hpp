#pragma once
/// \file
/// Everything in warpkit/exec: pipelined functional units, unit clusters, an SM's units.

#include <warpkit/exec/concepts.hpp>
#include <warpkit/exec/execution_units.hpp>
#include <warpkit/exec/functional_unit.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/exec/timing.hpp>
#include <warpkit/exec/unit_cluster.hpp>
