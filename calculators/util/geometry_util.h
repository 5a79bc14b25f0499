// Small geometry helpers shared by the detection / rect calculators.
#ifndef SLUICE_CALCULATORS_UTIL_GEOMETRY_UTIL_H_
#define SLUICE_CALCULATORS_UTIL_GEOMETRY_UTIL_H_

#include <algorithm>
#include <cmath>

namespace sluice {

// Maps an angle to [-pi, pi).
inline float NormalizeRadians(float angle) {
  return angle - 2 * M_PI * std::floor((angle - (-M_PI)) / (2 * M_PI));
}

// Axis-aligned rectangle by its corners; empty when a min exceeds its max.
struct BoxF {
  float xmin = 0, ymin = 0, xmax = 0, ymax = 0;

  static BoxF FromXywh(float x, float y, float w, float h) { return {x, y, x + w, y + h}; }
  bool Empty() const { return xmin > xmax || ymin > ymax; }
  float Area() const { return (xmax - xmin) * (ymax - ymin); }
  // Touching edges count as intersecting (with zero area).
  bool Intersects(const BoxF& o) const {
    return !(Empty() || o.Empty() || o.xmax < xmin || xmax < o.xmin || o.ymax < ymin ||
             ymax < o.ymin);
  }
  BoxF Intersection(const BoxF& o) const {
    return {std::max(xmin, o.xmin), std::max(ymin, o.ymin), std::min(xmax, o.xmax),
            std::min(ymax, o.ymax)};
  }
  // The smallest rectangle enclosing both (not the set union).
  BoxF Enclosing(const BoxF& o) const {
    return {std::min(xmin, o.xmin), std::min(ymin, o.ymin), std::max(xmax, o.xmax),
            std::max(ymax, o.ymax)};
  }
};

// Intersection over union; 0 when the boxes do not touch or the union is empty.
inline float IoU(const BoxF& a, const BoxF& b) {
  if (!a.Intersects(b)) return 0.0f;
  const float inter = a.Intersection(b).Area();
  const float uni = a.Area() + b.Area() - inter;
  return uni > 0.0f ? inter / uni : 0.0f;
}

}  // namespace sluice

#endif  // SLUICE_CALCULATORS_UTIL_GEOMETRY_UTIL_H_
