#pragma once
/// \file
/// `naive_blackout`: gate after idle-detect idle cycles; once gated, stay gated for at least
/// break-even cycles even if instructions wait (Warped Gates Section 5):
/// `idle_detect_gating<true>`.

#include <warpkit/gating/idle_detect_gating.hpp>
