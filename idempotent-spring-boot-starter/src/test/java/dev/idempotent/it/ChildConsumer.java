package dev.idempotent.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.idempotent.key.KeyMasker;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer application in a child JVM, so that a test can kill it with SIGKILL at a chosen point. Its
 * output is collected line by line (and copied to {@code target/child-*.log}).
 */
final class ChildConsumer implements AutoCloseable {

	/** The secret of masked keys in every child (each JVM would otherwise mask with a random secret of its own). */
	static final String KEY_MASK_SECRET = "child-consumer-key-mask-secret";

	/** Masks keys as the children do, for the lines a test awaits. */
	static final KeyMasker MASKER = KeyMasker.of(true, KEY_MASK_SECRET);

	private final Process process;

	private final List<String> lines = new CopyOnWriteArrayList<>();

	private ChildConsumer(Process process, Path log) {
		this.process = process;
		Thread reader = new Thread(() -> copyOutput(log), "child-output-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Start a child consumer in a static group membership, so that a restarted one with the same instance id
	 * takes over the partitions at once instead of after the dead one's session timeout.
	 */
	static ChildConsumer start(String name, String bootstrapServers, String topic, String group, String... extraArgs)
			throws IOException {
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-cp", System.getProperty("java.class.path"), "-Xmx256m", "-XX:TieredStopAtLevel=1",
				"-Duser.timezone=Asia/Shanghai", Main.class.getName(), "--spring.main.banner-mode=off",
				"--spring.kafka.bootstrap-servers=" + bootstrapServers, "--it.topic=" + topic, "--it.group=" + group,
				"--spring.kafka.consumer.properties.group.instance.id=" + group + "-member",
				"--spring.kafka.consumer.properties.session.timeout.ms=10000",
				"--idempotent.key-mask-secret=" + KEY_MASK_SECRET));
		command.addAll(List.of(extraArgs));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		return new ChildConsumer(process, Path.of("target", "child-" + name + ".log"));
	}

	/** Wait until the child printed a line containing {@code text}. */
	void awaitLine(String text) {
		awaitLine(text, KafkaTestSupport.timeout());
	}

	/** Wait until the child printed a line containing {@code text}, for a child that may start slowly. */
	void awaitLine(String text, java.time.Duration timeout) {
		await().atMost(timeout)
			.failFast("child exited", () -> !this.process.isAlive())
			.until(() -> this.lines.stream().anyMatch((line) -> line.contains(text)));
	}

	/** Tell whether the child printed a line containing {@code text}. */
	boolean printed(String text) {
		return this.lines.stream().anyMatch((line) -> line.contains(text));
	}

	/** Kill the child with SIGKILL ({@link Process#destroyForcibly()} on Unix) and wait until it is gone. */
	void kill() throws InterruptedException {
		this.process.destroyForcibly();
		assertThat(this.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.process.exitValue()).isEqualTo(128 + 9);
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			this.process.destroy();
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
	}

	private void copyOutput(Path log) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
				PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				this.lines.add(line);
				out.println(line);
			}
		}
		catch (IOException ex) {
			this.lines.add("output reader failed: " + ex);
		}
	}

	/** The child's main class: the test application with the {@link GroupLedgerListener}. */
	@Configuration(proxyBeanMethods = false)
	static class Main {

		public static void main(String[] args) {
			SpringApplication.run(new Class<?>[] { ItApplication.class, Main.class }, args);
		}

		@Bean
		@ConditionalOnProperty(name = "it.mode", havingValue = "transactional", matchIfMissing = true)
		GroupLedgerListener groupLedgerListener(ItLedger ledger, Environment env) {
			return new GroupLedgerListener(ledger, env.getRequiredProperty("it.group"),
					env.getProperty("crash.before-commit-of", ""), env.getProperty("crash.after-commit-of", ""));
		}

		@Bean
		@ConditionalOnProperty(name = "it.mode", havingValue = "outputs")
		OutputsCrashListener outputsCrashListener(ItLedger ledger, KafkaTemplate<String, String> template,
				Environment env) {
			return new OutputsCrashListener(ledger, template, env.getRequiredProperty("it.group"),
					env.getRequiredProperty("it.out-topic"), env.getProperty("crash.after-commit-of", ""));
		}

		/** With Kafka transactions, Boot's JDBC transaction manager steps aside for its Kafka one: the claim needs one. */
		@Bean
		@Primary
		@ConditionalOnProperty(name = "spring.kafka.producer.transaction-id-prefix")
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		@ConditionalOnProperty(name = "it.mode", havingValue = "leased")
		LeasedGatewayListener leasedGatewayListener(JdbcTemplate jdbc, Environment env) {
			return new LeasedGatewayListener(new RemoteCalls(jdbc), env.getRequiredProperty("it.group"),
					env.getProperty("crash.in-lease-of", ""));
		}

	}

}
