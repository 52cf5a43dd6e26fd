package dev.idempotent.conformance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.idempotent.jdbc.SqlDialect;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kit's command line. */
class KitOptionsTest {

	@Test
	void readsTheOptionsAndThePasswordFromTheEnvironment() {
		KitOptions options = KitOptions.parse(new String[] { "--url=jdbc:postgresql://db/app", "--user=app",
				"--checks=quick", "--dialect=postgresql", "--table-prefix=conf_", "--node-url=jdbc:postgresql://db2/app",
				"--node-url=jdbc:postgresql://db3/app" }, Map.of(KitOptions.PASSWORD_VARIABLE, "s3cret"));

		assertThat(options).isEqualTo(new KitOptions("jdbc:postgresql://db/app", "app", "s3cret", "conf_",
				KitOptions.CheckSet.QUICK, SqlDialect.POSTGRESQL,
				List.of("jdbc:postgresql://db2/app", "jdbc:postgresql://db3/app")));
	}

	@Test
	void refusesAMissingUrlUnknownArgumentsAndAPrefixThatIsNoIdentifier() {
		assertThatThrownBy(() -> KitOptions.parse(new String[] { "--user=app" }, Map.of()))
			.hasMessageContaining("--url=jdbc:... is required");
		assertThatThrownBy(() -> KitOptions.parse(new String[] { "--url=jdbc:h2:mem:x", "--drop-everything" }, Map.of()))
			.hasMessageContaining("unknown arguments: --drop-everything");
		assertThatThrownBy(() -> KitOptions.parse(new String[] { "--url=jdbc:h2:mem:x", "--table-prefix=a;drop" },
				Map.of())).isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> KitOptions.parse(new String[] { "--url=jdbc:h2:mem:x", "--node-url=db2:3306" },
				Map.of())).hasMessageContaining("--node-url=jdbc:... expected");
	}

	@Test
	void badArgumentsPrintTheUsageAndExitWithTwoAndHelpWithZero() {
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);

		assertThat(ConformanceKit.run(new String[] { "--user=app" }, Map.of(), out)).isEqualTo(ConformanceKit.REFUSED);
		assertThat(ConformanceKit.run(new String[] { "--help" }, Map.of(), out)).isEqualTo(ConformanceKit.CONFORMANT);
		assertThat(output.toString(StandardCharsets.UTF_8)).contains("--url=jdbc:... is required")
			.contains("Usage: java -jar idempotent-conformance.jar");
	}

}
