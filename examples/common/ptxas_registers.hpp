#pragma once
// Registers per thread of each kernel of a PTX text as NVIDIA's ptxas allocates them, where the
// CUDA toolkit is installed: occupancy then follows the register count a real compile gives
// (naive SGEMM: 49 on sm_75) instead of the simulator's liveness estimate (27). The target is
// the oldest the toolkit accepts, sm_75 with CUDA 13 (as GPGPU-Sim does), or the PTX's own
// `.target` where that is newer.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

extern char** environ;

namespace example {

/// What ptxas said about a PTX text: registers per thread by entry (mangled name), the
/// target it compiled for, and why there are none when it could not run or failed.
struct ptxas_registers_result {
    std::map<std::string, std::uint32_t> registers;
    std::string target;
    std::string error;
};

/// The ptxas to run: `setting` when it names a program ("0" or "off": none), else ptxas from
/// PATH, else /usr/local/cuda/bin/ptxas; empty when there is none.
[[nodiscard]] inline std::string find_ptxas(std::string_view setting) {
    namespace fs = std::filesystem;
    if (setting == "0" || setting == "off") return {};
    std::error_code ec;
    if (!setting.empty())
        return fs::is_regular_file(std::string(setting), ec) ? std::string(setting) : "";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && fs::is_regular_file(fs::path(dir) / "ptxas", ec))
                return (fs::path(dir) / "ptxas").string();
    }
    return fs::is_regular_file("/usr/local/cuda/bin/ptxas", ec) ? "/usr/local/cuda/bin/ptxas" : "";
}

/// The sm_NN ptxas compiles `ptx` for: the PTX's `.target` when newer than sm_75, else sm_75.
[[nodiscard]] inline std::string ptxas_target(std::string_view ptx) {
    const auto at = ptx.find(".target");
    if (at == std::string_view::npos) return "sm_75";
    auto rest = ptx.substr(at + 7);
    const auto sm = rest.find("sm_");
    if (sm == std::string_view::npos || rest.substr(0, sm).find('\n') != std::string_view::npos)
        return "sm_75";
    std::size_t end = sm + 3;
    while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) != 0))
        ++end;
    const std::string target(rest.substr(sm, end - sm));
    const int number = std::atoi(target.c_str() + 3);
    return number > 75 ? target : "sm_75";
}

/// Reads ptxas -v's log: "Compiling entry function 'NAME'" then "Used N registers".
[[nodiscard]] inline std::map<std::string, std::uint32_t> parse_ptxas_log(std::string_view log) {
    std::map<std::string, std::uint32_t> out;
    std::string current;
    std::size_t start = 0;
    while (start < log.size()) {
        const std::size_t end = std::min(log.find('\n', start), log.size());
        const std::string_view line = log.substr(start, end - start);
        start = end + 1;
        constexpr std::string_view entry = "Compiling entry function '";
        if (const auto e = line.find(entry); e != std::string_view::npos) {
            const auto name_start = e + entry.size();
            const auto quote = line.find('\'', name_start);
            current = quote == std::string_view::npos
                          ? std::string()
                          : std::string(line.substr(name_start, quote - name_start));
            continue;
        }
        if (line.find("Compiling function") != std::string_view::npos) {
            current.clear();
            continue;
        }
        constexpr std::string_view used = "Used ";
        if (const auto u = line.find(used); u != std::string_view::npos && !current.empty()) {
            const std::uint32_t n = static_cast<std::uint32_t>(
                std::strtoul(std::string(line.substr(u + used.size())).c_str(), nullptr, 10));
            if (line.find("registers", u) != std::string_view::npos) out[current] = n;
            current.clear();
        }
    }
    return out;
}

/// Runs `ptxas -arch=<target> -v` on `ptx` in a scratch directory and reads the registers of
/// every entry it compiled.
[[nodiscard]] inline ptxas_registers_result ptxas_registers(const std::string& ptxas,
                                                            std::string_view ptx) {
    namespace fs = std::filesystem;
    ptxas_registers_result r;
    r.target = ptxas_target(ptx);
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "warpkit-ptxas-XXXXXX").string();
    if (ec || ::mkdtemp(pattern.data()) == nullptr) {
        r.error = "cannot create a scratch directory for ptxas";
        return r;
    }
    const fs::path dir = pattern;
    const std::string source = (dir / "kernel.ptx").string();
    const std::string cubin = (dir / "kernel.cubin").string();
    const std::string log = (dir / "ptxas.log").string();
    {
        std::ofstream f(source, std::ios::binary);
        f.write(ptx.data(), static_cast<std::streamsize>(ptx.size()));
    }
    const std::string arch = "-arch=" + r.target;
    std::vector<std::string> args{ptxas, arch, "-v", "-o", cubin, source};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (spawned != 0) {
        r.error = "cannot run " + ptxas + ": " + std::generic_category().message(spawned);
    } else {
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        std::ifstream in(log, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            const auto first = text.find('\n');
            r.error = ptxas + " " + arch + " failed: " + text.substr(0, first);
        } else {
            r.registers = parse_ptxas_log(text);
        }
    }
    fs::remove_all(dir, ec);
    return r;
}

} // namespace example
