package dev.idempotent.sample;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on its embedded defaults (in-process broker, H2), with a smaller stream: the demo runs while the
 * context starts and prints the reconciliation line.
 */
@SpringBootTest(properties = { "ledger.events=600", "ledger.resend-ratio=0.1" })
@ExtendWith(OutputCaptureExtension.class)
class LedgerApplicationTest {

	private static final Pattern LINE = Pattern.compile("RECONCILIATION events=(\\d+) deliveries=(\\d+) hits=(\\d+)"
			+ " ledger_rows=(\\d+) double_credits=(\\d+) missing=(\\d+) events_out=(\\d+) events_out_missing=(\\d+)"
			+ " events_out_double=(\\d+) events_out_records=(\\d+)");

	@Test
	void theDemoCreditsEveryOrderOnceThroughResendsAndAReplay(CapturedOutput output) {
		Matcher line = LINE.matcher(output.getOut());
		assertThat(line.find()).as("reconciliation line in:%n%s", output.getOut()).isTrue();
		long events = Long.parseLong(line.group(1));
		long deliveries = Long.parseLong(line.group(2));
		long hits = Long.parseLong(line.group(3));
		assertThat(events).isEqualTo(600);
		assertThat(deliveries).as("every record twice: once, then in the replay").isGreaterThan(2 * events).isEven();
		assertThat(hits).as("re-sends plus the whole replay").isEqualTo(deliveries - events);
		assertThat(Long.parseLong(line.group(4))).as("ledger_rows").isEqualTo(events);
		assertThat(line.group(5)).as("double_credits").isEqualTo("0");
		assertThat(line.group(6)).as("missing").isEqualTo("0");
		assertThat(Long.parseLong(line.group(7))).as("events_out: one ledger-credited event per order").isEqualTo(events);
		assertThat(line.group(8)).as("events_out_missing").isEqualTo("0");
		assertThat(line.group(9)).as("events_out_double: no order under two idempotency keys").isEqualTo("0");
		assertThat(Long.parseLong(line.group(10))).as("events_out_records: the first sends plus each hit's re-send")
			.isEqualTo(events + hits);
		assertThat(output.getOut()).as("the declared ledger audit, over the whole table").containsPattern(
				"(?m)^AUDIT ledger duplicates=0 sample=\\[\\] took=\\d+ms$");
		assertThat(line.start()).isLessThan(output.getOut().indexOf("AUDIT ledger"));
	}

}
