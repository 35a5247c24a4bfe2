#pragma once
/// \file
/// Everything in warpkit/ppa: analytic power / performance / area scaling.

#include <warpkit/ppa/sm_scaling.hpp>
