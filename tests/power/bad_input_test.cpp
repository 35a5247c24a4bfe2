// The calibration CSV readers on the inputs calibration_test.cpp does not cover: defects in
// the measured-power and frequency files, infinity, and rows wider than the header.
#include <warpkit/core/error.hpp>
#include <warpkit/power/calibration_csv.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <string>

namespace {

using bad_input::thrown;

using warpkit::parse_error;
namespace wp = warpkit::power;

std::string lse_error(const char* activity, const char* measured) {
    return thrown<parse_error>(
        [&] { (void)wp::read_lse_problem(activity, "A.csv", measured, "P.csv"); });
}

std::string points_error(const char* text) {
    return thrown<parse_error>([&] { (void)wp::read_frequency_points(text, "F.csv"); });
}

} // namespace

TEST_CASE("power CSV: empty files, whichever of the two it is") {
    CHECK(lse_error("", "power\n1\n") == "A.csv:1:1: empty file: expected a header line");
    CHECK(lse_error("int_alu\n1\n", "") == "P.csv:1:1: empty file: expected a header line");
    CHECK(lse_error("int_alu\n1\n", "power\n") == "P.csv:2:1: no data rows after the header");
    CHECK(points_error("") == "F.csv:1:1: empty file: expected a header line");
    CHECK(points_error("  \r\n\n") == "F.csv:1:1: empty file: expected a header line");
}

TEST_CASE("power CSV: wrong column counts") {
    CHECK(lse_error("int_alu,fp\n1,2,3\n", "power\n1\n") ==
          "A.csv:2:1: row has 3 values, the header 2 columns");
    CHECK(lse_error("int_alu\n1\n", "power\n1,2\n") ==
          "P.csv:2:1: row has 2 values, the header 1 columns");
    CHECK(lse_error("int_alu\n1\n", "power,watts\n1,2\n") ==
          "P.csv:1:1: expected the header 'power' (one column)");
    CHECK(points_error("frequency,power\n700\n") ==
          "F.csv:2:1: row has 1 values, the header 2 columns");
    CHECK(points_error("frequency,power,volts\n700,120,1\n") ==
          "F.csv:1:1: expected the header 'frequency,power'");
}

TEST_CASE("power CSV: NaN, infinity and text where a number belongs") {
    CHECK(lse_error("int_alu\n1\n", "power\nNaN\n") == "P.csv:2:1: 'NaN' is not a finite number");
    CHECK(lse_error("int_alu,fp\n1, inf\n", "power\n1\n") ==
          "A.csv:2:4: 'inf' is not a finite number");
    CHECK(points_error("frequency,power\n700,nan\n") == "F.csv:2:5: 'nan' is not a finite number");
    CHECK(points_error("frequency,power\n-inf,1\n") == "F.csv:2:1: '-inf' is not a finite number");
    CHECK(points_error("frequency,power\n1e999,1\n") == "F.csv:2:1: '1e999' is not a number");
    CHECK(points_error("frequency,power\n700MHz,1\n") == "F.csv:2:1: '700MHz' is not a number");
}

TEST_CASE("power CSV: an unknown component, negative activity or power, a frequency <= 0") {
    CHECK(lse_error("int_alu,bogus\n1,2\n", "power\n1\n") ==
          "A.csv:1:9: unknown component 'bogus' (known: front_end, icache, scheduler, rf_banks, "
          "operand_collectors, rf_crossbar, shared_memory, shared_crossbar, l1d, const_cache, "
          "tex_cache, coalescer, int_alu, fp, sfu, pipeline, l2, noc, mem_ctrl, dram)");
    CHECK(lse_error("int_alu,fp\n1,2\n3, -1\n", "power\n1\n2\n") ==
          "A.csv:3:4: negative activity -1.000000 in column 'fp'");
    CHECK(lse_error("int_alu\n1\n", "power\n-5\n") ==
          "P.csv:2:1: negative power -5.000000 in column 'power'");
    CHECK(points_error("frequency,power\n700,10\n800,-1\n") ==
          "F.csv:3:5: negative frequency and power -1.000000 in column 'power'");
    CHECK(points_error("frequency,power\n700,10\n0,5\n") ==
          "F.csv:3:1: frequency 0.000000 is not positive");
    CHECK(points_error("frequency,power\n-700,10\n800,5\n") ==
          "F.csv:2:1: negative frequency and power -700.000000 in column 'frequency'");
}
