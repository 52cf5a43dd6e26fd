package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import javax.sql.DataSource;

import dev.idempotent.claim.PayloadFingerprint;
import org.jspecify.annotations.Nullable;

/**
 * Checks at startup that the idempotency table can carry the guarantee: it exists with the columns the store
 * writes, a UNIQUE index covers exactly (scope, idempotency_key), the key column holds the configured maximum
 * key length, and keys compare byte for byte (on MySQL and MariaDB: the utf8mb4 character set, which holds every
 * character, and a binary, NO PAD collation; a deterministic collation on PostgreSQL), and an index leads with
 * (status, updated_at), so that retention and the table check read index ranges instead of the whole table. When retention archives rows ({@link #withArchive}), also that the archive table
 * exists with the same columns. Reads metadata only. Thread-safe.
 *
 * @since 0.1.0
 */
public final class SchemaValidator {

	static final List<String> COLUMNS = List.of("scope", "idempotency_key", "status", "attempts", "source_topic",
			"source_partition", "source_offset", "created_at", "updated_at", "lease_until", "last_error");

	static final List<String> ARCHIVE_COLUMNS = Stream.concat(Stream.of("id"),
			COLUMNS.stream()).toList();

	static final List<String> OUTPUT_COLUMNS = List.of("scope", "idempotency_key", "sequence_no", "topic",
			"target_partition", "record_key", "record_value", "headers", "created_at");

	private static final List<String> OFFSET_COLUMNS = List.of("consumer_group", "topic", "partition_id", "next_offset",
			"updated_at");

	private static final Set<String> UNIQUE_COLUMNS = Set.of("scope", "idempotency_key");

	/** The leading columns of the index that retention, the table check and the FAILED page read. */
	static final List<String> RETENTION_INDEX_COLUMNS = List.of("status", "updated_at");

	private final DataSource dataSource;

	private final TableName table;

	private final SqlDialect dialect;

	private final int maxKeyLength;

	private final boolean fingerprints;

	private final @Nullable TableName archive;

	private final @Nullable TableName outputs;

	private final @Nullable TableName offsets;

	/**
	 * Create a validator.
	 * @param dataSource the business database
	 * @param table the idempotency table
	 * @param dialect the database's dialect
	 * @param maxKeyLength the configured maximum key length in characters
	 */
	public SchemaValidator(DataSource dataSource, TableName table, SqlDialect dialect, int maxKeyLength) {
		this(dataSource, table, dialect, maxKeyLength, false);
	}

	/**
	 * Create a validator that may also require the payload fingerprint column.
	 * @param dataSource the business database
	 * @param table the idempotency table
	 * @param dialect the database's dialect
	 * @param maxKeyLength the configured maximum key length in characters
	 * @param fingerprints whether payload fingerprints are on: the {@code payload_fingerprint} column is then
	 * required (tables created before it keep passing while they are off)
	 */
	public SchemaValidator(DataSource dataSource, TableName table, SqlDialect dialect, int maxKeyLength,
			boolean fingerprints) {
		this(dataSource, table, dialect, maxKeyLength, fingerprints, null, null, null);
	}

	private SchemaValidator(DataSource dataSource, TableName table, SqlDialect dialect, int maxKeyLength,
			boolean fingerprints, @Nullable TableName archive, @Nullable TableName outputs,
			@Nullable TableName offsets) {
		this.dataSource = dataSource;
		this.table = table;
		this.dialect = dialect;
		this.maxKeyLength = maxKeyLength;
		this.fingerprints = fingerprints;
		this.archive = archive;
		this.outputs = outputs;
		this.offsets = offsets;
	}

	/**
	 * Return a validator that also checks the archive table of retention in ARCHIVE mode: it must exist with the
	 * columns of the idempotency table.
	 * @param archive the archive table
	 * @return a new validator, never {@code null}
	 */
	public SchemaValidator withArchive(TableName archive) {
		return new SchemaValidator(this.dataSource, this.table, this.dialect, this.maxKeyLength, this.fingerprints,
				archive, this.outputs, this.offsets);
	}

	/**
	 * Return a validator that also checks the table of stored outputs (records sent under a claim, re-sent on a
	 * hit): it must exist with its columns, and on MySQL and MariaDB its scope and key columns must compare byte for
	 * byte like the idempotency table's.
	 * @param outputs the output table
	 * @return a new validator, never {@code null}
	 * @since 0.1.0
	 */
	public SchemaValidator withOutputs(TableName outputs) {
		return new SchemaValidator(this.dataSource, this.table, this.dialect, this.maxKeyLength, this.fingerprints,
				this.archive, outputs, this.offsets);
	}

