// The one doctest main, compiled once and linked into every warpkit-test-<area> executable.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
