package dev.idempotent.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A PostgreSQL 15 primary with one streaming standby ({@code pg_basebackup}) on loopback, started by a test from the
 * binaries installed on the machine, each server in its own data directory under a temporary folder, on free ports.
 * Replication is asynchronous, or synchronous ({@code synchronous_standby_names = '*'}, {@code synchronous_commit = on}:
 * a commit returns once the standby flushed it). Servers run as the {@code postgres} user when the tests run as root.
 * Tests that use it are skipped where PostgreSQL 15 is not installed.
 * <p>{@link #url} is the multi-host JDBC URL an application uses ({@code targetServerType=primary}): after a failover
 * the driver finds the promoted standby. A failover with lost commits is made deterministic: {@link #stopStandby} stops
 * the standby's replication (what a lagging replica has not received), the primary commits on, {@link #killPrimary}
 * kills it with SIGKILL, and {@link #promoteStandby} starts the standby without its primary and promotes it.
 */
public final class PostgreSqlStandbyCluster implements AutoCloseable {

	private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final Path directory;

	private final int primaryPort;

	private final int standbyPort;

	private final Thread cleanup = new Thread(this::destroy, "postgresql-standby-cluster-stop");

	private PostgreSqlStandbyCluster(Path directory, int primaryPort, int standbyPort) {
		this.directory = directory;
		this.primaryPort = primaryPort;
		this.standbyPort = standbyPort;
	}

	/**
	 * Start a primary and its standby, and create the database {@code test} on them.
	 * @param synchronous whether a commit waits for the standby
	 * @return the running cluster; the calling test is skipped where PostgreSQL 15 is not installed
	 */
	public static PostgreSqlStandbyCluster start(boolean synchronous) {
		assumeTrue(Files.isExecutable(BIN.resolve("postgres")) && Files.isExecutable(BIN.resolve("pg_basebackup")),
				"PostgreSQL 15 is not installed in " + BIN);
		try {
			Path directory = Files.createTempDirectory("pg-standby-");
			PostgreSqlStandbyCluster cluster = new PostgreSqlStandbyCluster(directory, freePort(), freePort());
			Runtime.getRuntime().addShutdownHook(cluster.cleanup);
			cluster.startServers(synchronous);
			return cluster;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The JDBC URL of the database {@code test} on whichever server is the primary.
	 * @return a multi-host URL
	 */
	public String url() {
		return "jdbc:postgresql://127.0.0.1:" + this.primaryPort + ",127.0.0.1:" + this.standbyPort
				+ "/test?targetServerType=primary&connectTimeout=2&socketTimeout=30";
	}

	/**
	 * A new connection to the database {@code test} on the current primary (not pooled, so never a stale one).
	 * @return the connection, to be closed by the caller
	 * @throws SQLException if no primary answers
	 */
	public Connection primaryConnection() throws SQLException {
		return DriverManager.getConnection(url(), "postgres", "");
	}

	/** Wait until the standby replayed everything the primary wrote so far, then stop it: it receives nothing more. */
	public void stopStandby() {
		String primaryLsn = query(this.primaryPort, "SELECT pg_current_wal_lsn()");
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (!"t".equals(query(this.standbyPort, "SELECT pg_last_wal_replay_lsn() >= '" + primaryLsn + "'::pg_lsn"))) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The standby did not catch up with the primary within " + TIMEOUT);
			}
			Thread.onSpinWait();
		}
		pgCtl("standby", "-m", "fast", "-w", "stop");
	}

	/** Kill the primary's postmaster with SIGKILL, as a crashed machine would stop. */
	public void killPrimary() {
		try {
			String pid = Files.readAllLines(this.directory.resolve("primary/postmaster.pid")).get(0).trim();
			run(List.of("kill", "-9", pid));
			ProcessHandle.of(Long.parseLong(pid)).ifPresent((process) -> process.onExit().join());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Promote the standby to primary: started first if {@link #stopStandby stopped} (without its primary, so it keeps
	 * what it had received), then promoted, with no synchronous standby to wait for; returns once it accepts writes.
	 */
	public void promoteStandby() {
		Path standby = this.directory.resolve("standby");
		if (!Files.exists(standby.resolve("postmaster.pid"))) {
			try {
				Path auto = standby.resolve("postgresql.auto.conf");
				List<String> kept = Files.readAllLines(auto).stream()
					.filter((line) -> !line.startsWith("primary_conninfo"))
					.toList();
				Files.write(auto, kept);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			pgCtl("standby", "-l", this.directory.resolve("standby.log").toString(), "-w", "start");
		}
		pgCtl("standby", "-w", "promote");
		// alone now: a synchronous primary's setting (copied by pg_basebackup) would make every commit wait for a
		// standby it no longer has, so it is cleared, as a failover manager does
		query(this.standbyPort, "ALTER SYSTEM SET synchronous_standby_names = ''");
		query(this.standbyPort, "SELECT pg_reload_conf()");
	}

	/** Stop both servers at once and delete their data. */
	@Override
	public void close() {
		destroy();
		try {
			Runtime.getRuntime().removeShutdownHook(this.cleanup);
		}
		catch (IllegalStateException ex) {
			// the JVM is exiting: the hook runs anyway
		}
	}

	private void startServers(boolean synchronous) throws IOException {
		own(this.directory);
		run(asPostgres(BIN.resolve("initdb").toString(), "-D", dir("primary"), "-U", "postgres", "--auth=trust", "-N"));
		List<String> settings = new ArrayList<>(List.of("listen_addresses = '127.0.0.1'", "port = " + this.primaryPort,
				"unix_socket_directories = '" + this.directory + "'", "wal_level = replica", "max_wal_senders = 4",
				"shared_buffers = 32MB", "max_connections = 60"));
		if (synchronous) {
			settings.add("synchronous_standby_names = '*'");
			settings.add("synchronous_commit = on");
		}
		Files.writeString(this.directory.resolve("primary/postgresql.conf"), "\n" + String.join("\n", settings) + "\n",
				StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
		Files.writeString(this.directory.resolve("primary/pg_hba.conf"), "host replication postgres 127.0.0.1/32 trust\n",
				StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
		pgCtl("primary", "-l", this.directory.resolve("primary.log").toString(), "-w", "start");
		run(asPostgres(BIN.resolve("pg_basebackup").toString(), "-h", "127.0.0.1", "-p", String.valueOf(this.primaryPort),
				"-U", "postgres", "-D", dir("standby"), "-R", "-X", "stream"));
		Files.writeString(this.directory.resolve("standby/postgresql.conf"), "\nport = " + this.standbyPort + "\n",
				StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
		pgCtl("standby", "-l", this.directory.resolve("standby.log").toString(), "-w", "start");
		// a synchronous primary waits for the standby from here on, the database's creation included
		query(this.primaryPort, "CREATE DATABASE test");
	}

	private void destroy() {
		for (String server : List.of("primary", "standby")) {
			Path pidFile = this.directory.resolve(server + "/postmaster.pid");
			try {
				if (Files.exists(pidFile)) {
					long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
					ProcessHandle.of(pid).ifPresent((process) -> {
						process.descendants().forEach(ProcessHandle::destroyForcibly);
						process.destroyForcibly();
						process.onExit().join();
					});
				}
			}
			catch (IOException | RuntimeException ex) {
				// best effort: the folder is deleted below
			}
		}
		try {
			run(List.of("rm", "-rf", this.directory.toString()));
		}
		catch (RuntimeException ex) {
			// best effort
		}
	}

	private String dir(String server) {
		return this.directory.resolve(server).toString();
	}

	private void pgCtl(String server, String... arguments) {
		List<String> command = new ArrayList<>(List.of(BIN.resolve("pg_ctl").toString(), "-D", dir(server)));
		command.addAll(List.of(arguments));
		run(asPostgres(command.toArray(String[]::new)));
	}

	/** One statement on one server (database {@code test} once it exists, else {@code postgres}); its first value. */
	private String query(int port, String sql) {
		String database = sql.startsWith("CREATE DATABASE") ? "postgres" : "test";
		try (Connection connection = DriverManager.getConnection(
				"jdbc:postgresql://127.0.0.1:" + port + "/" + database, "postgres", "");
				Statement statement = connection.createStatement()) {
			if (!statement.execute(sql)) {
				return "";
			}
			try (ResultSet rs = statement.getResultSet()) {
				return rs.next() ? rs.getString(1) : "";
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + " failed on port " + port, ex);
		}
	}

	private static List<String> asPostgres(String... command) {
		List<String> line = new ArrayList<>();
		if ("root".equals(System.getProperty("user.name"))) {
			line.addAll(List.of("runuser", "-u", "postgres", "--"));
		}
		line.addAll(List.of(command));
		return line;
	}

	private static void own(Path directory) {
		if ("root".equals(System.getProperty("user.name"))) {
			run(List.of("chown", "postgres", directory.toString()));
		}
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