	/**
	 * Return a validator that also checks the table of consumed offsets stored with the claims: it must exist with its
	 * columns.
	 * @param offsets the offset table
	 * @return a new validator, never {@code null}
	 * @since 0.1.0
	 */
	public SchemaValidator withOffsets(TableName offsets) {
		return new SchemaValidator(this.dataSource, this.table, this.dialect, this.maxKeyLength, this.fingerprints,
				this.archive, this.outputs, offsets);
	}

	/**
	 * Check the table.
	 * @return what is wrong, one sentence per problem; empty if the table is fit
	 * @throws IllegalStateException if the metadata cannot be read
	 */
	public List<String> problems() {
		try (Connection connection = this.dataSource.getConnection()) {
			return problems(connection);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the metadata of idempotency table " + this.table, ex);
		}
	}

	/**
	 * Check the table and fail on any problem.
	 * @throws InvalidSchemaException listing the problems and the DDL that fixes them
	 */
	public void validate() {
		List<String> problems = problems();
		if (!problems.isEmpty()) {
			String ddl = new SchemaInitializer(this.dataSource, this.table, this.dialect).ddl();
			if (this.archive != null) {
				ddl = ddl + "\n" + SchemaInitializer.archive(this.dataSource, this.archive, this.dialect).ddl();
			}
			if (this.outputs != null) {
				ddl = ddl + "\n" + SchemaInitializer.outputs(this.dataSource, this.outputs, this.dialect).ddl();
			}
			if (this.offsets != null) {
				ddl = ddl + "\n" + SchemaInitializer.offsets(this.dataSource, this.offsets, this.dialect).ddl();
			}
			throw new InvalidSchemaException(this.table, this.dialect, problems, ddl);
		}
	}

	private List<String> problems(Connection connection) throws SQLException {
		List<String> problems = new ArrayList<>(tableProblems(connection));
		if (this.archive != null) {
			problems.addAll(archiveProblems(connection, this.archive));
		}
		if (this.outputs != null) {
			problems.addAll(outputProblems(connection, this.outputs));
		}
		if (this.offsets != null) {
			problems.addAll(offsetProblems(connection, this.offsets));
		}
		return problems;
	}

