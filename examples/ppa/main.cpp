// warpkit-ppa: area and power of one multiprocessor versus its SPs (paper 004, Chapter 5),
// from the analytic model calibrated to Table 5.3, and where more SMs beat wider SMs.
#include "../common/command_line.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/params.hpp>
#include <warpkit/ppa/sm_scaling.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-ppa: multiprocessor area and power versus streaming processors"};
    std::vector<std::string> overrides;
    app.add_option("--set", overrides,
                   "override a calibration target, e.g. area_gain_pct[1]=80 (repeatable)");
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    try {
        warpkit::ppa::scaling_targets t;
        warpkit::apply_overrides(t, overrides);
        const auto m = warpkit::ppa::sm_scaling_model::calibrate(t);
        std::printf("model (65 nm, 300 MHz): area = %.4f + %.5f n + %.6f n^2 mm^2, "
                    "power = %.4f + %.5f n + %.6f n^2 W\n\n",
                    m.area().c0, m.area().c1, m.area().c2, m.power().c0, m.power().c1,
                    m.power().c2);
        std::printf("%5s %10s %9s %10s %10s   %-24s %-24s\n", "SPs", "area mm^2", "power W",
                    "SPs/mm^2", "mW/SP", "doubling: SPs/area", "power/SP");
        double n = t.first_sps;
        for (std::size_t i = 0; i < 5; ++i, n *= 2) {
            std::printf("%5.0f %10.3f %9.3f %10.2f %10.1f", n, m.area_mm2(n), m.power_w(n),
                        n / m.area_mm2(n), 1000 * m.power_w(n) / n);
            if (i < 4)
                std::printf("   %+6.1f%% (paper %+4.0f%%)   %+6.1f%% (paper %+4.0f%%)\n",
                            m.area_gain_pct(n), t.area_gain_pct[i], -m.power_reduction_pct(n),
                            -t.power_reduction_pct[i]);
            else
                std::printf("\n");
        }
        const double cross = m.crossover_sps(t.first_sps);
        if (cross > 0)
            std::printf("\nFrom %.0f SPs per multiprocessor on, doubling the SPs lowers SPs per "
                        "unit area: scale the number of multiprocessors instead (best: %.0f "
                        "SPs per multiprocessor).\n",
                        cross, cross);
        else
            std::printf("\nDoubling the SPs pays up to the largest size examined.\n");
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-ppa: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-ppa", [&] { return tool_main(argc, argv); });
}
