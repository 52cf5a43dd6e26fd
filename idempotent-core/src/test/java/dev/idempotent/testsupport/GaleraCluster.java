package dev.idempotent.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A MariaDB Galera cluster of three nodes on loopback, started by the tests from the {@code mariadbd} and
 * {@code galera-4} installed on the machine (each node in its own data directory, on free ports, with rsync state
 * transfers), once per JVM and stopped when the JVM exits. Tests that use it are skipped where Galera is not
 * installed.
 * <p>Nodes are numbered from 0. Each node's data source talks MariaDB's own driver, mariadb-java-client, with its
 * default settings; {@link #checkingDataSource} reads with {@code wsrep_sync_wait=1}, so that it sees every write
 * the cluster committed before the read, whichever node committed it.
 */
public final class GaleraCluster {

	/** The Galera library of Debian's galera-4 package. */
	private static final List<Path> PROVIDERS = List.of(Path.of("/usr/lib/galera/libgalera_smm.so"),
			Path.of("/usr/lib/libgalera_smm.so"));

	private static final int NODES = 3;

	private static @Nullable GaleraCluster shared;

	private final Path directory;

	private final List<Node> nodes = new ArrayList<>();

	private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();

	private @Nullable Path provider;

	private @Nullable String clusterAddress;

	private boolean root;

	private GaleraCluster(Path directory) {
		this.directory = directory;
	}

	/**
	 * The cluster of this JVM, started on first use; the calling test is skipped where Galera is not installed.
	 * @return the running cluster
	 */
	public static synchronized GaleraCluster shared() {
		Path provider = PROVIDERS.stream().filter(Files::isRegularFile).findFirst().orElse(null);
		assumeTrue(provider != null && Files.isExecutable(Path.of("/usr/sbin/mariadbd"))
				&& Files.isExecutable(Path.of("/usr/bin/mariadb-install-db")) && Files.isExecutable(Path.of("/usr/bin/rsync")),
				"MariaDB Galera (mariadb-server, galera-4, rsync) is not installed");
		if (shared == null) {
			stopOrphans();
			try {
				GaleraCluster cluster = new GaleraCluster(Files.createTempDirectory("galera-"));
				Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "galera-cluster-stop"));
				cluster.start(provider);
				shared = cluster;
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return shared;
	}

	/**
	 * Stop the nodes of clusters whose JVM died without stopping them (killed, so its shutdown hook did not run): they
	 * would hold memory and ports. They are recognised by their data directory, a temporary one named as this class
	 * names it, and by their parent being gone.
	 */
	private static void stopOrphans() {
		String prefix = "--datadir=" + Path.of(System.getProperty("java.io.tmpdir")).resolve("galera-");
		ProcessHandle.allProcesses()
			.filter((process) -> process.info().arguments().stream().flatMap(java.util.Arrays::stream)
				.anyMatch((argument) -> argument.startsWith(prefix)))
			.filter((process) -> process.parent().map((parent) -> parent.pid() == 1 || !parent.isAlive()).orElse(true))
			.forEach(ProcessHandle::destroyForcibly);
	}

	/** How many nodes the cluster has. */
	public int size() {
		return this.nodes.size();
	}

	/**
	 * A JDBC URL of the database {@code test} on several nodes, in order, through mariadb-java-client's sequential
	 * failover: a connection goes to the first node that answers, as an application configured with the cluster's
	 * nodes connects.
	 * @param nodes the nodes, in the order to try them
	 * @return the URL
	 */
	public String failoverUrl(int... nodes) {
		return "jdbc:mariadb:sequential://" + String.join(",", java.util.Arrays.stream(nodes)
			.mapToObj((node) -> "127.0.0.1:" + this.nodes.get(node).port())
			.toList()) + "/test";
	}

	/**
	 * Kill a node with SIGKILL; the others go on as a cluster (a majority of three).
	 * @param node the node
	 */
	public synchronized void kill(int node) {
		this.nodes.get(node).kill();
	}

	/**
	 * Start a killed node again; returns once it rejoined the cluster and caught up (a state transfer).
	 * @param node the node
	 */
	public synchronized void restart(int node) {
		Node restarted = this.nodes.get(node);
		try {
			restarted.start(java.util.Objects.requireNonNull(this.provider),
					java.util.Objects.requireNonNull(this.clusterAddress), this.root, false);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
			.failFast("node " + node + " exited: " + restarted.logTail(), () -> !restarted.alive())
			.until(() -> restarted.synced(NODES));
	}

	/** A JDBC URL of a node's database {@code test}, through mariadb-java-client. */
	public String url(int node) {
		return "jdbc:mariadb://127.0.0.1:" + this.nodes.get(node).port() + "/test";
	}

	/**
	 * A pooled data source on a node, through mariadb-java-client with the URL's extra options (may be empty); one
	 * pool per node and options in the JVM.
	 */
	public DataSource dataSource(int node, String options) {
		return pool(url(node) + (options.isEmpty() ? "" : "?" + options), null);
	}

	/** A pooled data source on a node whose reads wait until the node applied every write the cluster committed. */
	public DataSource checkingDataSource(int node) {
		return pool(url(node), "SET SESSION wsrep_sync_wait = 1");
	}

	private DataSource pool(String url, @Nullable String initSql) {
		return this.pools.computeIfAbsent(url + " " + initSql, (key) -> {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(url);
			config.setUsername("root");
			config.setPassword("");
			config.setMaximumPoolSize(12);
			if (initSql != null) {
				config.setConnectionInitSql(initSql);
			}
			return new HikariDataSource(config);
		});
	}

	private void start(Path provider) throws IOException {
		boolean root = "root".equals(System.getProperty("user.name"));
		this.provider = provider;
		this.root = root;
		if (root) {
			setOwner(this.directory);
		}
		List<Integer> gcommPorts = new ArrayList<>();
		for (int i = 0; i < NODES; i++) {
			this.nodes.add(new Node(i, this.directory.resolve("node" + i), freePort(), freePort(), freePort(), freePort()));
			gcommPorts.add(this.nodes.get(i).gcommPort());
		}
		String clusterAddress = "gcomm://" + String.join(",", gcommPorts.stream().map((port) -> "127.0.0.1:" + port).toList());
		this.clusterAddress = clusterAddress;
		for (Node node : this.nodes) {
			node.install(root);
		}
		this.nodes.get(0).start(provider, clusterAddress, root, true);
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
			.failFast("node 0 exited", () -> !this.nodes.get(0).alive())
			.until(() -> this.nodes.get(0).answers());
		execute(0, "CREATE DATABASE IF NOT EXISTS test");
		for (Node node : this.nodes.subList(1, NODES)) {
			node.start(provider, clusterAddress, root, false);
		}
		for (Node node : this.nodes) {
			await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
				.failFast("node " + node.index() + " exited: " + node.logTail(), () -> !node.alive())
				.until(() -> node.synced(NODES));
		}
	}

	/** Run a statement on a node, outside any transaction and without a default database. */
	public void execute(int node, String sql) {
		try (Connection connection = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + this.nodes.get(node).port()
				+ "/", "root", "");
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + " failed on node " + node, ex);
		}
	}

	private synchronized void stop() {
		this.pools.values().forEach(HikariDataSource::close);
		for (Node node : this.nodes) {
			node.kill();
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// left in the temporary directory
		}
	}

	private static void setOwner(Path path) throws IOException {
		UserPrincipal mysql = path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("mysql");
		Files.setOwner(path, mysql);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	/** One node: its data directory and ports (SQL, group communication, incremental and snapshot state transfer). */
	private static final class Node {

		private final int index;

		private final Path directory;

		private final int port;

		private final int gcommPort;

		private final int istPort;

		private final int sstPort;

		private @Nullable Process process;

		Node(int index, Path directory, int port, int gcommPort, int istPort, int sstPort) {
			this.index = index;
			this.directory = directory;
			this.port = port;
			this.gcommPort = gcommPort;
			this.istPort = istPort;
			this.sstPort = sstPort;
		}

		int index() {
			return this.index;
		}

		int port() {
			return this.port;
		}

		int gcommPort() {
			return this.gcommPort;
		}

		void install(boolean root) throws IOException {
			Files.createDirectories(this.directory);
			if (root) {
				setOwner(this.directory);
			}
			List<String> command = new ArrayList<>(List.of("/usr/bin/mariadb-install-db", "--no-defaults",
					"--datadir=" + this.directory.resolve("data"), "--auth-root-authentication-method=normal",
					"--skip-test-db"));
			if (root) {
				command.add("--user=mysql");
			}
			run(new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("install.log").toFile()));
		}

		void start(Path provider, String clusterAddress, boolean root, boolean first) throws IOException {
			List<String> command = new ArrayList<>(List.of("/usr/sbin/mariadbd", "--no-defaults",
					"--datadir=" + this.directory.resolve("data"), "--port=" + this.port, "--bind-address=127.0.0.1",
					"--socket=" + this.directory.resolve("mariadb.sock"), "--pid-file=" + this.directory.resolve("mariadb.pid"),
					"--log-error=" + this.directory.resolve("error.log"), "--innodb-buffer-pool-size=64M",
					"--innodb-log-file-size=48M", "--max-connections=200", "--binlog-format=ROW",
					"--innodb-autoinc-lock-mode=2", "--wsrep-on=ON", "--wsrep-provider=" + provider,
					"--wsrep-cluster-address=" + clusterAddress, "--wsrep-node-address=127.0.0.1:" + this.gcommPort,
					"--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:" + this.gcommPort
							+ ";ist.recv_addr=127.0.0.1:" + this.istPort,
					"--wsrep-sst-method=rsync", "--wsrep-sst-receive-address=127.0.0.1:" + this.sstPort));
			if (root) {
				command.add("--user=mysql");
			}
			if (first) {
				command.add("--wsrep-new-cluster");
			}
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("mariadbd.out").toFile())
				.start();
		}

		boolean alive() {
			return this.process != null && this.process.isAlive();
		}

		boolean answers() {
			try (Connection connection = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + this.port + "/",
					"root", "")) {
				return connection.isValid(1);
			}
			catch (SQLException ex) {
				return false;
			}
		}

		boolean synced(int size) {
			try (Connection connection = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + this.port + "/test",
					"root", ""); Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
							+ " WHERE VARIABLE_NAME = 'WSREP_LOCAL_STATE_COMMENT'), (SELECT VARIABLE_VALUE FROM"
							+ " information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_CLUSTER_SIZE')")) {
				return rs.next() && "Synced".equals(rs.getString(1)) && String.valueOf(size).equals(rs.getString(2));
			}
			catch (SQLException ex) {
				return false;
			}
		}

		String logTail() {
			try {
				List<String> lines = Files.readAllLines(this.directory.resolve("error.log"));
				return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
			}
			catch (IOException ex) {
				return "(no error log)";
			}
		}

		void kill() {
			if (this.process != null) {
				this.process.destroyForcibly();
				try {
					this.process.waitFor(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		private static void run(ProcessBuilder builder) throws IOException {
			try {
				Process process = builder.start();
				if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
					throw new IllegalStateException("Failed: " + String.join(" ", builder.command()));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

	}

}
