package dev.idempotent.claim;

import java.io.IOException;
import java.time.Clock;
import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.KeyValidator;
import dev.idempotent.metrics.MicrometerClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The programmatic API on MariaDB, with the same metrics as the listeners. */
class IdempotentTemplateTest {

	private final DataSource dataSource = TestDatabases.mariadb();

	private final TableName table = TestDatabases.createClaimTable(this.dataSource, SqlDialect.MARIADB);

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final MicrometerClaimListener metrics = new MicrometerClaimListener(this.meters);

	private final IdempotentTemplate template = new IdempotentTemplate(
			new TransactionalClaimExecutor(new JdbcClaimStore(this.dataSource, this.table, SqlDialect.MARIADB,
					Clock.systemUTC()), new DataSourceTransactionManager(this.dataSource), this.metrics, 3),
			new KeyValidator(KeyValidator.DEFAULT_MAX_LENGTH), this.metrics);

	private final String scope = "http-" + UUID.randomUUID();

	@AfterEach
	void dropTable() {
		TestDatabases.drop(this.dataSource, this.table.value());
	}

	@Test
	void runsTheCallbackOncePerKeyAndSaysWhichHappened() {
		UUID key = UUID.randomUUID();
		ClaimOutcome<String> first = this.template.execute(this.scope, key, () -> "receipt-1");
		ClaimOutcome<String> second = this.template.execute(this.scope, key, () -> "receipt-2");

		assertThat(first).isEqualTo(new ClaimOutcome.Processed<>("receipt-1", false));
		assertThat(second).isInstanceOfSatisfying(ClaimOutcome.Skipped.class,
				(skipped) -> assertThat(skipped.hit().status()).isEqualTo(ClaimStatus.SUCCEEDED));
		assertThat(count(MicrometerClaimListener.CLAIMED)).isEqualTo(1);
		assertThat(count(MicrometerClaimListener.HIT)).isEqualTo(1);
	}

	@Test
	void rejectsABadKeyAndCountsIt() {
		assertThatThrownBy(() -> this.template.execute(this.scope, " ", () -> "never"))
			.isInstanceOf(InvalidIdempotencyKeyException.class);
		assertThat(count(MicrometerClaimListener.REJECTED)).isEqualTo(1);
	}

	@Test
	void aCheckedExceptionRollsBackAndIsWrapped() {
		assertThatThrownBy(() -> this.template.execute(this.scope, "order-1", () -> {
			new JdbcTemplate(this.dataSource).update("UPDATE " + this.table + " SET attempts = 99");
			throw new IOException("remote down");
		})).isInstanceOf(IdempotentTemplate.ClaimedWorkException.class).hasCauseInstanceOf(IOException.class);
		assertThat(new JdbcTemplate(this.dataSource).queryForObject("SELECT COUNT(*) FROM " + this.table, Integer.class))
			.isZero();
		assertThat(this.template.execute(this.scope, "order-1", () -> "retried")).isInstanceOf(ClaimOutcome.Processed.class);
	}

	private double count(String outcome) {
		return this.meters.counter(MicrometerClaimListener.CLAIMS, "scope", this.scope, "outcome", outcome).count();
	}

}
