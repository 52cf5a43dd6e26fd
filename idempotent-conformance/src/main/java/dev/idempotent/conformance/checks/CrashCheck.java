package dev.idempotent.conformance.checks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.idempotent.conformance.KitTarget;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A consumer process killed with {@code kill -9} at the two moments that matter, then restarted: after its database
 * transaction committed but before it acknowledged the record (the redelivered record must be a hit and its effect
 * exist once), and with the transaction still open (the database must roll the claim back with the business write,
 * so the redelivered record is processed, once). The consumer is a child JVM ({@link CrashChild}) started from the
 * kit's own class path, killed with SIGKILL; the restarted consumer runs in the kit's JVM on new connections. An
 * in-memory H2 database, which a child JVM cannot reach, skips these checks.
 */
public class CrashCheck {

	private KitTarget target;

	private TableName claimTable;

	private String businessTable;

	private JdbcTemplate jdbc;

	@BeforeEach
	void createTables() {
		this.target = KitTarget.current();
		assumeFalse(this.target.connection().url().startsWith("jdbc:h2:mem:"),
				"an in-memory H2 database cannot be reached from a child JVM");
		this.jdbc = new JdbcTemplate(this.target.dataSource());
		this.claimTable = this.target.tables().createClaimTable(this.target.dialect());
		this.businessTable = this.claimTable.value() + "_biz";
		this.jdbc.execute("CREATE TABLE " + this.businessTable
				+ " (id VARCHAR(64) NOT NULL PRIMARY KEY, order_id VARCHAR(64) NOT NULL)");
	}

	@AfterEach
	void dropTables() {
		if (this.claimTable != null) {
			this.target.tables().drop(this.businessTable);
			this.target.tables().drop(this.claimTable.value());
		}
	}

	@Test
	void aConsumerKilledAfterTheCommitBeforeTheAcknowledgmentFindsTheKeyClaimedAfterTheRestart(TestReporter evidence)
			throws Throwable {
		int exit = killAt("hang-after-commit", CrashChild.COMMITTED, "order-1");
		String restart = restart("order-1");

		evidence.publishEntry("crash", "killed after commit (exit " + exit + "); restart: " + restart + "; business rows: "
				+ businessRows("order-1"));
		assertThat(restart).as("the redelivered record after the restart").isEqualTo(CrashChild.OUTCOME + "hit");
		assertThat(businessRows("order-1")).as("business rows of the key").isOne();
	}

	@Test
	void aConsumerKilledInsideItsTransactionProcessesTheKeyOnceAfterTheRestart(TestReporter evidence) throws Throwable {
		int exit = killAt("hang-inside", CrashChild.INSIDE, "order-2");
		String restart = restart("order-2");

		evidence.publishEntry("crash", "killed inside the transaction (exit " + exit + "); restart: " + restart
				+ "; business rows: " + businessRows("order-2"));
		assertThat(restart).as("the redelivered record after the restart").isEqualTo(CrashChild.OUTCOME + "processed");
		assertThat(businessRows("order-2")).as("business rows of the key").isOne();
	}

	/** Start a child, wait until it prints the signal, kill it with SIGKILL; return its exit status. */
	private int killAt(String mode, String signal, String key) throws Exception {
		Process child = start(mode, key);
		try {
			List<String> lines = new ArrayList<>();
			CompletableFuture<Boolean> signalled = CompletableFuture.supplyAsync(() -> readUntil(child, signal, lines));
			assertThat(signalled.get(60, TimeUnit.SECONDS)).as("child printed %s; its output: %s", signal, lines).isTrue();
			child.destroyForcibly();
			assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
			return child.exitValue();
		}
		finally {
			child.destroyForcibly();
		}
	}

	/**
	 * The consumer after the restart: a new claim store on new connections of its own (the kit's JVM stands in for the
	 * restarted process: what it must see is only in the database).
	 */
	private String restart(String key) throws Throwable {
		TestDatabases.Connection connection = this.target.connection();
		DataSource fresh = new DriverManagerDataSource(connection.url(), connection.user(), connection.password());
		return CrashChild.OUTCOME + CrashChild.describe(CrashChild.claim(fresh, this.target.dialect(), this.claimTable,
				new TableName(this.businessTable), key, () -> {
				}));
	}

	private Process start(String mode, String key) throws IOException {
		TestDatabases.Connection connection = this.target.connection();
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		String classPath = System.getProperty("java.class.path");
		ProcessBuilder builder = new ProcessBuilder(java.toString(), "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				classPath, CrashChild.class.getName(), mode, this.claimTable.value(), this.businessTable, key);
		builder.environment().put("IDEMPOTENT_KIT_URL", connection.url());
		builder.environment().put("IDEMPOTENT_KIT_USER", connection.user());
		builder.environment().put("IDEMPOTENT_KIT_PASSWORD", connection.password());
		builder.environment().put("IDEMPOTENT_KIT_DIALECT", this.target.dialect().id());
		builder.redirectErrorStream(true);
		return builder.start();
	}

	private static boolean readUntil(Process child, String prefix, List<String> lines) {
		try (BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream(),
				StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				synchronized (lines) {
					lines.add(line);
				}
				if (line.startsWith(prefix)) {
					return true;
				}
			}
			return false;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private int businessRows(String key) {
		Integer rows = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.businessTable + " WHERE order_id = ?",
				Integer.class, key);
		return (rows != null) ? rows : -1;
	}

}
