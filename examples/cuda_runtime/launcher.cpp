// warpkit-cuda: runs an unmodified CUDA program (built with `nvcc -cudart shared`) with every
// kernel simulated on a warpkit preset, by putting warpkit's libcudart.so.13 first on the
// library path. The program's output and exit code pass through unchanged.

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view usage_text =
    R"(usage: warpkit-cuda [options] -- PROGRAM [ARGS...]

Runs PROGRAM (built with nvcc -cudart shared) with its kernels simulated by warpkit.

options:
  --preset NAME        GPU preset (fermi_gtx480, tesla_seed004, amoeba_48, amoeba_48_fused;
                       default fermi_gtx480)
  --config FILE.json   parameters of the preset from a JSON file (as --print-params or
                       --json writes them; a partial file is fine; --gpgpusim-config and
                       --set win over it)
  --gpgpusim-config FILE
                       parameters of the preset from a GPGPU-Sim gpgpusim.config (after
                       --config, before --set); what each option became and a warning per
                       option without equivalent go to stderr
  --set KEY=VALUE      override a parameter of the preset (repeatable)
  --threads N          host threads that tick the SMs within a cycle (as --set threads=N;
                       the results are the same for any N)
  --stats FILE.jsonl   one JSON record per kernel launch
  --csv FILE.csv       one row per kernel launch
  --functional         run every kernel functionally (no timing)
  --kernels FILTER     time only the launches named (entry names, or launch indices and
                       ranges such as 0,3-5); the others run functionally
  --no-bounds-check    do not check global accesses against the allocations
  --cold-memory        start every launch with a cold L2 and DRAM (default: they carry over
                       from launch to launch, one GPU per program)
  --power              add the power model's breakdown (GPUWattch components, Fig. 12 groups),
                       processor-level DVFS outcomes and the front-end sharing energy
                       accounting to each --stats record (`power`)
  --power-sample N     cycles per power interval (default 500, the fine DVFS epoch)
  --max-device-mb N    cap on the host memory the simulated device may hold, in MiB
                       (default: half of this machine's memory); a cudaMalloc past it
                       returns cudaErrorMemoryAllocation and says why on stderr
  --ptxas PATH|off     the ptxas that gives each kernel its registers per thread, for
                       occupancy (default: ptxas from PATH or /usr/local/cuda/bin, compiling
                       for sm_75; off, or no toolkit: the simulator's liveness estimate)
  --quiet              no per-kernel summary on stderr
  -h, --help           this text

The same settings as environment variables for the bare library: WARPKIT_CUDA_PRESET,
WARPKIT_CUDA_CONFIG, WARPKIT_CUDA_GPGPUSIM_CONFIG, WARPKIT_CUDA_SET (KEY=VALUE;KEY=VALUE), WARPKIT_CUDA_STATS, WARPKIT_CUDA_CSV,
WARPKIT_CUDA_FUNCTIONAL=1, WARPKIT_CUDA_KERNELS, WARPKIT_CUDA_BOUNDS_CHECK=0,
WARPKIT_CUDA_COLD_MEMORY=1, WARPKIT_CUDA_POWER=1, WARPKIT_CUDA_POWER_SAMPLE, WARPKIT_CUDA_QUIET=1,
WARPKIT_CUDA_MAX_DEVICE_MB, WARPKIT_CUDA_PTXAS;
then LD_LIBRARY_PATH=<dir of libcudart.so.13> PROGRAM.
)";

[[noreturn]] void usage_error(const std::string& what) {
    std::cerr << "warpkit-cuda: " << what << "\n\n" << usage_text;
    std::exit(2);
}

// The directory holding warpkit's libcudart.so.13: WARPKIT_CUDA_LIBRARY_DIR, else
// <dir of this executable>/../lib/warpkit-cuda.
std::filesystem::path library_dir() {
    if (const char* d = std::getenv("WARPKIT_CUDA_LIBRARY_DIR"); d != nullptr && *d != '\0')
        return d;
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
        std::cerr << "warpkit-cuda: cannot find this executable's directory: " << ec.message()
                  << "; set WARPKIT_CUDA_LIBRARY_DIR\n";
        std::exit(2);
    }
    return self.parent_path().parent_path() / "lib" / "warpkit-cuda";
}

