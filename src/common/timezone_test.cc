#include "common/timezone.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace tributary {
namespace {

// glibc's own reading of the same zone files, through TZ and localtime_r: an independent
// implementation to compare offsets with.
int64_t LibcOffset(const std::string& zone, int64_t utc) {
  setenv("TZ", zone.c_str(), 1);
  tzset();
  time_t t = static_cast<time_t>(utc);
  struct tm tm;
  localtime_r(&t, &tm);
  return tm.tm_gmtoff;
}

TEST(TimeZoneTest, NamedZonesMatchLibc) {
  const char* saved = std::getenv("TZ");
  std::string restore = saved ? saved : "";
  for (const char* zone :
       {"Asia/Shanghai", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata",
        "Europe/Dublin", "America/Santiago", "Pacific/Chatham", "America/Godthab"}) {
    auto tz = TimeZone::Load(zone);
    ASSERT_TRUE(tz.ok()) << tz.status().ToString();
    // Every ~9.7 days from 1901 to 2096 (after 2037 from the rule at the zone file's end),
    // which crosses every clock change of those years.
    for (int64_t utc = -2147483648LL + 1; utc < 4000000000LL; utc += 837421) {
      ASSERT_EQ(tz->OffsetAtUtc(utc), LibcOffset(zone, utc)) << zone << " at " << utc;
    }
  }
  if (saved)
    setenv("TZ", restore.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

// 'default' is the machine's zone as the C library finds it: $TZ first (issue 42 item 6).
TEST(TimeZoneTest, DefaultHonoursTz) {
  const char* saved = std::getenv("TZ");
  std::string restore = saved ? saved : "";
  for (const char* tz_env :
       {"Asia/Shanghai", ":Asia/Shanghai", "/usr/share/zoneinfo/Asia/Shanghai"}) {
    setenv("TZ", tz_env, 1);
    auto tz = TimeZone::Load("default");
    ASSERT_TRUE(tz.ok()) << tz.status().ToString();
    EXPECT_EQ(tz->OffsetAtUtc(0), 8 * 3600) << tz_env;
  }
  setenv("TZ", "America/New_York", 1);
  auto ny = TimeZone::Load("default");
  ASSERT_TRUE(ny.ok());
  EXPECT_EQ(ny->OffsetAtUtc(0), -5 * 3600);
  if (saved)
    setenv("TZ", restore.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

TEST(TimeZoneTest, WallClockToInstant) {
  auto sh = TimeZone::Load("Asia/Shanghai");
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ(sh->OffsetAtUtc(0), 8 * 3600);
  EXPECT_EQ(sh->LocalToUtc(1), 1 - 8 * 3600);  // 1970-01-01 00:00:01 in Shanghai

  auto ny = TimeZone::Load("America/New_York");
  ASSERT_TRUE(ny.ok());
  // 2024-03-10 02:30 does not exist in New York (clocks jump 02:00 -> 03:00): read with the
  // offset before the jump (EST), which is 07:30 UTC.
  const int64_t day = 19792 * 86400LL;  // 2024-03-10
  EXPECT_EQ(ny->LocalToUtc(day + 2 * 3600 + 1800), day + 7 * 3600 + 1800);
  // 2024-11-03 01:30 happens twice (EDT, then EST): the earlier instant, 05:30 UTC.
  const int64_t nov = 20030 * 86400LL;  // 2024-11-03
  EXPECT_EQ(ny->LocalToUtc(nov + 3600 + 1800), nov + 5 * 3600 + 1800);
  // Summer time after the last change listed in the file comes from the file's closing rule.
  const int64_t y2050 = 29401LL * 86400;  // 2050-07-01
  EXPECT_EQ(ny->LocalToUtc(y2050 + 12 * 3600), y2050 + 16 * 3600);
  // An ordinary summer time.
  EXPECT_EQ(ny->LocalToUtc(nov - 86400 * 30 + 12 * 3600), nov - 86400 * 30 + 16 * 3600);
}

TEST(TimeZoneTest, FixedOffsetsAndErrors) {
  for (auto [name, offset] : {std::pair{"+08:00", 8 * 3600},
                              {"-0530", -(5 * 3600 + 1800)},
                              {"UTC", 0},
                              {"GMT+3", 3 * 3600},
                              {"Z", 0}}) {
    auto tz = TimeZone::Load(name);
    ASSERT_TRUE(tz.ok()) << name;
    EXPECT_EQ(tz->OffsetAtUtc(123456789), offset) << name;
    EXPECT_EQ(tz->LocalToUtc(1000), 1000 - offset) << name;
  }
  for (const char* bad : {"Asia/Shangai", "../etc/passwd", "+25:00", "Mars/Olympus"}) {
    auto tz = TimeZone::Load(bad);
    ASSERT_FALSE(tz.ok()) << bad;
    EXPECT_NE(tz.status().message().find("unknown time zone"), std::string::npos)
        << tz.status().ToString();
  }
}

}  // namespace
}  // namespace tributary
