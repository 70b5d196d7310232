// SimGrid 3.32's precisions, as FlowSharing (flow_sharing.cpp, flow_fans.cpp) repeats them.
#pragma once

namespace ceiling::replay {

/// SimGrid's surf/precision: events this close to the present happen now
/// (NetworkCm02Model::update_actions_state_lazy pops what double_equals() the clock).
inline constexpr double surf_precision_s = 1e-9;
/// SimGrid's maxmin/precision: a link with less than this share of its bandwidth left, or
/// less summed weight than this, is saturated (maxmin.cpp).
inline constexpr double maxmin_precision = 1e-5;

/// SimGrid's double_update (src/surf/surf_interface.hpp): subtracts, then snaps what is left
/// below `precision` to 0.
inline void subtract_snapping(double& variable, double value, double precision) {
  variable -= value;
  if (variable < precision)
    variable = 0.0;
}

} // namespace ceiling::replay
