#pragma once
// The sweep specification of warpkit-sweep: reading it from JSON, expanding it into points,
// reading statistics out of a run's JSON and computing derived figures. Everything here is a
// pure function of its inputs (no files, no processes), so tests/fuzz/sweep_spec.cpp drives it.
//
//   spec_types.hpp     the spec's data, a point, spec_error
//   spec_values.hpp    grid values, ranges, axes, zip groups, strings, paths, `set` objects
//   spec_workload.hpp  one workload
//   stat_path.hpp      statistic paths: parsed, and read out of a run's JSON (extract)
//   derived.hpp        derived figures: parsed into postfix code, evaluated
//   spec_parse.hpp     parse_spec, key by key
//   expand.hpp         point_count, point_id, make_point

#include "derived.hpp"
#include "expand.hpp"
#include "spec_parse.hpp"
#include "spec_types.hpp"
#include "stat_path.hpp"
