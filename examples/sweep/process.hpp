#pragma once
// Child processes of warpkit-sweep: one per point, in its own process group, killed as a
// group when it runs past its time limit.

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

namespace sweep {

/// How a child process ended.
struct child_result {
    int exit_code = -1;       ///< its exit code, -1 when a signal ended it
    int signal = 0;           ///< the signal that ended it, 0 when it exited
    bool timed_out = false;   ///< killed by us at the time limit
    bool interrupted = false; ///< killed by us because `stop` was set
    bool spawn_failed = false;
    std::string spawn_error; ///< why it could not start
    double wall_s = 0;       ///< seconds from start to end
};

/// Runs `argv` (argv[0] an executable's path) with stdout and stderr into the given files; kills
/// its whole process group after `timeout_s` seconds, or as soon as `*stop` is set. Safe to
/// call from several threads.
[[nodiscard]] child_result run_child(const std::vector<std::string>& argv,
                                     const std::filesystem::path& stdout_file,
                                     const std::filesystem::path& stderr_file, double timeout_s,
                                     const std::atomic<bool>* stop = nullptr);

} // namespace sweep
