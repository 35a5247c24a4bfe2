#pragma once
// warpkit-amoeba study (study.cpp): registers the subcommand.

#include <CLI/CLI.hpp>

#include <functional>

/// Adds `study` to `app`; its callback sets `run`.
void add_study(CLI::App& app, std::function<int()>& run);
