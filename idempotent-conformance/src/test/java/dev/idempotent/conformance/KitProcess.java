package dev.idempotent.conformance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.idempotent.testsupport.TestDatabases;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the built kit jar as a user does, in its own JVM, and captures its report. The jar is built in the
 * {@code process-test-classes} phase of this module, from the packaged jars of the modules it shades: run these tests
 * with {@code verify} (and {@code -Dtest=...}), not {@code test}, which packages nothing.
 */
final class KitProcess {

	private KitProcess() {
	}

	/** A table prefix no other test uses. */
	static String uniquePrefix() {
		return "kit" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
	}

	/** Run the kit on a database with extra arguments; the password goes through the environment. */
	static Result run(TestDatabases.Connection database, String... args) throws IOException, InterruptedException {
		Path jar = jar();
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString(), "--url=" + database.url(), "--user=" + database.user()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).directory(jar.getParent().toFile()).redirectErrorStream(true);
		builder.environment().put(KitOptions.PASSWORD_VARIABLE, database.password());
		Process process = builder.start();
		byte[] output = process.getInputStream().readAllBytes();
		assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
		String report = new String(output, StandardCharsets.UTF_8);
		// kept for reading after the build: target/kit-report-<database>.txt
		Files.writeString(jar.getParent().resolve("kit-report-" + database.url().split(":")[1] + ".txt"), report);
		return new Result(process.exitValue(), report);
	}

	private static Path jar() throws IOException {
		try (Stream<Path> files = Files.list(Path.of("target"))) {
			return files.map((file) -> file.getFileName().toString())
				.filter((name) -> name.matches("idempotent-conformance-.*\\.jar")
						&& !name.matches(".*-(sources|javadoc|tests)\\.jar"))
				.map((name) -> Path.of("target", name))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("the kit jar is built before the tests (process-test-classes)"))
				.toAbsolutePath();
		}
	}

	/**
	 * What the kit did.
	 *
	 * @param exitCode its exit status
	 * @param output its report
	 */
	record Result(int exitCode, String output) {

		/** The report's lines of one status, e.g. {@code [PASS]}. */
		List<String> lines(String status) {
			return output().lines().filter((line) -> line.startsWith(status)).toList();
		}

	}

}
