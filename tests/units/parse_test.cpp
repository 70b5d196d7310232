// Parsing quantities with units: SI and IEC prefixes, and every way text can be wrong.
#include "units/parse.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>

using namespace ceiling::units;

TEST_CASE("quantities read with SI and IEC prefixes are exact") {
  struct Row {
    const char* text;
    double bytes_per_second;
  };
  // Expectation: SI prefixes are powers of ten, IEC ones powers of two, a bit is 1/8 byte.
  for (const Row& row : {Row{"12 GB/s", 12e9}, Row{"11.88 GiB/s", 11.88 * 1073741824.0},
                         Row{"100 Gbit/s", 12.5e9}, Row{"100 Gbps", 12.5e9},
                         Row{"9607 MB/s", 9.607e9}, Row{"  5.25GB/s ", 5.25e9},
                         Row{"1 KiB/s", 1024}, Row{"0 B/s", 0}}) {
    CAPTURE(row.text);
    const auto parsed = parse<Bandwidth>(row.text);
    REQUIRE(parsed);
    CHECK(parsed.value->bytes_per_second() == row.bytes_per_second);
  }
  CHECK(parse<DataSize>("16 GiB").value->bytes() == 16.0 * 1073741824.0);
  CHECK(parse<DataSize>("100 MB").value->bytes() == 100e6);
  CHECK(parse<DataSize>("8 bit").value->bytes() == 1.0);
  CHECK(parse<Duration>("1.3 us").value->seconds() == doctest::Approx(1.3e-6).epsilon(1e-15));
  CHECK(parse<Duration>("650 ns").value->seconds() == doctest::Approx(650e-9).epsilon(1e-15));
  CHECK(parse<Duration>("1.3 \u00b5s").value->seconds() == doctest::Approx(1.3e-6).epsilon(1e-15));
  CHECK(parse<Duration>("1.3 \u03bcs").value->seconds() == doctest::Approx(1.3e-6).epsilon(1e-15)); // the Greek mu
  CHECK(parse<Duration>("2 s").value->seconds() == 2.0);
  CHECK(parse<FlopRate>("4.7 TFLOP/s").value->flop_per_second() == 4.7e12);
  CHECK(parse<FlopRate>("9.3 TFLOPS").value->flop_per_second() == doctest::Approx(9.3e12));
  CHECK(parse<Flops>("7.7 GFLOP").value->flop() == doctest::Approx(7.7e9));
}

TEST_CASE("a number written in a unit named elsewhere reads like the text form") {
  CHECK(parse_in_unit<Bandwidth>(12, "GB/s").value->bytes_per_second() == 12e9);
  CHECK(parse_in_unit<Duration>(1.3, "us").value->seconds() ==
        parse<Duration>("1.3 us").value->seconds());
  CHECK_FALSE(parse_in_unit<Bandwidth>(12, "GB"));
}

TEST_CASE("bad quantity text is refused with a message naming the text and the expected form") {
  SUBCASE("missing unit") {
    CHECK(parse<Bandwidth>("12").error ==
          R"(missing unit in "12": expected a data rate such as "12 GB/s", "11.88 GiB/s" or "100 Gbit/s")");
  }
  SUBCASE("unknown unit") {
    CHECK(parse<Bandwidth>("12 GB/sec").error ==
          R"(unknown unit "GB/sec" in "12 GB/sec": expected a data rate such as "12 GB/s", "11.88 GiB/s" or "100 Gbit/s")");
  }
  SUBCASE("a number in another notation: the number is named as what is wrong") {
    CHECK(parse<Bandwidth>("0x10 GB/s").error.find("(numbers are decimal: 16, not 0x10)") != std::string::npos);
    CHECK(parse<Bandwidth>("2x3 GB/s").error.find("(a count of parts, spaced: 2 x 12.5 GB/s)") !=
          std::string::npos);
    CHECK(parse<Bandwidth>("2 X 3 GB/s").value->bytes_per_second() == 6e9);
    CHECK(parse<Bandwidth>("1_000 GB/s").error.find("(a number's digits without separators") != std::string::npos);
    CHECK(parse<Bandwidth>("1,5 GB/s").error.find("(a decimal point, not a comma: 1.5, not 1,5)") != std::string::npos);
  }
  SUBCASE("a space that only looks like one is named") {
    CHECK(parse<Bandwidth>("12\u00a0GB/s").error.find("(it holds a no-break, narrow or thin space") != std::string::npos);
    CHECK(parse<Bandwidth>("12\u202fGB/s").error.find("(it holds a no-break, narrow or thin space") != std::string::npos);
  }
  SUBCASE("a count whose quantity overflows: the whole text is quoted") {
    CHECK(parse<Bandwidth>("1e308 x 1e308 GB/s").error == R"("1e308 x 1e308 GB/s" is out of range)");
  }
  SUBCASE("a unit of another dimension") {
    CHECK(parse<Duration>("3 GB").error ==
          R"(unknown unit "GB" in "3 GB": expected a duration such as "1.3 us", "650 ns" or "2 s")");
  }
  SUBCASE("no number") {
    CHECK(parse<DataSize>("GiB").error ==
          R"(expected a number first in "GiB": expected a data size such as "16 GiB" or "100 MB")");
  }
  SUBCASE("empty") {
    CHECK(parse<Duration>("").error ==
          R"(empty text: expected a duration such as "1.3 us", "650 ns" or "2 s")");
  }
  SUBCASE("not finite") {
    CHECK(parse<Bandwidth>("nan GB/s").error == R"("nan GB/s" is not a finite number)");
    CHECK(parse<Bandwidth>("inf GB/s").error == R"("inf GB/s" is not a finite number)");
  }
  SUBCASE("binary prefixes make no sense for operations") {
    CHECK_FALSE(parse<FlopRate>("1 TiFLOP/s"));
  }
}

