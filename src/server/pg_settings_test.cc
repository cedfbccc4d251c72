#include "server/pg_settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "server/jobs.h"
#include "sql/session/session.h"

namespace tributary::server {
namespace {

class PgSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tributary-pg-settings-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto session = sql::Session::Open(dir_ + "/warehouse");
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
    settings_ = std::make_unique<PgSettings>(session_.get());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // SHOW's value, or the error.
  std::string Show(const std::string& name) {
    auto a = settings_->Run("SHOW " + name);
    if (!a.ok()) return "error: " + a.status().ToString();
    return a->rows.size() == 1 ? a->fields[0].name + "=" + a->rows[0][0].string_value() : "?";
  }
  Status Run(const std::string& text) { return settings_->Run(text).status(); }

  std::string dir_;
  std::unique_ptr<sql::Session> session_;
  std::unique_ptr<PgSettings> settings_;
};

TEST_F(PgSettingsTest, KnowsPostgresParametersNotFlinkOptions) {
  for (const char* s : {"SET extra_float_digits = 3", "set application_name to 'x'",
                        "SET SESSION DateStyle = ISO", "SET TIME ZONE 'UTC'", "SHOW TimeZone",
                        "  RESET client_encoding;", "SHOW TRANSACTION ISOLATION LEVEL",
                        "/* c */ SHOW server_version", "SET TimeZone TO DEFAULT"}) {
    EXPECT_TRUE(PgSettings::IsSettingStatement(s)) << s;
  }
  for (const char* s : {"SET 'table.local-time-zone' = 'UTC'", "SET", "SELECT 1", "SHOW TABLES",
                        "SET nope = 1", "RESET", "SHOW STATS", "SHOW JOBS"}) {
    EXPECT_FALSE(PgSettings::IsSettingStatement(s)) << s;
  }
}

TEST_F(PgSettingsTest, SetShowResetAndReports) {
  // Every reported parameter at first, then only what changed.
  auto first = settings_->TakeReports();
  EXPECT_EQ(first.size(), 9u);
  EXPECT_TRUE(settings_->TakeReports().empty());
  ASSERT_TRUE(Run("SET application_name = 'loader'").ok());
  EXPECT_EQ(Show("application_name"), "application_name=loader");
  auto reports = settings_->TakeReports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0], (std::pair<std::string, std::string>("application_name", "loader")));
  // TimeZone is the session's zone, however it is set.
  ASSERT_TRUE(Run("SET TIME ZONE 'Europe/Berlin'").ok());
  EXPECT_EQ(session_->options().at("table.local-time-zone"), "Europe/Berlin");
  EXPECT_EQ(Show("timezone"), "TimeZone=Europe/Berlin");
  ASSERT_TRUE(session_->ExecuteText("SET 'table.local-time-zone' = 'Asia/Tokyo'", {}).ok());
  reports = settings_->TakeReports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].second, "Asia/Tokyo");
  ASSERT_TRUE(Run("SET TIME ZONE LOCAL").ok());
  EXPECT_EQ(Show("TimeZone"), "TimeZone=UTC");
  ASSERT_TRUE(Run("SET DateStyle = 'ISO, DMY'").ok());
  EXPECT_EQ(Show("datestyle"), "DateStyle=ISO, DMY");
  ASSERT_TRUE(Run("RESET DateStyle").ok());
  EXPECT_EQ(Show("DateStyle"), "DateStyle=ISO, MDY");
  ASSERT_TRUE(Run("SET client_encoding = 'unicode'").ok());
  EXPECT_EQ(Show("client_encoding"), "client_encoding=UTF8");
  EXPECT_EQ(Show("transaction isolation level"), "transaction_isolation=read committed");
  ASSERT_TRUE(Run("SET application_name = ''").ok());
  EXPECT_EQ(Show("application_name"), "application_name=");
  // POSIX signs, as PostgreSQL reads them: GMT-05:30 is east of Greenwich.
  ASSERT_TRUE(Run("SET TIME ZONE 'GMT-05:30'").ok());
  EXPECT_EQ(session_->options().at("table.local-time-zone"), "GMT+05:30");
  EXPECT_EQ(Show("TimeZone"), "TimeZone=GMT-05:30");
  // search_path: a schema is a database.
  ASSERT_TRUE(session_->ExecuteText("CREATE DATABASE other", {}).ok());
  ASSERT_TRUE(Run("SET search_path TO other").ok());
  EXPECT_EQ(session_->current_database(), "other");
  EXPECT_EQ(Show("search_path"), "search_path=other");
  EXPECT_EQ(Run("SET search_path = nowhere").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Run("SET search_path = a, b").code(), StatusCode::kNotSupported);
  ASSERT_TRUE(Run("RESET search_path").ok());  // the connection's database again
  EXPECT_EQ(session_->current_database(), "default");
}

TEST_F(PgSettingsTest, RefusesWhatItCannotDoAndChangesNothing) {
  ASSERT_TRUE(Run("SET extra_float_digits = 2").ok());
  EXPECT_EQ(Run("SET extra_float_digits = 0").code(), StatusCode::kNotSupported);
  EXPECT_EQ(Run("SET extra_float_digits = 9").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Show("extra_float_digits"), "extra_float_digits=2");
  EXPECT_EQ(Run("SET client_encoding = LATIN1").code(), StatusCode::kNotSupported);
  EXPECT_EQ(Run("SET DateStyle = German").code(), StatusCode::kNotSupported);
  EXPECT_EQ(Run("SET standard_conforming_strings = off").code(), StatusCode::kNotSupported);
  EXPECT_EQ(Run("SET statement_timeout = 5000").code(), StatusCode::kNotSupported);
  EXPECT_EQ(Run("SET server_version = '9'").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Run("SET TIME ZONE 'Mars/Olympus'").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Run("SET LOCAL application_name = 'x'").code(), StatusCode::kNotSupported);
  EXPECT_EQ(session_->options().count("table.local-time-zone"), 0u);
  // Startup parameters as SET takes them; unknown names refused as PostgreSQL does.
  EXPECT_TRUE(settings_
                  ->ApplyStartup({{"user", "tributary"},
                                  {"database", "default"},
                                  {"client_encoding", "'utf-8'"},
                                  {"TimeZone", "America/New_York"},
                                  {"extra_float_digits", "2"}})
                  .ok());
  EXPECT_EQ(Show("TimeZone"), "TimeZone=America/New_York");
  ASSERT_TRUE(Run("SET TIME ZONE 'UTC'").ok());
  ASSERT_TRUE(Run("RESET TimeZone").ok());  // to the startup packet's
  EXPECT_EQ(Show("TimeZone"), "TimeZone=America/New_York");
  // psql asks for its locale's encoding: told UTF8, what it gets.
  ASSERT_TRUE(settings_->ApplyStartup({{"client_encoding", "LATIN1"}}).ok());
  EXPECT_EQ(Show("client_encoding"), "client_encoding=UTF8");
  EXPECT_EQ(settings_->ApplyStartup({{"nope", "1"}}).code(), StatusCode::kNotFound);
  EXPECT_EQ(settings_->ApplyStartup({{"options", "-c geqo=off"}}).code(),
            StatusCode::kNotSupported);
}

}  // namespace
}  // namespace tributary::server
