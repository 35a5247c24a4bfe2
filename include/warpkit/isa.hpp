#pragma once
/// \file
/// Everything in warpkit/isa.

#include <warpkit/isa/unit_class.hpp>
