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
      // A statement bound again with another setter (pgjdbc parses it again, its date parameter
      // unspecified, and binds without a Describe): '2024-01-02 +00' is read as the date. A BC
      // date is year 0 and down (LocalDate's year 0 is 1 BC); DATE holds year 0 and up.
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE jd (k INT, d DATE)");
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO jd VALUES (?, ?)")) {
        ps.setInt(1, 1);
        ps.setObject(2, java.time.LocalDate.of(0, 3, 15));
        check(ps.executeUpdate() == 1, "1 BC");
        ps.setInt(1, 2);
        ps.setDate(2, java.sql.Date.valueOf("2024-01-02"));
        check(ps.executeUpdate() == 1, "setDate after setObject");
        try {
          ps.setInt(1, 3);
          ps.setObject(2, java.time.LocalDate.of(-43, 3, 15));
          ps.executeUpdate();
          check(false, "44 BC was taken");
        } catch (SQLException e) {
          check(e.getMessage().contains("out of range"), e.getMessage());
        }
      }
      try (Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT k, CAST(d AS STRING) FROM jd ORDER BY k")) {
        check(rs.next() && rs.getString(2).equals("0000-03-15") && rs.next()
                  && rs.getString(2).equals("2024-01-02") && !rs.next(), "jd");
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
        // psql's catalog queries are answered through the extended protocol too (\dn's here).
        try (ResultSet rs = s.executeQuery("SELECT n.nspname AS \"Name\" FROM pg_catalog.pg_namespace n "
                 + "WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ORDER BY 1")) {
          check(rs.next() && rs.getString(1).equals("default") && !rs.next(), "\\dn");
        }
      }
      // DatabaseMetaData (what DBeaver and other JDBC tools browse with): the answers PostgreSQL
      // gives for the same table (BIGINT, TEXT, INT, NUMERIC(10,2), DATE, TIMESTAMP(3), BOOLEAN).
      DatabaseMetaData md = c.getMetaData();
      try (Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE jdbc_other");
        s.execute("CREATE TABLE jdbc_other.t_2 (k INT NOT NULL, v VARCHAR(20)) COMMENT 'other'");
      }
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = md.getSchemas()) {
        while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM"));
      }
      check(schemas.equals(List.of("default", "jdbc_other")), "getSchemas " + schemas);
      try (ResultSet rs = md.getSchemas(null, "jdbc%")) {
        check(rs.next() && rs.getString(1).equals("jdbc_other") && !rs.next(), "getSchemas(jdbc%)");
      }
      try (ResultSet rs = md.getTables(null, "default", "j_", new String[] {"TABLE"})) {
        check(rs.next() && rs.getString("TABLE_NAME").equals("jd") && rs.next()
                  && rs.getString("TABLE_NAME").equals("jt") && rs.getString("TABLE_TYPE").equals("TABLE")
                  && rs.getString("TABLE_SCHEM").equals("default") && !rs.next(), "getTables");
      }
      try (ResultSet rs = md.getTables(null, null, "t\\_%", null)) {  // '_' escaped: a literal '_'
        check(rs.next() && rs.getString("TABLE_NAME").equals("t_2") && rs.getString("REMARKS").equals("other")
                  && !rs.next(), "getTables(t\\_%)");
      }
      try (ResultSet rs = md.getTables(null, null, "%", new String[] {"VIEW"})) {
        check(!rs.next(), "no views");
      }
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = md.getColumns(null, "default", "jt", "%")) {
        while (rs.next()) {
          columns.add(rs.getString("COLUMN_NAME") + ":" + rs.getInt("DATA_TYPE") + ":" + rs.getString("TYPE_NAME")
              + ":" + rs.getInt("COLUMN_SIZE") + ":" + rs.getInt("DECIMAL_DIGITS") + ":" + rs.getInt("NULLABLE")
              + ":" + rs.getInt("ORDINAL_POSITION"));
        }
      }
      check(columns.equals(List.of("id:-5:int8:19:0:0:1", "name:12:text:2147483647:0:1:2", "qty:4:int4:10:0:1:3",
                                   "price:2:numeric:10:2:1:4", "d:91:date:13:0:1:5", "ts:93:timestamp:26:3:1:6",
                                   "ok:-7:bool:1:0:1:7")),
            "getColumns " + columns);
      try (ResultSet rs = md.getColumns(null, "jdbc_other", "t%", "v")) {
        check(rs.next() && rs.getString("TYPE_NAME").equals("varchar") && rs.getInt("COLUMN_SIZE") == 20 && !rs.next(),
              "getColumns(v)");
      }
      try (ResultSet rs = md.getPrimaryKeys(null, "default", "jt")) {
        check(rs.next() && rs.getString("COLUMN_NAME").equals("id") && rs.getInt("KEY_SEQ") == 1
                  && rs.getString("PK_NAME").equals("jt_pkey") && !rs.next(), "getPrimaryKeys");
      }
      try (ResultSet rs = md.getPrimaryKeys(null, "jdbc_other", "t_2")) {
        check(!rs.next(), "no primary key");
      }
      try (ResultSet rs = md.getIndexInfo(null, "default", "jt", true, true)) {
        check(rs.next() && rs.getString("INDEX_NAME").equals("jt_pkey") && !rs.getBoolean("NON_UNIQUE")
                  && rs.getString("COLUMN_NAME").equals("id") && !rs.next(), "getIndexInfo");
      }
      // getBestRowIdentifier: the primary key's columns, as PostgreSQL 15 answers for the same key.
      try (ResultSet rs = md.getBestRowIdentifier(null, "default", "jt", DatabaseMetaData.bestRowSession, true)) {
        check(rs.next() && rs.getString("COLUMN_NAME").equals("id") && rs.getInt("DATA_TYPE") == Types.BIGINT
                  && rs.getString("TYPE_NAME").equals("int8") && rs.getInt("COLUMN_SIZE") == 19
                  && rs.getShort("SCOPE") == DatabaseMetaData.bestRowSession
                  && rs.getShort("PSEUDO_COLUMN") == DatabaseMetaData.bestRowNotPseudo && !rs.next(),
              "getBestRowIdentifier");
      }
      // getTypeInfo: the types results carry, each row as PostgreSQL 15's (DATA_TYPE, PRECISION,
      // LITERAL_PREFIX, CASE_SENSITIVE compared with the same driver), in its order.
      try (ResultSet rs = md.getTypeInfo()) {
        List<String> types = new ArrayList<>();
        while (rs.next()) {
          types.add(rs.getString("TYPE_NAME") + ":" + rs.getInt("DATA_TYPE") + ":" + rs.getInt("PRECISION") + ":"
                    + rs.getString("LITERAL_PREFIX") + ":" + rs.getBoolean("CASE_SENSITIVE"));
        }
        List<String> want = Arrays.asList("bool:-7:0:':false", "int8:-5:0:null:false", "bigserial:-5:0:null:false",
                                          "bytea:-2:0:':true", "bpchar:1:10485760:':true", "numeric:2:1000:null:false",
                                          "int4:4:0:null:false", "serial:4:0:null:false", "int2:5:0:null:false",
                                          "smallserial:5:0:null:false", "float4:7:0:null:false", "float8:8:0:null:false",
                                          "text:12:0:':true", "varchar:12:10485760:':true", "date:91:0:':false",
                                          "time:92:6:':false", "timestamp:93:6:':false", "timestamptz:93:6:':false");
        check(types.equals(want), "getTypeInfo " + types);
      }
      // Foreign keys: none (Paimon tables have none), as PostgreSQL answers for a table without:
      // no rows, the 14 columns JDBC names.
      for (int k = 0; k < 3; k++) {
        try (ResultSet rs = k == 0 ? md.getImportedKeys(null, "default", "jt")
                            : k == 1 ? md.getExportedKeys(null, "default", "jt")
                                     : md.getCrossReference(null, "default", "jt", null, "default", "jt")) {
          ResultSetMetaData m = rs.getMetaData();
          check(!rs.next() && m.getColumnCount() == 14 && m.getColumnLabel(1).equalsIgnoreCase("PKTABLE_CAT")
                    && m.getColumnLabel(9).equalsIgnoreCase("KEY_SEQ")
                    && m.getColumnLabel(14).equalsIgnoreCase("DEFERRABILITY"),
                "foreign keys (" + k + ")");
        }
      }
      // Routines and user-defined types: none in a database (Tributary's procedures are CALL
      // sys.*, outside them); no rows, the columns JDBC names (as PostgreSQL 15 answers for a
      // schema without functions or procedures; its getUDTs lists the row type it makes for
      // each table, which Tributary does not make).
      try (ResultSet rs = md.getFunctions(null, "default", "%")) {
        ResultSetMetaData m = rs.getMetaData();
        check(!rs.next() && m.getColumnCount() == 6 && m.getColumnLabel(3).equalsIgnoreCase("FUNCTION_NAME"),
              "getFunctions");
      }
      try (ResultSet rs = md.getFunctionColumns(null, "default", "%", "%")) {
        check(!rs.next() && rs.getMetaData().getColumnCount() == 17, "getFunctionColumns");
      }
      try (ResultSet rs = md.getProcedures(null, null, "%")) {
        ResultSetMetaData m = rs.getMetaData();
        check(!rs.next() && m.getColumnCount() == 9 && m.getColumnLabel(8).equalsIgnoreCase("PROCEDURE_TYPE"),
              "getProcedures");
      }
      try (ResultSet rs = md.getProcedureColumns(null, "default", "%", "%")) {
        check(!rs.next() && rs.getMetaData().getColumnCount() == 20, "getProcedureColumns");
      }
      try (ResultSet rs = md.getUDTs(null, "default", "%", null)) {
        check(!rs.next() && rs.getMetaData().getColumnCount() == 7, "getUDTs");
      }
      // Privileges: the one user, tributary, owns every table and may SELECT, INSERT, UPDATE,
      // DELETE and TRUNCATE it (PostgreSQL's owner also has REFERENCES and TRIGGER, which
      // Tributary has no statement for).
      List<String> privileges = new ArrayList<>();
      try (ResultSet rs = md.getTablePrivileges(null, "default", "j%")) {
        while (rs.next()) {
          privileges.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + ":" + rs.getString("GRANTOR")
              + ":" + rs.getString("GRANTEE") + ":" + rs.getString("PRIVILEGE") + ":" + rs.getString("IS_GRANTABLE"));
        }
      }
      List<String> wantPrivileges = new ArrayList<>();
      for (String t : List.of("jd", "jt")) {
        for (String priv : List.of("DELETE", "INSERT", "SELECT", "TRUNCATE", "UPDATE")) {
          wantPrivileges.add("default." + t + ":tributary:tributary:" + priv + ":YES");
        }
      }
      check(privileges.equals(wantPrivileges), "getTablePrivileges " + privileges);
      List<String> columnPrivileges = new ArrayList<>();
      try (ResultSet rs = md.getColumnPrivileges(null, "default", "jd", "%")) {
        while (rs.next()) columnPrivileges.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("PRIVILEGE"));
      }
      check(columnPrivileges.equals(List.of("d:DELETE", "d:INSERT", "d:SELECT", "d:TRUNCATE", "d:UPDATE",
                                            "k:DELETE", "k:INSERT", "k:SELECT", "k:TRUNCATE", "k:UPDATE")),
            "getColumnPrivileges " + columnPrivileges);
      try (ResultSet rs = md.getClientInfoProperties()) {
        check(rs.next() && rs.getString("NAME").equals("ApplicationName") && rs.getInt("MAX_LEN") == 63 && !rs.next(),
              "getClientInfoProperties");
      }
      try (Statement s = c.createStatement()) {
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
