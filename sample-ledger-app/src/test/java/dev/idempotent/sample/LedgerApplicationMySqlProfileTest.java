package dev.idempotent.sample;

import java.sql.Connection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code mysql} profile against the MariaDB test database (127.0.0.1:3306, or
 * {@code LEDGER_DB_URL}), with bootstrap servers pointing at a broker the test starts, as they would point at a
 * real cluster.
 */
@SpringBootTest(properties = { "ledger.events=400", "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}" })
@ActiveProfiles("mysql")
@EmbeddedKafka(partitions = 3)
@ExtendWith(OutputCaptureExtension.class)
class LedgerApplicationMySqlProfileTest {

	@Autowired
	DataSource dataSource;

	@Test
	void theDemoReconcilesOnARealDatabase(CapturedOutput output) throws Exception {
		Matcher line = Pattern.compile("RECONCILIATION events=400 deliveries=\\d+ hits=\\d+ ledger_rows=400"
				+ " double_credits=0 missing=0 events_out=400 events_out_missing=0 events_out_double=0").matcher(output.getOut());
		assertThat(line.find()).as("reconciliation line in:%n%s", output.getOut()).isTrue();
		assertThat(output.getOut()).containsPattern("(?m)^AUDIT ledger duplicates=\\d+ sample=\\[.*\\] took=\\d+ms$");
		try (Connection connection = this.dataSource.getConnection()) {
			assertThat(connection.getMetaData().getURL()).startsWith("jdbc:mysql://");
		}
	}

}
