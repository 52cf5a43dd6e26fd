package dev.idempotent.it.stacks;

import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.it.KafkaTestSupport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Data JPA / Hibernate 7 with {@link JpaTransactionManager}: the claim's JDBC statements and Hibernate's
 * flush run in one transaction on one connection; a unique violation raised only at commit (Hibernate's flush)
 * is a failure of the record, never a hit.
 */
@SpringBootTest(classes = JpaStackApplication.class, properties = { "it.stack=jpa",
		"spring.jpa.hibernate.ddl-auto=none", "spring.jpa.open-in-view=false",
		"spring.autoconfigure.exclude=org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration,"
				+ "org.mybatis.spring.boot.autoconfigure.MybatisLanguageDriverAutoConfiguration" })
@EmbeddedKafka(partitions = 1, topics = { PaymentListener.TOPIC, AbstractDataLayerIT.DLT })
abstract class AbstractJpaStackIT extends AbstractDataLayerIT {

	@Autowired
	PlatformTransactionManager transactionManager;

	@Autowired
	TransactionalClaimExecutor executor;

	@Autowired
	FailureRecorder failureRecorder;

	@Autowired
	JpaStackApplication.JpaPaymentWriter writer;

	@Test
	void theClaimsRunOnTheJpaTransactionManagerAndOnHibernatesConnection() throws Exception {
		assertThat(this.transactionManager).isInstanceOf(JpaTransactionManager.class);
		assertThat(ReflectionTestUtils.getField(this.executor, "transactionManager")).isSameAs(this.transactionManager);
		Object failures = ReflectionTestUtils.getField(this.failureRecorder, "transaction");
		assertThat(failures).isNotNull();
		assertThat(ReflectionTestUtils.getField(failures, "transactionManager")).isSameAs(this.transactionManager);
		String key = RUN + "-connection";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(PaymentListener.TOPIC, key, this.group + "-ref-connection|ok");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, key)));
		}
		assertThat(this.writer.sharedConnection()).isTrue();
	}

}