void set(const char* name, const std::string& value) {
    ::setenv(name, value.c_str(), 1);
}

} // namespace

int main(int argc, char** argv) {
    try {
        std::vector<std::string> overrides;
        int i = 1;
        const auto value = [&](std::string_view opt) -> std::string {
            if (i + 1 >= argc) usage_error(std::string(opt) + " needs a value");
            return argv[++i];
        };
        for (; i < argc; ++i) {
            const std::string_view a = argv[i];
            if (a == "--") {
                ++i;
                break;
            }
            if (a == "-h" || a == "--help") {
                std::cout << usage_text;
                return 0;
            }
            if (a == "--preset")
                set("WARPKIT_CUDA_PRESET", value(a));
            else if (a == "--config")
                set("WARPKIT_CUDA_CONFIG", std::filesystem::absolute(value(a)).string());
            else if (a == "--gpgpusim-config")
                set("WARPKIT_CUDA_GPGPUSIM_CONFIG", std::filesystem::absolute(value(a)).string());
            else if (a == "--set")
                overrides.push_back(value(a));
            else if (a == "--threads")
                overrides.push_back("threads=" + std::string(value(a)));
            else if (a == "--stats")
                set("WARPKIT_CUDA_STATS", std::filesystem::absolute(value(a)).string());
            else if (a == "--csv")
                set("WARPKIT_CUDA_CSV", std::filesystem::absolute(value(a)).string());
            else if (a == "--functional")
                set("WARPKIT_CUDA_FUNCTIONAL", "1");
            else if (a == "--kernels")
                set("WARPKIT_CUDA_KERNELS", value(a));
            else if (a == "--no-bounds-check")
                set("WARPKIT_CUDA_BOUNDS_CHECK", "0");
            else if (a == "--cold-memory")
                set("WARPKIT_CUDA_COLD_MEMORY", "1");
            else if (a == "--power")
                set("WARPKIT_CUDA_POWER", "1");
            else if (a == "--power-sample")
                set("WARPKIT_CUDA_POWER_SAMPLE", value(a));
            else if (a == "--quiet")
                set("WARPKIT_CUDA_QUIET", "1");
            else if (a == "--max-device-mb")
                set("WARPKIT_CUDA_MAX_DEVICE_MB", value(a));
            else if (a == "--ptxas") {
                const std::string v(value(a));
                set("WARPKIT_CUDA_PTXAS",
                    v == "off" || v == "0" ? v : std::filesystem::absolute(v).string());
            } else if (!a.empty() && a[0] == '-')
                usage_error("unknown option '" + std::string(a) + "'");
            else
                break; // the program, without a "--" before it
        }
        if (i >= argc) usage_error("no program to run");
        std::string joined;
        for (const auto& o : overrides) {
            if (o.find(';') != std::string::npos)
                usage_error("--set '" + o + "': a value may not contain ';'");
            joined += (joined.empty() ? "" : ";") + o;
        }
        if (!joined.empty()) set("WARPKIT_CUDA_SET", joined);
        const auto dir = library_dir();
        if (!std::filesystem::exists(dir / "libcudart.so.13")) {
            std::cerr << "warpkit-cuda: no libcudart.so.13 in " << dir
                      << " (build the warpkit-cudart target, or set WARPKIT_CUDA_LIBRARY_DIR)\n";
            return 2;
        }
        const char* old = std::getenv("LD_LIBRARY_PATH");
        set("LD_LIBRARY_PATH",
            dir.string() + (old != nullptr && *old != '\0' ? ":" + std::string(old) : ""));
        ::execvp(argv[i], argv + i);
        std::cerr << "warpkit-cuda: cannot run '" << argv[i] << "': " << std::strerror(errno)
                  << '\n';
        return 127;
    } catch (const std::exception& e) {
        std::cerr << "warpkit-cuda: " << e.what() << '\n';
        return 2;
    }
}