	private List<String> offsetProblems(Connection connection, TableName offsets) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		Map<String, Integer> columns = columnSizes(metaData, locate(connection, metaData, offsets));
		if (columns.isEmpty()) {
			return List.of("offset table " + offsets + " does not exist: idempotent.offsets.enabled=true stores each"
					+ " consumer group's offsets there with the claims (create it from sql/schema-" + this.dialect.id()
					+ "-offset.sql, set idempotent.offsets.table-name, or turn stored offsets off)");
		}
		List<String> problems = new ArrayList<>();
		for (String column : OFFSET_COLUMNS) {
			if (!columns.containsKey(column)) {
				problems.add("offset table " + offsets + ": column " + column + " is missing");
			}
		}
		return problems;
	}

	private List<String> outputProblems(Connection connection, TableName outputs) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		Location location = locate(connection, metaData, outputs);
		Map<String, Integer> columns = columnSizes(metaData, location);
		if (columns.isEmpty()) {
			return List.of("output table " + outputs + " does not exist: idempotent.outputs.enabled=true stores what a"
					+ " listener sends under a claim there (create it from sql/schema-" + this.dialect.id()
					+ "-output.sql, set idempotent.outputs.table-name, or turn outputs off)");
		}
		List<String> problems = new ArrayList<>();
		for (String column : OUTPUT_COLUMNS) {
			if (!columns.containsKey(column)) {
				problems.add("output table " + outputs + ": column " + column + " is missing");
			}
		}
		Integer keySize = columns.get("idempotency_key");
		if (keySize != null && keySize < this.maxKeyLength) {
			problems.add("output table " + outputs + ": column idempotency_key holds " + keySize
					+ " characters, less than idempotent.max-key-length=" + this.maxKeyLength);
		}
		if (this.dialect.needsBinaryCollation()) {
			for (TextColumn column : textColumns(connection, location)) {
				String problem = keyColumnProblem(this.dialect, outputs, column);
				if (problem != null) {
					problems.add("output table " + outputs + ": " + problem);
				}
			}
		}
		return problems;
	}

	private List<String> archiveProblems(Connection connection, TableName archive) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		Map<String, Integer> columns = columnSizes(metaData, locate(connection, metaData, archive));
		if (columns.isEmpty()) {
			return List.of("archive table " + archive + " does not exist: idempotent.retention.mode=archive moves rows"
					+ " older than the retention period there (create it from sql/schema-" + this.dialect.id()
					+ "-archive.sql, or set idempotent.retention.archive-table-name)");
		}
		List<String> problems = new ArrayList<>();
		for (String column : ARCHIVE_COLUMNS) {
			if (!columns.containsKey(column)) {
				problems.add("archive table " + archive + ": column " + column + " is missing");
			}
		}
		if (this.fingerprints && !columns.containsKey(ClaimStatements.FINGERPRINT_COLUMN)) {
			problems.add("archive table " + archive + ": column " + ClaimStatements.FINGERPRINT_COLUMN + " is missing,"
					+ " and payload fingerprints are on; add it with: ALTER TABLE " + archive + " ADD COLUMN "
					+ ClaimStatements.FINGERPRINT_COLUMN + " VARCHAR(" + PayloadFingerprint.LENGTH + ") NULL");
		}
		return problems;
	}

	private List<String> tableProblems(Connection connection) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		Location location = locate(connection, metaData, this.table);
		Map<String, Integer> columns = columnSizes(metaData, location);
		if (columns.isEmpty()) {
			return List.of("table " + this.table + " does not exist");
		}
		List<String> problems = new ArrayList<>();
		for (String column : COLUMNS) {
			if (!columns.containsKey(column)) {
				problems.add("column " + column + " is missing");
			}
		}
		if (this.fingerprints && !columns.containsKey(ClaimStatements.FINGERPRINT_COLUMN)) {
			problems.add("column " + ClaimStatements.FINGERPRINT_COLUMN + " is missing, and payload fingerprints are on"
					+ " (idempotent.fingerprint.enabled); add it with: ALTER TABLE " + this.table + " ADD COLUMN "
					+ ClaimStatements.FINGERPRINT_COLUMN + " VARCHAR(" + PayloadFingerprint.LENGTH + ") NULL");
		}
		boolean unique = this.dialect.needsBinaryCollation() ? hasFullUniqueIndexMySql(connection, location)
				: hasUniqueIndexOnScopeAndKey(metaData, location);
		if (!unique) {
			problems.add("no UNIQUE index covers exactly (scope, idempotency_key): duplicates would not be detected");
		}
		if (!hasIndexLeadingWith(metaData, location, RETENTION_INDEX_COLUMNS)) {
			problems.add(retentionIndexProblem(this.table));
		}
		Integer keySize = columns.get("idempotency_key");
		if (keySize != null && keySize < this.maxKeyLength) {
			problems.add("column idempotency_key holds " + keySize + " characters, less than idempotent.max-key-length="
					+ this.maxKeyLength);
		}
		problems.addAll(collationProblems(connection, location));
		return problems;
	}

	private Location locate(Connection connection, DatabaseMetaData metaData, TableName table) throws SQLException {
		String value = table.value();
		String name = identifier(metaData, table.simpleName());
		String qualifier = value.contains(".") ? identifier(metaData, value.substring(0, value.indexOf('.'))) : null;
		if (this.dialect.needsBinaryCollation()) {
			return new Location((qualifier != null) ? qualifier : connection.getCatalog(), null, name);
		}
		return new Location(connection.getCatalog(), (qualifier != null) ? qualifier : connection.getSchema(), name);
	}

	private static String identifier(DatabaseMetaData metaData, String name) throws SQLException {
		if (metaData.storesUpperCaseIdentifiers()) {
			return name.toUpperCase(Locale.ROOT);
		}
		return metaData.storesLowerCaseIdentifiers() ? name.toLowerCase(Locale.ROOT) : name;
	}

	private static Map<String, Integer> columnSizes(DatabaseMetaData metaData, Location location) throws SQLException {
		Map<String, Integer> columns = new HashMap<>();
		try (ResultSet rs = metaData.getColumns(location.catalog(), location.schema(), location.table(), null)) {
			while (rs.next()) {
				columns.put(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT), rs.getInt("COLUMN_SIZE"));
			}
		}
		return columns;
	}

	private static boolean hasUniqueIndexOnScopeAndKey(DatabaseMetaData metaData, Location location)
			throws SQLException {
		Map<String, Set<String>> indexes = new LinkedHashMap<>();
		try (ResultSet rs = metaData.getIndexInfo(location.catalog(), location.schema(), location.table(), true, true)) {
			while (rs.next()) {
				String index = rs.getString("INDEX_NAME");
				String column = rs.getString("COLUMN_NAME");
				if (index != null && column != null && !rs.getBoolean("NON_UNIQUE")) {
					indexes.computeIfAbsent(index, (i) -> new TreeSet<>()).add(column.toLowerCase(Locale.ROOT));
				}
			}
		}
		return indexes.values().stream().anyMatch(UNIQUE_COLUMNS::equals);
	}

	/**
	 * The problem of a table without an index on (status, updated_at), with the DDL that adds it.
	 * @param table the idempotency table
	 * @return the sentence
	 */
	static String retentionIndexProblem(TableName table) {
		return "no index leads with (status, updated_at): every retention run and table check would read the whole"
				+ " table, which takes minutes at tens of millions of rows (see docs/scale.md); add it with: CREATE INDEX"
				+ " ix_" + table.simpleName() + "_status_updated ON " + table + " (status, updated_at)";
	}

	private static boolean hasIndexLeadingWith(DatabaseMetaData metaData, Location location, List<String> leading)
			throws SQLException {
		Map<String, Map<Integer, String>> indexes = new HashMap<>();
		try (ResultSet rs = metaData.getIndexInfo(location.catalog(), location.schema(), location.table(), false, true)) {
			while (rs.next()) {
				String index = rs.getString("INDEX_NAME");
				String column = rs.getString("COLUMN_NAME");
				if (index != null && column != null) {
					indexes.computeIfAbsent(index, (i) -> new HashMap<>())
						.put((int) rs.getShort("ORDINAL_POSITION"), column.toLowerCase(Locale.ROOT));
				}
			}
		}
		return indexes.values().stream().anyMatch((columns) -> {
			for (int i = 0; i < leading.size(); i++) {
				if (!leading.get(i).equals(columns.get(i + 1))) {
					return false;
				}
			}
			return true;
		});
	}

	/**
	 * MySQL and MariaDB can index a prefix of a column; a UNIQUE index on a prefix of the key would merge keys
	 * that share the prefix, and JDBC metadata does not show prefixes, so read them from information_schema.
	 */
	private static boolean hasFullUniqueIndexMySql(Connection connection, Location location) throws SQLException {
		String sql = "SELECT INDEX_NAME, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS"
				+ " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0";
		Map<String, Set<String>> indexes = new LinkedHashMap<>();
		Set<String> withPrefixes = new TreeSet<>();
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, location.catalog());
			ps.setString(2, location.table());
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					String index = rs.getString(1);
					indexes.computeIfAbsent(index, (i) -> new TreeSet<>()).add(rs.getString(2).toLowerCase(Locale.ROOT));
					if (rs.getObject(3) != null) {
						withPrefixes.add(index);
					}
				}
			}
		}
		return indexes.entrySet()
			.stream()
			.anyMatch((index) -> !withPrefixes.contains(index.getKey()) && UNIQUE_COLUMNS.equals(index.getValue()));
	}

	private List<String> collationProblems(Connection connection, Location location) throws SQLException {
		List<String> problems = new ArrayList<>();
		if (this.dialect.needsBinaryCollation()) {
			for (TextColumn column : textColumns(connection, location)) {
				String problem = keyColumnProblem(this.dialect, this.table, column);
				if (problem != null) {
					problems.add(problem);
				}
			}
		}
		else if (this.dialect == SqlDialect.POSTGRESQL) {
			String sql = "SELECT a.attname, c.collname || CASE WHEN c.collisdeterministic THEN '' ELSE ' (nondeterministic)' END"
					+ " FROM pg_attribute a JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace n ON n.oid = t.relnamespace"
					+ " JOIN pg_collation c ON c.oid = a.attcollation WHERE n.nspname = ? AND t.relname = ?"
					+ " AND a.attname IN ('scope', 'idempotency_key')";
			for (Map.Entry<String, String> column : query(connection, sql, location.schema(), location.table()).entrySet()) {
				if (column.getValue().endsWith("(nondeterministic)")) {
					problems.add("column " + column.getKey() + " uses the nondeterministic collation "
							+ column.getValue() + ", which merges keys that are not byte-for-byte equal; use COLLATE \"C\"");
				}
			}
		}
		return problems;
	}

	/**
	 * What is wrong with a key or scope column on MySQL or MariaDB, if anything. Its character set must be utf8mb4 (or
	 * none, for a binary string): under a non-strict sql_mode, latin1 or utf8mb3 columns store the characters they
	 * cannot hold as '?' (4-byte characters in utf8mb3), with a mere warning, so that distinct keys merge. Its
	 * collation must be binary and NO PAD, or keys that differ in case, accents or trailing spaces merge. Its type must
	 * be of variable length (VARCHAR, VARBINARY): CHAR and BINARY pad values.
	 * @return the problem with the DDL that fixes it, or {@code null}
	 */
	static @Nullable String keyColumnProblem(SqlDialect dialect, TableName table, TextColumn column) {
		String collation = (dialect == SqlDialect.MYSQL) ? "utf8mb4_0900_bin" : "utf8mb4_nopad_bin";
		String fix = "; fix it with: ALTER TABLE " + table + " MODIFY " + column.name() + " " + column.type()
				+ " CHARACTER SET utf8mb4 COLLATE " + collation + (column.nullable() ? " NULL" : " NOT NULL");
		String charset = (column.charset() != null) ? column.charset().toLowerCase(Locale.ROOT) : "binary";
		String type = column.type().toLowerCase(Locale.ROOT);
		if (type.startsWith("char(") || type.startsWith("binary(")) {
			String variable = "var" + type;
			return "column " + column.name() + " is " + column.type() + ", a fixed-length type that pads its values:"
					+ " CHAR drops a key's trailing spaces (so 'a' and 'a ' are one key) and BINARY pads it with zero bytes"
					+ " (so a duplicate's row is not found by its key); it must be " + variable + "; fix it with: ALTER TABLE "
					+ table + " MODIFY " + column.name() + " " + variable + (charset.equals("binary") ? ""
							: " CHARACTER SET utf8mb4 COLLATE " + collation)
					+ (column.nullable() ? " NULL" : " NOT NULL");
		}
		if (!charset.equals("utf8mb4") && !charset.equals("binary")) {
			return "column " + column.name() + " uses character set " + column.charset() + " (collation "
					+ column.collation() + "), which cannot hold every character of a key: under a non-strict sql_mode"
					+ " the server stores the characters it cannot hold as '?', so distinct keys merge and real records"
					+ " are skipped as hits; it must be utf8mb4, with a binary NO PAD collation (" + collation + ")" + fix;
		}
		if (!isBinaryNoPad(column.collation())) {
			return "column " + column.name() + " uses collation " + column.collation() + ", which merges keys that"
					+ " differ in case, accents or trailing spaces; it must be binary and NO PAD (" + collation + ")" + fix;
		}
		return null;
	}

	private static List<TextColumn> textColumns(Connection connection, Location location) throws SQLException {
		String sql = "SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, IS_NULLABLE"
				+ " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
				+ " AND COLUMN_NAME IN ('scope', 'idempotency_key') ORDER BY ORDINAL_POSITION";
		List<TextColumn> columns = new ArrayList<>();
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, location.catalog());
			ps.setString(2, location.table());
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					columns.add(new TextColumn(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
							"YES".equalsIgnoreCase(rs.getString(5))));
				}
			}
		}
		return columns;
	}

	static boolean isBinaryNoPad(@Nullable String collation) {
		if (collation == null) {
			return true;
		}
		String name = collation.toLowerCase(Locale.ROOT);
		return name.equals("binary")
				|| (name.endsWith("_bin") && (name.contains("nopad") || name.contains("_0900_") || name.contains("_uca1400_")));
	}

	private static Map<String, String> query(Connection connection, String sql, @Nullable String first, String second)
			throws SQLException {
		Map<String, String> rows = new LinkedHashMap<>();
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, first);
			ps.setString(2, second);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.put(rs.getString(1), rs.getString(2));
				}
			}
		}
		return rows;
	}

	private record Location(@Nullable String catalog, @Nullable String schema, String table) {
	}

	/**
	 * A text column on MySQL or MariaDB, as information_schema.COLUMNS describes it.
	 *
	 * @param name the column's name
	 * @param charset its character set; {@code null} for a binary string
	 * @param collation its collation; {@code null} for a binary string
	 * @param type its type, e.g. {@code varchar(128)}
	 * @param nullable whether it accepts NULL
	 */
	record TextColumn(String name, @Nullable String charset, @Nullable String collation, String type,
			boolean nullable) {
	}

	/**
	 * Thrown when the idempotency table cannot carry the guarantee. Its message lists the problems and the DDL
	 * that fixes them.
	 */
	public static final class InvalidSchemaException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		private final List<String> problems;

		InvalidSchemaException(TableName table, SqlDialect dialect, List<String> problems, String ddl) {
			super("Idempotency table " + table + " (" + dialect.id() + ") cannot guarantee once-only processing:\n - "
					+ String.join("\n - ", problems) + "\nCreate it with the shipped DDL (sql/schema-" + dialect.id()
					+ ".sql), adapted to the table name:\n" + ddl
					+ "\nor set idempotent.jdbc.schema-validation=warn to only log this.");
			this.problems = List.copyOf(problems);
		}

		/**
		 * Return the problems found.
		 * @return one sentence per problem, never empty
		 */
		public List<String> getProblems() {
			return this.problems;
		}

	}

}
