package dev.idempotent.it.stacks;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;

/**
 * MyBatis ({@code mybatis-spring-boot-starter}, annotated mapper interfaces): a mapper's writes join the claim's
 * transaction, and a business unique violation (MyBatis translates it to a {@code DuplicateKeyException}) is a
 * failure of the record, never a hit.
 */
@SpringBootTest(classes = MyBatisStackApplication.class, properties = { "it.stack=mybatis",
		"spring.autoconfigure.exclude=org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
				+ "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration,"
				+ "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration,"
				+ "org.springframework.boot.autoconfigure.data.jpa.JpaRepositoriesAutoConfiguration" })
@EmbeddedKafka(partitions = 1, topics = { PaymentListener.TOPIC, AbstractDataLayerIT.DLT })
abstract class AbstractMyBatisStackIT extends AbstractDataLayerIT {

}
