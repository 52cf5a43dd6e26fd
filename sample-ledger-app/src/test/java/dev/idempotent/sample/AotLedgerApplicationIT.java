package dev.idempotent.sample;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample, AOT-processed, on the JVM: the build runs Spring Boot's {@code process-aot} before the tests (profile
 * {@code aot} in this module's POM), and this test starts the application in a child JVM with
 * {@code -Dspring.aot.enabled=true}, as a user of an AOT-processed (or native-image-bound) application would, then
 * checks and prints its RECONCILIATION line. The application context then comes from the generated initializer,
 * with no bean-definition scanning or auto-configuration conditions at run time, and the class of the proxy the
 * starter puts around the {@code @IdempotentListener} bean was generated at build time; the starter's runtime hints
 * are in the generated native-image metadata. What this does not cover: a
 * GraalVM native image (no {@code native-image} here).
 */
class AotLedgerApplicationIT {

	private static final Path CLASSES = Paths.get("target", "classes");

	private static final int EVENTS = 300;

	@Test
	void theAotProcessedApplicationReconciles() throws Exception {
		assertThat(CLASSES.resolve("dev/idempotent/sample/LedgerApplication__ApplicationContextInitializer.class"))
			.as("process-aot output; run the tests through Maven (profile 'aot' is active unless -DskipTests)")
			.exists();
		assertThat(CLASSES.resolve("dev/idempotent/sample/PaymentListener$$SpringCGLIB$$0.class"))
			.as("the @IdempotentListener proxy class, generated at build time")
			.exists();
		String metadata = nativeImageMetadata();
		assertThat(metadata).as("the starter's hints in the native-image metadata")
			.contains("\"org.postgresql.core.BaseConnection\"")
			// the JSON may escape slashes; Spring Framework 6 writes the pattern as a regular expression
			// ("\\Qdev\/idempotent\/jdbc\/schema\/schema-\\E.*\\Q.sql\\E"), 7 as a glob ("schema-*.sql")
			.containsPattern("dev\\\\?/idempotent\\\\?/jdbc\\\\?/schema\\\\?/schema-")
			.containsPattern("\"dev.idempotent.sample.PaymentListener\"[^}]*\"onPaid\"");
		Path log = Files.createTempFile("aot-ledger", ".log");
		Process process = new ProcessBuilder(javaExecutable(), "-Dspring.aot.enabled=true", "-Xmx512m", "-cp",
				classPath(), LedgerApplication.class.getName(), "--ledger.events=" + EVENTS,
				"--spring.datasource.url=jdbc:h2:mem:aot-ledger;MODE=MySQL;DB_CLOSE_DELAY=-1")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			boolean exited = process.waitFor(5, TimeUnit.MINUTES);
			String output = Files.readString(log, StandardCharsets.UTF_8);
			assertThat(exited).as("the application exited; output:%n%s", output).isTrue();
			assertThat(process.exitValue()).as("exit code; output:%n%s", output).isZero();
			assertThat(output).contains("Starting AOT-processed LedgerApplication");
			Matcher line = Pattern.compile("RECONCILIATION events=" + EVENTS + " deliveries=\\d+ hits=\\d+ ledger_rows="
					+ EVENTS + " double_credits=0 missing=0 events_out=" + EVENTS + " events_out_missing=0 events_out_double=0")
				.matcher(output);
			assertThat(line.find()).as("reconciliation line in:%n%s", output).isTrue();
			System.out.println("AOT-processed on the JVM: " + line.group());
		}
		finally {
			process.destroyForcibly();
			Files.deleteIfExists(log);
		}
	}

	/**
	 * The native-image metadata files that process-aot wrote (one reachability-metadata.json with Spring Framework
	 * 7, one file per kind of hint with Framework 6), concatenated.
	 */
	private static String nativeImageMetadata() throws IOException {
		try (Stream<Path> files = Files.walk(CLASSES.resolve("META-INF/native-image"))) {
			StringBuilder metadata = new StringBuilder();
			for (Path file : files.filter((f) -> f.toString().endsWith(".json")).sorted().toList()) {
				metadata.append(Files.readString(file)).append('\n');
			}
			return metadata.toString();
		}
	}

	private static String javaExecutable() {
		return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
	}

	/** The test class path (surefire's, as it has the application's dependencies), without the test classes. */
	private static String classPath() {
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> entries = Arrays.stream(classPath.split(File.pathSeparator))
			.filter((entry) -> !entry.endsWith("test-classes"))
			.toList();
		assertThat(entries).anyMatch((entry) -> Paths.get(entry).toAbsolutePath().normalize()
			.equals(CLASSES.toAbsolutePath().normalize()));
		return entries.stream().collect(Collectors.joining(File.pathSeparator));
	}

}
