package dev.idempotent.it.stacks;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;

/**
 * Spring's {@code JdbcClient} (plain {@code JdbcTemplate} is what the other end-to-end tests write with, through
 * {@code ItLedger}): its statements join the claim's transaction; a unique violation is a failure, never a hit.
 */
@SpringBootTest(classes = JdbcClientStackApplication.class, properties = "it.stack=jdbcclient")
@EmbeddedKafka(partitions = 1, topics = { PaymentListener.TOPIC, AbstractDataLayerIT.DLT })
abstract class AbstractJdbcClientStackIT extends AbstractDataLayerIT {

}
