// Physical quantities as distinct types: a data size cannot be passed where a duration is expected.
#pragma once

#include <compare>
#include <type_traits>

namespace ceiling::units {

/// Shared arithmetic of every quantity: one double in the SI base unit of the dimension.
/// Derived types add a named factory and accessor (`Duration::from_seconds`, `.seconds()`),
/// so the unit is always spelled out where a bare number enters or leaves.
template <class Derived> class Quantity {
public:
  constexpr Quantity() = default;

  constexpr Derived operator+(Derived other) const { return Derived::from_base(base_ + other.base_); }
  constexpr Derived operator-(Derived other) const { return Derived::from_base(base_ - other.base_); }
  constexpr Derived operator*(double factor) const { return Derived::from_base(base_ * factor); }
  constexpr Derived operator/(double divisor) const { return Derived::from_base(base_ / divisor); }
  /// The ratio of two quantities of one dimension is a plain number.
  constexpr double operator/(Derived other) const { return base_ / other.base_; }
  constexpr auto operator<=>(const Quantity&) const = default;

protected:
  explicit constexpr Quantity(double base) : base_{base} {}
  constexpr double base() const { return base_; }

private:
  double base_ = 0;
};

/// An amount of data in bytes.
class DataSize : public Quantity<DataSize> {
public:
  constexpr DataSize() = default;
  static constexpr DataSize from_base(double bytes) { return DataSize{bytes}; }
  static constexpr DataSize from_bytes(double bytes) { return DataSize{bytes}; }
  constexpr double bytes() const { return base(); }

private:
  using Quantity::Quantity;
};

/// A span of simulated time in seconds.
class Duration : public Quantity<Duration> {
public:
  constexpr Duration() = default;
  static constexpr Duration from_base(double seconds) { return Duration{seconds}; }
  static constexpr Duration from_seconds(double seconds) { return Duration{seconds}; }
  constexpr double seconds() const { return base(); }

private:
  using Quantity::Quantity;
};

/// A data rate in bytes per second; parse<Bandwidth>() (units/parse.hpp) reads "12 GB/s" or "100 Gbit/s".
class Bandwidth : public Quantity<Bandwidth> {
public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth from_base(double v) { return Bandwidth{v}; }
  static constexpr Bandwidth from_bytes_per_second(double v) { return Bandwidth{v}; }
  constexpr double bytes_per_second() const { return base(); }

private:
  using Quantity::Quantity;
};

/// A count of floating-point operations.
class Flops : public Quantity<Flops> {
public:
  constexpr Flops() = default;
  static constexpr Flops from_base(double flop) { return Flops{flop}; }
  static constexpr Flops from_flop(double flop) { return Flops{flop}; }
  constexpr double flop() const { return base(); }

private:
  using Quantity::Quantity;
};

/// A compute rate in floating-point operations per second; parse<FlopRate>() reads "9.3 TFLOP/s".
class FlopRate : public Quantity<FlopRate> {
public:
  constexpr FlopRate() = default;
  static constexpr FlopRate from_base(double v) { return FlopRate{v}; }
  static constexpr FlopRate from_flop_per_second(double v) { return FlopRate{v}; }
  constexpr double flop_per_second() const { return base(); }

private:
  using Quantity::Quantity;
};

/// Time to move `size` at `rate`.
constexpr Duration operator/(DataSize size, Bandwidth rate) {
  return Duration::from_seconds(size.bytes() / rate.bytes_per_second());
}
/// Time to compute `work` at `rate`.
constexpr Duration operator/(Flops work, FlopRate rate) {
  return Duration::from_seconds(work.flop() / rate.flop_per_second());
}

static_assert(std::is_trivially_copyable_v<DataSize>);
static_assert(std::is_trivially_copyable_v<Duration>);
static_assert(std::is_trivially_copyable_v<Bandwidth>);
static_assert(std::is_trivially_copyable_v<Flops>);
static_assert(std::is_trivially_copyable_v<FlopRate>);

} // namespace ceiling::units
