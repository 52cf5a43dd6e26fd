package dev.idempotent.it.stacks;

import javax.sql.DataSource;

import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.it.KafkaTestSupport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two DataSources, the business one {@code @Primary}: the claims go to the primary database, in one
 * transaction with the business write; what the listener writes to the second DataSource (here in a
 * transaction of that DataSource's own manager) commits on its own, outside the claim, on every attempt.
 */
@SpringBootTest(classes = TwoDataSourcesStackApplication.class)
@EmbeddedKafka(partitions = 1, topics = TwoDataSourcesStackApplication.TOPIC)
abstract class AbstractTwoDataSourcesStackIT extends AbstractStackIT {

	static final String TOPIC = TwoDataSourcesStackApplication.TOPIC;

	@Autowired
	TwoDataSourcesStackApplication.AuditingListener listener;

	@Autowired
	TransactionalClaimExecutor executor;

	@Autowired
	DataSourceTransactionManager transactionManager;

	@Autowired
	DataSource businessDataSource;

	@Autowired
	@Qualifier("auditDataSource")
	DataSource auditDataSource;

	@Value("${it.run}-twods")
	String group;

	@Test
	void theClaimsGoToThePrimaryDatabaseInOneTransactionWithTheBusinessWriteAndAReplayIsAHit() throws Exception {
		assertThat(this.transactionManager.getDataSource()).isSameAs(this.businessDataSource)
			.isNotSameAs(this.auditDataSource);
		assertThat(ReflectionTestUtils.getField(this.executor, "transactionManager")).isSameAs(this.transactionManager);
		String key = RUN + "-two-ok";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(TOPIC, key, "ok");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, key)));
			long hitsBefore = hits(this.group);
			kafka.send(TOPIC, key, "ok");
			await().atMost(KafkaTestSupport.timeout()).until(() -> hits(this.group) - hitsBefore == 1);
		}
		assertThat(this.payments.rows(this.group, key)).isOne();
		assertThat(this.listener.auditLines(key)).isOne();
		assertThat(this.listener.auditHasTable("idempotent_claim")).isFalse();
	}

	@Test
	void aFailureRollsBackTheBusinessWriteWithTheClaimButNotTheSecondDataSourcesWrite() throws Exception {
		String key = RUN + "-two-fail-once";
		long hitsBefore = hits(this.group);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(TOPIC, key, "fail-once");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, key)));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(this.group, TOPIC) == 0);
		}
		assertThat(this.attempts.of(key)).isEqualTo(2);
		assertThat(this.payments.rows(this.group, key)).isOne();
		assertThat(hits(this.group)).isEqualTo(hitsBefore);
		// the failed attempt's audit line committed in the audit database's own transaction, outside the claim
		assertThat(this.listener.auditLines(key)).isEqualTo(2);
	}

}
