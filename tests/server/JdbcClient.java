// pgjdbc (Debian's libpostgresql-jdbc-java) against `tributary serve`: run by pg_wire_test.py
// with the server's port. Exits non-zero (an exception) when anything differs.
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class JdbcClient {
  static void check(boolean ok, String what) {
    if (!ok) throw new AssertionError(what);
  }

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/default";
    Properties p = new Properties();
    p.setProperty("user", "tributary");
    p.setProperty("ApplicationName", "jdbc-test");
    try (Connection c = DriverManager.getConnection(url, p)) {
      check(c.getMetaData().getDatabaseProductVersion().startsWith("16.0"), "server version");
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE jt (id BIGINT, name STRING, qty INT, price DECIMAL(10, 2), "
            + "d DATE, ts TIMESTAMP(3), ok BOOLEAN, PRIMARY KEY (id) NOT ENFORCED)");
        try (ResultSet rs = s.executeQuery("SHOW application_name")) {
          check(rs.next() && rs.getString(1).equals("jdbc-test"), "application_name");
        }
      }
      // Typed setters, batched: pgjdbc declares each parameter's type.
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO jt VALUES (?, ?, ?, ?, ?, ?, ?)")) {
        for (int i = 0; i < 10; i++) {
          ps.setLong(1, i);
          ps.setString(2, "n" + i);
          ps.setInt(3, i * 10);
          ps.setBigDecimal(4, new BigDecimal("1.25").multiply(BigDecimal.valueOf(i)));
          ps.setDate(5, java.sql.Date.valueOf("2024-01-0" + (1 + i % 9)));
          ps.setTimestamp(6, Timestamp.valueOf("2024-01-01 10:00:0" + i + ".5"));
          ps.setBoolean(7, i % 2 == 0);
          ps.addBatch();
        }
        check(Arrays.equals(ps.executeBatch(), new int[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), "batch");
      }
      // Past pgjdbc's prepareThreshold (5) the statement is prepared on the server and its rows
      // come in the binary format: the same rows every run.
      try (PreparedStatement ps = c.prepareStatement(
               "SELECT id, name, qty, price, d, ts, ok FROM jt WHERE qty >= ? AND price < ? ORDER BY id")) {
        for (int run = 0; run < 8; run++) {
          ps.setInt(1, 30);
          ps.setBigDecimal(2, new BigDecimal("10"));
          List<String> got = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              got.add(rs.getLong(1) + ":" + rs.getString(2) + ":" + rs.getInt(3) + ":" + rs.getBigDecimal(4)
                  + ":" + rs.getDate(5) + ":" + rs.getTimestamp(6) + ":" + rs.getBoolean(7));
            }
          }
          check(got.equals(List.of("3:n3:30:3.75:2024-01-04:2024-01-01 10:00:03.5:false",
                                   "4:n4:40:5.00:2024-01-05:2024-01-01 10:00:04.5:true",
                                   "5:n5:50:6.25:2024-01-06:2024-01-01 10:00:05.5:false",
                                   "6:n6:60:7.50:2024-01-07:2024-01-01 10:00:06.5:true",
                                   "7:n7:70:8.75:2024-01-08:2024-01-01 10:00:07.5:false")),
                "run " + run + ": " + got);
        }
      }
      try (PreparedStatement ps = c.prepareStatement("UPDATE jt SET name = ? WHERE id = ?")) {
        ps.setString(1, "renamed");
        ps.setLong(2, 9);
        check(ps.executeUpdate() == 1, "update count");
      }
      try (Statement s = c.createStatement()) {
        // TimeZone is the session's zone: TIMESTAMP_LTZ values are read in it.
        s.execute("SET TIME ZONE 'Asia/Kolkata'");
        try (ResultSet rs = s.executeQuery("SHOW TimeZone")) {
          check(rs.next() && rs.getString(1).equals("Asia/Kolkata"), "TimeZone");
        }
        try (ResultSet rs = s.executeQuery(
                 "SELECT CAST(TIMESTAMP '2024-01-01 00:00:00' AS TIMESTAMP_LTZ(3)) AS t")) {
          check(rs.next() && rs.getString(1).startsWith("2024-01-01 00:00:00") && rs.getString(1).endsWith("+05:30"),
                "LTZ in the session zone: " + rs.getString(1));
        }
        try (ResultSet rs = s.executeQuery("SELECT name FROM jt WHERE id = 9")) {
          check(rs.next() && rs.getString(1).equals("renamed"), "updated");
        }
        // psql's catalog queries are answered through the extended protocol too (\dn's here);
        // DatabaseMetaData's are refused (0A000) until the server answers them.
        try (ResultSet rs = s.executeQuery("SELECT n.nspname AS \"Name\" FROM pg_catalog.pg_namespace n "
                 + "WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ORDER BY 1")) {
          check(rs.next() && rs.getString(1).equals("default") && !rs.next(), "\\dn");
        }
        try {
          c.getMetaData().getTables(null, "default", "%", new String[] {"TABLE"});
          check(false, "getTables was answered");
        } catch (SQLException e) {
          check("0A000".equals(e.getSQLState()) && e.getMessage().contains("catalog"), e.getMessage());
        }
        // What is not supported is refused, naming it (0A000), and changes nothing.
        try {
          s.execute("SET extra_float_digits = 0");
          check(false, "extra_float_digits 0 was taken");
        } catch (SQLException e) {
          check("0A000".equals(e.getSQLState()) && e.getMessage().contains("extra_float_digits"), e.getMessage());
        }
      }
    }
    System.out.println("jdbc ok");
  }
}