TEST_CASE("negative quantities parse, the caller decides whether a sign is allowed") {
  CHECK(parse<Bandwidth>("-3 GB/s").value->bytes_per_second() == -3e9);
}

TEST_CASE("quantities print with an SI prefix and four significant digits") {
  CHECK(to_string(Bandwidth::from_bytes_per_second(11.881e9)) == "11.88 GB/s");
  CHECK(to_string(Duration::from_seconds(1.3e-6)) == "1.3 us");
  CHECK(to_string(Duration::from_seconds(0)) == "0 s");
  CHECK(to_string(FlopRate::from_flop_per_second(4.7e12)) == "4.7 TFLOP/s");
  CHECK(to_string(DataSize::from_bytes(100)) == "100 B");
}

TEST_CASE("quantities of one dimension combine, size over rate is a duration") {
  const auto time = DataSize::from_bytes(100e6) / Bandwidth::from_bytes_per_second(12.5e9);
  CHECK(time.seconds() == doctest::Approx(8e-3).epsilon(1e-15));
  CHECK((Flops::from_flop(9.3e12) / FlopRate::from_flop_per_second(9.3e12)).seconds() == 1.0);
  CHECK(Duration::from_seconds(1) + Duration::from_seconds(2) == Duration::from_seconds(3));
}

TEST_CASE("a count of identical parts multiplies the quantity") {
  // Expectation: "K x Q" is K times Q (two NICs, four parallel links), exactly.
  CHECK(parse<Bandwidth>("2 x 12.5 GB/s").value->bytes_per_second() == 25e9);
  CHECK(parse<Bandwidth>("4 \u00d7 100 Gbit/s").value->bytes_per_second() == 50e9);
  CHECK(parse<DataSize>("8 x 16 GiB").value->bytes() == 8 * 16.0 * 1073741824.0);
  CHECK(parse<Bandwidth>("1.5 x 12 GB/s").error ==
        "the count before \"x\" in \"1.5 x 12 GB/s\" must be a whole number of at least 1");
  CHECK(parse<Bandwidth>("2 x 12 GB").error ==
        "unknown unit \"GB\" in \"12 GB\": expected a data rate such as \"12 GB/s\", \"11.88 "
        "GiB/s\" or \"100 Gbit/s\"");
}

TEST_CASE("a plain number prints in the shortest form that reads back, a whole one without an exponent where that is no longer") {
  CHECK(number_text(0.5) == "0.5");
  CHECK(number_text(6e-7) == "6e-07");
  CHECK(number_text(50) == "50");       // "5e+01" reads back too, but is longer
  CHECK(number_text(150) == "150");     // "1.5e+02"
  CHECK(number_text(1e6) == "1e+06");   // shorter than "1000000"
  CHECK(number_text(1e4) == "10000");   // as long as "1e+04": without the exponent
  CHECK(number_text(1e308) == "1e+308");
  CHECK(number_text(-40) == "-40");
  CHECK(number_text(10, 6) == "10");
  CHECK(std::strtod(number_text(0.1 + 0.2).c_str(), nullptr) == 0.1 + 0.2);
}
