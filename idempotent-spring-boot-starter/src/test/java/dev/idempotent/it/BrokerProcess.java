package dev.idempotent.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Kafka broker (KRaft, broker and controller in one) in its own JVM, started from the {@code kafka_2.13} jars on the
 * test class path, so that a test can kill it with SIGKILL and start it again on the same log directory and port:
 * alone ({@link #start}, replication factors 1), or as one node of a cluster ({@link #startCluster}: every node a
 * voter of the controller quorum, internal topics replicated to 3 with {@code min.insync.replicas=2}).
 */
final class BrokerProcess implements AutoCloseable {

	private final Path directory;

	private final int port;

	private Process process;

	private BrokerProcess(Path directory, int port) {
		this.directory = directory;
		this.port = port;
	}

	/** Format a fresh log directory and start a single broker. */
	static BrokerProcess start(Path directory) throws Exception {
		return startCluster(directory, 1).get(0);
	}

	/**
	 * Format fresh log directories under {@code directory} (one per node) and start a cluster of {@code nodes} brokers;
	 * returns once each accepts connections. Close each to stop the cluster.
	 */
	static List<BrokerProcess> startCluster(Path directory, int nodes) throws Exception {
		List<Integer> ports = new java.util.ArrayList<>();
		List<String> voters = new java.util.ArrayList<>();
		List<Integer> controllerPorts = new java.util.ArrayList<>();
		for (int node = 1; node <= nodes; node++) {
			ports.add(freePort());
			controllerPorts.add(freePort());
			voters.add(node + "@127.0.0.1:" + controllerPorts.get(node - 1));
		}
		int replicas = Math.min(nodes, 3);
		String clusterId = Uuid.randomUuid().toString();
		List<BrokerProcess> brokers = new java.util.ArrayList<>();
		for (int node = 1; node <= nodes; node++) {
			Path home = (nodes == 1) ? directory : directory.resolve("node-" + node);
			int port = ports.get(node - 1);
			int controllerPort = controllerPorts.get(node - 1);
			Files.createDirectories(home);
			Files.writeString(home.resolve("server.properties"), String.join("\n", "process.roles=broker,controller",
					"node.id=" + node, "controller.quorum.voters=" + String.join(",", voters),
					"listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
					"advertised.listeners=PLAINTEXT://127.0.0.1:" + port, "controller.listener.names=CONTROLLER",
					"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
					"inter.broker.listener.name=PLAINTEXT", "log.dirs=" + home.resolve("logs"),
					"offsets.topic.replication.factor=" + replicas, "offsets.topic.num.partitions=1",
					"transaction.state.log.replication.factor=" + replicas,
					"transaction.state.log.min.isr=" + Math.min(replicas, 2), "min.insync.replicas=" + Math.min(replicas, 2),
					"default.replication.factor=" + replicas, "group.initial.rebalance.delay.ms=0",
					"broker.heartbeat.interval.ms=1000", "broker.session.timeout.ms=6000", "num.partitions=2", ""));
			Process format = java("kafka.tools.StorageTool", "format", "-t", clusterId, "-c",
					home.resolve("server.properties").toString()).start();
			assertThat(format.waitFor(60, TimeUnit.SECONDS)).isTrue();
			assertThat(format.exitValue()).as("kafka-storage format").isZero();
			brokers.add(new BrokerProcess(home, port));
		}
		for (BrokerProcess broker : brokers) {
			broker.process = broker.launch();
		}
		for (BrokerProcess broker : brokers) {
			broker.awaitAccepting();
		}
		return brokers;
	}

	String bootstrapServers() {
		return "127.0.0.1:" + this.port;
	}

	/** Kill the broker with SIGKILL. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		assertThat(this.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
	}

	/** Start the broker again on its log directory. */
	void restart() throws IOException {
		startProcess();
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process != null && this.process.isAlive()) {
			this.process.destroyForcibly();
			this.process.waitFor(30, TimeUnit.SECONDS);
		}
	}

	private void startProcess() throws IOException {
		this.process = launch();
		awaitAccepting();
	}

	private Process launch() throws IOException {
		return java("kafka.Kafka", this.directory.resolve("server.properties").toString())
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.directory.resolve("broker.log").toFile()))
			.start();
	}

	private void awaitAccepting() {
		await().atMost(KafkaTestSupport.timeout())
			.failFast("broker exited", () -> !this.process.isAlive())
			.until(this::accepting);
	}

	private boolean accepting() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static ProcessBuilder java(String mainClass, String... arguments) {
		List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
			.toString(), "-cp", System.getProperty("java.class.path"), "-Xmx512m", mainClass));
		command.addAll(List.of(arguments));
		return new ProcessBuilder(command).redirectErrorStream(true);
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
