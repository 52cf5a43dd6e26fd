package dev.idempotent.conformance;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The kit's own tables, and the guard that keeps it away from every other table.
 * <p>Every table the kit creates is named {@code <prefix><run id>_<n>} (or that name with a suffix, for the tables a
 * check derives from it) and is recorded, before it is created, in the registry table {@code <prefix>registry}. A
 * table with the prefix is the kit's when it, or the name it derives from, is in the registry. The kit refuses to
 * start when any table with the prefix is not the kit's, or when the registry has another shape; it refuses to
 * create a table that exists, and to drop one this run did not create. At the end it drops this run's tables and
 * its registry rows, and the registry once it is empty. Tables left by an interrupted run are reported, never
 * dropped by another run.
 * <p>Thread-safe. Names compare ignoring case (H2 reports them in upper case, PostgreSQL in lower case).
 */
public final class KitTables {

	private static final String REGISTRY_SUFFIX = "registry";

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final String prefix;

	private final String runId;

	private final String registry;

	private final AtomicInteger sequence = new AtomicInteger();

	private final Set<String> created = java.util.Collections.synchronizedSet(new LinkedHashSet<>());

	private final List<String> leftovers;

	private KitTables(DataSource dataSource, String prefix, List<String> leftovers) {
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.prefix = prefix;
		this.runId = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL | 0x100000000L).substring(1);
		this.registry = prefix + REGISTRY_SUFFIX;
		this.leftovers = leftovers;
	}

	/**
	 * Check that the kit may use tables with this prefix in the connection's current schema, and create its registry
	 * if needed.
	 * @param dataSource the database under test, never {@code null}
	 * @param prefix the prefix of the kit's tables, a valid identifier
	 * @return the kit's tables of a new run
	 * @throws RefusedDatabaseException if a table with the prefix is not the kit's; nothing has been written then
	 */
	public static KitTables open(DataSource dataSource, String prefix) {
		String registry = prefix + REGISTRY_SUFFIX;
		List<String> prefixed = tablesStartingWith(dataSource, prefix);
		boolean hasRegistry = prefixed.stream().anyMatch((name) -> name.equalsIgnoreCase(registry));
		List<String> registered = List.of();
		if (hasRegistry) {
			checkRegistryShape(dataSource, registry);
			registered = new JdbcTemplate(dataSource).queryForList("SELECT table_name FROM " + registry, String.class);
		}
		List<String> foreign = new ArrayList<>();
		List<String> leftovers = new ArrayList<>();
		for (String name : prefixed) {
			if (name.equalsIgnoreCase(registry)) {
				continue;
			}
			(isDerivedFromAny(name, registered) ? leftovers : foreign).add(name);
		}
		if (!foreign.isEmpty()) {
			throw new RefusedDatabaseException("tables " + foreign + " start with the kit's prefix '" + prefix
					+ "' but the kit did not create them (they are not in " + registry + "). The kit drops its tables "
					+ "when it ends, so it will not share a prefix with tables it does not own: choose another "
					+ "--table-prefix, or drop those tables if they are yours to drop.");
		}
		if (!hasRegistry) {
			new JdbcTemplate(dataSource).execute("CREATE TABLE " + registry + " (table_name VARCHAR(64) NOT NULL PRIMARY"
					+ " KEY, run_id VARCHAR(16) NOT NULL, created_at VARCHAR(40) NOT NULL)");
		}
		return new KitTables(dataSource, prefix, leftovers);
	}

	/** The run's id, part of every table name of this run. */
	public String runId() {
		return this.runId;
	}

	/** The registry table's name. */
	public String registry() {
		return this.registry;
	}

	/** Tables of earlier runs that were interrupted before they could drop them; the kit leaves them alone. */
	public List<String> leftovers() {
		return List.copyOf(this.leftovers);
	}

	/** The tables this run created so far, registered names only (not the names derived from them). */
	public List<String> created() {
		synchronized (this.created) {
			return List.copyOf(this.created);
		}
	}

	/**
	 * Register a fresh table name of this run; the caller creates the table.
	 * @return the name
	 * @throws RefusedDatabaseException if a table of that name exists
	 */
	public TableName newName() {
		String name = this.prefix + this.runId + "_" + this.sequence.incrementAndGet();
		if (!tablesStartingWith(this.dataSource, name).stream().filter((t) -> t.equalsIgnoreCase(name)).toList().isEmpty()) {
			throw new RefusedDatabaseException("table " + name + " exists already; the kit never writes to a table it did "
					+ "not create");
		}
		this.jdbc.update("INSERT INTO " + this.registry + " (table_name, run_id, created_at) VALUES (?, ?, ?)", name,
				this.runId, Instant.now().toString());
		this.created.add(name);
		return new TableName(name);
	}

	/**
	 * Create an idempotency table of this run from the shipped DDL.
	 * @param dialect the database's dialect
	 * @return its name
	 */
	public TableName createClaimTable(SqlDialect dialect) {
		TableName table = newName();
		new SchemaInitializer(this.dataSource, table, dialect).initialize();
		return table;
	}

	/**
	 * Drop a table of this run, if it exists.
	 * @param name a name this run registered, or one derived from it by a suffix
	 * @throws IllegalStateException if the table is not this run's
	 */
	public void drop(String name) {
		if (!isDerivedFromAny(name, created())) {
			throw new IllegalStateException("the kit drops only tables it created in this run, not " + name);
		}
		this.jdbc.execute("DROP TABLE IF EXISTS " + new TableName(name).value());
	}

	/**
	 * Drop every table of this run, its registry rows, and the registry if no other run has rows in it.
	 * @return the tables dropped
	 */
	public List<String> dropAll() {
		List<String> dropped = new ArrayList<>();
		for (String name : tablesStartingWith(this.dataSource, this.prefix + this.runId + "_")) {
			this.jdbc.execute("DROP TABLE IF EXISTS " + name);
			dropped.add(name.toLowerCase(Locale.ROOT));
		}
		this.jdbc.update("DELETE FROM " + this.registry + " WHERE run_id = ?", this.runId);
		Integer others = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.registry, Integer.class);
		if (others != null && others == 0) {
			this.jdbc.execute("DROP TABLE " + this.registry);
		}
		return dropped;
	}

	/**
	 * The tables of the current schema whose names start with a prefix, ignoring case.
	 * @param dataSource the database
	 * @param prefix the prefix
	 * @return the names as the database reports them
	 */
	public static List<String> tablesStartingWith(DataSource dataSource, String prefix) {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			List<String> names = new ArrayList<>();
			try (ResultSet tables = metaData.getTables(connection.getCatalog(), connection.getSchema(), "%",
					new String[] { "TABLE" })) {
				while (tables.next()) {
					String name = tables.getString("TABLE_NAME");
					if (name != null && name.toLowerCase(Locale.ROOT).startsWith(prefix.toLowerCase(Locale.ROOT))) {
						names.add(name);
					}
				}
			}
			return names;
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("could not list the tables of the current schema", ex);
		}
	}

	private static boolean isDerivedFromAny(String name, List<String> registered) {
		String lower = name.toLowerCase(Locale.ROOT);
		return registered.stream()
			.map((r) -> r.toLowerCase(Locale.ROOT))
			.anyMatch((r) -> lower.equals(r) || lower.startsWith(r + "_"));
	}

	private static void checkRegistryShape(DataSource dataSource, String registry) {
		Set<String> columns = new LinkedHashSet<>();
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			for (String candidate : List.of(registry, registry.toUpperCase(Locale.ROOT), registry.toLowerCase(Locale.ROOT))) {
				try (ResultSet rs = metaData.getColumns(connection.getCatalog(), connection.getSchema(), candidate, "%")) {
					while (rs.next()) {
						columns.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
					}
				}
				if (!columns.isEmpty()) {
					break;
				}
			}
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("could not read the columns of " + registry, ex);
		}
		if (!columns.equals(Set.of("table_name", "run_id", "created_at"))) {
			throw new RefusedDatabaseException("table " + registry + " exists but is not the kit's registry (columns "
					+ columns + "); choose another --table-prefix");
		}
	}

}
