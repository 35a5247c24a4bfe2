#pragma once
// warpkit-amoeba study (study.cpp): registers the subcommand.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>

/// Adds `study` to `app`; its callback sets `run`. `record`: the header of the JSON record
/// --json writes (examples/common/output.hpp).
void add_study(CLI::App& app, std::function<int()>& run, nlohmann::json record);
