#pragma once
/// \file
/// `conventional`: gate after idle-detect idle cycles, wake on demand from either gated state
/// (Warped Gates Section 2.2, after Hu et al.): `idle_detect_gating<false>`.

#include <warpkit/gating/idle_detect_gating.hpp>
